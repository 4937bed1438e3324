"""`theorylab new`: a scaffolded paper installs and passes check, verify, latex, report and its own pytest, from outside
the checkout, as a new user runs them; bad names and folders are refused in one line."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from theorylab.testing import run_cli


def test_new_refuses_a_bad_name_and_a_folder_that_is_not_empty(tmp_path):
    for name, why in (("Bad Name", "NAME must be lower-case"), ("1paper", "NAME must be lower-case"),
                      ("class", "keyword"), ("numpy", "importable module"), ("qpenalty", "registered paper")):
        code, out, err = run_cli("new", name, str(tmp_path / "x"))
        assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, (name, err)
        assert why in err, (name, err)
    assert not (tmp_path / "x").exists()
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    code, out, err = run_cli("new", "fresh-paper", str(full))
    assert code == 2 and "must be a new or empty folder" in err and err.count("\n") == 1
    assert sorted(p.name for p in full.iterdir()) == ["notes.txt"]  # nothing written


def test_new_writes_a_package_with_every_piece(tmp_path):
    code, out, err = run_cli("new", "tiny-paper", str(tmp_path / "tp"))
    assert code == 0 and err == "", err
    assert "pip install -e" in out and "theorylab verify tiny-paper --json ev.json" in out
    root = tmp_path / "tp"
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    assert files == ["README.md", "pyproject.toml", "tests/test_tiny_paper.py", "tiny_paper/__init__.py",
                     "tiny_paper/checks.py", "tiny_paper/entries.py", "tiny_paper/figures.py",
                     "tiny_paper/paper.md"]
    import tomllib

    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["theorylab.papers"] == {"tiny-paper": "tiny_paper"}
    text = (root / "tiny_paper" / "entries.py").read_text()
    assert "Erratum(" in text and "stable_form=STABLE" in text
    assert "compare_mc(" in (root / "tiny_paper" / "checks.py").read_text()
    assert "contract_tests(\"tiny-paper\")" in (root / "tests" / "test_tiny_paper.py").read_text()


def test_scaffolded_paper_installs_and_passes_its_checks(tmp_path, guide_scaffold):
    """The issue's flow, offline: `theorylab new`, pip install -e DIR (into a throw-away virtual environment that sees
    this one's packages, so the paper is registered there only), then check, verify --json, latex and report. The
    scaffold, its install, its `check` and its own pytest are docs/authoring.md's section 1, run once for the session
    (the `guide_scaffold` fixture, tests/guide_run.py: built offline by this environment's setuptools where it can,
    otherwise in pip's isolation, never by whatever setuptools the base interpreter happens to have); the rest runs
    here in that environment."""
    assert guide_scaffold.ok(), guide_scaffold.why()
    assert (guide_scaffold.work / "my-paper" / "pyproject.toml").is_file()
    python = str(guide_scaffold.python)
    work = tmp_path / "work"  # outside the checkout and outside the package
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("THEORYLAB_ONLY_FAMILIES", "THEORYLAB_PAPERS",
                                                               "PYTHONPATH", "HYPOTHESIS_PROFILE")}
    env["XDG_CACHE_HOME"] = guide_scaffold.env["XDG_CACHE_HOME"]  # the verdicts its `check` decided

    def theorylab(*args: str) -> str:
        run = subprocess.run([python, "-m", "theorylab", *args], cwd=work, env=env, capture_output=True, text=True,
                             timeout=600)
        assert run.returncode == 0, f"theorylab {' '.join(args)}: {run.stdout[-3000:]}\n{run.stderr[-3000:]}"
        return run.stdout

    out = theorylab("list")
    assert "paper my-paper:" in out and "my_paper.mgf" in out
    out = guide_scaffold.outputs["theorylab check my-paper"]
    assert "5 steps in 1 derivations: 4 hold" in out and "1 errata of the paper confirmed, 0 unexpected" in out
    theorylab("verify", "my-paper", "--json", "ev.json", "--device", "cpu")
    record = json.loads((work / "ev.json").read_text())
    assert record["papers"] == ["my-paper"] and record["unexpected_steps"] == 0
    evidence = [r for r in record["evidence"] if r.get("record") == "evidence"]
    assert len(evidence) == 5 and all(r["passed"] and r["kind"] == "monte-carlo" for r in evidence)
    assert all("standard errors" in r["tolerance_source"] for r in evidence)
    out = theorylab("latex", "my-paper", "-o", "p.tex")
    tex = (work / "p.tex").read_text()
    assert r"\begin{document}" in tex and "my-paper-eq3" in tex
    out = theorylab("report", "--evidence", "ev.json", "-o", "out")
    assert (work / "out" / "figures" / "my-paper-mgf.svg").read_text().count("<path") > 5
    # the shared environment never saw the paper
    assert subprocess.run([sys.executable, "-c", "import my_paper"], capture_output=True).returncode != 0


def test_new_from_a_tex_proposes_entries_from_the_displays_that_define_a_function(tmp_path):
    """`u_f(t) = <closed form>` becomes an entry (its argument first, then the closed form's other symbols, with
    placeholder domains marked TODO) whose kernels evaluate the printed closed form; a relation that defines no
    function (du/dt = ...) stays only a draft."""
    import importlib
    import math

    from theorylab._tools.scaffold import scaffold_from_source

    src = Path(__file__).resolve().parents[1] / "examples" / "dynamics" / "sigmoid_paper" / "sigmoid.tex"
    scaffold_from_source("probe-sigmoid", src, tmp_path / "probe")
    text = (tmp_path / "probe" / "probe_sigmoid" / "entries.py").read_text()
    assert "TODO: the paper's domain" in text and "ENTRIES = (L_ENTRY, U__F_ENTRY, T_STAR_ENTRY,)" in text
    sys.path.insert(0, str(tmp_path / "probe"))
    try:
        entries = importlib.import_module("probe_sigmoid.entries")
    finally:
        sys.path.remove(str(tmp_path / "probe"))
    u_f = next(e for e in entries.ENTRIES if e.id == "probe_sigmoid.u__f")
    assert [p.name for p in u_f.params][0] == "t" and {p.name for p in u_f.params} == {"t", "tau", "s", "u__0"}
    x = math.exp(2 * 1.5 * 1.0 / 0.5)
    assert u_f(t=1.0, tau=0.5, s=1.5, u__0=0.7) == pytest.approx(1.5 * x / (x - 1 + 1.5 / 0.7), rel=1e-14)
    assert len(entries.DERIVATIONS[0].steps) == 10  # the drafts stay, one per printed relation (d/dt(a^2 - b^2) too)
