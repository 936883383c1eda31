#!/usr/bin/env python3
"""Per stream of a benchmarks/tune_streams.sh folder: the emitted routine's (lib/tuned) time
over libc's, over glibc's fastest variant on that stream, over musl's (asm/musl, when raced) and
over the tuned kernel as kex generates it (the JIT), and the same .s loaded as object code
(asm/tunedasm) over the JIT, each the median of per-round ratios with a 95% order-statistic
interval over the rounds the two share (paired, as kex's own ratios).
Usage: benchmarks/tune_streams_ratios.py OUTDIR"""
import glob, json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paired_rounds import disturbed, paired, rounds, text  # noqa: E402


def main(out):
    print("%-13s %-22s %-22s %-22s %-22s %-22s %s" % ("stream", "emitted/libc", "emitted/glibc best", "emitted/musl",
                                                    "emitted/JIT", "asm/JIT", "glibc best"))
    for f in sorted(glob.glob(os.path.join(out, "back-*.json"))):
        s = os.path.basename(f)[5:-5]
        doc = json.load(open(f))
        tune = json.load(open(os.path.join(out, "tune-%s.json" % s)))["tune"]
        jit_name = tune["dispatch"][0]["kernel"] if tune["dispatch"] else ""
        by = {e["kernel"]: e for e in doc["benchmarks"] if "stream" in e["params"] and e.get("reps")}
        emitted = rounds(by["lib/tuned"])
        libc = rounds(by.get("memcpy") or by["memset"])
        glibc = {k: e for k, e in by.items() if k.startswith("glibc/")}
        best = min(glibc, key=lambda k: glibc[k]["real_time"]) if glibc else None
        jit = by.get(jit_name)
        flagged = disturbed(by["lib/tuned"])
        mark = "*" if len(by["lib/tuned"]["reps"]) - flagged < 5 else ""
        asm = by.get("asm/tunedasm")  # the .s in kex's arena (copies, since benchmarks/emit_gap.sh)
        musl = by.get("asm/musl")
        print("%-13s %-22s %-22s %-22s %-22s %-22s %s" % (s + mark, text(paired(emitted, libc)),
              text(paired(emitted, rounds(glibc[best]))) if best else "-",
              text(paired(emitted, rounds(musl))) if musl else "-",
              text(paired(emitted, rounds(jit))) if jit else "- (" + jit_name + ")",
              text(paired(rounds(asm), rounds(jit))) if asm and jit else "-", best))


main(sys.argv[1])
print("* fewer than 5 rounds the sentinel left undisturbed: every round counted")
