#!/usr/bin/env python3
"""How copy and clear scale with threads, and how far runs agree on it.

usage: benchmarks/scaling.py RUN.json [RUN.json ...]   (runs of configs/threads.json or any
sweep with a threads axis)

Per op and size (bytes per worker): for each run, the fastest kernel at one thread and at the
most threads (aggregate GB/s, size x threads per operation), and the median over kernels of the
speedup (aggregate GB/s at N threads / at 1 thread). Then, per kernel, how far the runs' speedups
agree: the spread (max/min) of each kernel's speedup across runs, median and worst. Reads only
the results files' entries (name, params, stats.gbps).
"""
import json
import statistics
import sys
from collections import defaultdict


def entries(path):
    with open(path) as f:
        doc = json.load(f)
    out = {}
    for b in doc.get("benchmarks", []):
        stats = b.get("stats") or {}
        if "gbps" not in stats:
            continue
        p = b["params"]
        threads = p.get("threads", 1)
        out[(p["op"], b["size"], b["kernel"], threads)] = stats["gbps"]
    return doc.get("context", {}), out


def main(paths):
    runs = [entries(p) for p in paths]
    for path, (ctx, _) in zip(paths, runs):
        m = ctx.get("machine", {})
        print(f"{path}: {ctx.get('host_name', '?')} ({m.get('cpu_model', '?')}), {ctx.get('date', '?')}")
    sizes = sorted({(op, size) for _, e in runs for (op, size, _, _) in e})
    speedups = defaultdict(list)  # (op, size, kernel) -> speedup per run
    print("\nop     size/worker  run  fastest @1 thread (GB/s)                 fastest @N threads (GB/s)               N  median speedup")
    for op, size in sizes:
        for i, (_, e) in enumerate(runs):
            ts = sorted({t for (o, s, _, t) in e if o == op and s == size})
            if len(ts) < 2:
                continue
            n = ts[-1]
            one = {k: g for (o, s, k, t), g in e.items() if o == op and s == size and t == 1}
            many = {k: g for (o, s, k, t), g in e.items() if o == op and s == size and t == n}
            best1 = max(one.items(), key=lambda x: x[1])
            bestn = max(many.items(), key=lambda x: x[1])
            ratio = [many[k] / one[k] for k in one if k in many and one[k] > 0]
            for k in one:
                if k in many and one[k] > 0:
                    speedups[(op, size, k)].append(many[k] / one[k])
            label = f"{size // 1024} KiB" if size < 1 << 20 else f"{size >> 20} MiB"
            print(f"{op:6} {label:>11}  {i + 1:3}  {best1[0][:32]:32} {best1[1]:7.1f}  {bestn[0][:32]:32} {bestn[1]:7.1f}  {n}  {statistics.median(ratio):.2f}x")
    if len(runs) > 1:
        print("\nspeedup agreement between runs (per kernel: max/min of its speedup over the runs)")
        by = defaultdict(list)
        for (op, size, k), v in speedups.items():
            if len(v) == len(runs):
                by[(op, size)].append(max(v) / min(v))
        for (op, size), spreads in sorted(by.items()):
            label = f"{size // 1024} KiB" if size < 1 << 20 else f"{size >> 20} MiB"
            print(f"  {op:6} {label:>8}: {len(spreads)} kernels, median {statistics.median(spreads):.3f}, worst {max(spreads):.3f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
