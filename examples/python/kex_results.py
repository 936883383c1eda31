"""Load a kex results file into three tables: entries, repetitions and samples.

A results file (``kex run -o FILE``, ``kex merge``; configs/schema/results.schema.json)
holds one entry per point in ``benchmarks``; each measured entry holds its
repetitions in ``reps``, and each repetition its samples in ``samples_ticks``.
This module flattens them into the same three tables ``kex export --format csv
--table entries|repetitions|samples`` writes, with the same column names, joined
on ``name`` and ``repetition`` (and ``machine`` in a merge of several machines):

    import kex_results
    t = kex_results.load("results.json")          # pandas DataFrames when pandas imports
    t.entries[["name", "gbps", "ci_rel_halfwidth"]]
    t.samples.groupby("name")["ticks"].median()

With pandas absent (Debian: python3-pandas), or with ``pandas=False``, each table is
a plain list of dicts, one per row. Only the standard library is needed otherwise.
Units: ``*_ns`` are nanoseconds per operation, ``*_ticks`` TSC ticks per operation
(a sample's ``ticks`` are for ``calls_per_sample`` operations), ``gbps`` is 1e9 bytes
per second with each byte counted once. A stream point's operation is one pass of its
calls: its ``stream``, ``footprint``, ``stream_seed`` and ``stream_calls`` columns are set
(empty for a size repeated), and ``median_ns / stream_calls`` is its time per call.
"""
import json
import re
from collections import namedtuple

Tables = namedtuple("Tables", ["entries", "repetitions", "samples"])

# Entry fields that are not tables of their own; "params" and "stats" are flattened.
_ENTRY_SCALARS = ("kernel", "kind", "size", "real_time", "cpu_time", "time_unit", "bytes_per_second", "iterations",
                  "repetitions")


# Fields of one repetition that a results file also copies into its entry's "stats".
_REP_FIELDS = ("stop_reason", "cycles_method")

# The columns the tables are joined on: no field of the file may land in one of them.
_JOIN_COLUMNS = ("machine", "name", "repetition", "sample")

# The characters of kex's kernel and point names (src/model/spec.cpp, point.cpp,
# kernel_names.cpp): a name with others (a space, a backtick, a control) kex refuses.
_NAME_CHARS = re.compile(r"[A-Za-z0-9_/:.+@-]+")
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")

# JSON nesting kex reads in a results file (src/results/results.cpp: kMaxResultsDepth).
_MAX_DEPTH = 64


def _flat(prefix, obj, out, where):
    """Adds obj's items to out; nested objects become "prefix.key" columns."""
    for k, v in obj.items():
        if isinstance(v, dict):
            _flat(prefix + k + ".", v, out, f"{where}/{k}")
        elif not isinstance(v, list):
            if prefix + k in _JOIN_COLUMNS:
                raise ValueError(f"{where}/{k}: a field named like the join column {prefix + k!r}; kex refuses it")
            out[prefix + k] = v


def _status(entry):
    if entry.get("error_occurred"):
        return "error"
    if entry.get("skipped"):
        return "skipped"
    return "ok" if "stats" in entry else "no time"


def _need(cond, where, what):
    if not cond:
        raise ValueError(f"{where}: {what}")


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_rep(r, where):
    """What the tables read of one repetition: its calls_per_sample, samples and counters."""
    _need(isinstance(r, dict), where, "not an object (a repetition is one)")
    c = r.get("calls_per_sample")
    _need(isinstance(c, int) and not isinstance(c, bool) and c >= 1, where + "/calls_per_sample",
          "missing or not a whole number >= 1")
    ticks = r.get("samples_ticks", [])
    _need(isinstance(ticks, list), where + "/samples_ticks", "not a list of numbers")
    for j, t in enumerate(ticks):
        _need(_number(t), f"{where}/samples_ticks/{j}", "not a number")
    counters = r.get("counters", {})
    _need(isinstance(counters, dict), where + "/counters", "not an object")
    for name, v in counters.items():
        _need(isinstance(v, dict), f"{where}/counters/{name}", "not an object")


def _check_entry(e, where):
    """What the tables read of one entry: its name, the objects flattened, its repetitions."""
    _need(isinstance(e, dict), where, "not an object (an entry is one)")
    _need(isinstance(e.get("name"), str) and e["name"], where + "/name", "missing or not a non-empty string")
    _need(_NAME_CHARS.fullmatch(e["name"]), where + "/name",
          f"{e['name']!r}: not a kex point name (letters, digits and _ / : . + @ -)")
    _need(isinstance(e.get("machine", ""), str), where + "/machine", "not a string")
    for k in ("params", "stats", "preset"):
        _need(isinstance(e.get(k, {}), dict), f"{where}/{k}", "not an object")
    printed = e.get("preset", {}).get("printed", "")
    _need(isinstance(printed, str) and not _CONTROLS.search(printed), where + "/preset/printed",
          "not a string without control characters")
    for k in _ENTRY_SCALARS:
        _need(not isinstance(e.get(k), (dict, list)), f"{where}/{k}", "not a single value")
    reps = e.get("reps", [])
    _need(isinstance(reps, list), where + "/reps", "not a list")
    for i, r in enumerate(reps):
        _check_rep(r, f"{where}/reps/{i}")


def _check_depth(doc):
    """ValueError when doc nests deeper than kex reads (walked without recursion)."""
    stack = [(doc, 1)]
    while stack:
        v, depth = stack.pop()
        items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        if items:
            _need(depth <= _MAX_DEPTH, "/", f"nested deeper than {_MAX_DEPTH} levels; kex refuses it")
            stack.extend((x, depth + 1) for x in items)


def check(doc):
    """ValueError "/JSON/pointer: what is wrong" for a parsed document whose tables kex
    would not give: a top level that is not an object, no "benchmarks" list, an entry
    without a name or with characters no kex name has (the full name grammar is kex's:
    `kex export` checks it), a preset's printed name with a control character, objects and lists of the wrong kind, a repetition without
    calls_per_sample or with samples that are not numbers, a field that would land in
    a join column, nesting deeper than kex reads."""
    _check_depth(doc)
    _need(isinstance(doc, dict), "/", "not an object (a results file is one)")
    _need(isinstance(doc.get("benchmarks"), list), "/benchmarks", "missing or not a list (no \"benchmarks\" list)")
    for i, e in enumerate(doc["benchmarks"]):
        _check_entry(e, f"/benchmarks/{i}")


def rows(doc):
    """The three tables of a parsed results document, as lists of dicts (check(doc) first)."""
    check(doc)
    entries, reps, samples = [], [], []
    for n, e in enumerate(doc["benchmarks"]):
        where = f"/benchmarks/{n}"
        key = {"name": e["name"]}
        if "machine" in e:
            key = {"machine": e["machine"], "name": e["name"]}
        row = dict(key)
        for k in _ENTRY_SCALARS:
            if k in e:
                row["entry_repetitions" if k == "repetitions" else k] = e[k]
        row["status"] = _status(e)
        row["message"] = e.get("error_message", e.get("skip_message", ""))
        _flat("", e.get("params", {}), row, where + "/params")
        # stop_reason and cycles_method of "stats" are the first repetition's: in repetitions.
        _flat("", {k: v for k, v in e.get("stats", {}).items() if k not in _REP_FIELDS}, row, where + "/stats")
        row["preset"] = e["preset"].get("printed", "") if "preset" in e else ""  # its id is the kernel
        entries.append(row)
        for i, r in enumerate(e.get("reps", [])):
            rep = dict(key, repetition=i)
            _flat("", {k: v for k, v in r.items() if k != "counters"}, rep, f"{where}/reps/{i}")
            for name, c in r.get("counters", {}).items():
                rep["counter." + name] = c.get("per_op")
            reps.append(rep)
            for j, t in enumerate(r.get("samples_ticks", [])):
                samples.append(dict(key, repetition=i, sample=j, calls_per_sample=r["calls_per_sample"], ticks=t))
    return Tables(entries, reps, samples)


def _refuse_constant(name):
    raise ValueError(f"{name}: not a number JSON allows; kex refuses it")


def _no_twice(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise ValueError(f"the key {k!r} twice in one object; kex refuses it")
        seen[k] = v
    return seen


def parse(text):
    """The document of a results file's text, as kex parses it: ValueError for what is
    not JSON, for NaN and Infinity, a key twice in one object and nesting deeper than
    Python's recursion allows."""
    try:
        return json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_no_twice)
    except RecursionError:
        raise ValueError(f"nested deeper than {_MAX_DEPTH} levels; kex refuses it") from None


def load(path, pandas=None):
    """Reads the results file at path (a kex results JSON document).

    pandas: None = DataFrames when pandas imports, else lists of dicts; True =
    DataFrames (ImportError without pandas); False = lists of dicts.
    Raises ValueError "PATH: /JSON/pointer: what is wrong" (or "PATH: what is wrong")
    for a file that is not a kex results document whose tables kex would give: see
    parse() and check().
    """
    try:
        with open(path, encoding="utf-8") as f:
            t = rows(parse(f.read()))
    except ValueError as e:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors too
        raise ValueError(f"{path}: not a kex results file: {e}") from None
    if pandas is False:
        return t
    try:
        import pandas as pd
    except ImportError:
        if pandas:
            raise
        return t
    return Tables(*(pd.DataFrame(rows_) for rows_ in t))
