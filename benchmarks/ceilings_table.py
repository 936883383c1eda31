#!/usr/bin/env python3
"""Tables for benchmarks/results/2026-12-04-ceilings.md: the ceilings of `kex ceilings -o`
files side by side, a ceilings_ref output (benchmarks/ceilings_ref.c) per run, and the best
copy of a `kex run benchmarks/copy-vs-read.json` file per level against the read ceiling.
Usage: ceilings_table.py CEIL1.json REF1.txt COPY1.json [CEIL2.json REF2.txt COPY2.json ...]"""
import json
import sys


def ceilings(path):
    return json.load(open(path))["context"]["ceilings"]


def ref(path):
    """(median, best) GB/s per (size, kind) of a ceilings_ref output."""
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 3:
            out[(int(f[0]), f[1])] = (float(f[2]), float(f[-1].rstrip(")")))
    return out


def c_cell(rf, size, kind):
    med, best = rf.get((size, kind), (0, 0))
    return f"{med:.1f} (best {best:.1f})"


def best_copy(path):
    best = {}
    for e in json.load(open(path))["benchmarks"]:
        if "stats" not in e or e["params"].get("op") != "copy":
            continue
        s, g = e["size"], e["stats"]["gbps"]
        if g > best.get(s, (0, ""))[0]:
            best[s] = (g, e["name"])
    return best


def main(args):
    runs = [args[i:i + 3] for i in range(0, len(args), 3)]
    print("| run | level | size | kex read | C read, median (best) | kex write | C write | kex nt write | C nt write | "
          "best copy (set = size) | copy traffic / read |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n, (c, r, cp) in enumerate(runs, 1):
        cl, rf, bc = ceilings(c), ref(r), best_copy(cp)
        for l in cl["levels"]:
            s = l["size"]
            g, name = bc.get(s // 2, (0, "-"))
            print(f"| {n} | {l['level']} | {s >> 10} KiB | {l['read_gbps']:.1f} | {c_cell(rf, s, 'read')} | "
                  f"{l['write_gbps']:.1f} | {c_cell(rf, s, 'write')} | {l['nt_write_gbps']:.1f} | "
                  f"{c_cell(rf, s, 'nt_write')} | {g:.1f} `{name}` | {2 * g / l['read_gbps']:.2f} |")
        print(f"| {n} | L1d bytes/cycle | | load {cl['l1d_load_bytes_per_cycle']:.1f} | | "
              f"store {cl['l1d_store_bytes_per_cycle']:.1f} | | | | probe {cl['seconds']:.1f} s | |")


if __name__ == "__main__":
    main(sys.argv[1:])
