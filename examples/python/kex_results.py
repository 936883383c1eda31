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
per second with each byte counted once.
"""
import json
from collections import namedtuple

Tables = namedtuple("Tables", ["entries", "repetitions", "samples"])

# Entry fields that are not tables of their own; "params" and "stats" are flattened.
_ENTRY_SCALARS = ("kernel", "kind", "size", "real_time", "cpu_time", "time_unit", "bytes_per_second", "iterations",
                  "repetitions")


# Fields of one repetition that a results file also copies into its entry's "stats".
_REP_FIELDS = ("stop_reason", "cycles_method")


def _flat(prefix, obj, out):
    """Adds obj's items to out; nested objects become "prefix.key" columns."""
    for k, v in obj.items():
        if isinstance(v, dict):
            _flat(prefix + k + ".", v, out)
        elif not isinstance(v, list):
            out[prefix + k] = v


def _status(entry):
    if entry.get("error_occurred"):
        return "error"
    if entry.get("skipped"):
        return "skipped"
    return "ok" if "stats" in entry else "no time"


def rows(doc):
    """The three tables of a parsed results document, as lists of dicts."""
    entries, reps, samples = [], [], []
    for e in doc.get("benchmarks", []):
        key = {"name": e["name"]}
        if "machine" in e:
            key = {"machine": e["machine"], "name": e["name"]}
        row = dict(key)
        for k in _ENTRY_SCALARS:
            if k in e:
                row["entry_repetitions" if k == "repetitions" else k] = e[k]
        row["status"] = _status(e)
        row["message"] = e.get("error_message", e.get("skip_message", ""))
        _flat("", e.get("params", {}), row)
        # stop_reason and cycles_method of "stats" are the first repetition's: in repetitions.
        _flat("", {k: v for k, v in e.get("stats", {}).items() if k not in _REP_FIELDS}, row)
        row["preset"] = e["preset"].get("printed", "") if "preset" in e else ""  # its id is the kernel
        entries.append(row)
        for i, r in enumerate(e.get("reps", [])):
            rep = dict(key, repetition=i)
            _flat("", {k: v for k, v in r.items() if k != "counters"}, rep)
            for name, c in r.get("counters", {}).items():
                rep["counter." + name] = c.get("per_op")
            reps.append(rep)
            for j, t in enumerate(r.get("samples_ticks", [])):
                samples.append(dict(key, repetition=i, sample=j, calls_per_sample=r["calls_per_sample"], ticks=t))
    return Tables(entries, reps, samples)


def load(path, pandas=None):
    """Reads the results file at path (a kex results JSON document).

    pandas: None = DataFrames when pandas imports, else lists of dicts; True =
    DataFrames (ImportError without pandas); False = lists of dicts.
    Raises ValueError when the file is not a kex results document.
    """
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        raise ValueError(f"{path}: not a kex results file (no \"benchmarks\" list)")
    t = rows(doc)
    if pandas is False:
        return t
    try:
        import pandas as pd
    except ImportError:
        if pandas:
            raise
        return t
    return Tables(*(pd.DataFrame(rows_) for rows_ in t))
