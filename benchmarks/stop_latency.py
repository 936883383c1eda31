#!/usr/bin/env python3
"""How fast kex answers a stop, in every phase (each phase should answer within a second).

Starts kex in each phase's setting, waits for the line that says the phase has
begun (plus a delay), sends SIGINT (or SIGINT then SIGTERM: "stop at once") to
its process group, and prints the time from the signal to kex's exit and the
exit status, for --times N tries each.

  verify      a 720-kernel, 2,880-placement config (about 10 s of verification here)
  verify x2   the same, two signals: nothing written
  measuring   the built-in default sweep, one second into measuring
  fastc       the fastc seed harness
  segments    the segment-override table with 2e9 iterations a case
  run segs    the segment table inside kex run, segments.iterations 5e7 (a sample
              shorter than a chunk of iterations: the stop used to wait for the case)

Figures, not a test. Usage: benchmarks/stop_latency.py [--kex build/kex] [--times 3]
"""
import argparse, json, os, signal, statistics, subprocess, tempfile, time

MANY = {"sizes": [4096],
        "kernels": [{"op": ["copy", "clear"], "regs": ["gpr", "sse", "avx"], "unroll": [64, 128, 256, 512, 1024],
                     "prefetch": ["none", "nta@64", "nta@128", "nta@256", "t0@256", "t0@512"],
                     "store": ["temporal", "nt"], "direction": ["forward", "backward"]}],
        "layout": {"src_offset": [0, 8], "dst_offset": [0, 8]},
        "baselines": False, "max_time_per_point": 0.001}


def latency(cmd, marker, delay, signals, log):
    """Seconds from the first signal to the exit, and the exit status (stdout and stderr go to `log`)."""
    with open(log, "wb") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=out, start_new_session=True)
    t0 = time.time()
    while time.time() - t0 < 120:
        with open(log, "rb") as f:
            if marker in f.read():
                break
        time.sleep(0.005)
    else:
        p.kill()
        raise SystemExit(f"stop_latency: {cmd[1]} never printed {marker!r}")
    time.sleep(delay)
    t = time.time()
    for s in signals:
        os.killpg(p.pid, s)
    p.wait()
    return time.time() - t, p.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kex", default="build/kex")
    ap.add_argument("--times", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        many = os.path.join(d, "many.json")
        with open(many, "w") as f:
            json.dump(MANY, f)
        segs = os.path.join(d, "segs.json")
        with open(segs, "w") as f:
            json.dump({"segments": {"iterations": 50000000}, "baselines": False}, f)
        cases = {
            "verify": ([a.kex, "run", many, "--no-sentinel"], b"kex: verifying", 0.3, [signal.SIGINT]),
            "verify x2": ([a.kex, "run", many, "--no-sentinel"], b"kex: verifying", 0.3,
                          [signal.SIGINT, signal.SIGTERM]),
            "measuring": ([a.kex, "run", "built-in:default"], b"tasks (", 1.0, [signal.SIGINT]),
            "fastc": ([a.kex, "run", "--preset", "fastc", "--harness", "fastc"], b"harness", 0.3, [signal.SIGINT]),
            "segments": ([a.kex, "segments", "--iterations", "2000000000", "--repetitions", "1"],
                         b"segment-override table", 1.0, [signal.SIGINT]),
            "run segs": ([a.kex, "run", segs], b"segment-override table", 1.0, [signal.SIGINT]),
        }
        print(f"{'phase':<11} {'median ms':>9} {'max ms':>7}  exit statuses ({a.times} tries)")
        for name, (cmd, marker, delay, sigs) in cases.items():
            got = []
            for i in range(a.times):
                out = os.path.join(d, f"out{i}-{name.replace(' ', '')}.json")
                extra = [] if cmd[1] == "segments" else ["-o", out]
                got.append(latency(cmd + extra, marker, delay, sigs, os.path.join(d, "log")))
            ms = [g[0] * 1e3 for g in got]
            print(f"{name:<11} {statistics.median(ms):9.1f} {max(ms):7.1f}  {sorted(set(g[1] for g in got))}")


if __name__ == "__main__":
    main()
