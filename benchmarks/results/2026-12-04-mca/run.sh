#!/bin/sh
# llvm-mca's prediction against the L1 measurement for three vector copies at unroll 256,
# 4 KiB (issue 35, "a model of the core"). Usage: run.sh KEX OUTDIR N (run number).
set -eu
KEX=$1 OUT=$2 N=$3
mkdir -p "$OUT"
date -u +%H:%M:%S > "$OUT/run$N.time"
"$KEX" explain copy/sse/unroll:256 copy/avx/unroll:256 copy/avx512/unroll:256 --sizes 4KiB --repetitions 20 \
  -o "$OUT/run$N.json" --force > "$OUT/run$N.txt" 2> "$OUT/run$N.err"
