#!/usr/bin/env bash
# Fuzzes config, kernel-name and point-name parsing, (differentially) the numbers
# of names and configs, the results reader, the journal reader, the plot writer and the
# object-code loader's ELF reader (objects and archives)
# with libFuzzer for SECONDS per target (default 60; TARGETS="results plot" runs only
# those): builds build-fuzz/ with clang++ (-DKEX_FUZZ=ON), seeds a corpus from
# configs/, tests/fuzz/seeds/, tests/golden/, tests/hostile/, objects assembled from
# tests/fuzz/seeds/object/*.s (and musl's members where musl-dev is installed) and
# whatever earlier runs found, and runs each target.
# Exit status 0: no finding; 1: a finding (the reproducer is in build-fuzz/artifacts/,
# rerun it with `build-fuzz/fuzz_config FILE`). Needs: clang, libclang-rt-14-dev.
set -eu
seconds=${1:-60}
case "$seconds" in ''|*[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${KEX_FUZZ_BUILD:-$root/build-fuzz}
jobs=${JOBS:-2}

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$build" -DKEX_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "${launcher[@]}" >/dev/null
all="config:config:4096 names:spec_name:4096 numbers:numbers:4096 points:point_name:4096 results:results:65536 journal:journal:65536 plot:plot:4096 object:object:65536"
selected=()
for t in $all; do
  dir=${t%%:*}
  if [ -z "${TARGETS:-}" ] || [[ " $TARGETS " == *" $dir "* ]]; then selected+=("$t"); fi
done
targets=()
for t in "${selected[@]}"; do rest=${t#*:}; targets+=("fuzz_${rest%%:*}"); done
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

corpus=$build/corpus
mkdir -p "$corpus/config" "$corpus/names" "$corpus/numbers" "$corpus/points" "$corpus/results" "$corpus/journal" \
  "$corpus/plot" "$corpus/object" "$build/artifacts"
cp "$root"/tests/golden/run.json "$root"/tests/data/*.json "$root"/tests/hostile/results/*.json "$corpus/results/"
cp "$root"/tests/fuzz/seeds/journal/* "$corpus/journal/"
cp "$root"/configs/*.json "$root"/tests/fuzz/seeds/config/*.json "$corpus/config/"
i=0
while IFS= read -r name; do
  printf '%s' "$name" >"$corpus/names/seed-$i"
  i=$((i + 1))
done <"$root/tests/fuzz/seeds/names.txt"
i=0
while IFS= read -r name; do
  printf '%s' "$name" >"$corpus/points/seed-$i"
  i=$((i + 1))
done <"$root/tests/fuzz/seeds/points.txt"
for s in "$root"/tests/fuzz/seeds/object/*.s; do
  as --64 -o "$corpus/object/$(basename "$s" .s).o" "$s"
done
(cd "$corpus/object" && ar rcs seed.a ./*.o)
musl=/usr/lib/x86_64-linux-musl/libc.a
if [ -f "$musl" ]; then
  for m in memcpy memmove memset; do ar p "$musl" $m.lo >"$corpus/object/musl-$m.lo"; done
fi
i=0
for n in 256 -256 0 -0 0x100 0100 --64 +256 " 256" 1048577 9223372036854775808 -9223372036854775808; do
  printf '%s' "$n" >"$corpus/numbers/seed-$i"
  i=$((i + 1))
done

status=0
for t in "${selected[@]}"; do
  dir=${t%%:*} rest=${t#*:}
  target=fuzz_${rest%%:*} max_len=${rest#*:}
  echo "== $target: $seconds s"
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: 2 GiB is a memory blow-up.
  dict=$root/tests/fuzz/$dir.dict
  [ -f "$dict" ] || dict=$root/tests/fuzz/names.dict
  if ! "$build/$target" "$corpus/$dir" -dict="$dict" -max_total_time="$seconds" \
      -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$target-" 2>"$build/$target.log"; then
    status=1
    grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$build/$target.log" | head -20
  fi
  grep -E "^stat::(number_of_executed_units|new_units_added|peak_rss_mb)" "$build/$target.log" || true
done
exit $status
