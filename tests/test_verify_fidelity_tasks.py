"""verify compares each paper's print with its steps on the worker pool, beside the evidence, not in the planning
process after every task (issue #36: the largest serial part of verify with empty caches); the record's coverage rows
are the same either way."""
from __future__ import annotations

import json
import textwrap

import pytest

from theorylab._pipeline import catalogue, runner

PAPER = '''
import sympy as sp
from theorylab.authoring import Derivation, Family, Paper, Step
from theorylab._decide.derivation import AS_PRINTED

x = sp.Symbol("x", real=True)
PAPER = Paper(name="printedp", title="planted", source="printed.md", source_file={source!r},
              families=(Family(name="printedf", entries=__name__),))
ENTRIES = ()
DERIVATIONS = (Derivation(key="printedf.d", title="planted", source="printed.md", where="(1)", entries=(), steps=(
    Step(label="(1) as printed", lhs=(x + 1)**2, rhs=x**2 + 2*x + 1, cites=("(1)",), fidelity=AS_PRINTED),
    Step(label="(2) as printed", lhs=x**2 - 1, rhs=(x - 1)*(x + 1), cites=("(2)",), fidelity=AS_PRINTED),
)),)
'''

MD = textwrap.dedent(r"""
    # A planted paper

    The square is
    $$(x + 1)^2 = x^2 + 2x + 1 \tag{1}$$
    and the difference of squares
    $$x^2 - 1 = (x - 1)(x + 1) \tag{2}$$
""")


@pytest.fixture
def printed(tmp_path, monkeypatch):
    md = tmp_path / "printed.md"
    md.write_text(MD)
    py = tmp_path / "printedf.py"
    py.write_text(PAPER.format(source=str(md)))
    monkeypatch.setenv("THEORYLAB_ONLY_FAMILIES", "printedf")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    catalogue.use([str(py)])
    yield tmp_path
    catalogue.use([])


def test_one_fidelity_task_per_paper_selected_whole(printed):
    ids, fams = catalogue.select([])
    tasks = runner.plan(ids, families=fams)
    side = runner.fidelity_tasks(tasks, fams)
    assert [(t.kind, t.key, t.part) for t in side] == [("fidelity", "printedp", {"derivations": ["printedf.d"]})]


def test_the_record_carries_the_pool_comparison_and_equals_the_in_process_one(printed, monkeypatch):
    calls = []
    compare = runner._compared_rows
    monkeypatch.setattr(runner, "_compared_rows", lambda paper, keys: calls.append(keys) or compare(paper, keys))
    record = runner.verify([], jobs=1, device="cpu", json_path=printed / "ev.json")
    assert calls == [["printedf.d"]]  # once, as the task (in-process here: jobs=1), not again for the rows
    rows = {r["label"]: r["compared"] for r in record.coverage}
    assert set(rows) == {"(1)", "(2)"} and all(c and c["status"] == "matches the print" for c in rows.values()), rows
    steps = json.loads((printed / "ev.json").read_text())["derivation_steps"]
    _, again = runner.ledger_and_coverage(["printedf"], steps)  # compared here, in this process
    assert [dict(r) for r in record.coverage] == again


def test_a_comparison_is_used_only_for_the_derivations_it_compared(printed):
    record = runner.verify([], jobs=1, device="cpu", json_path=printed / "ev.json")
    steps = json.loads((printed / "ev.json").read_text())["derivation_steps"]
    planted = {"(1)": {"status": "planted"}, "(2)": {"status": "planted"}}
    _, used = runner.ledger_and_coverage(["printedf"], steps, {"printedp": {"derivations": ["printedf.d"],
                                                                          "compared": planted}})
    assert {r["label"]: r["compared"] for r in used} == planted  # a matching result is what the rows carry
    _, redone = runner.ledger_and_coverage(["printedf"], steps, {"printedp": {"derivations": ["printedf.other"],
                                                                            "compared": planted}})
    assert redone == [dict(r) for r in record.coverage]  # another set of derivations: compared again here
