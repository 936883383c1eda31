#!/usr/bin/env python3
"""How far independent `kex tune` runs agree, and how their dispatch does against libc.

usage: benchmarks/tune_agreement.py [--store-limit B] A.json B.json [C.json ...]

Reads the `tune` sections of results files written by `kex tune` (same op, same
sizes asked) and prints:

  per file    the sizes raced, the stages, the wall time; per size the dispatched
              kernel, its time over libc's and over rep's with the 95% interval over
              rounds, and whether it is at least as fast as libc (ratio <= 1, or its
              interval holds 1: in the tie set); the share of sizes >= 16 MiB where it
              is 1.5x libc or better (time ratio <= 1/1.5)
  L1          the most bytes per core cycle of any entry at sizes up to 16 KiB (its
              stats.bytes_per_cycle: TSC ticks converted with kex's core-cycle
              estimate), against --store-limit, the core's L1d store bytes per cycle
              (the CPU vendor's optimization guide gives it: say which)
  per pair    at every size both raced: the same kernel, or A's kernel in B's tie set
              and B's in A's ("agree within ties"), or not; the count over sizes, and of
              those that disagree, how many have one run's kernel in the other's tie set,
              and the sizes where neither is

One pair proves little: quote every pair and say how far apart the runs were.
"""
import json
import sys


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if "tune" not in doc:
        sys.exit(f"{path}: no tune section (a file from kex tune is needed)")
    return doc


def l1_best(doc, limit):
    best = None
    for e in doc["benchmarks"]:
        st = e.get("stats") or {}
        if e.get("size", 1 << 62) <= 16384 and st.get("bytes_per_cycle"):
            if best is None or st["bytes_per_cycle"] > best[0]:
                best = (st["bytes_per_cycle"], e["name"])
    if best is None:
        return "  L1: no entry at 16 KiB or less"
    text = f"  L1: {best[0]:.1f} bytes per core cycle ({best[1]})"
    if limit:
        text += f", {100 * best[0] / limit:.0f}% of the store limit {limit:g}"
    return text


def ratio_text(r):
    if not r or r.get("rounds", 0) == 0:
        return "-"
    return f"{r['ratio']:.2f} [{r['low']:.2f}-{r['high']:.2f}]"


def size_text(n):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            v = n / scale
            return f"{v:.3g} {unit}"
    return f"{n} B"


def report(path, t):
    print(f"{path}: {t['op']}, {len(t['verdicts'])} sizes, {len(t['stages'])} stages, "
          f"{t['used_s']:.0f} s of {t['budget_s']:.0f} s")
    kept = t["kept"]
    ok = big = big_fast = 0
    for v in t["verdicts"]:
        lib = v["vs_libc"]
        at_least = lib["rounds"] == 0 or lib["ratio"] <= 1 or lib["low"] <= 1 + t["margin"]
        ok += at_least
        if v["size"] >= 16 << 20:
            big += 1
            big_fast += lib["rounds"] > 0 and lib["ratio"] <= 1 / 1.5
        print(f"  {size_text(v['size']):>10}  {v['dispatched']:<44} ties {len(v['ties']):>3}  "
              f"/{kept[0]} {ratio_text(lib):<18} /{kept[1]} {ratio_text(v['vs_rep']):<18} "
              f"{'ok' if at_least else 'SLOWER than libc'}")
    print(f"  at least as fast as libc (or tied) at {ok} of {len(t['verdicts'])} sizes; "
          f">= 1.5x libc at {big_fast} of {big} sizes >= 16 MiB")


def agree(a, b):
    va = {v["size"]: v for v in a["verdicts"]}
    vb = {v["size"]: v for v in b["verdicts"]}
    common = sorted(set(va) & set(vb))
    same = within = one_way = 0
    missed = []
    for s in common:
        x, y = va[s], vb[s]
        in_y, in_x = x["dispatched"] in y["ties"], y["dispatched"] in x["ties"]
        if x["dispatched"] == y["dispatched"]:
            same += 1
        elif in_y and in_x:
            within += 1
        elif in_y or in_x:
            one_way += 1
        else:
            missed.append(s)
    return len(common), same, within, one_way, missed


def main():
    args = sys.argv[1:]
    limit = None
    if args[:1] == ["--store-limit"]:
        limit = float(args[1])
        args = args[2:]
    files = args
    if len(files) < 1:
        sys.exit(__doc__)
    docs = [load(f) for f in files]
    tunes = [d["tune"] for d in docs]
    for f, d in zip(files, docs):
        report(f, d["tune"])
        print(l1_best(d, limit))
    for i in range(len(files)):
        for j in range(i + 1, len(files)):
            n, same, within, one_way, missed = agree(tunes[i], tunes[j])
            print(f"{files[i]} vs {files[j]}: of {n} sizes both raced, the same kernel at {same}, "
                  f"another within both tie sets at {within}, disagreeing at {n - same - within} "
                  f"(one run's kernel in the other's tie set at {one_way}; neither at {len(missed)}"
                  + (": " + ", ".join(size_text(m) for m in missed) if missed else "") + ")")


if __name__ == "__main__":
    main()
