"""Benchmark: cold-start times of the CLI against `python -c "import numpy"`, side by side in one run.

Each command runs in a fresh process, `repeats` times; the figure is the median wall time and its ratio to the
numpy baseline. Run: python benchmarks/bench_startup.py [--repeats 5]
"""
from __future__ import annotations

import argparse
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


def wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    for cmd in COMMANDS.values():  # warm the file cache once
        wall(cmd)
    times = {name: statistics.median(wall(cmd) for _ in range(args.repeats)) for name, cmd in COMMANDS.items()}
    base = times['python -c "import numpy"']
    print("| command | median wall time (s) | ratio to import numpy |\n| --- | --- | --- |")
    for name, t in times.items():
        print(f"| `{name}` | {t:.2f} | {t / base:.1f} |")


if __name__ == "__main__":
    main()
