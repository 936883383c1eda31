#!/usr/bin/env python3
"""How far independent kex runs agree on the answers a user asks for.

usage: benchmarks/agreement.py [--runs 3] [--gap 60] [--load none|mem] [--kex build/kex]
                               [--out DIR] [-- KEX RUN ARGS...]
       benchmarks/agreement.py --files A.json B.json [C.json ...]

Runs `kex run` (the built-in default sweep unless run arguments follow `--`) --runs
times, each a new process started --gap seconds after the last ended, quiet or with a
memory-bandwidth load (`dd if=/dev/zero of=/dev/null bs=64M`, a 64 MiB clear per
block, pinned to a CPU kex does not measure on); or reads finished results files.
For every pair of runs (A, B) it prints:

  winner      the group's fastest kernel in A, timed in B against B's fastest in the
              same rounds (B's ratio of A's winner to B's winner): the regret, median,
              p90, max over groups; "agree" counts groups where A's winner is in B's
              tie set or within 2% of B's winner, "same" where the winners are one kernel
  ratios      |B/A - 1| of each kernel's time over its group's reference kernel (libc
              when the group has it, else the first by name), from the same rounds
  absolute    |B/A - 1| of each entry's GB/s (median over its repetitions)
  coverage    share of entries whose 95% interval in A holds B's figure: the
              same-group ratio (interval over rounds) and the absolute GB/s
  compare     entries `kex compare A B` calls different: all false calls (the same
              binary on the same machine)
  time        each run's elapsed seconds

Groups are kex's (the results' "groups": same op, fill, size and conditions, under
kex's own harness). A run of the separate protocol has no rounds: its winners are
taken by median GB/s and its ratios from the entries' medians, intervals from the
repetitions. One pair proves little: quote every pair, and runs quiet and loaded.
"""
import argparse
import itertools
import json
import math
import os
import statistics
import subprocess
import sys
import time


def quantile(values, q):
    v = sorted(values)
    if not v:
        return float("nan")
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


def median_ci(values):
    """Median and distribution-free 95% interval (ranks n/2 -+ 0.98 sqrt(n)), as kex's."""
    v = sorted(values)
    n = len(v)
    if n == 0:
        return (float("nan"),) * 3
    med = statistics.median(v)
    lo = max(0, int(math.floor(n / 2 - 0.98 * math.sqrt(n))) - 1 + 0)
    hi = min(n - 1, int(math.ceil(n / 2 + 0.98 * math.sqrt(n))) - 1)
    lo = max(0, min(lo, n - 1))
    return med, v[lo], v[hi]


class Run:
    def __init__(self, path):
        d = json.load(open(path))
        self.path = path
        self.elapsed = d["context"].get("elapsed_s", float("nan"))
        self.entries = {}
        for e in d["benchmarks"]:
            if e.get("run_type", "iteration") != "iteration" or "stats" not in e or not e.get("reps"):
                continue
            if e.get("params", {}).get("harness", "kex") != "kex":
                continue
            self.entries[e["name"]] = e
        self.groups = {}  # group label -> {"winner", "ties", "members": [names]}
        for g in d.get("groups", []):
            self.groups[g["group"]] = g
        self.paired = bool(self.groups)
        if not self.paired:
            self._groups_from_medians()

    def _groups_from_medians(self):
        by = {}
        for n, e in self.entries.items():
            p = e.get("params", {})
            key = "%s %s %s" % (group_op(e), e["size"], condition_of(n))
            by.setdefault(key, []).append(n)
        for key, names in by.items():
            if len(names) < 2:
                continue
            names.sort(key=lambda n: -self.entries[n]["stats"]["gbps"])
            self.groups[key] = {"winner": names[0], "ties": [names[0]],
                                "members": [{"name": n} for n in names]}

    def rounds(self, name):
        """round -> ticks per operation of the entry's counted repetitions."""
        e = self.entries[name]
        reps = [r for r in e["reps"] if not r.get("disturbed")] or e["reps"]
        return {r["round"]: r["median_ticks"] for r in reps if r.get("round")}

    def ratio(self, a, b):
        """Median and interval of a's time over b's: over shared rounds (paired), else
        of the repetition medians' ratio of medians with no interval."""
        if self.paired:
            ra, rb = self.rounds(a), self.rounds(b)
            shared = [ra[k] / rb[k] for k in ra if k in rb and rb[k] > 0]
            if len(shared) >= 3:
                return median_ci(shared)
            return (float("nan"),) * 3
        ta = self.entries[a]["stats"]["median_ns"]
        tb = self.entries[b]["stats"]["median_ns"]
        return ta / tb, float("nan"), float("nan")

    def gbps(self, name):
        return self.entries[name]["stats"]["gbps"]

    def gbps_interval(self, name):
        s = self.entries[name]["stats"]
        size = self.entries[name]["size"]
        return size / s["ci95_high_ns"], size / s["ci95_low_ns"]


def group_op(e):
    p = e.get("params", {})
    if p.get("op"):
        return p["op"]
    n = e["name"]
    return "copy" if n.startswith(("memcpy", "rep_movsb", "copy")) else "clear"


def condition_of(name):
    """The point name's tokens after the size (its conditions)."""
    parts = name.split("/")
    for i, t in enumerate(parts):
        if t.isdigit():
            return "/".join(parts[i + 1:])
    return ""


def reference(run, names):
    for n in sorted(names):
        if n.startswith(("memcpy/", "memset/")):
            return n
    return sorted(names)[0]


def line(label, values, pct=True):
    if not values:
        return "  %-10s (none)" % label
    f = (lambda x: "%5.1f%%" % (100 * x)) if pct else (lambda x: "%.3f" % x)
    return "  %-10s median %s  p90 %s  max %s  (n=%d)" % (
        label, f(quantile(values, 0.5)), f(quantile(values, 0.9)), f(max(values)), len(values))


def compare_pair(A, B, kex):
    out = []
    # Winners.
    regrets, agree, same, groups = [], 0, 0, 0
    for key, ga in A.groups.items():
        gb = B.groups.get(key)
        if not gb:
            continue
        wa, wb = ga["winner"], gb["winner"]
        if wa not in B.entries or wb not in B.entries:
            continue
        groups += 1
        r = B.ratio(wa, wb)[0] if wa != wb else 1.0
        if math.isnan(r):
            continue
        regret = max(0.0, r - 1)
        regrets.append(regret)
        same += wa == wb
        agree += wa == wb or wa in gb.get("ties", []) or regret <= 0.02
    out.append("  winner     same %d, agree %d of %d groups; regret median %.1f%%  p90 %.1f%%  max %.1f%%" % (
        same, agree, groups, 100 * quantile(regrets, .5), 100 * quantile(regrets, .9),
        100 * (max(regrets) if regrets else float("nan"))))
    # Same-group ratios and their coverage.
    devs, covered, counted = [], 0, 0
    for key, ga in A.groups.items():
        gb = B.groups.get(key)
        if not gb:
            continue
        names = [m["name"] for m in ga["members"] if m["name"] in B.entries]
        if len(names) < 2:
            continue
        ref = reference(A, names)
        for n in names:
            if n == ref:
                continue
            ra, lo, hi = A.ratio(n, ref)
            rb = B.ratio(n, ref)[0]
            if math.isnan(ra) or math.isnan(rb):
                continue
            devs.append(abs(rb / ra - 1))
            if not math.isnan(lo):
                counted += 1
                covered += lo <= rb <= hi
    out.append(line("ratios", devs))
    # Absolute figures and their coverage.
    names = sorted(set(A.entries) & set(B.entries))
    absd = [abs(B.gbps(n) / A.gbps(n) - 1) for n in names if A.gbps(n) > 0]
    cov_abs = sum(1 for n in names if A.gbps_interval(n)[0] <= B.gbps(n) <= A.gbps_interval(n)[1])
    out.append(line("absolute", absd))
    out.append("  coverage   ratios %s of %d; absolute %.0f%% of %d" % (
        "%.0f%%" % (100 * covered / counted) if counted else "-", counted,
        100 * cov_abs / max(1, len(names)), len(names)))
    # False calls of kex compare.
    if kex:
        r = subprocess.run([kex, "compare", A.path, B.path], capture_output=True, text=True)
        calls = sum(1 for l in r.stdout.splitlines() if "B faster" in l or "B slower" in l)
        out.append("  compare    %d of %d entries called different (false calls)" % (calls, len(names)))
    out.append("  time       %.1f s, %.1f s" % (A.elapsed, B.elapsed))
    return out


def run_kex(kex, out, args, load, cpu_for_load):
    loader = None
    if load == "mem":
        loader = subprocess.Popen(["taskset", "-c", str(cpu_for_load), "dd", "if=/dev/zero", "of=/dev/null", "bs=64M"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
    try:
        subprocess.run([kex, "run", "-q", "--force", "--no-plot", "-o", out] + args, check=True,
                       stdout=subprocess.DEVNULL)
    finally:
        if loader:
            loader.kill()
            loader.wait()


def main():
    argv = sys.argv[1:]
    kex_args = []
    if "--" in argv:
        i = argv.index("--")
        argv, kex_args = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kex", default="build/kex")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--gap", type=float, default=60, help="seconds between one run's end and the next one's start")
    ap.add_argument("--load", default="none", choices=["none", "mem"])
    ap.add_argument("--out", default="build/agreement")
    ap.add_argument("--files", nargs="+", help="compare these results files instead of running kex")
    a = ap.parse_args(argv)
    paths = a.files
    if not paths:
        os.makedirs(a.out, exist_ok=True)
        paths = []
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for k in range(a.runs):
            if k:
                time.sleep(a.gap)
            p = os.path.join(a.out, "%s-%s-%d.json" % (stamp, a.load, k + 1))
            run_kex(a.kex, p, kex_args, a.load, 0)
            paths.append(p)
            print("run %d: %s" % (k + 1, p), flush=True)
    runs = [Run(p) for p in paths]
    kex = a.kex if os.path.exists(a.kex) else None
    for A, B in itertools.combinations(runs, 2):
        print("%s vs %s" % (A.path, B.path))
        print("\n".join(compare_pair(A, B, kex)))


if __name__ == "__main__":
    main()
