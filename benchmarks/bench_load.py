"""Benchmark: trained-network checks idle and with one core held by another process (`yes > /dev/null`).

Each measurement runs one piece of a check (a verify task: one part of a check declared with parts) in a fresh
process with verify's thread policy applied from the start (theorylab._pipeline.runner._set_threads: one thread per task) or
torch's default (all cores), alternating idle, loaded, idle, loaded ... so that the other load on a shared machine
drifts evenly over both. The figure is the ratio of median wall times, loaded / idle, per check and policy (issue
#15's bound: <= 2.5 for the one-thread policy); the 1-minute load average is printed beside every measurement, since
"idle" on a shared machine is only "without our extra `yes`".
Run: python benchmarks/bench_load.py [--checks NAME ...] [--alternations 2] [--policies one default]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

DEFAULT = ("finetuned ReLU networks: per-unit deviation vs r~", "adaptive tangent features: seed 003 Fig. 1 on digits",
           "trained ReLU network: student-teacher transfer (Sec. 4, Fig. 3)")
CHILD = """
import json, resource, sys, time
from theorylab._pipeline import catalogue
from theorylab._records.evidence import Context, to_jsonable
from theorylab._pipeline.runner import _set_threads
name, threads = sys.argv[1], int(sys.argv[2])
check = next(c for c in catalogue.checks() if c.name == name)
_set_threads(threads or __import__('os').cpu_count())
ctx = Context()
part = check.parts(ctx)[0] if check.parts is not None else None
r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
out = to_jsonable(check.run(ctx, part)) if part is not None else check.run(ctx)
r1 = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall": time.perf_counter() - t0, "cpu": r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime,
                  "part": part}))
"""
POLICIES = {"one": ("theorylab (1 thread/task)", 1), "default": ("torch default (all cores)", 0)}


def one(check: str, threads: int) -> dict:
    """Wall and CPU time of the check's first piece in a fresh process; threads = 0: all cores."""
    env = dict(os.environ)
    if threads == 0:
        env.pop("OMP_NUM_THREADS", None)
    out = subprocess.run([sys.executable, "-c", CHILD, check, str(threads)], capture_output=True, text=True, env=env,
                         timeout=3600)
    if out.returncode:
        raise SystemExit(out.stderr[-2000:])
    rec = json.loads(out.stdout.strip().splitlines()[-1])
    rec["load1"] = os.getloadavg()[0]
    return rec


def measure(check: str, threads: int, loaded: bool) -> dict:
    hog = subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) if loaded else None
    try:
        if hog:
            time.sleep(0.5)
        return one(check, threads)
    finally:
        if hog:
            hog.kill()
            hog.wait()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--checks", nargs="*", default=list(DEFAULT))
    ap.add_argument("--alternations", type=int, default=2)
    ap.add_argument("--policies", nargs="*", default=["one"], choices=sorted(POLICIES))
    args = ap.parse_args()
    rows = []
    for check in args.checks:
        for pol in args.policies:
            label, threads = POLICIES[pol]
            runs = {False: [], True: []}
            for _ in range(args.alternations):
                for loaded in (False, True):
                    rec = measure(check, threads, loaded)
                    runs[loaded].append(rec)
                    print(json.dumps({"check": check, "policy": label, "loaded": loaded, **rec}), flush=True)
            idle = statistics.median(r["wall"] for r in runs[False])
            busy = statistics.median(r["wall"] for r in runs[True])
            rows.append({"check": check, "part": runs[False][0]["part"], "policy": label, "idle_s": round(idle, 2),
                         "loaded_s": round(busy, 2), "ratio": round(busy / idle, 2),
                         "cpu_idle_s": round(statistics.median(r["cpu"] for r in runs[False]), 2),
                         "cpu_loaded_s": round(statistics.median(r["cpu"] for r in runs[True]), 2),
                         "load1": [round(r["load1"], 1) for pair in zip(runs[False], runs[True]) for r in pair]})
    print("\n| check (first part) | policy | idle wall (s) | one core held (s) | ratio | CPU idle / held (s) | "
          "load avg (idle, held, ...) |\n| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['check']} {json.dumps(r['part']) if r['part'] is not None else ''} | {r['policy']} | "
              f"{r['idle_s']} | {r['loaded_s']} | {r['ratio']} | {r['cpu_idle_s']} / {r['cpu_loaded_s']} | "
              f"{', '.join(map(str, r['load1']))} |")


if __name__ == "__main__":
    main()
