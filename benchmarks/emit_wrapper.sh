#!/usr/bin/env bash
# Issue 51's benchmark of the emitted wrapper: the same kernel emitted by `kex emit --format gas
# --dispatch K` (rax = dst and a tail jump into the code) and in the form kex emitted before
# (kex_memcpy jumping to the wrapper, which calls the code with dst pushed: push/call/pop), both
# built as shared objects and raced with --load beside libc's memcpy in paired rounds.
# Usage: benchmarks/emit_wrapper.sh [KERNEL] [RUNS]   (from the project root, after the build)
# Prints per run and size (8, 64, 256 B, then the Memcpy_Fleet stream at L2): ns per call of
# each (the timed loop's own cost inside) and the old form's time over the new one's.
set -eu
kernel=${1:-copy/avx512/unroll:64/scratch:1/t/fwd/overlap/small:mask/rep:64}
runs=${2:-3}
kex=$PWD/build/kex
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$kex" emit --format gas --dispatch "$kernel" -o "$out/new.s"
python3 - "$out/new.s" "$out/old.s" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
jump = re.search(r"\tmov rax, rdi\n\tjmp (\w+)_kernel\n", s)
if not jump:
    sys.exit("the emitted wrapper has no tail jump: nothing to compare")
sym = jump.group(1)
s = s.replace(jump.group(0), f"\tpush rdi\n\tcall {sym}_kernel\n\tpop rax\n\tret\n", 1)
start = s.index("kex_memcpy:\n")
s = s[:start] + f"kex_memcpy:\n\tendbr64\n\tjmp {sym}\n" + s[s.index("\t.size kex_memcpy", start):]
s = re.sub(r"\t\.pushsection \.data\n\.Lkex_memcpy_usable:\n\t\.byte 0\n\t\.popsection\n", "", s)
open(sys.argv[2], "w").write(s)
PY
cc -shared -o "$out/new.so" "$out/new.s"
cc -shared -o "$out/old.so" "$out/old.s"
for r in $(seq "$runs"); do
  for what in "--sizes 8,64,256" "--stream Memcpy_Fleet --footprint L2"; do
    echo "run $r, $(uptime | sed 's/.*load/load/')"
    # shellcheck disable=SC2086
    "$kex" run -q --load "new=$out/new.so:kex_memcpy:copy" --load "old=$out/old.so:kex_memcpy:copy" lib/new lib/old memcpy \
      $what --repetitions 20 --no-plot --no-report --force -o "$out/r.json" > /dev/null
    python3 - "$out/r.json" "${what%% *}" <<'PY'
import json, statistics, sys
by = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    stream = b["params"].get("stream")
    if bool(stream) == (sys.argv[2] == "--stream"):
        by.setdefault(stream or b["size"], {})[b["kernel"]] = b
for key, ks in by.items():
    if not {"lib/new", "lib/old", "memcpy"} <= ks.keys() or (not isinstance(key, str) and key not in (8, 64, 256)):
        continue
    calls = ks["lib/new"]["params"].get("stream_calls", 1) if isinstance(key, str) else 1
    rounds = lambda b: {x["round"]: x["median_ticks"] for x in b["reps"] if x.get("round")}
    old, new = rounds(ks["lib/old"]), rounds(ks["lib/new"])
    ratios = sorted(old[k] / new[k] for k in old if k in new)
    ns = {k: ks[k]["real_time"] / calls for k in ("lib/new", "lib/old", "memcpy")}
    print(f"  {key}: new {ns['lib/new']:.2f} ns, old {ns['lib/old']:.2f} ns, memcpy {ns['memcpy']:.2f} ns; "
          f"old/new {statistics.median(ratios):.3f} (rounds {len(ratios)}, p20-p80 "
          f"{ratios[len(ratios) // 5]:.3f}-{ratios[-len(ratios) // 5 - 1]:.3f}); "
          f"loop's own cost {ks['lib/new']['stats'].get('harness_ns', 0) / calls:.2f} ns")
PY
  done
done
