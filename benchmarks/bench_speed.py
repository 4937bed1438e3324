"""Benchmark: what a user and a contributor wait for, side by side in one run, each against its target (issue #36).

verify (quick profile, empty caches), `check` of each built-in paper with an empty step cache and again warm, the
author's loop (a 40-step paper re-checked warm after one step was edited: benchmarks/ldyn_paper.py), `coverage` of
the four papers, `eval`, `import theorylab`; and, from a pytest log run with --durations (`--tests LOG`), the test
suite's 20 slowest tests and its CPU time (from `/usr/bin/time -v` at the end of the log, where present).

Every command runs in a fresh process with its own XDG_CACHE_HOME (cold: empty; warm: after a first run); the figures
are wall seconds, CPU seconds of the process and its children (user + system: the load-robust figure on a shared
machine), the ratio of wall to the target where the issue sets one, and the ratio of CPU to a reference workload
run in the same benchmark (a fixed SymPy + NumPy computation in a fresh process, at the start, midway and at the
end: its median CPU): "x ref" compares runs on different machines or under different load, as the brief asks.
Run: python benchmarks/bench_speed.py [--skip-verify] [--skip-papers] [--tests LOG] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ldyn_paper  # noqa: E402

PAPERS = ("ptft-diagonal", "ptft-relu", "features-are-fate", "adaptive-tangent")
TARGETS = {"verify (quick), empty caches": 60.0, "ldyn: re-check after editing one step": 1.5,
           "theorylab eval qpenalty.q z=1": 0.5, "theorylab eval relu.penalty": 0.5}
# the reference workload: SymPy series and simplification plus a NumPy eigensolve, about 1-2 CPU s; the same code in
# every run of this benchmark (change it and the ratios of older runs no longer compare)
REFERENCE = ("import numpy as np, sympy as sp\n"
             "x = sp.Symbol('x')\n"
             "for k in range(3): sp.series(sp.exp(sp.sin(x)) * sp.cos(x) ** k, x, 0, 10)\n"
             "sp.simplify(sp.sin(x) ** 4 - sp.cos(x) ** 4 + sp.cos(2 * x))\n"
             "a = np.random.default_rng(0).normal(size=(300, 300)); np.linalg.eigvalsh(a @ a.T)\n")


def run(argv: list[str], cache: Path, env_extra: dict | None = None) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of one fresh process; it must succeed."""
    # bytecode cached as an installed package has it (PYTHONDONTWRITEBYTECODE=1, where a shell sets it, made every
    # command compile theorylab's modules again: ~0.2-0.3 CPU s of each eval), kept in the benchmark's folder
    env = {k: v for k, v in os.environ.items()
           if k not in ("THEORYLAB_PAPERS", "THEORYLAB_ONLY_FAMILIES", "PYTHONDONTWRITEBYTECODE")}
    env.update(XDG_CACHE_HOME=str(cache), PYTHONPYCACHEPREFIX=str(cache.parent / "pycache"), **(env_extra or {}))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cache.parent)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def theorylab(*args: str) -> list[str]:
    return [sys.executable, "-m", "theorylab", *args]


def measure(skip_verify: bool, skip_papers: bool = False) -> list[dict]:
    rows: list[dict] = []
    refs: list[tuple[float, float]] = []

    def reference(cache: Path) -> None:
        refs.append(run([sys.executable, "-c", REFERENCE], cache)[:2])
        print(f"{'reference workload (fresh process)':55s} {refs[-1][0]:8.2f} s wall {refs[-1][1]:8.2f} s CPU",
              flush=True)

    def row(name, wall, cpu, note=""):
        target = TARGETS.get(name)
        rows.append({"name": name, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "target_s": target,
                     "ratio": round(wall / target, 2) if target else None, "note": note})
        print(f"{name:55s} {wall:8.2f} s wall {cpu:8.2f} s CPU" + (f"  target {target:g} s: x{wall / target:.2f}"
                                                                   if target else "") + (f"  {note}" if note else ""),
              flush=True)

    with tempfile.TemporaryDirectory(prefix="bench-speed-") as tmp:
        tmp = Path(tmp)
        # start-up
        cache = tmp / "warm"
        run([sys.executable, "-c", "import theorylab"], cache)  # the file cache, once
        reference(cache)
        best = min((run([sys.executable, "-c", "import theorylab"], cache) for _ in range(3)), key=lambda x: x[0])
        row("import theorylab", *best[:2])
        best = min((run(theorylab("eval", "qpenalty.q", "z=1"), cache) for _ in range(3)), key=lambda x: x[0])
        row("theorylab eval qpenalty.q z=1", *best[:2])
        relu = theorylab("eval", "relu.penalty", "m=1", "m0=1", "rho=0.5", "gamma=0")
        best = min((run(relu, cache) for _ in range(3)), key=lambda x: x[0])
        row("theorylab eval relu.penalty", *best[:2], "m=1 m0=1 rho=0.5 gamma=0")
        if not skip_verify:
            wall, cpu, out = run(theorylab("verify", "--json", str(tmp / "ev.json"), "--device", "cpu"),
                                 tmp / "verify-cold")
            row("verify (quick), empty caches", wall, cpu, out.strip().splitlines()[-1][:80] if out.strip() else "")
            wall, cpu, _ = run(theorylab("verify", "--json", str(tmp / "ev.json"), "--device", "cpu"),
                               tmp / "verify-cold")
            row("verify (quick), warm step cache", wall, cpu)
        reference(cache)
        for paper in () if skip_papers else PAPERS:
            cache = tmp / f"check-{paper}"
            wall, cpu, out = run(theorylab("check", paper), cache)
            row(f"check {paper}, empty caches", wall, cpu, _cache_line(out))
            wall, cpu, out = run(theorylab("check", paper), cache)
            row(f"check {paper}, warm", wall, cpu, _cache_line(out))
        cache = tmp / "ldyn"
        path = ldyn_paper.write(tmp / "ldyn")
        only = {"THEORYLAB_ONLY_FAMILIES": "ldyn"}
        wall, cpu, out = run(theorylab("check", "ldyn", "--paper", str(path)), cache, only)
        row("ldyn (40 steps), empty caches", wall, cpu, _cache_line(out))
        wall, cpu, out = run(theorylab("check", "ldyn", "--paper", str(path)), cache, only)
        row("ldyn: warm, nothing changed", wall, cpu, _cache_line(out))
        ldyn_paper.write(tmp / "ldyn", edit=1)
        wall, cpu, out = run(theorylab("check", "ldyn", "--paper", str(path)), cache, only)
        row("ldyn: re-check after editing one step", wall, cpu, _cache_line(out))
        if not skip_papers:
            wall, cpu, _ = run(theorylab("coverage"), tmp / "coverage")
            row("coverage of the four papers, empty caches", wall, cpu)
        reference(cache)
    ref_wall, ref_cpu = sorted(refs)[len(refs) // 2]
    print(f"\nreference workload: median {ref_wall:.2f} s wall, {ref_cpu:.2f} s CPU (of {len(refs)} runs); "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| what | wall (s) | CPU (s) | CPU x ref | wall / target |\n| --- | --- | --- | --- | --- |")
    for r in rows:
        r["cpu_x_ref"] = round(r["cpu_s"] / ref_cpu, 2) if ref_cpu > 0 else None
        print(f"| {r['name']} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} | {r['cpu_x_ref']} | "
              f"{'x%.2f' % r['ratio'] if r['ratio'] is not None else ''} |")
    rows.append({"name": "reference workload", "wall_s": round(ref_wall, 2), "cpu_s": round(ref_cpu, 2),
                 "target_s": None, "ratio": None, "note": "median of the runs", "cpu_x_ref": 1.0})
    return rows


def _cache_line(out: str) -> str:
    found = re.findall(r"^\d+ steps: .*$", out, flags=re.M)
    return found[-1] if found else ""


def slowest(log: str, n: int = 20) -> dict:
    """The n slowest test phases of a pytest --durations log and the run's CPU seconds (`/usr/bin/time -v`)."""
    text = Path(log).read_text(errors="replace")
    tests = [(float(s), what, name) for s, what, name in
             re.findall(r"^([\d.]+)s (call|setup|teardown)\s+(\S+)", text, flags=re.M)]
    tests.sort(reverse=True)
    user = re.search(r"User time \(seconds\): ([\d.]+)", text)
    system = re.search(r"System time \(seconds\): ([\d.]+)", text)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text)
    summary = re.findall(r"^=*\s*(\d+ (?:passed|failed)\b.*?)\s*=*$", text, flags=re.M)
    return {"slowest": [{"seconds": s, "phase": w, "test": t} for s, w, t in tests[:n]],
            "cpu_s": float(user.group(1)) + float(system.group(1)) if user and system else None,
            "wall": wall.group(1) if wall else None, "summary": summary[-1] if summary else None}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skip-verify", action="store_true", help="leave out verify (quick): about 140 CPU s")
    ap.add_argument("--skip-papers", action="store_true", help="leave out check and coverage of the four papers "
                    "(about 250 CPU s with empty caches)")
    ap.add_argument("--tests", default="", help="a pytest log run with --durations=N (and /usr/bin/time -v)")
    ap.add_argument("--only-tests", action="store_true", help="only read the test log")
    ap.add_argument("--json", default="", help="write the figures here")
    args = ap.parse_args(argv)
    out: dict = {}
    if not args.only_tests:
        out["commands"] = measure(args.skip_verify, args.skip_papers)
    if args.tests:
        out["tests"] = slowest(args.tests)
        t = out["tests"]
        print(f"\ntest suite: {t['summary']}; wall {t['wall']}, {t['cpu_s']} CPU s; the 20 slowest:")
        for r in t["slowest"]:
            print(f"  {r['seconds']:7.2f} s {r['phase']:8s} {r['test']}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
