#!/usr/bin/env bash
# Issue 50's benchmark of the call path: kex's time per call for libc's memcpy against a plain
# C loop of back-to-back calls (benchmarks/call_path.c), alternated in one window, ROUNDS times.
# Usage: benchmarks/call_path.sh [ROUNDS] [SIZES]   (from the project root, after make run)
# Prints per size and run: kex's memcpy (median over its paired rounds, harness cost inside),
# the empty routine's time in the same rounds, and the C loop's median and best.
set -eu
rounds=${1:-3}
sizes=${2:-8,64,256,4096}
kex=./build/kex
out=$(mktemp -d)
cc -O2 -fno-builtin -o "$out/call_path" benchmarks/call_path.c
cpu=$($kex info --json | python3 -c 'import json,sys; print(json.load(sys.stdin).get("cache_cpu", 1))' 2>/dev/null || echo 1)
printf '%-4s %8s %12s %12s %12s %12s %8s\n' run size kex_ns harness_ns c_median c_best kex/c
for r in $(seq "$rounds"); do
  $kex run memcpy --sizes "$sizes" --repetitions 20 -q --force --no-plot --no-report -o "$out/k.json"
  "$out/call_path" -c "$cpu" -r 201 ${sizes//,/ } > "$out/c.txt"
  python3 - "$out/k.json" "$out/c.txt" "$r" <<'PY'
import json, sys
k = {b["size"]: b for b in json.load(open(sys.argv[1]))["benchmarks"]}
for line in open(sys.argv[2]):
    f = line.split()
    if not f or not f[0].isdigit():
        continue
    size, med, best = int(f[0]), float(f[1]), float(f[2])
    e = k[size]
    print(f"{sys.argv[3]:<4} {size:>8} {e['real_time']:>12.3f} {e['stats'].get('harness_ns', 0):>12.3f} {med:>12.3f} {best:>12.3f} {e['real_time']/med:>8.3f}")
PY
done
rm -rf "$out"
