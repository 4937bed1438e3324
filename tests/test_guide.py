"""docs/authoring.md runs: every block marked `<!-- run -->` is executed, in three independent groups run side by side
(tests/guide_run.py: the scaffold of section 1, the python blocks in order in one namespace, the console blocks that
install and run examples/minnorm), each in a fresh folder holding a copy of examples/, with a throw-away virtual
environment on top of this one. Console blocks run each `$ ` line, which must exit 0; what the guide's commands print
and write about the example paper is asserted here (this run is the example's end-to-end test through its entry
point: tests/test_examples.py keeps what the guide does not run)."""
from __future__ import annotations

import json
import re

import pytest

from guide_run import GROUPS, GUIDE, GuideRun, blocks, groups


def test_guide_marks_its_blocks():
    found = blocks()
    assert len(found) >= 10
    text = GUIDE.read_text()
    # every python/console block of the guide is run (none shown that is not executed) ...
    assert len(re.findall(r"```(?:python|console)\n", text)) == len(found)
    # ... by one of the groups, each in the guide's order, and every python block in the one namespace
    split = groups(found)
    assert set().union(*map(set, split.values())) == set(range(len(found)))
    assert all(split[g] == sorted(split[g]) and split[g] for g in GROUPS), split
    assert split["python"] == [k for k, (kind, _) in enumerate(found) if kind == "python"]
    assert [found[k][1].split("\n")[0] for k in split["scaffold"]] == ["$ theorylab new my-paper"]


def _ran(run: GuideRun) -> None:
    # the project's own install is never a reason to skip (#36): pip failing here is a failure, said as such
    assert not run.pip_failed(), f"pip could not install into the guide's virtual environment: {run.run.stdout[-500:]}"
    assert run.ok(), run.why()


def test_guide_scaffold_runs(guide_scaffold):
    """Section 1: `theorylab new`, `pip install -e`, `check` and the scaffold's own pytest exit 0 (tests/test_scaffold.py
    goes on in the same environment: verify, latex, report)."""
    _ran(guide_scaffold)
    assert "5 steps in 1 derivations: 4 hold" in guide_scaffold.outputs["theorylab check my-paper"]
    assert " passed" in guide_scaffold.outputs["python -m pytest -q my-paper"]


def test_guide_python_blocks_run(tmp_path):
    _ran(GuideRun("python", tmp_path))


def test_guide_example_runs(guide_example):
    run = guide_example
    _ran(run)
    out, work = run.outputs, run.work
    # the example paper, registered by its entry point alone (the guide pip-installs it): listed, evaluated, checked
    assert "paper minnorm: Minimum-norm least squares in the proportional limit" in out["theorylab list"]
    assert json.loads(out["theorylab eval minnorm.risk gamma=2 r=1 sigma=1"])["value"] == pytest.approx(1.5, rel=1e-15)
    assert "14 steps in 2 derivations: 14 hold" in out["theorylab check minnorm"]
    record = json.loads((work / "minnorm.json").read_text())
    assert record["papers"] == ["minnorm"] and len(record["evidence"]) == 11
    assert all(r["passed"] for r in record["evidence"])
    assert (work / "report" / "index.html").is_file()
    assert (work / "report" / "figures" / "minnorm-double-descent.svg").read_text().count("<path") > 10
    tex = (work / "minnorm.tex").read_text()
    assert r"\title{Minimum-norm least squares in the proportional limit}" in tex and r"\texttt{minnorm.risk}" in tex
