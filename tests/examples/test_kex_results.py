#!/usr/bin/env python3
"""examples/python/kex_results.py on the golden results file (tests/golden/run.json):
the three tables hold every entry, repetition and sample with the values of the file,
and agree with `kex export --format csv --table ...` row for row.
Usage: test_kex_results.py SOURCE_DIR KEX_BINARY
"""
import csv, io, json, os, subprocess, sys, tempfile

root, kex = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "examples", "python"))
import kex_results  # noqa: E402

golden = os.path.join(root, "tests", "golden", "run.json")
doc = json.load(open(golden, encoding="utf-8"))
t = kex_results.load(golden, pandas=False)
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


bench = doc["benchmarks"]
check(len(t.entries) == len(bench) == 19, f"entries: {len(t.entries)} rows for {len(bench)} entries")
n_reps = sum(len(e.get("reps", [])) for e in bench)
n_samples = sum(len(r["samples_ticks"]) for e in bench for r in e.get("reps", []))
check(len(t.repetitions) == n_reps > 0, f"repetitions: {len(t.repetitions)} rows, file has {n_reps}")
check(len(t.samples) == n_samples > 0, f"samples: {len(t.samples)} rows, file has {n_samples}")

by_name = {r["name"]: r for r in t.entries}
first = by_name["copy/avx/unroll:128/scratch:4/t/fwd/4096"]
check(first["status"] == "ok" and first["gbps"] == 80 and first["regs"] == "avx" and first["unroll"] == 128,
      f"first entry: {first}")
check(first["ci_rel_halfwidth"] == bench[0]["stats"]["ci_rel_halfwidth"], "an entry's ci_rel_halfwidth")
check("stop_reason" not in first, "an entry row holds a repetition's stop_reason")
bad = by_name["copy/sse/unroll:64/scratch:4/nt/fwd/4096"]
check(bad["status"] == "error" and bad["message"].startswith("verification failed: killed by SIGSEGV"), f"{bad}")
check(by_name["copy/avx512/unroll:256/scratch:4/t/fwd/4096"]["status"] == "skipped", "skipped entry")
check(by_name["fastc/faster_copy/4096"]["preset"] == "faster_copy", "preset column")


def export(table):
    out = subprocess.run([kex, "export", golden, "--format", "csv", "--table", table, "-o", "-"],
                         capture_output=True, text=True, check=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


# The same rows as kex's own CSV of each table.
exp = export("samples")
check(len(exp) == len(t.samples), f"kex export samples: {len(exp)} rows, module {len(t.samples)}")
for a, b in zip(exp, t.samples):
    got = {k: str(b[k]) for k in ("name", "repetition", "sample", "calls_per_sample", "ticks")}
    if dict(a) != got:
        check(False, f"sample row differs: kex {dict(a)}, module {got}")
        break
exp = export("repetitions")
check([(r["name"], int(r["repetition"]), r["stop_reason"]) for r in exp] ==
      [(r["name"], r["repetition"], r["stop_reason"]) for r in t.repetitions], "repetitions differ from kex export")
exp = export("entries")
check([(r["name"], r["status"]) for r in exp] == [(r["name"], r["status"]) for r in t.entries],
      "entries differ from kex export")

# Not a results file: one clear error.
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    f.write('{"sizes": [64]}')
try:
    kex_results.load(f.name, pandas=False)
    check(False, "a config was loaded as results")
except ValueError as e:
    check("not a kex results file" in str(e), str(e))
finally:
    os.unlink(f.name)

try:
    import pandas  # noqa: F401
    have_pandas = True
except ImportError:
    have_pandas = False
if have_pandas:
    d = kex_results.load(golden)
    check(d.entries.shape[0] == 19 and d.samples.shape[0] == n_samples, "DataFrame shapes")
    med = d.samples.groupby("name")["ticks"].count()
    check(int(med["memcpy/4096"]) == len(bench[2]["reps"][0]["samples_ticks"]), "DataFrame groupby")
    print("pandas", pandas.__version__, ": DataFrames checked")
else:
    print("pandas not installed (Debian: python3-pandas): the list-of-dicts path only")

for f in fails:
    print("FAIL:", f)
print("ok" if not fails else f"{len(fails)} failures")
sys.exit(1 if fails else 0)
