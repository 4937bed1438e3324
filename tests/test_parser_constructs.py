"""#35 item 3, the display parser on a new paper's constructs (theorylab._sources, PARSE_FORMAT 7): subscripted names,
superscript labels, derivative operators, a value before a group, a source that cannot be read whole; then a small
learning-dynamics paper using all of them, parsed display by display and scaffolded with `theorylab new --from`.
Each test names the plant it was seen to catch (the PARSE_FORMAT 6 reading)."""
from __future__ import annotations

import importlib.util
import json
import sys

import pytest
import sympy as sp

from theorylab._sources.sources import NotationMap, ParseFailure, parse_display, read_source

S = sp.Symbol


def _parser():
    # a declared dependency (pyproject): its absence is a broken install, never a reason to skip
    assert importlib.util.find_spec("latex2sympy2_extended") is not None, "latex2sympy2_extended is not installed"


def _one(text, notation=None):
    rels = parse_display(text, notation)
    assert not isinstance(rels, ParseFailure), (text, rels)
    (rel,) = rels
    return rel


def test_a_subscripted_name_is_one_symbol_unless_declared_indexed():
    """u_f and N_l are names (plant: u[f], N[l], IndexedBases, as PARSE_FORMAT 6 read them); a base declared
    indexed, mapped to an IndexedBase, or summed over keeps the index."""
    _parser()
    rel = _one(r"y = u_f + N_l")
    assert rel.rhs == S("u_{f}") + S("N_{l}") and not rel.atoms(sp.Indexed), rel
    rel = _one(r"y = W_{l+1} h_l")
    assert rel.rhs == S("W_{l+1}") * S("h_{l}"), rel
    assert _one(r"D_l = W_l^T W_l").rhs == S("W_{l}^{T}") * S("W_{l}")           # the subscript before the label
    l, i = sp.symbols("l i")
    rel = _one(r"y = u_f + N_l", NotationMap(indexed=("N",)))
    assert rel.rhs == S("u_{f}") + sp.IndexedBase("N")[l], rel
    rel = _one(r"y = x_i", NotationMap(symbols={"x": sp.IndexedBase("x", real=True)}))
    assert rel.rhs == sp.IndexedBase("x", real=True)[i]
    rel = _one(r"y = \sum_{i=1}^{n} x_i")                                     # the sum declares i an index
    assert rel.rhs == sp.Sum(sp.IndexedBase("x")[i], (i, 1, S("n"))), rel
    assert _one(r"x_i = 2 \quad \text{for } i \in S").lhs == sp.IndexedBase("x")[i]
    # a declared base covers its superscripted names (W covers W^{T})
    assert _one(r"y = W_l^T", NotationMap(indexed=("W",))).rhs == sp.IndexedBase("W^{T}")[l]


def test_the_declarations_are_checked_and_keyed():
    from theorylab._sources.sources import notation_key

    with pytest.raises(ValueError, match="indexed must be base names"):
        NotationMap(indexed=(1,))
    with pytest.raises(ValueError, match="labels must be base names"):
        NotationMap(labels=("",))
    assert NotationMap(indexed="x").indexed == ("x",)
    # a declaration changes a parse, so it changes the parse's key (shipped parses keyed without it would be reused)
    assert notation_key(NotationMap(indexed=("x",))) != notation_key(NotationMap())
    assert notation_key(NotationMap(labels=("W",))) != notation_key(NotationMap(indexed=("W",)))


def test_a_superscript_label_is_a_name_and_a_power_stays_a_power():
    r"""\Sigma^{31}, W^{21} (two or more digits on a capital) and W^{(2)} are names (plant: \Sigma**31, W**21); x^{2},
    x^{10}, e^{10} are powers; a base declared in `labels` takes any superscript, W^{2}, as a label, and a declared full name too."""
    _parser()
    x = S("x")
    assert _one(r"y = \Sigma^{31}").rhs == S(r"\Sigma^{31}")
    assert _one(r"y = W^{(2)} + W^{21}").rhs == S("W^{(2)}") + S("W^{21}")
    assert _one(r"y = x^{2}").rhs == x**2
    assert _one(r"y = e^{10}").rhs == sp.exp(10)
    assert _one(r"y = W^{32T}").rhs == S("W^{32}^{T}")                         # a label, then a transpose
    rel = _one(r"y = W^{2} + x^{2}", NotationMap(labels=("W",)))
    assert rel.rhs == S("W^{2}") + x**2, rel
    assert _one(r"y = W^{2}", NotationMap(symbols={"W^{2}": S("W2")})).rhs == S("W2")
    assert _one(r"y = W^{2}").rhs == S("W") ** 2                               # undeclared: a power
    assert _one(r"y = x^{10}").rhs == x**10                                   # a lower-case letter's: a power
    assert _one(r"y = x^{10}", NotationMap(labels=("x",))).rhs == S("x^{10}")  # ... unless declared a label


def test_a_derivative_operator_applies_to_its_operand():
    r"""\frac{d}{dt} W^{21}, \frac{d}{dt}(...), \frac{d^2}{dt^2} u and \frac{\partial}{\partial x}(...) are Derivatives
    (plant: "a derivative operator" failures); an operator before a product is reported, never guessed."""
    _parser()
    t, x, y, a, b, c, u = sp.symbols("t x y a b c u")
    assert _one(r"\frac{d}{dt} W^{21} = a").lhs == sp.Derivative(S("W^{21}"), t)
    assert _one(r"\frac{d}{dt}(a + b) = c").lhs == sp.Derivative(a + b, t)
    assert _one(r"\frac{\partial}{\partial x}(x y) = y").lhs == sp.Derivative(x * y, x)
    assert _one(r"\frac{d^2}{dt^2} u = -u").lhs == sp.Derivative(u, (t, 2))
    assert _one(r"\tau \frac{d}{dt} u_f(t) = 1").lhs == S(r"\tau") * sp.Derivative(sp.Function("u_{f}")(t), t)
    assert _one(r"\frac{d}{dt} \hat{W} + 1 = c").lhs == sp.Derivative(S(r"\hat{W}"), t) + 1
    f = parse_display(r"\frac{d}{dt} a b = c")
    assert isinstance(f, ParseFailure) and "derivative operator" in f.reason


def test_a_value_before_a_group_is_a_product_and_a_function_is_applied():
    r"""b(s - a\cdot b): b is printed as a value in the same display, so b(...) is b times the group (plant: the
    call b(s - a b)); b(s - a) with b nowhere a value is applied, as q(z) is; a declared function is always applied;
    a thin space marks a product."""
    _parser()
    a, b, s = sp.symbols("a b s")
    assert _one(r"y = b(s - a\cdot b)").rhs == b * (s - a * b)
    assert _one(r"y = b\,(s - a\cdot b)").rhs == b * (s - a * b)
    assert _one(r"y = b(s - a)").rhs == sp.Function("b")(s - a)
    declared = NotationMap(symbols={"b": sp.Function("b")})
    assert _one(r"y = b(s - a)", declared).rhs == sp.Function("b")(s - a)
    assert _one(r"y = b(s - a\cdot b)", declared).rhs == sp.Function("b")(s - a * b)
    u0, uf = S("u_{0}"), S("u_{f}")                                            # subscripted values too
    rel = _one(r"t_f = \ln\frac{u_f(s - u_0)}{u_0(s - u_f)}")
    assert rel.rhs == sp.log(uf * (s - u0) / (u0 * (s - uf))), rel


def test_a_source_that_cannot_be_read_whole_says_so():
    """An unterminated equation with unbalanced braces, and a source with no labelled display, each give a reader
    warning (plant: no warning and an empty label list, as #35 found)."""
    broken = read_source("\\documentclass{article}\n\\begin{document}\n\\section{A}\n\\begin{equation}\\label{eq:a}\n"
                         "x = \\frac{1}{2\n\\end{document}\n")
    msgs = [str(w) for w in broken.warnings]
    assert any("never ended" in m for m in msgs) and any("braces do not balance" in m and "line 5" in m
                                                           for m in msgs), msgs
    closing = read_source("\\documentclass{article}\n\\begin{document}\n\\begin{equation}\\label{a} x = 1 "
                          "\\end{equation}\n}\n\\end{document}\n")
    assert closing.labels == ["(1)"] and any("closes no brace" in str(w) for w in closing.warnings), closing.warnings
    empty = read_source("\\documentclass{article}\n\\begin{document}\n\\section{A}\nText and $x = 1$.\n"
                        "\\end{document}\n")
    assert empty.labels == [] and any("no labelled display" in str(w) for w in empty.warnings), empty.warnings
    whole = read_source(DYNAMICS)
    assert whole.warnings == [], whole.warnings                                # the paper below reads whole


# A small paper on the learning dynamics of a deep linear network (after Saxe et al.'s mode dynamics): every
# construct above in the displays a referee would read.
DYNAMICS = r"""\documentclass{article}
\usepackage{amsmath}
\newtheorem{proposition}{Proposition}
\title{Mode-by-mode learning dynamics of a three-layer linear network}
\begin{document}
\maketitle
\section{Setting}
A three-layer linear network $\hat y = W^{32} W^{21} x$ is trained on inputs with correlation $\Sigma^{11}$ and
input-output correlation $\Sigma^{31}$, whose singular value decomposition is
\begin{equation}\label{eq:svd}
\Sigma^{31} = U S V^T .
\end{equation}
Gradient flow with time constant $\tau$ gives
\begin{equation}\label{eq:w21}
\tau \frac{d}{dt} W^{21} = W^{32T}\left(\Sigma^{31} - W^{32} W^{21} \Sigma^{11}\right)
\end{equation}
\begin{equation}\label{eq:w32}
\tau \frac{d}{dt} W^{32} = \left(\Sigma^{31} - W^{32} W^{21} \Sigma^{11}\right) W^{21T}
\end{equation}
\section{One mode}
In the singular basis each mode of strength $s$ has weights $a$ and $b$, with loss gradient
\begin{equation}\label{eq:grad}
\frac{\partial}{\partial a}\left(\frac{1}{2}(s - a b)^2\right) = -b\,(s - a b)
\end{equation}
and flow
\begin{equation}\label{eq:a}
\tau \frac{d}{dt} a = b\,(s - a\cdot b), \qquad \tau \frac{d}{dt} b = a(s - a\cdot b).
\end{equation}
\begin{proposition}\label{prop:time}
The product $u = ab$ started at $u_0$ reaches $u_f$ at the time
\begin{equation}\label{eq:time}
t_f = \frac{\tau}{2 s} \ln\frac{u_f (s - u_0)}{u_0 (s - u_f)} .
\end{equation}
\end{proposition}
\section{Depth}
A network with $L$ layers of widths $N_l$ has
\begin{equation}\label{eq:params}
P = \sum_{l=1}^{L} N_l N_{l-1}
\end{equation}
weights; for layers that double in width,
\begin{equation}\label{eq:width}
N_l = 2 N_{l-1} .
\end{equation}
\end{document}
"""


def _expected():
    t, tau, s, a, b = S("t"), S(r"\tau"), S("s"), S("a"), S("b")
    W21, W32, S31, S11 = S("W^{21}"), S("W^{32}"), S(r"\Sigma^{31}"), S(r"\Sigma^{11}")
    u0, uf, tf = S("u_{0}"), S("u_{f}"), S("t_{f}")
    N, l, L = sp.IndexedBase("N"), S("l"), S("L")
    return {
        "(1)": (sp.Eq(S31, S("U") * S("S") * S("V^{T}")),),
        "(2)": (sp.Eq(tau * sp.Derivative(W21, t), S("W^{32}^{T}") * (S31 - W32 * W21 * S11)),),
        "(3)": (sp.Eq(tau * sp.Derivative(W32, t), (S31 - W32 * W21 * S11) * S("W^{21}^{T}")),),
        "(4)": (sp.Eq(sp.Derivative((s - a * b) ** 2 / 2, a), -b * (s - a * b)),),
        "(5)": (sp.Eq(tau * sp.Derivative(a, t), b * (s - a * b)), sp.Eq(tau * sp.Derivative(b, t), a * (s - a * b))),
        "(6)": (sp.Eq(tf, tau / (2 * s) * sp.log(uf * (s - u0) / (u0 * (s - uf)))),),
        "(7)": (sp.Eq(S("P"), sp.Sum(N[l] * N[l - 1], (l, 1, L))),),
        "(8)": (sp.Eq(S("N_{l}"), 2 * S("N_{l-1}")),),
    }


def test_a_learning_dynamics_paper_parses_display_by_display():
    """Each labelled display of DYNAMICS gives exactly the SymPy a reader means (plants, the PARSE_FORMAT 6 readings:
    W**21 and \\Sigma**31 powers, the operator forms unparsed, b(...) a call, u[f] and N[l] indexed)."""
    _parser()
    printed = read_source(DYNAMICS)
    assert printed.labels == ["(1)", "(2)", "(3)", "(4)", "(5)", "Proposition 1", "(6)", "(7)", "(8)"]
    assert printed.refs["eq:time"] == "(6)" and printed.refs["prop:time"] == "Proposition 1"
    for label, want in _expected().items():
        got = parse_display(printed.get(label).text, lead=printed.get(label).lead)
        assert got == want, (label, got, want)


def test_the_dynamics_paper_scaffolds_with_its_parses_and_its_drafts_stay_drafts(tmp_path, monkeypatch):
    """`theorylab new NAME --from dynamics.tex`: every display becomes draft steps of exactly its parse, and `check`
    reports them as drafts, never as matching the print they were made from (no circular match), with 0 holding."""
    _parser()
    from theorylab.testing import run_cli

    src = tmp_path / "src" / "dynamics.tex"
    src.parent.mkdir()
    src.write_text(DYNAMICS)
    name = "dyn35paper"
    folder = tmp_path / name
    code, out, err = run_cli("new", name, str(folder), "--from", str(src))
    assert code == 0 and err == "", err
    cov = (folder / name / "coverage.py").read_text()
    for label in _expected():
        assert f"# {label} [1 draft step(s)" in cov or f"# {label} [2 draft step(s)" in cov, (label, cov)
    monkeypatch.syspath_prepend(str(folder))
    try:
        entries = importlib.import_module(f"{name}.entries")
        steps = [s for d in entries.DERIVATIONS for s in d.steps]
        assert all(s.draft for s in steps) and len(steps) == 9, [s.label for s in steps]
        by_label: dict = {}
        for st in steps:
            by_label.setdefault(st.cites[0], []).append(st)
        want = _expected()
        for label, rels in want.items():        # the drafts state exactly the parses (names as scaffold spells them)
            drafted = by_label[label]
            assert len(drafted) == len(rels), label
            for st, rel in zip(drafted, rels):
                real = {x: S(x.name.replace("\\", "").replace("{", "").replace("}", ""), real=True)
                        for x in rel.atoms(sp.Symbol) - {b.label for b in rel.atoms(sp.IndexedBase)}}
                assert (st.lhs, st.rhs) == (rel.lhs.xreplace(real), rel.rhs.xreplace(real)), (label, st, rel)
        code, out, err = run_cli("check", name, "--paper", name, "--jobs", "1")
        assert code == 0, out + err
        assert "9 drafts (not checked)" in out and "0 hold" in out, out
        code, out, err = run_cli("coverage", name, "--paper", name, "--json")
        rows = {r["label"]: r for r in json.loads(out)}
        assert {rows[label]["status"] for label in want} == {"draft"}, {k: rows[k]["status"] for k in want}
    finally:
        for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[mod]
