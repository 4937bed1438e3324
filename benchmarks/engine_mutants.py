"""Plant each mistake of theorylab/_tools/engine_mutants.py in the engine and report which layer catches it: `theorylab
check`, `theorylab verify` (on a selection) and the tests (the ones the mutant names, or a wider set).

Each mutant runs in fresh subprocesses (the mutant applied before anything else, so every module sees it; the
step cache in a temporary folder, so no cached verdict answers for a changed engine; verify with --jobs 1 so the
checks run in the mutated process). Usage:

    python benchmarks/engine_mutants.py [--select qpenalty measure] [--tests all|named|FILES...]
                                        [--only NAME ...] [--json out.json] [--skip-check] [--skip-verify]

A layer "catches" a mutant when its command exits non-zero (check: an unexpected step; verify: a failed record or
an unexpected step; tests: a failing test). Without --json it prints the table only.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from theorylab._tools import engine_mutants as engine  # noqa: E402

_PRELUDE = ("import sys, theorylab._tools.engine_mutants as E; _m = E.by_name({name!r}); _ctx = E.applied(_m); "
            "_ctx.__enter__(); ")


def _run(name: str | None, code: str, timeout: int) -> tuple[int, str, float]:
    """Run `code` in a fresh interpreter with the mutant applied first; (exit status, output tail, seconds)."""
    prelude = _PRELUDE.format(name=name) if name else "import sys; "
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache, "THEORYLAB_STEP_CACHE": "0"}
        t0 = time.perf_counter()
        try:
            p = subprocess.run([sys.executable, "-c", prelude + code], cwd=ROOT, env=env, capture_output=True,
                               text=True, timeout=timeout)
            return p.returncode, (p.stdout + p.stderr)[-4000:], time.perf_counter() - t0
        except subprocess.TimeoutExpired:
            return -1, "timed out", time.perf_counter() - t0


def _cli(args: list[str]) -> str:
    return f"from theorylab.cli import main; sys.exit(main({args!r}))"


def _pytest(nodes: list[str]) -> str:
    return (f"import pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '-p', 'no:xdist', "
            f"'-p', 'no:randomly', *{nodes!r}]))")


def _failed_tests(out: str) -> list[str]:
    return sorted({line.split()[1] for line in out.splitlines() if line.startswith("FAILED ")})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--select", nargs="*", default=["qpenalty", "measure"],
                    help="what check and verify run on (default: qpenalty measure)")
    ap.add_argument("--tests", nargs="*", default=["named"],
                    help="'named' (the mutant's own tests), 'all' (tests/test_engine_mutants.py, "
                         "tests/test_montecarlo_training.py, tests/test_derivation.py, tests/test_tangent_features.py"
                         "), or test files / node IDs")
    ap.add_argument("--only", nargs="*", default=[], help="mutant names (default: every one)")
    ap.add_argument("--skip-check", action="store_true")
    ap.add_argument("--skip-verify", action="store_true")
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--json", default="")
    args = ap.parse_args(argv)
    chosen = [engine.by_name(n) for n in args.only] if args.only else list(engine.MUTANTS)
    commands = {}
    if not args.skip_check:
        commands["check"] = lambda tmp: _cli(["check", *args.select])
    if not args.skip_verify:
        commands["verify"] = lambda tmp: _cli(["verify", *args.select, "--jobs", "1", "--device", "cpu", "--json",
                                               os.path.join(tmp, "ev.json")])
    # each layer unmutated first: a layer that fails without a mutant (a broken checkout) cannot catch one
    for layer, cmd in list(commands.items()):
        with tempfile.TemporaryDirectory() as tmp:
            code, out, _ = _run(None, cmd(tmp), args.timeout)
        if code != 0:
            print(f"{layer} fails without a mutant (status {code}); not run: {out[-300:]}")
            del commands[layer]
    rows = []
    for m in chosen:
        row = {"mutant": m.name, "area": m.area, "escape": m.escape, "description": m.description}
        for layer, cmd in commands.items():
            with tempfile.TemporaryDirectory() as tmp:
                code, out, s = _run(m.name, cmd(tmp), args.timeout)
            row[layer] = {"caught": code != 0, "status": code, "seconds": round(s, 1), "tail": out[-600:]}
        if args.tests == ["named"]:
            nodes = list(m.tests)
        elif args.tests == ["all"]:
            nodes = ["tests/test_engine_mutants.py", "tests/test_montecarlo_training.py", "tests/test_derivation.py",
                     "tests/test_tangent_features.py"]
        else:
            nodes = list(args.tests)
        nodes = [n for n in nodes if "test_every_engine_mutant" not in n]
        code, out, s = _run(m.name, _pytest(nodes + ["--deselect",
                                                     "tests/test_engine_mutants.py::test_every_engine_mutant_is_caught"
                                                     "_by_its_tests"]), args.timeout)
        row["tests"] = {"caught": code not in (0, 5), "status": code, "failed": _failed_tests(out),
                        "seconds": round(s, 1)}
        rows.append(row)
        cells = [("yes" if row[k]["caught"] else "no") if k in row else "-" for k in ("check", "verify", "tests")]
        print(f"{m.name:30s} check {cells[0]:3s} verify {cells[1]:3s} tests {cells[2]:3s} "
              f"{', '.join(row['tests']['failed'])[:150]}", flush=True)
    escaped = [r["mutant"] for r in rows if not any(r.get(k, {}).get("caught") for k in ("check", "verify", "tests"))]
    print(f"{len(rows)} engine mutants; caught by check {sum(r.get('check', {}).get('caught', False) for r in rows)}, "
          f"verify {sum(r.get('verify', {}).get('caught', False) for r in rows)}, "
          f"tests {sum(r['tests']['caught'] for r in rows)}; escaped every layer: {', '.join(escaped) or 'none'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"select": args.select, "mutants": rows}, indent=1))
    return 1 if escaped else 0


if __name__ == "__main__":
    sys.exit(main())
