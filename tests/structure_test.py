#!/usr/bin/env python3
"""Checks that every #include "..." in the project points down the layers, and
that every document a comment cites (docs/NAME.md, benchmarks/results/NAME.md) is
in the repository, and
that no test case name holds a ';' (CMake splits the ctest name there, and the
truncated --test-case filter then matches nothing: the test would pass unrun), and
that no Source value (src/model/source.hpp) is compared or switched on outside the
sources table: code asks a source's row, so a new source cannot land silently in
another's branch (docs/STYLE.md rule 26), and
that no two test files define the same name at file scope: the tests build in unity
batches of 32 (CMakeLists.txt), and which files share a batch moves as files are
added, so a helper's name must be unique across all of tests/ (a heuristic: a line
at column 0 that declares a function, variable or type, outside raw strings), and
that no two sibling modules include each other (docs/STYLE.md rule 30) beyond the pairs
in SIBLING_PAIRS, each kept for the reason given there: a module is the files of one
stem in one folder (x.hpp, x.cpp); two include each other when a file of each includes a
header of the other. --siblings prints every such pair with the includes that make it.

Layers, lowest first: src/core, src/model, generators (the JIT), src/run,
src/results, src/cli. A file may include headers of its own layer or of lower
layers only; tests may include anything. Prints each upward arrow and exits 1
if there is one; with --graph, prints the layer-to-layer include counts.
"""
import os, re, sys

LAYERS = ["src/core", "src/model", "generators", "src/run", "src/results", "src/cli"]

# A comparison with a Source value, or a case of a switch over one.
SOURCE_TEST = re.compile(r"(?:[=!]=\s*Source::\w|Source::\w+\s*[=!]=|\bcase\s+Source::)")
SOURCE_TABLE = {os.path.join("src", "model", "source.cpp"), os.path.join("src", "model", "source.hpp")}

# Sibling modules that include each other, kept (docs/STYLE.md rule 30): each a module's
# implementation split into files that share its types or its detail header, so the
# arrow back is the .cpp running what the other declares; not a seam a reader crosses.
SIBLING_PAIRS = {
    # The presets' lookup (presets.cpp) and their emit helpers (impl.hpp) share the Preset
    # row; presets.cpp also defines the helpers. The cut: the row type in a header of its own.
    ("generators/presets", "impl", "presets"),
    # A config's field tables and forms are the reader's (config.cpp runs them) and name
    # its types (config.hpp); protocol.cpp runs the protocol's table the same way.
    ("src/model", "config", "config_fields"),
    ("src/model", "config", "config_reader"),
    ("src/model", "config_fields", "config_forms"),
    ("src/model", "protocol", "protocol_fields"),
    # Detail headers of one module: its own .cpp files share them, over its public types.
    ("src/run", "journal", "journal_lines"),
    ("src/run", "segments", "segments_detail"),
    ("src/run", "supervisor", "supervisor_detail"),
    ("src/run", "sweep", "sweep_detail"),
    # Object code: linking (object_link) needs the code's types; object_code runs the link.
    ("src/run", "object_code", "object_link"),
    # The sandbox opens the run's shared objects in its children; the shared objects probe
    # and read code in the sandbox's children.
    ("src/run", "sandbox", "shared_objects"),
}

def sibling_pairs(root):
    """{(folder, a, b): [the includes that make it]} for sibling modules a < b that include each other."""
    edges = {}
    for top in ("src", "generators"):
        for d, _, files in os.walk(os.path.join(root, top)):
            rd = os.path.relpath(d, root)
            for f in files:
                if not f.endswith((".cpp", ".hpp")):
                    continue
                stem = f.rsplit(".", 1)[0]
                for line in open(os.path.join(d, f), encoding="utf-8"):
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    idir, ifile = os.path.split(m.group(1))
                    istem = ifile.rsplit(".", 1)[0]
                    if idir == rd and istem != stem:
                        edges.setdefault((rd, stem, istem), []).append(f"{f} -> {ifile}")
    return {(d, a, b): why + edges[(d, b, a)] for (d, a, b), why in sorted(edges.items())
            if a < b and (d, b, a) in edges}

def layer(path):
    for i, l in enumerate(LAYERS):
        if path == l or path.startswith(l + "/"):
            return i
    return None

SKIP_STARTS = ("#", "/", "}", "{", ")", '"', "TEST_CASE", "TEST_SUITE", "using", "namespace", "static_assert",
               "DOCTEST", "template")

def file_scope_names(path):
    """The names a test file declares at column 0 (functions, variables, types), with line numbers."""
    names, raw_end = [], None
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if raw_end:
            if raw_end in line:
                raw_end = None
            continue
        m = re.search(r'R"([^(\s]*)\(', line)
        if m and f"){m.group(1)}\"" not in line[m.end():]:
            raw_end = f"){m.group(1)}\""
        if not line or line[0].isspace() or line.startswith(SKIP_STARTS):
            continue
        bare = re.sub(r"<[^<>]*(?:<[^<>]*>[^<>]*)*>", "", line)  # template arguments
        d = re.search(r"\b(\w+)\s*(?:\(|=|\{|\[|;)", bare)
        if d and d.group(1) not in ("operator", "main"):
            names.append((d.group(1), n))
    return names

def main():
    root = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else os.getcwd()
    graph = {}
    bad = []
    for top in ("src", "generators"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if not f.endswith((".cpp", ".hpp")):
                    continue
                rel = os.path.relpath(os.path.join(d, f), root)
                me = layer(rel)
                for n, line in enumerate(open(os.path.join(d, f), encoding="utf-8"), 1):
                    for doc in re.findall(r"\b(?:docs|benchmarks/results)/[\w.-]+\.md", line):
                        if not os.path.exists(os.path.join(root, doc)):
                            bad.append(f"{rel}:{n}: cites {doc}, which is not in the repository")
                    if SOURCE_TEST.search(line) and rel not in SOURCE_TABLE:
                        bad.append(f"{rel}:{n}: compares a Source value: ask its row (source_row) instead")
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    inc = m.group(1)
                    if not os.path.exists(os.path.join(root, inc)):
                        bad.append(f"{rel}:{n}: includes {inc}, which is not a path from the repository root")
                        continue
                    other = layer(inc)
                    graph[(LAYERS[me], LAYERS[other])] = graph.get((LAYERS[me], LAYERS[other]), 0) + 1
                    if other > me:
                        bad.append(f"{rel}:{n}: {LAYERS[me]} includes {inc} from the higher layer {LAYERS[other]}")
    for d, _, files in os.walk(os.path.join(root, "tests")):
        for f in files:
            if f.endswith(".cpp"):
                rel = os.path.relpath(os.path.join(d, f), root)
                for n, line in enumerate(open(os.path.join(d, f), encoding="utf-8"), 1):
                    m = re.search(r'TEST_CASE\("((?:[^"\\]|\\.)*)"', line)
                    if m and ";" in m.group(1):
                        bad.append(f"{rel}:{n}: test case name has a ';', so ctest would never run it: {m.group(1)}")
    defined = {}
    for d, _, files in os.walk(os.path.join(root, "tests")):
        if os.path.relpath(d, root).startswith(os.path.join("tests", "fuzz")):
            continue  # the fuzz targets build one file each
        for f in sorted(files):
            if f.endswith(".cpp") and f != "main.cpp":
                rel = os.path.relpath(os.path.join(d, f), root)
                for name, n in file_scope_names(os.path.join(d, f)):
                    defined.setdefault(name, []).append(f"{rel}:{n}")
    for name, where in sorted(defined.items()):
        if len({w.rsplit(":", 1)[0] for w in where}) > 1:
            bad.append(f"{where[0]}: '{name}' is defined at file scope in {len(where)} test files "
                       f"({', '.join(where)}); unity batches put them in one translation unit")
    pairs = sibling_pairs(root)
    for (d, a, b), why in pairs.items():
        if (d, a, b) not in SIBLING_PAIRS:
            bad.append(f"{d}: {a} and {b} include each other ({'; '.join(why)}): move what both need into a "
                       "header of its own (docs/STYLE.md rule 30)")
    if "--siblings" in sys.argv:
        for (d, a, b), why in pairs.items():
            print(f"{d}: {a} <-> {b}   [{'; '.join(why)}]")
        print(f"{len(pairs)} pairs")
    if "--graph" in sys.argv:
        for (a, b), c in sorted(graph.items(), key=lambda kv: (LAYERS.index(kv[0][0]), LAYERS.index(kv[0][1]))):
            print(f"{a:12} -> {b:12} {c:4} includes")
    for b in bad:
        print(b)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
