#!/usr/bin/env python3
"""Run-to-run agreement of kex's measuring protocol: how well two back-to-back runs agree.

Runs the same sweep back to back in pairs, A then B, under each protocol asked
for, quiet and with a competing memory-bandwidth load on another CPU, and prints
per protocol and condition:

  - the per-entry ratio B/A of the entries' figures (median of the repetition
    medians): median, p90 and max of |B/A - 1| over the matched entries;
  - how many entries `kex compare A B` calls different (faster + slower), which,
    since A and B are the same binary on the same machine, are all false calls;
  - each run's elapsed time and re-measured tasks.

Figures, not a test: one pair proves little
(benchmarks/results/2026-12-01-zen4-second-machine.md),
so --pairs N runs N pairs per cell and prints each pair and the median.

Usage: benchmarks/run_to_run.py [--kex build/kex] [--config CONFIG] [--pairs 1]
           [--protocols new,old] [--load none,mem] [--statistics median,best] [--out DIR]
  median = the entry's figure (median of the repetition medians); best = the fastest
  sample (kex compare --statistic best); both are computed on the same pairs.
  new = kex's default protocol (repetitions from the config, shuffled, sentinel);
  old = the first version's protocol: one repetition of the config's whole sampling
        budget (repetitions x max_time_per_point) in config order, no sentinel.
The load is `dd if=/dev/zero of=/dev/null bs=64M` pinned (taskset) to a CPU other
than the one kex measures on: a 64 MiB clear per block, i.e. DRAM write bandwidth.
"""
import argparse, json, os, statistics, subprocess, sys, time


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def figures(path, statistic):
    """The run, and each entry's ns per operation: the median (real_time) or the fastest sample."""
    d = json.load(open(path))
    out = {}
    for e in d["benchmarks"]:
        if e.get("run_type", "iteration") != "iteration" or "stats" not in e:
            continue
        out[e["name"]] = e["stats"]["min_ns"] if statistic == "best" else e["real_time"]
    return d, out


def quantile(v, q):
    s = sorted(v)
    return s[min(len(s) - 1, int(q * len(s)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kex", default="build/kex")
    ap.add_argument("--config", default="configs/default.json", help="config file (default: the default sweep)")
    ap.add_argument("--pairs", type=int, default=1)
    ap.add_argument("--protocols", default="new,old")
    ap.add_argument("--load", default="none,mem")
    ap.add_argument("--out", default="build/run-to-run")
    ap.add_argument("--cpu", type=int, default=None, help="CPU kex measures on (default: kex's choice)")
    ap.add_argument("--statistics", default="median,best",
                    help="figures compared, each on the same pairs: median (the entry's figure), best (fastest sample; "
                         "kex compare --statistic best)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    ncpu = os.cpu_count() or 1
    load_cpu = 0  # kex measures on the last allowed CPU by default
    rows = []
    base = json.load(open(a.config))
    old = dict(base)
    old["max_time_per_point"] = base.get("max_time_per_point", 0.25) * base.get("repetitions", 3)
    old["repetitions"] = 1
    old["protocol"] = {"shuffle": False, "sentinel": False}
    old_path = os.path.join(a.out, "old-protocol.json")
    json.dump(old, open(old_path, "w"), indent=1)
    for proto in a.protocols.split(","):
        config = a.config if proto == "new" else old_path
        extra = []
        for load in a.load.split(","):
            for p in range(a.pairs):
                loader = None
                if load == "mem":
                    if ncpu < 2:
                        print("skip load=mem: one CPU", file=sys.stderr)
                        break
                    loader = subprocess.Popen(["taskset", "-c", str(load_cpu), "sh", "-c",
                                               "while :; do dd if=/dev/zero of=/dev/null bs=64M count=64 2>/dev/null; done"],
                                              start_new_session=True)
                    time.sleep(1)
                paths = []
                try:
                    for side in "AB":
                        path = os.path.join(a.out, f"{proto}-{load}-{p}-{side}.json")
                        cmd = [a.kex, "run", config, "-q", "--force", "--no-journal", "-o", path] + extra
                        if a.cpu is not None:
                            cmd += ["--cpu", str(a.cpu)]
                        run(cmd)
                        paths.append(path)
                finally:
                    if loader:
                        os.killpg(loader.pid, 15)
                        loader.wait()
                for stat in a.statistics.split(","):
                    (da, fa), (db, fb) = figures(paths[0], stat), figures(paths[1], stat)
                    dev = [abs(fa[n] / fb[n] - 1) for n in fa if n in fb and fb[n] > 0]  # B/A throughput - 1
                    cmp_out = run([a.kex, "compare", "-q", "--statistic", stat, paths[0], paths[1]]).stdout
                    summary = next(l for l in cmp_out.splitlines() if l.startswith("summary:"))
                    faster = int(summary.split("B faster ")[1].split(",")[0])
                    slower = int(summary.split("B slower ")[1].split(",")[0])
                    row = {
                        "protocol": proto, "load": load, "statistic": stat, "pair": p, "entries": len(dev),
                        "median": statistics.median(dev), "p90": quantile(dev, 0.9), "max": max(dev),
                        "different": faster + slower,
                        "seconds": [round(d["context"].get("elapsed_s", 0), 1) for d in (da, db)],
                        "remeasured": [d["context"].get("protocol", {}).get("remeasured_tasks", 0) for d in (da, db)],
                    }
                    rows.append(row)
                    print(f"{proto:4} load={load:4} {stat:6} pair {p}: {row['entries']} entries, |B/A-1| median "
                          f"{row['median']*100:.1f}% p90 {row['p90']*100:.1f}% max {row['max']*100:.0f}%; called "
                          f"different {row['different']} ({100*row['different']/max(1,row['entries']):.1f}%); run "
                          f"times {row['seconds']} s; re-measured tasks {row['remeasured']}", flush=True)
    print("\nmedians over pairs:")
    for proto in a.protocols.split(","):
        for load, stat in [(l, s) for l in a.load.split(",") for s in a.statistics.split(",")]:
            r = [x for x in rows if x["protocol"] == proto and x["load"] == load and x["statistic"] == stat]
            if not r:
                continue
            med = lambda k: statistics.median(x[k] for x in r)
            print(f"{proto:4} load={load:4} {stat:6} ({len(r)} pair{'s' if len(r) > 1 else ''}): |B/A-1| median {med('median')*100:.1f}% "
                  f"p90 {med('p90')*100:.1f}% max {med('max')*100:.0f}%; called different {med('different'):.0f} "
                  f"of {r[0]['entries']}; run time {statistics.median(s for x in r for s in x['seconds']):.0f} s")
    json.dump(rows, open(os.path.join(a.out, "summary.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
