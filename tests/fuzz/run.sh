#!/usr/bin/env bash
# Fuzzes config, kernel-name and point-name parsing and (differentially) the
# numbers of names and configs with libFuzzer for SECONDS per target (default
# 60): builds build-fuzz/ with clang++ (-DKEX_FUZZ=ON), seeds a corpus from
# configs/, tests/fuzz/seeds/ and whatever earlier runs found, and runs each target.
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
cmake --build "$build" -j "$jobs" --target fuzz_config fuzz_spec_name fuzz_numbers fuzz_point_name

corpus=$build/corpus
mkdir -p "$corpus/config" "$corpus/names" "$corpus/numbers" "$corpus/points" "$build/artifacts"
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
i=0
for n in 256 -256 0 -0 0x100 0100 --64 +256 " 256" 1048577 9223372036854775808 -9223372036854775808; do
  printf '%s' "$n" >"$corpus/numbers/seed-$i"
  i=$((i + 1))
done

status=0
for t in config:config names:spec_name numbers:numbers points:point_name; do
  dir=${t%%:*} target=fuzz_${t#*:}
  echo "== $target: $seconds s"
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: 2 GiB is a memory blow-up.
  dict=$root/tests/fuzz/$dir.dict
  [ -f "$dict" ] || dict=$root/tests/fuzz/names.dict
  if ! "$build/$target" "$corpus/$dir" -dict="$dict" -max_total_time="$seconds" \
      -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$target-" 2>"$build/$target.log"; then
    status=1
    grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$build/$target.log" | head -20
  fi
  grep -E "^stat::(number_of_executed_units|new_units_added|peak_rss_mb)" "$build/$target.log" || true
done
exit $status
