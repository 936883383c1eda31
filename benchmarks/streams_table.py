#!/usr/bin/env python3
"""Per stream of one or two results files of benchmarks/streams.sh: the fastest competitor and
its ns per call, ifunc's pick's time over it, glibc's fastest variant, what the fixed sizes
measured beside the stream predict fastest, and (with two files) whether the runs agree on the
fastest (the second's fastest tied with the first's in the first file's rounds)."""
import json, math, sys


def groups(path):
    doc = json.load(open(path))
    pick = doc["context"].get("ifunc", {}).get("memcpy", "")
    weights = {(s["name"], s["footprint"]): s.get("fixed_weights", []) for s in doc["context"].get("streams", [])}
    fixed, streams = {}, {}
    for e in doc["benchmarks"]:
        if "real_time" not in e:
            continue
        p = e["params"]
        if "stream" in p:
            streams.setdefault((p["stream"], p["footprint"]), []).append(e)
        elif e["name"] == f'{e["kernel"]}/{e["size"]}':
            fixed[(e["kernel"], e["size"])] = e["real_time"]
    out = {}
    for key, es in streams.items():
        calls = es[0]["params"].get("stream_calls", 4096)
        per = {e["kernel"]: e["real_time"] / calls for e in es}
        pred = {}
        for k in per:
            try:
                pred[k] = sum(w["share"] * fixed[(k, w["size"])] for w in weights[key])
            except KeyError:
                pass
        out[key] = (per, pred, "glibc/" + pick)
    return out


def row(key, g):
    per, pred, pick = g
    best = min(per, key=per.get)
    glibc = min((k for k in per if k.startswith("glibc/")), key=per.get, default="-")
    pbest = min(pred, key=pred.get) if pred else "-"
    return best, (f"{key[0]:<13} {key[1]:>7} {best:<40} {per[best]:>6.2f} "
                  f"{per.get(pick, math.nan) / per[best]:>6.2f} {glibc:<38} {pbest:<40}")


a = groups(sys.argv[1])
b = groups(sys.argv[2]) if len(sys.argv) > 2 else None
print(f"{'stream':<13} {'bytes':>7} {'fastest':<40} {'ns':>6} {'pick/f':>6} {'glibc fastest':<38} "
      f"{'fixed sizes predict':<40}" + (" runs agree" if b else ""))
for key in sorted(a):
    best, text = row(key, a[key])
    if b and key in b:
        other = min(b[key][0], key=b[key][0].get)
        text += "  yes" if other == best or abs(b[key][0][other] / b[key][0][best] - 1) < 0.02 else f"  no ({other})"
    print(text)
