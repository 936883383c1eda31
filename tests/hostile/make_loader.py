#!/usr/bin/env python3
"""Writes tests/hostile/loader/: results files of a wrong shape, one defect each, made from
tests/golden/run.json. kex refuses each (exit 2) but those in KEX_IGNORES: there a field kex
does not know (kept, as a newer kex's would be) is named like a join column of the loader's
tables, where it would overwrite the entry's name or the repetition's number.
examples/python/kex_results.py must refuse every one with a ValueError naming the JSON path
in EXPECTED (tests/examples/test_kex_results.py checks both kex and the loader). The 100,000-deep file is made by the test itself (200 KB).
Run from the repository root: python3 tests/hostile/make_loader.py"""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
base = json.load(open(os.path.join(HERE, "..", "golden", "run.json")))
# Two entries are enough: the first (a generated kernel, measured) and a preset's.
base["benchmarks"] = [base["benchmarks"][0], next(b for b in base["benchmarks"] if "preset" in b)]
PRESET = 1


def doc(change):
    d = copy.deepcopy(base)
    change(d)
    return d


def first(change):
    return doc(lambda d: change(d["benchmarks"][0]))


def rep0(change):
    return first(lambda e: change(e["reps"][0]))


# name -> (document or raw text, the JSON path the loader's error names)
CASES = {
    "top-level-list": ([base], "/:"),
    "benchmarks-object": (doc(lambda d: d.update(benchmarks={"0": d["benchmarks"][0]})), "/benchmarks:"),
    "entry-without-name": (first(lambda e: e.pop("name")), "/benchmarks/0/name:"),
    "params-list": (first(lambda e: e.update(params=[1, 2])), "/benchmarks/0/params:"),
    "reps-object": (first(lambda e: e.update(reps={"0": e["reps"][0]})), "/benchmarks/0/reps:"),
    "rep-without-calls": (rep0(lambda r: r.pop("calls_per_sample")), "/benchmarks/0/reps/0/calls_per_sample:"),
    "counters-list": (rep0(lambda r: r.update(counters=[{"per_op": 1}])), "/benchmarks/0/reps/0/counters:"),
    "preset-string": (doc(lambda d: d["benchmarks"][PRESET].update(preset="x")), f"/benchmarks/{PRESET}/preset:"),
    "samples-string": (rep0(lambda r: r.update(samples_ticks="1,2,3")), "/benchmarks/0/reps/0/samples_ticks:"),
    "params-name": (first(lambda e: e["params"].update(name="other/4096")), "/benchmarks/0/params/name:"),
    "rep-repetition": (rep0(lambda r: r.update(repetition=7)), "/benchmarks/0/reps/0/repetition:"),
    "nan": (json.dumps(base, indent=1).replace('"gbps": 80', '"gbps": NaN', 1), "NaN:"),
    "key-twice": (json.dumps(base, indent=1).replace('"gbps": 80', '"gbps": 80, "gbps": 1', 1), "'gbps' twice"),
}

EXPECTED = {name: where for name, (_, where) in CASES.items()}
KEX_IGNORES = {"params-name", "rep-repetition"}

if __name__ == "__main__":
    out = os.path.join(HERE, "loader")
    os.makedirs(out, exist_ok=True)
    for name, (d, _) in sorted(CASES.items()):
        with open(os.path.join(out, name + ".json"), "w") as f:
            f.write(d if isinstance(d, str) else json.dumps(d, indent=1))
            f.write("\n")
    print(f"{len(CASES)} files in {out}")
