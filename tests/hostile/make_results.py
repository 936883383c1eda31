#!/usr/bin/env python3
"""Writes tests/hostile/results/: results files as a hostile colleague could send them,
made from tests/golden/run.json. accepted-*.json are valid results whose free text (host
name, CPU model, printed names, segment case names) carries payloads: kex must read them
and write nothing but data (no command runs, no control byte reaches a terminal, no
formula a spreadsheet runs). refused-*.json break the name grammar: every command that
reads results must refuse them with one line (exit 2). Each payload that would run a
command touches a file named pwned-*, so a test finds any that ran.
Run from the repository root: python3 tests/hostile/make_results.py"""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
base = json.load(open(os.path.join(HERE, "..", "golden", "run.json")))

SEGMENTS = {"header": {"iterations": 1000},
            "cases": [{"name": "plain load", "ns_per_iteration": 0.5},
                      {"name": "fs with LDT selector", "ns_per_iteration": 26.0}]}


def doc(host=None, cpu=None, printed=None, segment=None, entry=None):
    d = copy.deepcopy(base)
    if host is not None:
        d["context"]["host_name"] = host
    if cpu is not None:
        d["context"]["machine"]["cpu_model"] = cpu
    if printed is not None:
        for b in d["benchmarks"]:
            if b.get("kind") == "preset":
                b["preset"]["printed"] = printed
    if segment is not None:
        s = copy.deepcopy(SEGMENTS)
        s["cases"][1]["name"] = segment
        d["context"]["segments"] = s
    if entry is not None:
        name, kind = entry
        b = copy.deepcopy(next(x for x in d["benchmarks"] if x.get("kind") == kind))
        b["name"] = b["run_name"] = name
        b["kernel"] = name.rsplit("/", 1)[0]
        d["benchmarks"].append(b)
    return d


CASES = {
    "accepted-host-backtick": doc(host="`touch pwned-host`"),
    "accepted-cpu-system": doc(cpu='x" . system("touch pwned-cpu") . "'),
    "accepted-host-newline": doc(host='lab\nsystem("touch pwned-newline")\nset output "pwned-output"'),
    "accepted-host-macro": doc(host="@x `touch pwned-macro`", cpu="\\\n`touch pwned-continuation`"),
    "accepted-terminal-escapes": doc(host="\u001b[2J\u001b[H\u001b[31mred", cpu="cpu\u009b2J\rforged row\u0007"),
    "accepted-formulas": doc(host='=HYPERLINK("http://example.invalid","x")', cpu="+cmd|' /C calc'!A0",
                             printed="@SUM(1+1)"),
    "accepted-printed-backtick": doc(printed="`touch pwned-printed`"),
    "accepted-segment-name": doc(segment='x\nsystem("touch pwned-segment")\n`touch pwned-segment2`'),
    "accepted-host-html": doc(host='<script>fetch("http://example.invalid/pwned-html")</script>" onload="x\' `touch pwned-html`',
                              cpu="<img src=x onerror=alert(1)><!--", printed="</pre><script>alert(2)</script>",
                              segment="<svg onload=alert(3)>"),
    "refused-kernel-backtick": doc(entry=("copy/sse/`touch pwned-kernel`/4096", "generated")),
    "refused-kernel-newline": doc(entry=('copy/avx/unroll:128\nsystem("touch pwned-kernel-nl")/4096', "generated")),
    "refused-kernel-escape": doc(entry=("copy/sse\u001b[2J/4096", "generated")),
    "refused-baseline-name": doc(entry=("memcpy`touch pwned-baseline`/4096", "baseline")),
    "refused-preset-id": doc(entry=("fastc/faster copy`x`/4096", "preset")),
    "refused-preset-printed-newline": doc(printed="faster_copy\nsystem(\"touch pwned-printed-nl\")"),
}

out = os.path.join(HERE, "results")
os.makedirs(out, exist_ok=True)
for name, d in sorted(CASES.items()):
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")
print(f"{len(CASES)} files in {out}")
