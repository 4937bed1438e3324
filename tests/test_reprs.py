"""Plain and Jupyter representations of the records an author handles: concise reprs (never a dataclass dump),
HTML tables of steps and verdicts, evidence with its tolerance, findings marked as findings, errata with their point."""
from __future__ import annotations

import sympy as sp

from theorylab._decide.derivation import Derivation, Erratum, Step
from theorylab._records.evidence import Finding, compare, compare_mc

x = sp.Symbol("x", positive=True)
ERR = Erratum(key="toy-7", source="toy2024", where="(7)", says="x^2 >= x", truth="x^2 >= x only for x >= 1",
               severity="missing-hypothesis", at={"x": sp.Rational(1, 2)})
D = Derivation(key="toy.bounds", title="Bounds of a toy paper", source="toy2024", where="eqs (3)-(7)", entries=("toy.f",), steps=(
    Step("AM-GM", lhs=x**2 + 1, rhs=2 * x, relation=">=", why="a square is nonnegative"),
    Step("the paper's (7)", lhs=x**2, rhs=x, relation=">=", erratum=ERR),
))


def test_derivation_repr_is_short_and_its_table_shows_no_verdict_before_checking():
    assert repr(D) == "<Derivation toy.bounds: Bounds of a toy paper (2 steps; toy2024, eqs (3)-(7))>"
    page = D._repr_html_()
    assert "not checked yet" in page and page.count("<tr>") == 3 and r"$x^{2} + 1 \ge 2 x$" in page
    assert "a square is nonnegative" in page and "erratum toy-7" in page


def test_results_render_with_verdicts():
    results = D.check()
    assert isinstance(results, list) and len(results) == 2
    page = results._repr_html_()
    assert "&#10003; proved" in page and "erratum refuted" in page and "x=1/2" in page
    assert repr(results[1]).startswith('<StepResult "the paper\'s (7)": erratum confirmed (refuted')
    assert "not checked yet" not in D._repr_html_() and "&#10003;" in D._repr_html_()
    assert results[0]._repr_html_().count("<tr>") == 2


def test_step_and_erratum_reprs():
    assert repr(D.steps[0]) == "<Step 'AM-GM': x**2 + 1 >= 2*x>"
    assert repr(D.steps[1]).endswith("(erratum toy-7)>")
    page = ERR._repr_html_()
    assert "Erratum toy-7" in page and "x = 1/2" in page and "x^2 &gt;= x only for x &gt;= 1" in page


def test_evidence_and_finding_render():
    ev = compare("toy.f", "a value", "numeric", 1.0, 1.0 + 2**-43, rtol=1e-12, source="rounding of 3 operations")
    assert repr(ev).startswith("<Evidence toy.f / a value: passed, abs error 1.14e-13 vs tolerance 1e-12")
    assert "rounding of 3 operations" in ev._repr_html_() and "passed" in ev._repr_html_()
    mc = compare_mc("toy.f", "simulated", 1.0, 1.5, 0.1, 100)
    assert "<b>FAILED</b>" in mc._repr_html_() and "&plusmn; 0.1 (SE, 100 samples)" in mc._repr_html_()
    f = Finding(entry="toy.f", check="qualitative", kind="property", text="it bends")
    assert repr(f) == "<Finding toy.f / qualitative: it bends>" and "not a pass" in f._repr_html_()


def test_paper_html(monkeypatch):
    """What Paper._repr_html_ shows: title, source, preface, entries in the paper's LaTeX, derivation counts."""
    from pathlib import Path

    from theorylab._outputs.latex import paper_html
    from theorylab._records.paper import Family, Paper

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "examples" / "minnorm"))
    monkeypatch.setenv("THEORYLAB_PAPERS", "theorylab_minnorm")
    monkeypatch.setenv("THEORYLAB_ONLY_FAMILIES", "minnorm")
    from theorylab_minnorm import PAPER

    page = paper_html(PAPER)
    assert "<b>Minimum-norm least squares in the proportional limit</b>" in page
    assert "5 entries, 2 derivations (14 steps)" in page and r"\|\beta\|^{2}" in page
    lone = Paper(name="lone", title="Lone", source="s", families=(Family(name="lonefam", entries="no_such_mod"),))
    assert "family <code>lonefam</code> (not registered)" in paper_html(lone)
