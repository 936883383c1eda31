#!/usr/bin/env bash
# The race-back table of benchmarks/tune_streams.sh: per stream, the tune's choice and the
# stream block of `kex summary` (lib/tuned, the emitted memcpy or memset, against libc's
# function, glibc's variants and rep, ns per call with intervals, in the same rounds).
# Usage: benchmarks/tune_streams_table.sh OUTDIR
set -eu
out=${1:?usage: benchmarks/tune_streams_table.sh OUTDIR}
for t in "$out"/tune-*.json; do
  s=$(basename "$t" .json); s=${s#tune-}
  echo "== $s: tuned $(sed -n 3p "$out/tune-$s.txt" | awk '{print $2}')"
  ./build/kex summary "$out/back-$s.json" 2>/dev/null | sed -n '/^\(copy\|clear\) on stream /,/timed loop/p' 
done
