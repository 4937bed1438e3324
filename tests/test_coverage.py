"""Coverage: labels found in a paper's text, statuses derived from the steps that cite them, every built-in paper
accounted for in full."""
from __future__ import annotations

import json

import pytest
import sympy as sp

from theorylab._decide.coverage import Account, coverage, labels_in_text, summary
from theorylab._decide.derivation import Amendment, Derivation, Erratum, Step
from helpers import run_cli

TEXT = r"""
$$a = b \tag{1}$$
Theorem 2.1. For all x ...
$$c = d$$
(2)
$$e \le f \quad (3)$$
We use (1) again and Lemma 3 in the proof.
"""

x = sp.Symbol("x", positive=True)


def test_labels_in_text_finds_equations_and_statements_in_order():
    assert labels_in_text(TEXT) == ["(1)", "Theorem 2.1", "(2)", "(3)"]


def test_statuses_follow_the_steps_that_cite_each_label():
    amend = Amendment(key="toy-3-hyp", kind="hypothesis added", what="x >= 1", why="(3) fails below 1",
                      severity="missing-hypothesis", root="toy-3")
    d = Derivation(key="toy", title="toy", source="toy.txt", where="eqs (1)-(4)", entries=(), steps=(
        Step("(1) as stated", lhs=(x + 1) ** 2, rhs=x**2 + 2 * x + 1, cites=("(1)",), fidelity="as printed"),
        Step("(3) as stated", lhs=x**2, rhs=x, relation=">=", cites=("(3)",),
             erratum=Erratum(key="toy-3", source="toy.txt", where="(3)", says="x^2 >= x", truth="only for x >= 1",
                             severity="missing-hypothesis", at={"x": sp.Rational(1, 2)})),
        Step("(3) for x >= 1", lhs=(x + 1) ** 2, rhs=x + 1, relation=">=", cites=("(3)",), fidelity=amend),
        Step("(4) as printed", lhs=x**4 + 1, rhs=x**4, relation=">", cites=("(4)",), fidelity="as printed"),
        Step("(4) amended", lhs=2 * x**4, rhs=x**4, relation=">=", cites=("(4)",), fidelity=Amendment(
            key="toy-4", kind="statement weakened", what="a factor 2 on the left", why="illustration",
            severity="typo"))))
    rows = coverage("toy.txt", ["(1)", "Theorem 2.1", "(2)", "(3)", "(4)"], [d],
                    [Account("(2)", "definition", "defines c")], printed={"(1)": "(x+1)^2 = x^2 + 2x + 1"})
    status = {r["label"]: r["status"] for r in rows}
    assert status == {"(1)": "as printed", "Theorem 2.1": "missing", "(2)": "definition", "(3)": "erratum",
                      "(4)": "amended"}
    assert "proved" in rows[0]["how"] and "toy-3" in rows[3]["how"] and "missing-hypothesis" in rows[3]["how"]
    assert "checked as amended (hypothesis added)" in rows[3]["how"]
    assert "checked as amended (statement weakened)" in rows[4]["how"]
    assert rows[0]["printed"] == "(x+1)^2 = x^2 + 2x + 1" and rows[0]["checks"][0]["latex"].startswith(r"\left(x + 1")
    assert [c["fidelity"] for c in rows[3]["checks"]] == ["as printed", "amended (hypothesis added)"]
    assert summary(rows).startswith("toy.txt: 4/5 accounted")
    with pytest.raises(ValueError, match="reason is required"):
        Account("(2)", "definition", " ")
    with pytest.raises(ValueError, match="does not list"):
        coverage("toy.txt", ["(1)"], [d], [Account("(9)", "definition", "x")])


@pytest.mark.parametrize("paper", ["000", "001", "002", "003"])
def test_every_built_in_paper_is_accounted_for(paper):
    code, out, err = run_cli("coverage", paper, "--json")
    rows = json.loads(out)
    missing = [(r["label"], r["status"]) for r in rows if r["status"] not in
               ("as printed", "amended", "erratum", "definition", "not-checkable")]
    assert rows and not missing and code == 0, missing
    assert all(r["reason"].strip() for r in rows if r["status"] in ("definition", "not-checkable"))
