#!/bin/sh
# Issue 34's benchmark: glibc's usable variants, musl (from Debian's musl-dev), rep movsb /
# rep stosb, libc as ifunc resolved it and a few of kex's own kernels, raced in the same
# paired rounds from 256 B to 64 MiB, copy then clear. Run it twice a few minutes apart
# and compare the two answers (kex compare, or the summaries side by side).
#   benchmarks/outside_race.sh OUTDIR [KEX]
# Writes OUTDIR/copy.json and OUTDIR/clear.json and prints their summaries.
set -eu
out=${1:?usage: benchmarks/outside_race.sh OUTDIR [KEX]}
kex=${2:-build/kex}
musl=/usr/lib/x86_64-linux-musl/libc.a
sizes=256,4KiB,64KiB,1MiB,16MiB,64MiB
mkdir -p "$out"
load_copy="" load_clear=""
if [ -r "$musl" ]; then
  load_copy="--load musl=$musl(memcpy.lo):memcpy"
  load_clear="--load musl=$musl(memset.lo):memset:clear"
fi
# kex's own: the default run's winners on the Zen 5 VM (AVX-512 ones are skipped, with the
# reason, on a CPU without it).
$kex run -q glibc-copy memcpy rep_movsb copy/avx512/unroll:256/scratch:4/t/fwd \
  copy/avx512/unroll:256/scratch:4/nt/fwd copy/avx/unroll:128/scratch:4/t/fwd copy/string/unroll:8/t/fwd \
  $load_copy --sizes $sizes --no-report -o "$out/copy.json" --force
$kex run -q glibc-clear memset rep_stosb clear/avx512/unroll:256/scratch:4/t/fwd \
  clear/avx512/unroll:256/scratch:4/nt/fwd clear/avx/unroll:128/scratch:4/t/fwd \
  $load_clear --sizes $sizes --no-report -o "$out/clear.json" --force
$kex summary "$out/copy.json"
$kex summary "$out/clear.json"
