"""The outside paper in examples/minnorm: registered only through the public mechanism (THEORYLAB_PAPERS or
--paper here; its entry point when installed), and its own tests pass. That it lists, evaluates, checks, verifies,
reports and writes LaTeX once pip-installed is asserted by the run of docs/authoring.md (tests/test_guide.py),
which does exactly that."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "minnorm"


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("THEORYLAB_PAPERS", "THEORYLAB_ONLY_FAMILIES")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(EXAMPLE), env.get("PYTHONPATH", "")]))
    env["THEORYLAB_ONLY_FAMILIES"] = "minnorm"   # the example needs no built-in family
    return {**env, **extra}


def _theorylab(*args: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "theorylab", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900)


def test_example_bad_input_is_one_line(monkeypatch):
    """Registered by THEORYLAB_PAPERS (the guide's run, tests/test_guide.py, registers it by its entry point and
    asserts list, eval, check, verify, report and latex): a bad input is a one-line error naming the parameter."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.setenv("THEORYLAB_PAPERS", "theorylab_minnorm")
    monkeypatch.setenv("THEORYLAB_ONLY_FAMILIES", "minnorm")
    code, out, err = run_cli("eval", "minnorm.risk", "gamma=1", "r=1", "sigma=1")  # in-process: one interpreter less
    assert code == 2 and err.startswith("error: gamma must not be 1") and err.count("\n") == 1
    assert out == ""


def test_example_by_file_path(tmp_path):
    """--paper with the package's __init__.py as a file works too (its family modules are found on the path)."""
    env = _env()
    run = _theorylab("list", "--paper", str(EXAMPLE / "theorylab_minnorm" / "__init__.py"), cwd=tmp_path, env=env)
    assert run.returncode == 0 and "minnorm.risk_finite" in run.stdout, run.stderr


def test_example_own_tests(tmp_path):
    """The example's tests, run as its author runs them (pytest in its folder), with the `smoke` Hypothesis profile
    its conftest.py registers (20 derandomized examples per property instead of 100: the example's own properties;
    theorylab's contract runs 100 examples per entry of the built-in papers in tests/test_contract.py); pytest's
    header shows the profile in force."""
    run = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "--hypothesis-profile",
                          "smoke", str(EXAMPLE / "tests")],
                         cwd=EXAMPLE, env=_env(THEORYLAB_PAPERS="theorylab_minnorm"), capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and " failed" not in run.stdout and " FAILED" not in run.stdout
    assert re.search(r"^hypothesis profile 'smoke' -> .*max_examples=20\b", run.stdout, flags=re.M), run.stdout[:2000]


def test_example_installs_and_registers_by_its_entry_point(guide_example):
    """`pip install --no-deps -e examples/minnorm` (a copy: an editable install writes its egg-info beside the package)
    into a throw-away virtual environment (on top of this one's packages, so nothing outside it changes; built by this
    environment's setuptools where it can, else in pip's isolation, never by the base interpreter's): the guide's own
    install of the example, run once for the session (the `guide_example` fixture, tests/guide_run.py). The paper is
    found by its entry point alone, with no THEORYLAB_PAPERS and no PYTHONPATH; uninstalled in the end, it is gone."""
    assert guide_example.ok(), guide_example.why()
    python = guide_example.python
    listed = guide_example.outputs["theorylab list"]  # the guide's `theorylab list`, run in that environment
    assert "paper minnorm:" in listed and "minnorm.inverse_moment" in listed
    cwd = guide_example.work.parent
    env = {k: v for k, v in os.environ.items() if k not in ("THEORYLAB_PAPERS", "PYTHONPATH")}
    env["THEORYLAB_ONLY_FAMILIES"] = "minnorm"
    try:
        origin = subprocess.run([str(python), "-c", "from theorylab._pipeline import catalogue; "
                                 "print([w for w, _ in catalogue._entry_points()])"], cwd=cwd, env=env,
                                capture_output=True, text=True, timeout=600)
        assert "minnorm" in origin.stdout, origin.stderr
    finally:
        pip = [sys.executable, "-m", "pip", "--python", str(python)]
        subprocess.run([*pip, "uninstall", "-q", "-y", "theorylab-minnorm"], capture_output=True, timeout=600)
    gone = subprocess.run([str(python), "-m", "theorylab", "list"], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=600)
    assert gone.returncode == 0, gone.stderr
    assert "paper minnorm:" not in gone.stdout


def test_example_uses_an_entry_as_a_function(monkeypatch):
    """minnorm's ridge risk is written with the Stieltjes transform entry as a function: its LaTeX and `show` keep
    m(-lambda) and m'(-lambda), and its composed kernel is accurate where lambda -> 0 meets gamma -> 1 (issue #26's
    point, where a hand-inlined kernel was 2% off)."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    from theorylab_minnorm import PAPER, entries

    ridge = next(e for e in entries.ENTRIES if e.id == "minnorm.ridge_risk")
    text = ridge.latex(settings=PAPER.latex["printer"])
    assert text.startswith(r"R_\lambda(\gamma) = ") and r"m(-\lambda)" in text and r"m'(-\lambda)" in text, text
    assert r"\|\beta\|^{2}" in text and r"\sqrt" not in text
    assert "m(-λ)" in ridge.unicode() and "m'(-λ)" in ridge.unicode()
    assert ridge.check_display().holds
    for kw in ({"lam": 1e-30, "gamma": 1 + 1e-15, "r": 1.0, "sigma": 1.0},
               {"lam": 1e-16, "gamma": 1 - 1e-16, "r": 1.0, "sigma": 1.0},
               {"lam": 2.2250738585072014e-308, "gamma": 1e6, "r": 0.7, "sigma": 0.7}):
        assert abs(ridge(**kw) / ridge.reference_value(**kw) - 1) < 1e-12, kw
    assert ridge(lam=1e-12, gamma=0.5, r=1.0, sigma=1.0) == pytest.approx(
        entries.ENTRIES[0](gamma=0.5, r=1.0, sigma=1.0), rel=1e-9)   # ridgeless limit


DYNAMICS = ROOT / "examples" / "dynamics"


def test_the_dynamics_paper_is_under_300_lines_and_checks_its_two_errors(monkeypatch):
    """examples/dynamics: a learning-dynamics paper scaffolded from its .tex (new --from) and written up, evidence and
    tests included, in at most 300 lines; `check` confirms its two planted errors and flags nothing true."""
    lines = sum(len(p.read_text().splitlines()) for p in DYNAMICS.rglob("*.py"))
    assert lines <= 300, lines
    monkeypatch.syspath_prepend(str(DYNAMICS))
    monkeypatch.setenv("THEORYLAB_PAPERS", "sigmoid_paper")
    monkeypatch.setenv("THEORYLAB_ONLY_FAMILIES", "sigmoid_paper")
    code, out, err = run_cli("check", "sigmoid-paper")  # in-process: one interpreter less
    assert code == 0, out[-2000:] + err[-2000:]
    assert "11 hold (11 proved" in out and "2 errata of the paper confirmed, 0 unexpected" in out


def test_the_dynamics_papers_evidence_uses_the_helpers_and_passes(monkeypatch):
    monkeypatch.syspath_prepend(str(DYNAMICS))
    monkeypatch.setenv("THEORYLAB_PAPERS", "sigmoid_paper")
    monkeypatch.setenv("THEORYLAB_ONLY_FAMILIES", "sigmoid_paper")
    from theorylab.authoring import Context
    from sigmoid_paper.checks import CHECKS

    records = [r for c in CHECKS for r in c.evaluate(Context(profile="quick"))]
    assert len(records) == 4 and all(r.verdict == "pass" for r in records), records
    assert "read at step 0" in records[-1].tolerance_source and "solve_ivp" in records[0].tolerance_source
