"""The comparison with the print cannot be gamed (#35 items 1-2): each rule of a label's status and of a decisive
difference is held by a plant that fails without it, and the comparison's thresholds by plants just past them."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
import sympy as sp

from helpers import run_cli
from theorylab._decide.derivation import AS_PRINTED, Amendment, Step
from theorylab._pipeline import fidelity
from theorylab._sources import sources

x = sp.Symbol("x", real=True)
g = sp.Symbol("gamma", positive=True)
tau, s = sp.symbols("tau s", positive=True)


def _step(lhs, rhs, relation="==", label="s", cites=("(1)",), **kw):
    return Step(label=label, lhs=lhs, rhs=rhs, relation=relation, cites=cites, fidelity=AS_PRINTED, **kw)


def _status(text: str, *steps, notation=None, lead: str = "", items=()):
    """The label status of one printed display (1) against the steps that cite it, as coverage computes it."""
    p = sources.Printed(label="(1)", kind="display", text=text, line=1, lead=lead,
                        relations=sources.parse_display(text, notation, lead=lead))
    paper = SimpleNamespace(notation=notation)
    derivation = SimpleNamespace(key="d", steps=list(steps))
    done = fidelity.compare_paper(paper, [derivation], printout=[*items, p])["(1)"]
    return done.status, done.reason


_CASES = r"T(\gamma) = \begin{cases} 1 - \gamma & \gamma < 1 \\ \gamma - 1 & \gamma > 1 \end{cases}"


def _case_steps(**kw):
    return (_step((1 - g**2) / (1 + g), 1 - g, label="below", conditions=(g < 1,), **kw),
            _step((g**2 - 1) / (g + 1), g - 1, label="above", conditions=(g > 1,), **kw))


def test_a_wrong_case_of_a_two_case_display_does_not_match():
    """features-are-fate (8), (11), (100): each case is a step; a slip in the second case used to leave the label
    matching through the first case's step."""
    assert _status(_CASES, *_case_steps())[0] == "matches the print"
    planted = _CASES.replace(r"\gamma - 1 & \gamma > 1", r"2\gamma - 1 & \gamma > 1")
    status, why = _status(planted, *_case_steps())
    assert status == "differs, not decisive" and "every citing 'as printed' step must match its part" in why, why
    # the name T bound to what the steps compute: the wrong case is a decisive difference
    status, why = _status(planted, *_case_steps(binds={r"T(\gamma)": "lhs"}))
    assert status == "differs from the print" and "'above'" in why and "a name the step binds" in why, why
    # a bare name T is the name the display defines: decisive without a binding
    status, why = _status(planted.replace(r"T(\gamma) =", "T ="), *_case_steps())
    assert status == "differs from the print" and "the name the print defines" in why, why
    # an amended step's difference is expected: it never makes the label differ
    amended = Step(label="fixed", lhs=(g**2 - 2 * g + 1) / (g - 1), rhs=g - 1, cites=("(1)",), conditions=(g > 1,),
                   fidelity=Amendment(key="t-1", kind="typo fixed", what="2 gamma - 1 -> gamma - 1",
                                      why="the first case's limit at gamma = 1", severity="typo"))
    assert _status(_CASES, *_case_steps(), amended)[0] == "matches the print"


def test_a_name_linked_to_the_steps_side_does_not_take_over_from_a_failing_link(monkeypatch):
    """ptft-diagonal (8), (9); adaptive-tangent (22): in q = A = B' (a slip in B) the link q = A, a name and the
    step's own side, took over and the label stayed "partly compared"; the slip is now a decisive difference."""
    step = _step((x + 1) ** 2, x**2 + 2 * x + 1)
    # the link q(x) = (x + 1)^2 is one name's: not compared, so the label is partly compared (1 of 2 links)
    assert _status(r"q(x) = (x + 1)^2 = x^2 + 2x + 1", step)[0] == "partly compared"
    planted = r"q(x) = (x + 1)^2 = x^2 + 3x + 1"
    status, why = _status(planted, step)
    assert status == "differs from the print" and "is the step's left side" in why, why
    # the plant fails without the rule: the name's link takes over and the label keeps a count
    monkeypatch.setenv("THEORYLAB_STEP_CACHE", "0")          # a cached comparison would not see the patch
    monkeypatch.setattr(fidelity._Comparer, "_anchored", lambda self: None)
    assert _status(planted, step)[0] == "partly compared"


def test_no_link_is_borrowed_from_another_display():
    """features-are-fate (30): where none of a label's own links was among those compared, `own or every` made the
    label's required links those of the displays before it in its chain."""
    p = sources.Printed(label="(2)", kind="display", text="x = 2", line=1, relations=(sp.Eq(x, 2),))
    others = ("a == b", "c == d")
    hit = fidelity.Comparison(label="(2)", derivation="d", step="s", fidelity=AS_PRINTED, verdict="matches",
                              how="the step states a = b", links=("a == b",), all_links=others,
                              substantive=("a == b",))
    assert fidelity._own_links(p, [hit]) == [fidelity._link_key(x, "==", sp.Integer(2))]
    status, why = fidelity._label_status(p, [hit])
    assert status == "not compared" and "0 of 1 links" in why, (status, why)


def test_a_side_rewritten_whole_by_the_notation_map_is_not_counted():
    """ptft-diagonal (6), (7); features-are-fate (107), (124): a rewrite that replaces a printed side whole is
    compared only in the sense that a changed print stops matching its key: its own status, never counted."""
    a1, a2, x1, x2 = sp.symbols("a_1 a_2 x_1 x_2", real=True)
    notation = sources.NotationMap(rewrites=((r"\vec{a} \cdot \vec{x}", r"(a_1 x_1 + a_2 x_2)"),))
    step = _step(a1 * x1 + a2 * x2, ((a1 + x1) ** 2 - (a1 - x1) ** 2) / 4 + a2 * x2)
    status, why = _status(r"f = \vec{a} \cdot \vec{x}", step, notation=notation)
    assert status == "rewritten whole" and r"\vec{a} \cdot \vec{x} -> (a_1 x_1 + a_2 x_2)" in why, why
    assert "rewritten whole" not in fidelity.COUNTED
    # a rename of a name (R(w | w_0) -> R) is notation, not mathematics: the display is compared as usual
    rename = sources.NotationMap(rewrites=((r"F(a | x)", "f"),))
    assert fidelity.rewritten_whole(r"F(a | x) = a_1 x_1", rename) == ""


def test_a_draft_is_never_a_match():
    """A draft is the print's own parse (`theorylab new --from`): it matches by construction, never as evidence."""
    draft = Step(label="d", lhs=(x + 1) ** 2, rhs=x**2 + 2 * x + 1, cites=("(1)",), fidelity=AS_PRINTED, draft=True)
    status, why = _status(r"(x + 1)^2 = x^2 + 2x + 1", draft)
    assert status == "not compared" and "only drafts cite it" in why, why


_HALF = tau * (s + 1) / (2 * s**2 + 2 * s)       # tau/(2s), as a derivation would leave it


def test_a_bound_name_makes_the_comparison_decisive():
    r"""`t = \tau/s` printed; the step computes X = tau/(2s). Unbound, the print's t is a name the step lacks and
    E[R]-style names stay undecided; bound (Step.binds) or defined (t alone on its side, the rest exactly the
    step's symbols), the difference is decisive: an unexpected result of check."""
    stated = _step(_HALF, tau / (2 * s))
    c = fidelity.compare_step("(1)", sources.parse_display(r"t = \frac{\tau}{s}"), stated)
    assert c.verdict == "differs" and c.decisive and c.unexpected and "the name the print defines" in c.how, c
    # a name with arguments is not taken as defined: undecided without a binding, decisive with one
    c = fidelity.compare_step("(1)", sources.parse_display(r"E(s) = \frac{\tau}{s}"), stated)
    assert c.verdict == "differs, not decisive" and "to decide, bind the printed E" in c.how, c     # the reason
    bound = _step(_HALF, tau / (2 * s), binds={"E(s)": "lhs"})
    c = fidelity.compare_step("(1)", sources.parse_display(r"E(s) = \frac{\tau}{s}"), bound)
    assert c.verdict == "differs" and c.unexpected and "a name the step binds" in c.how, c
    assert fidelity.compare_step("(1)", sources.parse_display(r"E(s) = \frac{\tau}{2 s}"), bound).verdict == "matches"
    # a step whose own left side is the printed name t: the print defines t, so its right sides are compared
    t = sp.Symbol("t")
    c = fidelity.compare_step("(1)", sources.parse_display(r"t = \frac{\tau}{s}"), _step(t, tau / (2 * s)))
    assert c.verdict == "differs" and c.decisive, c
    assert fidelity.compare_step("(1)", sources.parse_display(r"t = \frac{\tau}{2s}"),
                                 _step(t, tau / (2 * s))).verdict == "matches"
    with pytest.raises(Exception, match="binds"):
        _step(x, x, binds={"t": "middle"})


# -- the thresholds: a plant just past each, so that loosening it 10x fails a test ----------------------------------

def test_agreement_needs_rtol():
    """Two sides agree within RTOL relative (30-digit evaluation): a print off by 5e-9 relative is no match (at
    10 * RTOL it would be)."""
    step = _step((x + 1) ** 2, x**2 + 2 * x + 1)
    assert fidelity.compare_step("(1)", sources.parse_display(r"(x+1)^2 = 1.000000005 (x^2 + 2x + 1)"),
                                 step).verdict != "matches"
    assert fidelity.compare_step("(1)", sources.parse_display(r"(x+1)^2 = 1.0000000000001 (x^2 + 2x + 1)"),
                                 step).verdict == "matches"


def test_a_difference_is_decisive_only_beyond_decisive():
    """A print off by 5e-6 relative differs decisively (beyond DECISIVE = 1e-6); one off by 5e-8 differs, not
    decisively (at 10 * DECISIVE the first would not be decisive; at DECISIVE / 100 the second would)."""
    step = _step((x + 1) ** 2, x**2 + 2 * x + 1)
    c = fidelity.compare_step("(1)", sources.parse_display(r"(x+1)^2 = 1.000005 (x^2 + 2x + 1)"), step)
    assert c.verdict == "differs" and c.decisive, c
    c = fidelity.compare_step("(1)", sources.parse_display(r"(x+1)^2 = 1.00000005 (x^2 + 2x + 1)"), step)
    assert c.verdict == "differs, not decisive" and not c.decisive, c


def test_a_step_with_a_stated_tolerance_is_decisive_only_beyond_margin_times_it():
    """A numeric step with tol = 1e-6 against a print off by 5e-4 absolute (500 tol): not decisive; off by 5e-3
    (5000 tol): decisive (MARGIN = 1e3: at 10 * MARGIN the second would not be)."""
    step = Step(label="n", lhs=lambda x: x**2, rhs=lambda x: x**2, search=lambda: [{"x": 1.5}, {"x": 2.5}, {"x": 0.7}],
                tol=1e-6, tol_source="float64 rounding of x**2", cites=("(1)",), fidelity=AS_PRINTED, tex="x^2 = x^2")
    assert fidelity.compare_step("(1)", sources.parse_display(r"x^2 = x^2 + 0.0000001"), step).verdict == "matches"
    near = fidelity.compare_step("(1)", sources.parse_display(r"x^2 = x^2 + 0.0005"), step)
    assert near.verdict == "differs, not decisive", near
    far = fidelity.compare_step("(1)", sources.parse_display(r"x^2 = x^2 + 0.005"), step)
    assert far.verdict == "differs" and far.decisive, far


# -- the probe: `theorylab check` of an outside paper whose as-printed step states the corrected formula -------------

_PROBE = r"""\documentclass{article}
\begin{document}
The relaxation time is
\begin{equation}\label{eq:time}
t = \frac{\tau}{s}
\end{equation}
\end{document}
"""


def test_check_fails_on_an_as_printed_step_that_silently_corrects_the_print(tmp_path, monkeypatch):
    """Issue #35's probe: a paper scaffolded from its .tex (`theorylab new --from`), its draft made into a step that
    states tau/(2s) where the paper prints tau/s, declared as printed: check exits 1 showing both forms."""
    import sys

    src = tmp_path / "src" / "probe.tex"
    src.parent.mkdir()
    src.write_text(_PROBE)
    name = "probe35"
    folder = tmp_path / name
    code, out, err = run_cli("new", name, str(folder), "--from", str(src))
    assert code == 0, out + err
    entries = folder / name / "entries.py"
    text = entries.read_text()
    assert "lhs=t,\n" in text and "rhs=tau/s, " in text and "draft=True" in text, text
    # the author's step: what the paper's derivation gives (tau over twice s), declared as printed, no longer a draft
    entries.write_text(text.replace("lhs=t,\n", "lhs=tau*(s + 1)/(2*s**2 + 2*s),\n").replace("rhs=tau/s, ", "rhs=tau/(2*s), ")
                       .replace("draft=True", "draft=False"))
    monkeypatch.syspath_prepend(str(folder))
    try:
        code, out, err = run_cli("check", name, "--paper", name, "--jobs", "1")
        assert code == 1, out + err
        assert "UNEXPECTED" in out and "the paper prints: t = \\frac{\\tau}{s}" in out, out
        assert "the step states:" in out and "decisively" in out, out
    finally:
        for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[mod]


def test_a_case_no_steps_point_reaches_is_not_compared():
    """features-are-fate (14), (15): a step whose points all fall in one case of a printed case distinction compares
    that case only; a slip in the other still matched. The matching steps together must reach every case."""
    below = _case_steps()[0]
    status, why = _status(_CASES, below)
    assert status == "not compared" and "1 of 2 cases" in why, why
    planted = _CASES.replace(r"\gamma - 1 & \gamma > 1", r"2\gamma - 1 & \gamma > 1")
    assert _status(planted, below)[0] != "matches the print"
    assert _status(_CASES, *_case_steps())[0] == "matches the print"        # both cases reached: a match


# -- a source that cannot be read whole says so (`theorylab new --from`) --------------------------------------------

@pytest.mark.parametrize("text, says", [
    (r"""\documentclass{article}
\begin{document}
\begin{equation}\label{eq:a}
x = \frac{1}{2
\section{Next}
\end{document}
""", "never ended"),
    (r"""\documentclass{article}
\begin{document}
\begin{equation}\label{eq:a}
x = \frac{1}{2}
\end{equation}
Some {text.
\end{document}
""", "braces do not balance"),
    (r"""\documentclass{article}
\begin{document}
We show that $x = 1$ for every $y$.
\begin{equation*}
a = b
\end{equation*}
\end{document}
""", "no labelled display"),
])
def test_new_from_refuses_a_source_it_cannot_read_whole(tmp_path, text, says):
    """Issue #35: a .tex with an unterminated environment and unbalanced braces, or with no labelled display, used to
    scaffold with exit 0, no warning and an empty label list."""
    src = tmp_path / "paper.tex"
    src.write_text(text)
    code, out, err = run_cli("new", "broken-paper", str(tmp_path / "out"), "--from", str(src))
    assert code == 2 and says in err and "--from" in err, (code, out, err)
    assert not (tmp_path / "out").exists()


def test_the_parse_rebuild_is_a_cli_command():
    """`theorylab parses` checks (and with --rebuild regenerates) the shipped parses, as
    `python -m theorylab._pipeline.fidelity` does."""
    code, out, err = run_cli("parses", "ptft-relu")
    assert code == 0 and "ptft-relu: 11 parses, 0 missing, 0 extra" in out, out + err
    code, out, err = run_cli("parses", "no-such-paper")
    assert code == 2 and "unknown paper" in err, (code, out, err)
