#!/usr/bin/env python3
"""Issue 34's table from two runs of benchmarks/outside_race.sh: per op and size, the
fastest entry (lowest median of per-round time), ifunc's pick, the pick's time over the
fastest's (median of the per-round ratios, with the order-statistic 95% interval over
rounds, as kex's paired ratios), and whether the two runs name the same fastest.

    benchmarks/outside_table.py RUN1_DIR RUN2_DIR
"""
import json
import math
import statistics
import sys


def rounds(entry):
    return {r["round"]: r["median_ticks"] for r in entry.get("reps", []) if r.get("round")}


def ratio_interval(a, b):
    shared = sorted(set(a) & set(b))
    x = sorted(a[k] / b[k] for k in shared)
    n = len(x)
    if n < 6:
        return statistics.median(x) if x else float("nan"), None, None, n
    # ranks of the sorted values holding the median with 95% (binomial, p = 1/2)
    lo = 0
    while True:
        p = sum(math.comb(n, i) for i in range(0, lo + 1)) / 2 ** n
        if p > 0.025:
            break
        lo += 1
    return statistics.median(x), x[max(lo - 1, 0)], x[min(n - lo, n - 1)], n


def table(path, pick_of):
    doc = json.load(open(path))
    pick = doc["context"]["ifunc"][pick_of]
    by_size = {}
    for e in doc["benchmarks"]:
        if e.get("error_occurred") or not e.get("reps"):
            continue
        by_size.setdefault(e["size"], []).append(e)
    out = {}
    for size, entries in sorted(by_size.items()):
        med = {e["kernel"]: statistics.median(rounds(e).values()) for e in entries if rounds(e)}
        best = min(med, key=med.get)
        p = next(e for e in entries if e["kernel"] == "glibc/" + pick)
        w = next(e for e in entries if e["kernel"] == best)
        out[size] = (best, pick, ratio_interval(rounds(p), rounds(w)))
    return out


def human(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:g} {unit}"
        n /= 1024


def main():
    one, two = sys.argv[1], sys.argv[2]
    for op, pick_of in (("copy", "memcpy"), ("clear", "memset")):
        a, b = table(f"{one}/{op}.json", pick_of), table(f"{two}/{op}.json", pick_of)
        print(f"\n{op}: ifunc picks {a[min(a)][1]}")
        print("| size | fastest (run 1) | fastest (run 2) | pick / fastest, run 1 | pick / fastest, run 2 | same fastest |")
        print("|---|---|---|---|---|---|")
        for size in sorted(a):
            r1, r2 = a[size], b.get(size)
            def fmt(r):
                m, lo, hi, n = r[2]
                return f"{m:.2f}x [{lo:.2f}-{hi:.2f}]" if lo else f"{m:.2f}x (n={n})"
            print(f"| {human(size)} | {r1[0]} | {r2[0] if r2 else '-'} | {fmt(r1)} | {fmt(r2) if r2 else '-'} | "
                  f"{'yes' if r2 and r1[0] == r2[0] else 'no'} |")


if __name__ == "__main__":
    main()
