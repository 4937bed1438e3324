"""Benchmark: cold-start times of the CLI against `python -c "import numpy"`, side by side in one run.

Each command runs in a fresh process, `repeats` times, the commands interleaved; the figures are the median wall
time, the median CPU time (user + system: the load-robust figure on a shared machine) and their ratios to the numpy
baseline. Run: python benchmarks/bench_startup.py [--repeats 5]
"""
from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time

COMMANDS = {
    'python -c "import numpy"': [sys.executable, "-c", "import numpy"],
    "theorylab eval qpenalty.q z=1": [sys.executable, "-m", "theorylab", "eval", "qpenalty.q", "z=1"],
    "theorylab list": [sys.executable, "-m", "theorylab", "list"],
    "theorylab show qpenalty.q": [sys.executable, "-m", "theorylab", "show", "qpenalty.q"],
}


def run(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one fresh process running cmd."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    for cmd in COMMANDS.values():  # warm the file cache once
        run(cmd)
    samples = {name: [] for name in COMMANDS}
    for _ in range(args.repeats):  # interleaved, so a burst of load hits every command alike
        for name, cmd in COMMANDS.items():
            samples[name].append(run(cmd))
    med = {name: (statistics.median(w for w, _ in s), statistics.median(c for _, c in s)) for name, s in samples.items()}
    base_w, base_c = med['python -c "import numpy"']
    print(f"load average {' '.join(f'{x:.2f}' for x in __import__('os').getloadavg())}")
    print("| command | median wall (s) | wall / numpy | median CPU (s) | CPU / numpy |\n| --- | --- | --- | --- | --- |")
    for name, (w, c) in med.items():
        print(f"| `{name}` | {w:.2f} | {w / base_w:.1f} | {c:.2f} | {c / base_c:.1f} |")


if __name__ == "__main__":
    main()
