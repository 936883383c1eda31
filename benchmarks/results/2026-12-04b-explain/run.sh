#!/bin/sh
# one explain pass: the default run's winners at their sizes, then the ceilings and the C reference
set -e
K=${KEX:-build/kex}
O=$1; mkdir -p $O; cd $O
date -u +%T > start.txt; uptime > load.txt
$K explain copy/avx512/unroll:256/scratch:4/t/fwd clear/avx512/unroll:256/scratch:4/t/fwd --sizes 4KiB --no-ceilings -o ex-4k.json > ex-4k.txt 2>/dev/null
$K explain copy/string/unroll:8/t/fwd clear/string/unroll:1/t/fwd --sizes 1MiB --no-ceilings -o ex-1m.json > ex-1m.txt 2>/dev/null
$K explain copy/avx512/unroll:256/scratch:4/nt/fwd clear/avx/unroll:128/scratch:4/t/fwd --sizes 64MiB --no-ceilings -o ex-64m.json > ex-64m.txt 2>/dev/null
$K explain copy/sse/unroll:256 copy/avx/unroll:256 copy/avx512/unroll:256 --sizes 4KiB --repetitions 5 --no-ceilings -o mca.json > mca.txt 2>/dev/null
$K ceilings --cpu 1 -o ceil.json > ceil.txt 2>/dev/null
${REF:-./ceilings_ref} 1 31 24576 524288 67108864 268435456 > ref-O2.txt
${REF_O3:-./ceilings_ref_o3} 1 31 24576 524288 67108864 268435456 > ref-O3native.txt
uptime >> load.txt; date -u +%T > end.txt
