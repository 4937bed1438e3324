"""LaTeX in the paper's own form: printer settings per paper and per entry, a hand-built display checked equal to the
formula, and a document whose title, preface, derivations and errata come from the papers selected."""
from __future__ import annotations

import textwrap

import pytest
import sympy as sp

from theorylab._decide.entry import Entry, Source
from theorylab._outputs.latex import well_formed
from theorylab._records.params import scalar

from helpers import run_cli

X = scalar("x", "a cosine", low=-1, high=1)
x = X.symbol


def _entry(**kw) -> Entry:
    return Entry(id="toy.arc", title="An arc cosine", source=Source("toy", "eq (1)"), doc="", params=(X,),
                 lhs="f(x)", formula=sp.acos(x) + x, **kw)


def test_printer_settings_per_entry():
    assert r"\operatorname{acos}" in _entry().latex()
    assert r"\arccos" in _entry(latex_settings={"inv_trig_style": "full"}).latex()
    named = _entry(latex_settings={"symbol_names": {"x": r"\cos\theta"}})
    assert named.latex() == r"f(x) = \cos\theta + \operatorname{acos}{\left(\cos\theta \right)}"


def test_paper_settings_apply_and_the_entry_wins():
    paper = {"inv_trig_style": "full", "symbol_names": {"x": "u"}}
    assert r"\arccos{\left(u \right)}" in _entry().latex(settings=paper)
    mine = _entry(latex_settings={"inv_trig_style": "power"})
    assert r"\cos^{-1}" in mine.latex(settings=paper) and "u" in mine.latex(settings=paper)


def test_unknown_printer_setting_is_refused_at_declaration():
    with pytest.raises(ValueError, match="unknown LaTeX printer setting inv_trig"):
        _entry(latex_settings={"inv_trig": "full"})


def test_display_in_the_papers_order_is_checked_equal_to_the_formula():
    display = sp.Add(x, sp.acos(x), evaluate=False)            # the paper writes x first
    good = _entry(display=display)
    assert good.latex() == r"f(x) = x + \operatorname{acos}{\left(x \right)}"
    assert good.check_display().holds and good.check_display().strength == "proved"
    reordered = _entry(display=sp.Add(x, sp.acos(x) * sp.Integer(1), sp.Integer(0), evaluate=False) / sp.Integer(1))
    assert reordered.check_display().holds
    wrong = _entry(display=sp.Add(2 * x, sp.acos(x), evaluate=False))
    out = wrong.check_display()
    assert not out.holds and out.strength == "refuted"
    with pytest.raises(ValueError, match="not a declared parameter"):
        _entry(display=sp.Symbol("y") + x)
    assert _entry(display=r"\arccos x + x").check_display() is None   # a LaTeX string is shown, not checked


TOY = textwrap.dedent('''
    """A toy paper with a printer setting, a checked display, a derivation and an erratum."""
    import sympy as sp
    from theorylab.authoring import Derivation, Entry, Erratum, Family, Paper, Source, Step, scalar

    X = scalar("x", "a cosine", low=-1, high=1)
    x = X.symbol
    ENTRIES = (Entry(id="toyarc.f", title="Arc cosine plus x", source=Source("toy2024", "eq (1)"), doc="f",
                     params=(X,), lhs="f(x)", formula=sp.acos(x) + x,
                     display=sp.Add(x, sp.acos(x), evaluate=False)),)
    DERIVATIONS = (Derivation(key="toyarc.f", title="Arc cosine facts", source="toy2024", where="eqs (1)-(2)",
                              entries=("toyarc.f",), steps=(
        Step("acos(x) + asin(x) = pi/2", lhs=sp.acos(x) + sp.asin(x), rhs=sp.pi / 2, why="complementary angles",
             domain={x: (-1, 1)}),
        Step("the paper's (2): acos(x) <= pi/2", lhs=sp.acos(x), rhs=sp.pi / 2, relation="<=",
             erratum=Erratum(key="toy-2", source="toy2024", where="(2)", says="acos(x) <= pi/2",
                             truth="only for x >= 0", severity="false-statement", at={"x": -1})),
    )),)
    PAPER = Paper(name="toyarc", title="Arc cosines, a toy paper", source="Toy (2024)",
                  families=(Family(name="toyarc", entries=__name__),),
                  latex={"printer": {"inv_trig_style": "full"}, "preface": "A preface written by the authors."})
''')


@pytest.fixture
def toy(tmp_path, monkeypatch):
    path = tmp_path / "toy_paper.py"
    path.write_text(TOY)
    monkeypatch.setenv("THEORYLAB_ONLY_FAMILIES", "toyarc")
    return str(path)


def test_document_from_the_papers_selected(toy):
    code, tex, err = run_cli("latex", "toyarc", "--paper", toy)
    assert code == 0, err
    assert well_formed(tex) == []
    assert r"\title{Arc cosines, a toy paper}" in tex and "A preface written by the authors." in tex
    assert "seed" not in tex.lower() and "catalogue" not in tex.lower()
    # the paper's printer settings everywhere: entry, display check, derivation steps
    assert r"f(x) = x + \arccos{\left(x \right)}" in tex
    assert "The displayed form is the paper's; it equals the formula" in tex
    assert r"\operatorname{acos}" not in tex
    assert r"\subsubsection*{Derivation \texttt{toyarc.f}: Arc cosine facts}" in tex
    assert r"\arccos{\left(x \right)} + \operatorname{asin}" not in tex and r"\arcsin{\left(x \right)}" in tex
    assert r"\item \textbf{Erratum toy-2.} the paper's (2)" in tex
    assert "The paper states acos(x) <= pi/2; what holds: only for x >= 0." in tex
    assert r"\arccos{\left(x \right)} \le \frac{\pi}{2}" in tex
    assert "erratum confirmed (refuted" in tex and "holds (searched; numeric identity test" in tex
    assert r"\section*{Errata}" in tex and "The paper states: acos(x) <= pi/2" in tex


def test_wrong_display_is_flagged_in_the_document(toy, tmp_path):
    bad = tmp_path / "bad_paper.py"
    bad.write_text(TOY.replace("display=sp.Add(x, sp.acos(x)", "display=sp.Add(2 * x, sp.acos(x)"))
    code, tex, err = run_cli("latex", "toyarc", "--paper", str(bad))
    assert code == 0, err
    assert r"\textbf{The displayed form does not equal the formula}" in tex
