#!/bin/sh
# $1: run label (1 or 2). One kex explain per winner at its size.
R=$1
K=/tmp/explain-fig/kex
cd /tmp/explain-fig
for pair in "copy/avx512/unroll:256/scratch:4/t/fwd 4KiB" "copy/string/unroll:8/t/fwd 1MiB" \
            "copy/avx/unroll:128/scratch:4/pf:nta@256/nt/fwd 64MiB" "clear/avx512/unroll:256/scratch:4/t/fwd 4KiB" \
            "clear/string/unroll:1/t/fwd 1MiB" "clear/avx512/unroll:256/scratch:4/nt/fwd 64MiB"; do
  set -- $pair
  f=run$R-$(echo $1 | tr '/:@' '___')-$2.json
  $K explain $1 --sizes $2 -o $f --force > $f.txt 2>/dev/null
  echo "== $(date -u +%H:%M:%S) $1 at $2" ; cat $f.txt
done
