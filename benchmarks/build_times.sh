#!/usr/bin/env bash
# Build and test times of a fresh clone of this repository's HEAD, as a new engineer
# meets them (the Debian packages installed; no ccache: CCACHE_DISABLE=1). Prints one
# line per figure: `make run` to the first table, `make test` from scratch (kex built),
# a no-op rebuild, a rebuild after touching one .cpp in src/run/ and one header in
# src/model/, and with --sanitize `make sanitize` from scratch. The machine should be
# otherwise idle: one run is one sample, quote several.
# Usage: benchmarks/build_times.sh [--sanitize]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$root" "$work/k"
cd "$work/k"
export CCACHE_DISABLE=1
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f s", b - a }'; }

t=$(now)
make run 2>&1 | while IFS= read -r line; do
  case "$line" in *"fastest kernel"*) echo "first table: $(since "$t") after make run started" >&2 ;; esac
done
echo "make run (build kex, run the default sweep): $(since "$t")"
t=$(now)
make test >/dev/null 2>&1
echo "make test (tests built from scratch, kex already built, the suite run): $(since "$t")"
t=$(now)
cmake --build build -j "$(nproc)" >/dev/null
echo "no-op rebuild: $(since "$t")"
touch src/run/sweep.cpp
t=$(now)
cmake --build build -j "$(nproc)" >/dev/null
echo "rebuild after touching src/run/sweep.cpp: $(since "$t")"
touch src/model/point.hpp
t=$(now)
cmake --build build -j "$(nproc)" >/dev/null
echo "rebuild after touching src/model/point.hpp: $(since "$t")"
if [ "${1:-}" = "--sanitize" ]; then
  t=$(now)
  make sanitize >/dev/null 2>&1
  echo "make sanitize from scratch (build and tests): $(since "$t")"
fi
