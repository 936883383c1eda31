#!/usr/bin/env bash
# Issue 50's benchmark: glibc's memcpy variants, musl's memcpy (Debian's musl-dev), rep movsb,
# libc's memcpy and kex's vector loops raced on the ten fleetbench memcpy streams at the L1 and
# L2 footprints, with the fixed sizes that predict each stream measured in the same run.
# Usage: benchmarks/streams.sh OUT.json   (from the project root, after make run); then
#        python3 benchmarks/streams_table.py A.json [B.json]   prints the per-stream table.
set -eu
out=${1:?usage: benchmarks/streams.sh OUT.json}
musl=/usr/lib/x86_64-linux-musl/libc.a
load=()
[ -r "$musl" ] && load=(--load "musl=$musl(memcpy.lo):memcpy")
streams=Memcpy_Fleet,Memcpy_0,Memcpy_1,Memcpy_2,Memcpy_3,Memcpy_4,Memcpy_5,Memcpy_6,Memcpy_7,Memcpy_8
./build/kex run memcpy glibc-copy rep_movsb copy/avx512/unroll:256/overlap copy/avx/unroll:256/overlap "${load[@]}" \
  --stream "$streams" --footprint L1,L2 --force --no-plot --no-report -q -o "$out"
