#!/usr/bin/env python3
"""examples/python/kex_results.py on the golden results file (tests/golden/run.json):
the three tables hold every entry, repetition and sample with the values of the file,
and agree with `kex export --format csv --table ...` row for row. On the hostile files:
tests/hostile/results/accepted-* load, and each file kex refuses (refused-* there, every
file of tests/hostile/loader/, a 100,000-deep nesting) raises ValueError naming the JSON
path, never KeyError, TypeError or RecursionError.
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

# A stream run (tests/golden/stream.json): each entry's stream coordinates as kex's CSV has
# them, and its time per call is its median over the calls of a pass.
stream_file = os.path.join(root, "tests", "golden", "stream.json")
st = kex_results.load(stream_file, pandas=False)
out = subprocess.run([kex, "export", stream_file, "--format", "csv", "--table", "entries", "-o", "-"],
                     capture_output=True, text=True, check=True).stdout
cols = ("stream", "footprint", "stream_seed", "stream_calls")
kex_rows = {r["name"]: tuple(r[c] for c in cols) for r in csv.DictReader(io.StringIO(out))}
mod_rows = {r["name"]: tuple("" if r.get(c) is None else str(r[c]) for c in cols) for r in st.entries}
check(kex_rows == mod_rows and len(mod_rows) == 16, f"stream columns: kex {kex_rows}, module {mod_rows}")
rep = [r for r in st.entries if r["name"].startswith("rep_movsb/552960/stream:Memcpy_Fleet")]
check(len(rep) == 1 and abs(rep[0]["median_ns"] / rep[0]["stream_calls"] - 6.6) < 0.35,
      f"rep_movsb's ns per call on the stream: {rep}")

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


def refusal(path):
    """The loader's ValueError text for path; "" when it loads; raises anything else."""
    try:
        kex_results.load(path, pandas=False)
        return ""
    except ValueError as e:
        return str(e)


def kex_status(path):
    """kex export's exit status on path: 0, or 2 with one line of error."""
    r = subprocess.run([kex, "export", path, "--format", "csv", "-o", "-"], capture_output=True, text=True)
    return r.returncode if r.returncode != 2 or r.stderr.count("\n") == 1 else -1


hostile = os.path.join(root, "tests", "hostile")
sys.path.insert(0, hostile)
import make_loader  # noqa: E402

for name in sorted(os.listdir(os.path.join(hostile, "results"))):
    path = os.path.join(hostile, "results", name)
    err = refusal(path)
    if name.startswith("accepted-"):
        check(err == "", f"{name}: refused: {err}")
    else:
        check("/name: " in err or "/preset/printed: " in err, f"{name}: {err or 'loaded'}")
loader_files = sorted(os.listdir(os.path.join(hostile, "loader")))
check(len(loader_files) == len(make_loader.EXPECTED) >= 13, f"tests/hostile/loader: {loader_files}")
for name in loader_files:
    path = os.path.join(hostile, "loader", name)
    case = name[:-len(".json")]
    where = make_loader.EXPECTED[case]
    status = kex_status(path)
    check(status == (0 if case in make_loader.KEX_IGNORES else 2), f"{name}: kex export exits {status}")
    err = refusal(path)
    check(err.startswith(path + ": not a kex results file: ") and where in err, f"{name}: wanted {where!r}, got {err!r}")
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    f.write("[" * 100000 + "]" * 100000)
try:
    check(kex_status(f.name) == 2, "kex accepted 100,000-deep nesting")
    err = refusal(f.name)
    check("nested deeper than 64 levels" in err, f"100,000-deep nesting: {err!r}")
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
