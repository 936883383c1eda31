"""Paired ratios of kex results entries, as kex computes its own: per round the ratio of two
entries' median ticks, their median over the rounds both have, with a 95% order-statistic
interval. Shared by benchmarks/tune_streams_ratios.py and benchmarks/emit_gap_ratios.py."""
import math


def rounds(entry):
    """Round -> median ticks of the rounds the sentinel did not flag; every round (the stream
    then marked *) when fewer than 5 are left."""
    calm = {r["round"]: r["median_ticks"] for r in entry["reps"] if not r.get("disturbed")}
    return calm if len(calm) >= 5 else {r["round"]: r["median_ticks"] for r in entry["reps"]}


def disturbed(entry):
    return sum(1 for r in entry["reps"] if r.get("disturbed"))


def paired(a, b):
    common = sorted(set(a) & set(b))
    q = sorted(a[r] / b[r] for r in common)
    n = len(q)
    if n < 3:
        return None
    lo = max(0, int(math.floor(n / 2 - 0.98 * math.sqrt(n))))
    hi = min(n - 1, int(math.ceil(n / 2 + 0.98 * math.sqrt(n))))
    mid = (q[(n - 1) // 2] + q[n // 2]) / 2
    return mid, q[lo], q[hi], n


def text(r):
    return "-" if r is None else "%.2f [%.2f-%.2f]" % r[:3]
