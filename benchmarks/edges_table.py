#!/usr/bin/env python3
"""Byte edges against overlap edges in kex results files of benchmarks/edges.json.

Usage: edges_table.py RESULTS.json...  (one table per file; then one line per op and size
over all the files: each file's median GB/s and paired ratio, lowest..highest).

Per op and size: the GB/s of copy|clear/avx512/unroll:256/scratch:4/t/fwd with byte edges,
with overlap edges and of libc; the time ratio bytes/overlap (> 1: overlap faster) and
libc/overlap, each the median over the paired rounds of the per-round ratios with its
distribution-free 95% interval (the ranks kex's own paired ratios use,
src/model/paired.hpp).
"""
import json
import statistics
import sys
from math import comb

SIZES = (512, 608, 1000, 1024, 1300, 4097, 26400)
KERNELS = (("copy", "copy/avx512/unroll:256/scratch:4/t/fwd", "memcpy"),
           ("clear", "clear/avx512/unroll:256/scratch:4/t/fwd", "memset"))


def interval_ranks(n):
    """1-based ranks (lo, hi) of the sorted values bounding a 95% interval of the median."""
    acc = 0.0
    for k in range(n + 1):
        acc += comb(n, k) / 2 ** n
        if acc > 0.025:
            lo = max(k, 1)
            return lo, n + 1 - lo
    return 1, n


def paired(a, b):
    """Median and 95% interval of a's time over b's, per round both were measured in."""
    ra = {r["round"]: r["median_ticks"] for r in a["reps"]}
    rb = {r["round"]: r["median_ticks"] for r in b["reps"]}
    rs = sorted(ra[k] / rb[k] for k in ra if k in rb)
    lo, hi = interval_ranks(len(rs))
    return statistics.median(rs), rs[lo - 1], rs[hi - 1]


def rows(path):
    by = {e["name"]: e for e in json.load(open(path))["benchmarks"]}
    for op, kernel, libc in KERNELS:
        for n in SIZES:
            b, o, l = by[f"{kernel}/{n}"], by[f"{kernel}/overlap/{n}"], by[f"{libc}/{n}"]
            yield op, n, [e["stats"]["gbps"] for e in (b, o, l)], paired(b, o), paired(l, o)


def main(files):
    per = {}
    for f in files:
        print(f"== {f}")
        print(f"{'op':5} {'size':>6} {'bytes':>7} {'overlap':>7} {'libc':>7}  {'bytes/overlap [95%]':>24}  {'libc/overlap [95%]':>24}")
        for op, n, g, s, v in rows(f):
            print(f"{op:5} {n:>6} {g[0]:>7.1f} {g[1]:>7.1f} {g[2]:>7.1f}  {s[0]:>7.3f} [{s[1]:.3f}-{s[2]:.3f}]  "
                  f"{v[0]:>7.3f} [{v[1]:.3f}-{v[2]:.3f}]")
            per.setdefault((op, n), []).append((g, s[0], v[0]))
    if len(files) > 1:
        print(f"== {len(files)} runs: lowest..highest of each run's figure")
        for (op, n), xs in per.items():
            span = lambda v: f"{min(v):.3f}..{max(v):.3f}" if isinstance(v[0], float) and v[0] < 10 else f"{min(v):.0f}..{max(v):.0f}"
            print(f"{op:5} {n:>6} bytes {span([x[0][0] for x in xs]):>9} overlap {span([x[0][1] for x in xs]):>9} "
                  f"libc {span([x[0][2] for x in xs]):>9}  bytes/overlap {span([x[1] for x in xs])}  "
                  f"libc/overlap {span([x[2] for x in xs])}")


if __name__ == "__main__":
    main(sys.argv[1:])
