"""Benchmark: trained-network checks idle and with one core held by another process (`yes > /dev/null`).

Each measurement runs one check as a verify task (theorylab.runner.run_task) in a fresh process, so thread settings
apply from the start, side by side in this run: theorylab's policy (one thread per task) against torch's default
(all cores), idle and loaded. The figures are the ratios loaded / idle for each policy (the issue's bound: <= 2.5).
Run: python benchmarks/bench_load.py [--checks NAME ...] [--repeats 2]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

DEFAULT = ("finetuned ReLU networks: per-unit deviation vs r~", "trained PT+FT diagonal networks")
CHILD = """
import json, sys, time
from theorylab.runner import run_task
t = time.perf_counter()
run_task("check", sys.argv[1], "quick", "cpu", 0, int(sys.argv[2]))
print(json.dumps(time.perf_counter() - t))
"""


def one(check: str, threads: int) -> float:
    """Wall time of the check in a fresh process; threads = 0 leaves torch's default (all cores)."""
    env = dict(os.environ)
    if threads == 0:
        env.pop("OMP_NUM_THREADS", None)
        code = CHILD.replace("int(sys.argv[2]))", "int(sys.argv[2]) or __import__('os').cpu_count())")
    else:
        code = CHILD
    out = subprocess.run([sys.executable, "-c", code, check, str(threads)], capture_output=True, text=True, env=env,
                         timeout=3600)
    if out.returncode:
        raise SystemExit(out.stderr[-2000:])
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--checks", nargs="*", default=list(DEFAULT))
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    rows = []
    for check in args.checks:
        for label, threads in (("theorylab (1 thread/task)", 1), ("torch default (all cores)", 0)):
            idle = statistics.median(one(check, threads) for _ in range(args.repeats))
            hog = subprocess.Popen(["yes"], stdout=subprocess.DEVNULL)
            try:
                time.sleep(0.5)
                loaded = statistics.median(one(check, threads) for _ in range(args.repeats))
            finally:
                hog.kill()
                hog.wait()
            rows.append({"check": check, "policy": label, "idle_s": round(idle, 2), "loaded_s": round(loaded, 2),
                         "ratio": round(loaded / idle, 2)})
            print(json.dumps(rows[-1]), flush=True)
    print("\n| check | policy | idle (s) | one core held (s) | ratio |\n| --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['check']} | {r['policy']} | {r['idle_s']} | {r['loaded_s']} | {r['ratio']} |")


if __name__ == "__main__":
    main()
