#!/usr/bin/env python3
"""Writes tests/hostile/journals/: journals as a hostile colleague could send them (kex run
--resume takes a journal from elsewhere, e.g. a CI artifact), made from the fuzz seed
tests/fuzz/seeds/journal/killed-run.journal. Every one must be refused with one line
(exit 2) before anything is measured or written: a journal is data, never instructions.
Run from the repository root: python3 tests/hostile/make_journals.py"""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
seed = os.path.join(HERE, "..", "fuzz", "seeds", "journal", "killed-run.journal")
lines = [json.loads(l) for l in open(seed)]
head, reps = lines[0], lines[1:]


def journal(header=None, rep_edit=None, extra=()):
    h = copy.deepcopy(head)
    if header:
        header(h["header"])
    rs = copy.deepcopy(reps)
    if rep_edit:
        rep_edit(rs)
    return [json.dumps(h)] + [json.dumps(r) for r in rs] + list(extra)


def setk(k, v):
    return lambda h: h.__setitem__(k, v)


def rep0(k, v):
    return lambda rs: rs[0]["rep"]["data"].__setitem__(k, v)


CASES = {
    # Paths and force were instructions in the header once: a field a header never holds.
    "header-output-elsewhere": journal(setk("output", "../victim.json")),
    "header-output-is-journal": journal(setk("output", "r.json.journal")),
    "header-plot-dir": journal(setk("plot_dir", "/tmp/kex-hostile-plots")),
    "header-force": journal(setk("force", True)),
    "header-output-name-path": journal(setk("output_name", "../../victim.json")),
    "header-configs-empty": journal(setk("configs", [])),
    "header-config-bad": journal(lambda h: h["configs"][0]["config"].__setitem__("sizes", ["-1"])),
    "header-repetitions-zero": journal(lambda h: h["protocol"].__setitem__("repetitions", 0)),
    "header-filter-control": journal(setk("filter", "copy\u001b[2J")),
    "header-shard-wraps": journal(setk("shard", {"index": 5, "count": 2})),
    "header-not-object": ['{"kex_journal": 2, "header": "`touch pwned`"}'],
    "rep-negative-median": journal(rep_edit=rep0("median_ticks", -5.0)),
    "rep-zero-n": journal(rep_edit=rep0("n", 0)),
    "rep-duplicate-order": journal(rep_edit=lambda rs: rs[1]["rep"]["data"].__setitem__(
        "order", rs[0]["rep"]["data"]["order"]) or rs[1]["rep"].__setitem__("point", rs[0]["rep"]["point"])),
    "rep-huge-order": journal(rep_edit=rep0("order", 2 ** 63)),
    "rep-point-backtick": journal(rep_edit=lambda rs: rs[0]["rep"].__setitem__("point", "copy/sse/`touch pwned`/4096")),
    "rep-foreign-point": journal(rep_edit=lambda rs: rs[0]["rep"].__setitem__("point", "copy/avx/unroll:128/4096")),
    "unknown-line": journal(extra=['{"shell": "touch pwned"}', '{"rep": 1}']),
    "deep-nesting": journal(extra=["[" * 1000 + "]" * 1000]),
}

out = os.path.join(HERE, "journals")
os.makedirs(out, exist_ok=True)
for name, ls in sorted(CASES.items()):
    with open(os.path.join(out, name + ".journal"), "w") as f:
        f.write("\n".join(ls) + "\n")
print(f"{len(CASES)} files in {out}")
