#!/usr/bin/env python3
"""Writes the CTest file of kex_tests: one test per doctest case, labelled with its suite.

usage: discover_tests.py KEX_TESTS OUT.cmake TIMEOUT_S MEASURING_SUITES SLOW_SUITES COSTS

It runs the test binary once (`--list-test-cases -r=xml` gives every case with its
suite), where doctest's own discovery ran it once per case to learn the suites. Cases of
the suites in MEASURING_SUITES (comma-separated) share the RESOURCE_LOCK `measuring-cpu`,
so two tests whose figures are checked never time on one CPU at once under ctest -j.
A fresh build has no timings from an earlier ctest run, and ctest -j then starts tests in
the order of their COST: the cases named in the file COSTS (lines "SECONDS<tab>NAME", the
slowest cases as measured, tests/cmake/test_costs.tsv) get their seconds, so the longest
start first and no long one is left alone at the end; the other cases of SLOW_SUITES get
1 (before the short ones, which fill the gaps at the end). Later runs use ctest's own
timings of the last run.
"""
import subprocess
import sys
import xml.etree.ElementTree as ET


def bracket(text):
    """A CMake bracket argument holding `text` verbatim."""
    eq = "="
    while f"]{eq}]" in text:
        eq += "="
    return f"[{eq}[{text}]{eq}]"


def read_costs(path):
    """{case name: seconds} from a file of "SECONDS<tab>NAME" lines (# starts a comment)."""
    costs = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                seconds, name = line.split("\t", 1)
                costs[name] = float(seconds)
    return costs


def main(exe, out, timeout, measuring, slow, costs_file):
    measuring = set(filter(None, measuring.split(",")))
    slow = set(filter(None, slow.split(",")))
    costs = read_costs(costs_file)
    xml = subprocess.run([exe, "--list-test-cases", "-r=xml"], check=True, capture_output=True, text=True).stdout
    lines = []
    for case in ET.fromstring(xml).iter("TestCase"):
        name, suite = case.get("name"), case.get("testsuite") or ""
        # doctest's --test-case takes a comma-separated list of patterns: a comma in a
        # name is escaped; * and ? in a name match themselves as wildcards too.
        pattern = name.replace(",", "\\,")
        props = [f"LABELS {bracket(suite)}" if suite else "", f"TIMEOUT {timeout}"]
        if suite in measuring:
            props.append("RESOURCE_LOCK measuring-cpu")
        if name in costs:
            props.append(f"COST {costs[name]:g}")
        elif suite in slow:
            props.append("COST 1")
        lines.append(f"add_test({bracket(name)} {bracket(exe)} {bracket('--test-case=' + pattern)})")
        lines.append(f"set_tests_properties({bracket(name)} PROPERTIES {' '.join(p for p in props if p)})")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    main(*sys.argv[1:])
