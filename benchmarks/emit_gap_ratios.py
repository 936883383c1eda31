#!/usr/bin/env python3
"""Per stream of a benchmarks/emit_gap.sh folder: the emitted routine's time over the JIT
kernel's (lib/new: the shared object with its resolver; asm/newasm: its unchecked entry in kex's
arena; lib/old: the shared object emitted at tune time, its CPU-check byte read on every call),
and lib/new over lib/old, each the median of per-round ratios with a 95% order-statistic
interval over the rounds the two share (paired, as benchmarks/tune_streams_ratios.py).
Usage: benchmarks/emit_gap_ratios.py OUTDIR"""
import glob, json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paired_rounds import paired, rounds, text  # noqa: E402


def main(out):
    cols = ("lib/new", "asm/newasm", "lib/old")
    print("%-13s %-22s %-22s %-22s %-22s %s" % ("stream", "new/JIT", "asm/JIT", "old/JIT", "new/old", "JIT"))
    for f in sorted(glob.glob(os.path.join(out, "back-*.json"))):
        s = os.path.basename(f)[5:-5]
        doc = json.load(open(f))
        tune = json.load(open(os.path.join(out, "tune-%s.json" % s)))["tune"]
        jit_name = tune["dispatch"][0]["kernel"] if tune["dispatch"] else ""
        by = {e["kernel"]: e for e in doc["benchmarks"] if "stream" in e["params"] and e.get("reps")}
        jit = rounds(by[jit_name]) if jit_name in by else None
        r = {c: rounds(by[c]) if c in by else None for c in cols}
        over = lambda a, b: text(paired(a, b)) if a and b else "-"
        print("%-13s %-22s %-22s %-22s %-22s %s" % (s, over(r["lib/new"], jit), over(r["asm/newasm"], jit),
              over(r["lib/old"], jit), over(r["lib/new"], r["lib/old"]), jit_name[:60]))


main(sys.argv[1])
