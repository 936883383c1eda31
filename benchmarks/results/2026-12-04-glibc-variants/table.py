# Per size from the results files: the group winner, the fastest glibc variant and ifunc's pick
# (their time over the winner's in the same rounds, from the file's "groups"), then whether two runs agree.
# Usage: python3 table.py copy|clear RUN1.json RUN2.json
import json, sys
def load(path):
    d = json.load(open(path))
    return d
def fmt_size(n):
    for u, s in (("MiB", 1 << 20), ("KiB", 1024)):
        if n >= s and n % s == 0: return f"{n // s} {u}"
    return f"{n} B"
def rows(d, op):
    ifunc = d["context"]["ifunc"]
    pick = "glibc/" + (ifunc["memcpy"] if op == "copy" else ifunc["memset"])
    out = {}
    for g in d["groups"]:
        size = g["size"]
        strip = lambda n: n.rsplit("/", 1)[0]
        ties = [strip(t) for t in g["ties"]]
        m = {strip(x["name"]): x for x in g["members"]}
        best_glibc = next(strip(x["name"]) for x in g["members"] if x["name"].startswith("glibc/"))
        p = m[pick]["vs_winner"]
        out[size] = dict(winner=strip(g["winner"]), ties=ties, pick=pick, pick_tie=m[pick]["tie"],
                         ratio=p, best_glibc=best_glibc, bg=m[best_glibc]["vs_winner"], rounds=g["rounds"])
    return out
def iv(r): return f"{r['ratio']:.2f} [{r['low']:.2f}-{r['high']:.2f}]"
op = sys.argv[1]
a, b = rows(load(sys.argv[2]), op), rows(load(sys.argv[3]), op)
print("| size | run | fastest (ties) | fastest glibc variant, time / fastest | ifunc's pick, time / fastest | pick tied |")
print("|---:|---|---|---|---|---|")
for size in sorted(a):
    for tag, r in (("1", a[size]), ("2", b[size])):
        print(f"| {fmt_size(size)} | {tag} | `{r['winner']}` ({len(r['ties'])}) | `{r['best_glibc']}` {iv(r['bg'])} | {iv(r['ratio'])} | {'yes' if r['pick_tie'] else 'no'} |")
print()
print("| size | fastest agrees | pick's ratio intervals overlap | fastest glibc variant agrees |")
print("|---:|---|---|---|")
for size in sorted(a):
    x, y = a[size], b[size]
    fa = "same" if x["winner"] == y["winner"] else ("each in the other's ties" if x["winner"] in y["ties"] and y["winner"] in x["ties"] else "no")
    ov = "yes" if x["ratio"]["low"] <= y["ratio"]["high"] and y["ratio"]["low"] <= x["ratio"]["high"] else "no"
    gb = "same" if x["best_glibc"] == y["best_glibc"] else ("each in the other's ties" if x["best_glibc"] in y["ties"] and y["best_glibc"] in x["ties"] else "different (not both tied)")
    print(f"| {fmt_size(size)} | {fa} | {ov} | {gb} |")
