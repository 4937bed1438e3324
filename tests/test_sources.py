"""theorylab._sources.sources: labels and printed text read from .tex and .md sources, and displays parsed into relations."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
import sympy as sp

from theorylab._sources.sources import (DEFAULT_PARSER, NotationMap, ParseFailure, Printed, Printout, parse_display,
                               parse_printed, parse_report, read_source)

SOURCES = Path(__file__).resolve().parents[1] / "derivations" / "sources"

TEX = r"""
\documentclass{article}
\usepackage{amsmath,amsthm}
\numberwithin{equation}{section}
\newtheorem{theorem}{Theorem}
\newtheorem{lemma}[theorem]{Lemma}
\begin{document}
\section{Setting}
We start with
\begin{equation}\label{eq:first}
  a = b + 1 % a comment with \begin{equation}
\end{equation}
and the chain
\begin{align}
  x &= y \label{eq:x} \\
  y &\le z \nonumber \\
    &= w \tag{7}
\end{align}
\begin{theorem}\label{thm:main}
For all $x > 0$, $f(x) \ge 0$.

The proof follows.
\end{theorem}
\section{More}
\begin{gather*}
  u = v \\
  p = q \tag{8}
\end{gather*}
\begin{lemma}[Helper] If $a$ then $b$. \end{lemma}
\begin{align}
  c &= d \\
  e &= f
\end{align}
\begin{mystery} q \end{mystery}
By \eqref{eq:first} and \eqref{eq:x}.
\end{document}
"""

MD = r"""
# A paper

$$f(x) = x^2 \tag{1}$$

Some text.

$$g(x) = 2x \quad (2)$$

Theorem 3.1. For all x, f(x) >= 0.
And more of the statement.

Next paragraph.

$$h(x) = 3x$$
(3)

$$(4)$$
"""


def test_tex_fixture_numbers_like_latex():
    out = read_source(TEX, fmt="tex")
    assert isinstance(out, Printout) and isinstance(out, list)
    assert out.labels == ["(1.1)", "(1.2)", "(7)", "Theorem 1", "(8)", "Lemma 2", "(2.1)", "(2.2)"]
    assert out.get("(1.1)").text == "a = b + 1"                     # comment dropped, label stripped
    assert out.get("(1.2)").text == "x &= y"
    assert out.get("(7)").text == "&= w" and out.get("(7)").lead == "y &\\le z"    # a continuation's left side
    assert out.get("(8)").text == "p = q"                             # a \tag numbers a starred line
    assert out.refs == {"eq:first": "(1.1)", "eq:x": "(1.2)", "thm:main": "Theorem 1"}
    assert out.get("eq:x").label == "(1.2)"                           # \eqref{eq:x} -> (1.2)
    thm = out.get("Theorem 1")
    assert thm.kind == "statement" and thm.text == "For all $x > 0$, $f(x) \\ge 0$."
    assert out.get("Lemma 2").text == "If $a$ then $b$."              # shared counter with theorem, [Helper] dropped
    lines = TEX.splitlines()
    assert out.get("(1.1)").line == lines.index(r"\begin{equation}\label{eq:first}") + 1
    assert out.get("Theorem 1").line == lines.index(r"\begin{theorem}\label{thm:main}") + 1
    assert [w.construct for w in out.warnings] == ["\\begin{mystery}"]
    mystery = lines.index(r"\begin{mystery} q \end{mystery}") + 1
    assert str(out.warnings[0]).startswith(f"line {mystery}: ")


def test_tex_default_counters_subequations_and_appendix():
    tex = r"""
\begin{theorem} A. \end{theorem}
\begin{lemma} B. \end{lemma}
\begin{equation} a = 1 \end{equation}
\begin{subequations}\label{eq:pair}
\begin{align} b &= 2 \\ c &= 3 \label{eq:c} \end{align}
\end{subequations}
\begin{multline} d = e \\ + f \end{multline}
\[ g = h \]
\begin{equation*} k = l \end{equation*}
\numberwithin{equation}{section}
\appendix
\section{Proofs}
\begin{equation} m = n \end{equation}
"""
    out = read_source(tex, fmt="tex")
    assert out.labels == ["Theorem 1", "Lemma 1", "(1)", "(2a)", "(2b)", "(3)", "(A.1)"]
    assert out.refs == {"eq:pair": "(2)", "eq:c": "(2b)"}
    assert out.get("(3)").text == "d = e + f"
    assert not out.warnings


def test_md_fixture():
    out = read_source(MD)
    assert out.fmt == "md"
    assert out.labels == ["(1)", "(2)", "Theorem 3.1", "(3)", "(4)"]
    assert [p.text for p in out if p.kind == "display"] == ["f(x) = x^2", "g(x) = 2x", "h(x) = 3x", ""]
    assert out.get("Theorem 3.1").text == "For all x, f(x) >= 0. And more of the statement."
    assert out.get("(3)").line == 15
    assert [w.construct for w in out.warnings] == ["(4)"]          # a label on an empty display is reported
    assert out.get("(1)").relations is None


def test_md_file_path_and_extra_patterns(tmp_path):
    f = tmp_path / "paper.md"
    f.write_text("$$a = b$$ [5]\n\n$$c = d \\tag{6}$$\n")
    assert read_source(f).labels == ["(6)"]
    out = read_source(str(f), extra_patterns=(r"\$\$\s*\[(\d+)\]",))
    assert out.labels == ["(5)", "(6)"] and out.get("(5)").text == "a = b"


@pytest.mark.parametrize("n", range(4))
def test_the_built_in_papers_labels_equal_their_coverage_labels(n):
    from theorylab.derivations import PAPERS
    coverage = importlib.import_module(f"theorylab.derivations.coverage_00{n}")
    out = read_source(SOURCES / PAPERS[n].source)
    assert out.labels == list(coverage.LABELS)
    displays = [p for p in out if p.kind == "display"]
    assert sum(bool(p.text) for p in displays) >= len(displays) - 2    # every other label has its printed text
    assert all(w.construct in {"(12)", "(38)", "(123)"} for w in out.warnings)


def test_seed_texts_are_the_shared_seeds():
    seeds = Path(__file__).resolve().parents[2] / "shared" / "seeds"
    if not seeds.exists():
        pytest.skip(f"{seeds} is not present in this checkout")
    for f in sorted(seeds.glob("*.txt")):
        assert (SOURCES / f.name).read_bytes() == f.read_bytes(), f.name


def test_printed_and_notation_records_are_checked():
    with pytest.raises(ValueError, match="kind must be"):
        Printed(label="(1)", kind="equation", text="", line=1)
    with pytest.raises(ValueError, match="pair"):
        NotationMap(rewrites=(("a",),))
    with pytest.raises(ValueError, match="fmt must be"):
        read_source("x", fmt="rst")


# -- parsing (needs the parser package) ------------------------------------------------------------------------------

def _parser():
    name = {"latex2sympy2_extended": "latex2sympy2_extended", "lark": "lark", "antlr": "antlr4"}[DEFAULT_PARSER]
    pytest.importorskip(name, reason=f"the LaTeX parser {DEFAULT_PARSER} is not installed")


def test_a_chain_splits_into_two_relations():
    _parser()
    x, y, z = sp.symbols("x y z")
    rels = parse_display(r"x^2 = y \le z + 1.")
    assert rels == (sp.Eq(x**2, y), sp.Le(y, z + 1))


def test_layout_conditions_and_notation():
    _parser()
    a, b = sp.symbols("a b")
    rels = parse_display(r"\left( a + b \right)^2 &= a^2 + 2\,a b + b^2, \quad \text{for all } a, b \in \mathbb{R}")
    assert rels == (sp.Eq((a + b) ** 2, a**2 + 2 * a * b + b**2),)
    z = sp.Symbol("z", positive=True)
    q = sp.Function("q")
    notation = NotationMap(rewrites=((re.compile(r"\\operatorname\{arcsinh\}"), r"\arsinh"),),
                           symbols={"z": z, "q": q})
    (rel,) = parse_display(r"q(z) = 2 - \sqrt{4 + z^2} + z \cdot \operatorname{arcsinh}(z/2)", notation)
    assert rel == sp.Eq(q(z), 2 - sp.sqrt(4 + z**2) + z * sp.asinh(z / 2))
    (rel,) = parse_display(r"= \|\vec{m}_h\|_2", lead=r"z_h^2")          # a continuation takes the lead's last term
    norm = sp.Function(r"\|\cdot\|_{2}")
    # z_h, m_h: names (PARSE_FORMAT 7: a subscript is an index only where declared or summed over)
    assert rel == sp.Eq(sp.Symbol("z_{h}") ** 2, norm(sp.Symbol("m_{h}")))


def test_a_failure_names_construct_and_position_in_one_line():
    _parser()
    text = r"a = x \otimes f(x)"
    f = parse_display(text)
    assert isinstance(f, ParseFailure)
    assert f.construct == r"\otimes" and f.position == text.index(r"\otimes")
    assert "\n" not in str(f) and r"\\otimes" in str(f) and str(f.position) in str(f)
    f = parse_display(r"x \simeq y")                  # (\approx and \propto are read since PARSE_FORMAT 4)
    assert isinstance(f, ParseFailure) and f.construct == r"\simeq" and f.position == 2
    f = parse_display(r"= y")
    assert isinstance(f, ParseFailure) and "continuation" in f.reason


def test_parse_printed_and_report():
    _parser()
    out = parse_printed(read_source(MD))
    assert isinstance(out, Printout) and out.warnings
    assert out.get("(1)").relations == (sp.Eq(sp.Function("f")(sp.Symbol("x")), sp.Symbol("x") ** 2),)
    assert out.get("Theorem 3.1").relations is None
    report = parse_report(out)
    assert report["displays"] == 4 and report["parsed"] == 3 and report["share"] == 0.75
    assert report["reasons"] == [("no printed display", 1)] and set(report["failures"]) == {"(4)"}


# -- shipped parses: the built-in papers' displays parsed once, with the package ----------------------------------------

@pytest.mark.parametrize("n", range(4))
def test_the_shipped_parses_are_current(n):
    """Every parse a built-in paper's comparisons ask for (each display, each printed chain) is in its shipped
    `<source>.parses.json`, under the key of the current parsing rules (PARSE_FORMAT), parser version, text and
    notation map, and nothing else is: a change of any of them asks for the file to be regenerated."""
    from theorylab._pipeline import fidelity
    from theorylab.derivations import PAPERS

    st = fidelity.shipped_status(PAPERS[n])
    assert not st["missing"] and not st["extra"], (
        f"{PAPERS[n].name}: the shipped parses {st['path']} are stale ({len(st['missing'])} of {st['requests']} "
        f"missing: {st['missing'][:5]}; {st['extra']} extra): regenerate them with "
        f"`python -m theorylab._pipeline.fidelity --rebuild {PAPERS[n].name}`")


def test_the_shipped_parses_are_what_the_parser_gives():
    """A guard for a change of the parsing rules without a PARSE_FORMAT bump: ptft-relu's displays, parsed afresh,
    are its shipped entries (srepr for srepr)."""
    _parser()
    from theorylab._pipeline import catalogue, fidelity
    from theorylab.derivations import PTFT_RELU
    from theorylab._sources.sources import parse_key, read_parses, relations_to_json, shipped_path

    table = read_parses(shipped_path(catalogue.source_path(PTFT_RELU)))
    notation = fidelity.notation_of(PTFT_RELU)
    requests = fidelity.parse_requests(PTFT_RELU)
    assert len(requests) == 11
    for label, text, lead in requests:
        entry = table[parse_key(text, notation, lead=lead)]
        fresh = relations_to_json(parse_display(text, notation, lead=lead))
        assert {k: v for k, v in entry.items() if k in fresh} == fresh, (label, entry, fresh)


def test_a_fresh_machine_reads_the_shipped_parses_and_parses_what_they_lack(tmp_path, monkeypatch):
    """With an empty cache (and with the cache off) the built-in paper's displays come from its shipped parses, the
    same relations the parser gives; a display the file lacks (another text) is parsed, and a stale or foreign file
    is no file."""
    from theorylab._pipeline import catalogue, fidelity
    from theorylab.derivations import PTFT_RELU
    from theorylab._sources.sources import (PARSE_FORMAT, parse_key, read_parses, relations_from_json, relations_to_json,
                                   shipped_path, write_parses)

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("THEORYLAB_STEP_CACHE", "0")
    monkeypatch.setattr(fidelity, "PARSES", fidelity._ParseCache())
    items = fidelity.printout_of(PTFT_RELU)
    assert fidelity.PARSES.misses == 0 and fidelity.PARSES.shipped_hits == 11
    (eq7,) = [p for p in items if p.label == "(7)"]
    assert isinstance(eq7.relations, tuple) and all(isinstance(r, sp.Rel) for r in eq7.relations)
    # the JSON form reads back as the same objects, unevaluated relations kept (Eq(x, x) is not True)
    x = sp.Symbol("x", positive=True)
    rels = (sp.Eq(x, x, evaluate=False), sp.Piecewise((x, x < 1), (1, True)), sp.Le(x, 2))
    assert [sp.srepr(r) for r in relations_from_json(relations_to_json(rels))] == [sp.srepr(r) for r in rels]
    failure = ParseFailure("a gradient", "\\nabla", 4)
    assert relations_from_json(relations_to_json(failure)) == failure
    # a table of one's own: read where the key matches, parsed where it does not
    path = tmp_path / "paper.parses.json"
    assert shipped_path(tmp_path / "paper.md") == path
    x_ = sp.Symbol("x")
    write_parses(path, {parse_key("x = 1"): {"label": "(1)", "text": "x = 1",
                                               **relations_to_json((sp.Eq(x_, 2, evaluate=False),))}})
    cache = fidelity._ParseCache()
    cache.ship(path)
    assert cache.parse("x = 1") == (sp.Eq(x_, 2),) and cache.shipped_hits == 1      # the file, not the parser
    import importlib.util

    if importlib.util.find_spec("latex2sympy2_extended") is not None:
        assert cache.parse("x = 3") == (sp.Eq(x_, 3),) and cache.misses == 1
    data = path.read_text().replace(f'"format": {PARSE_FORMAT}', f'"format": {PARSE_FORMAT + 1}')
    path.write_text(data)
    assert read_parses(path) == {} and read_parses(tmp_path / "absent.json") == {}
    assert str(catalogue.source_path(PTFT_RELU)).endswith(".txt")


def test_a_superscript_with_an_argument_or_over_e_is_a_power():
    """^{ft}, ^{T}, ^{(1)} join a symbol's name; letters applied to an argument (e^{nf(t)}) or over the exponential's
    e (e^{nt}) are a power (PARSE_FORMAT 2)."""
    _parser()
    n, t, y = sp.symbols("n t y")
    (rel,) = parse_display(r"y = e^{nf(t)} + e^{nt} + R^{ft}")
    assert rel == sp.Eq(y, sp.exp(n * sp.Function("f")(t)) + sp.exp(n * t) + sp.Symbol("R^{ft}"))


def test_a_notation_key_does_not_depend_on_which_equal_symbol_sympy_hands_back():
    # SymPy's cache may return Symbol('g', positive=True, real=True) for Symbol('g', positive=True) when the first
    # was created earlier (an import order): the key (and so the shipped parses) must not see the difference
    import sympy as sp
    from theorylab._sources.sources import NotationMap, notation_key

    sp.core.cache.clear_cache()
    a = notation_key(NotationMap(symbols={"R": 1 / (1 - sp.Symbol("g_key", positive=True, real=True))}))
    sp.core.cache.clear_cache()
    b = notation_key(NotationMap(symbols={"R": 1 / (1 - sp.Symbol("g_key", positive=True))}))
    c = notation_key(NotationMap(symbols={"R": 1 / (1 - sp.Symbol("g_key", real=True))}))
    assert a == b and a != c


# -- PARSE_FORMAT 3: derivatives, evaluation bars, gradients, optima, multiple integrals (#24) ----------------------

def test_a_derivative_is_sympys_derivative_in_the_printed_variable():
    _parser()
    v, z, t = sp.symbols("v z t")
    (rel,) = parse_display(r"\frac{\partial z}{\partial v} = 4v")
    assert rel == sp.Eq(sp.Derivative(z, v), 4 * v)
    (rel,) = parse_display(r"\frac{\partial^{2}\tilde{\omega}(v)}{\partial v^{2}} = 2")
    assert rel.lhs == sp.Derivative(sp.Function(r"\tilde{\omega}")(v), (v, 2))
    # read wrong (the ratio of products of symbols d, x, t or a first derivative) it would not be this
    (rel,) = parse_display(r"\frac{dx}{dt} = x")
    assert rel == sp.Eq(sp.Derivative(sp.Symbol("x"), t), sp.Symbol("x")) and rel.lhs.doit() == 0
    # the operator form on one operand is the derivative (#35); before a product, whose place the print leaves open,
    # it is reported, never read as a quotient; so is a subdifferential
    assert parse_display(r"a = \frac{d}{dt} x") == (sp.Eq(sp.Symbol("a"), sp.Derivative(sp.Symbol("x"), t)),)
    f = parse_display(r"a = \frac{d}{dt} x y")
    assert isinstance(f, ParseFailure) and "derivative operator" in f.reason and f.position == 4
    f = parse_display(r"\partial \omega(z) \ni 0")
    assert isinstance(f, ParseFailure) and f.construct == r"\partial" and f.position == 0


def test_an_evaluation_bar_puts_the_value_into_the_whole_side():
    _parser()
    v, w = sp.symbols("v w")
    (a, b) = parse_display(r"\frac{\partial w(v)}{\partial v}\Big|_{v=0} = 2 v + 1 \Big|_{v=0} = 1")
    g = sp.Function("w")
    assert a.lhs == sp.Subs(sp.Derivative(g(v), v), v, 0)
    assert a.rhs == sp.Subs(2 * v + 1, v, 0) and a.rhs.doit() == 1 and b.rhs == 1


def test_a_gradient_is_a_named_operator_applied_to_its_operand():
    _parser()
    L, l, x = sp.Symbol(r"\mathcal{L}"), sp.Symbol("l"), sp.Symbol("x")
    (rel,) = parse_display(r"G = -\nabla_l \mathcal{L} + \nabla_{x} f(x)")
    grad_l, grad_x = sp.Function(r"\nabla_{l}"), sp.Function(r"\nabla_{x}")
    assert rel.rhs == -grad_l(L) + grad_x(sp.Function("f")(x))
    # not a product of a symbol \nabla_l with L
    assert not rel.rhs.has(sp.Symbol(r"\nabla_{l}"))
    # a notation map may define the operator: here the gradient of a function of one variable is its derivative
    nm = NotationMap(symbols={r"\nabla_{x}": lambda e: sp.diff(e, x)})
    (rel,) = parse_display(r"G = \nabla_{x} (x^3)", nm)
    assert rel.rhs == 3 * x ** 2


def test_an_optimum_is_an_opaque_named_value_of_the_whole_objective():
    _parser()
    u, m, g = sp.symbols("u m gamma")
    rels = parse_display(r"\tilde{r} = \min_{u > 0} p(u) + 1, \quad p(u) := (m/u - \gamma)^2")
    minimum = sp.Function(r"\min_{u > 0}")
    p = sp.Function("p")
    assert rels[0] == sp.Eq(sp.Symbol(r"\tilde{r}"), minimum(p(u) + 1))      # min of p + 1, not (min p) + 1
    assert rels[1] == sp.Eq(p(u), (m / u - sp.Symbol(r"\gamma")) ** 2)
    (rel,) = parse_display(r"y = \operatorname*{arg\,min}_{x} (x-a)^2")
    assert rel.rhs.func.__name__ == r"\argmin_{x}"
    # with a constraint the value is the constrained one, never read without it: a name of its own, with the
    # constraints as its arguments (test_a_constrained_optimum_is_a_named_value_of_its_objective_and_constraints)
    (rel,) = parse_display(r"y = \min_{x} f(x) \text{ s.t. } x > 0")
    assert rel.rhs.func.__name__ == r"\min_{x}\text{ s.t. }" and rel.rhs.args[1] == (sp.Symbol("x") > 0)


def test_a_run_of_differentials_is_a_multiple_integral():
    _parser()
    x, y = sp.symbols("x y")
    (rel,) = parse_display(r"F = \int x y^2 \mathrm{d}x\mathrm{d}y")
    assert rel.rhs == sp.Integral(x * y ** 2, x, y)
    (rel,) = parse_display(r"F = \int_0^1 \int_0^2 x y^2 dx dy")
    assert rel.rhs == sp.Integral(x * y ** 2, (x, 0, 2), (y, 0, 1)) and rel.rhs.doit() == sp.Rational(2, 3)
    f = parse_display(r"F = \int_0^1 x y dx dy")
    assert isinstance(f, ParseFailure) and "several differentials" in f.reason


def test_a_chain_that_ends_in_its_type_keeps_the_chain():
    _parser()
    x, y, z = sp.symbols("x y z")
    assert parse_display(r"K(x) = y z \in \mathbb{R}^{C \times C}") == (sp.Eq(sp.Function("K")(x), y * z),)
    f = parse_display(r"x \in \mathbb{R}")                   # a membership alone is a condition: nothing to parse
    assert isinstance(f, ParseFailure) and "nothing to parse" in f.reason


def test_a_run_of_indexed_factors_with_an_ellipsis_is_one_named_product():
    """features-are-fate (7), (39), (71): W_1 W_2 \\dots W_L is one name, "W_{1}\\cdots W_{L}" (first and last factor),
    W_{L-1}^T \\dots W_1^T the transpose of the reversed run; a map binds the name (Phi = W_1 ... W_{L-1}, its
    Theorem 3.4) and a matrix it binds is transposed, never read as commuting with its transpose."""
    _parser()
    W1L, x, f = sp.Symbol(r"W_{1}\cdots W_{L}"), sp.Symbol("x^{T}"), sp.Function("f")
    assert parse_display(r"f(\boldsymbol{x}) = \boldsymbol{x}^T \boldsymbol{W}_1 \boldsymbol{W}_2 \dots "
                         r"\boldsymbol{W}_L") == (sp.Eq(f(sp.Symbol("x")), x * W1L),)
    (rel,) = parse_display(r"\boldsymbol{W}_1 \dots \boldsymbol{W}_{L-1} \boldsymbol{W}_L = \boldsymbol{\beta}")
    assert rel.lhs == W1L                                   # the explicit W_L continues the run
    phi = sp.Symbol(r"W_{1}\cdots W_{L-1}")
    (rel,) = parse_display(r"y = W_{L-1}^T \dots W_1^T W_1 \dots W_{L-1}")
    assert rel.rhs == sp.Symbol(r"(W_{1}\cdots W_{L-1})^{T}") * phi and rel.rhs != phi ** 2
    P = sp.MatrixSymbol("Phi", 3, 3)
    (rel,) = parse_display(r"y = W_{L-1}^T \dots W_1^T W_1 \dots W_{L-1}", NotationMap(symbols={
        r"W_{1}\cdots W_{L-1}": P}))
    assert rel.rhs == P.T * P
    nc = NotationMap(symbols={"W": sp.Symbol("W", commutative=False)})
    (rel,) = parse_display(r"y = W_{L-1}^T \dots W_1^T", nc)
    assert rel.rhs == sp.transpose(sp.Symbol(r"W_{1}\cdots W_{L-1}", commutative=False))
    # not a run: a sum with an ellipsis, different bases, a power on the last factor, indices that do not step by one
    for text in (r"y = a_1 + \dots + a_n", r"y = W_1 \dots V_L", r"y = W_1 \dots W_L^2", r"y = W_2 W_1 \dots W_3",
                 r"y = W_1^T \dots W_L"):
        f = parse_display(text)
        assert isinstance(f, ParseFailure) and "ellipsis" in f.reason, text


def test_named_operators_a_map_can_define():
    """adaptive-tangent (11), (13), (7), (10), (14); features-are-fate (16), (18), (28), (94), (140), (145), (149),
    (154): \\oplus/\\otimes, an accent over an expression, tr/det/vec, a component (x)_k, a sum over a set, an inner
    product with a subscript, a divergence's bar: each a name a notation map binds, never a guessed meaning."""
    _parser()
    v, z, x, a, b = sp.symbols("v z x a b")
    (rel,) = parse_display(r"(\omega_{1}\oplus\omega_{2})(v) = \omega_{1}(z)")
    assert rel.lhs == sp.Function(r"\omega_{1}\oplus\omega_{2}")(v)
    (rel,) = parse_display(r"y = (a \otimes b) x")
    assert rel.rhs == sp.Function(r"\otimes")(a, b) * x
    kron = NotationMap(symbols={r"\otimes": lambda p, q: p * q + 1})
    assert parse_display(r"y = (a \otimes b)", kron)[0].rhs == a * b + 1
    for text in (r"y = a \otimes b", r"y = (a \oplus b \oplus x)"):           # operands not delimited: reported
        f = parse_display(text)
        assert isinstance(f, ParseFailure) and "\\otimes" in f.reason, text
    (rel,) = parse_display(r"K = \overline{\nabla f_{\theta}}(x)")
    assert rel.rhs == sp.Function(r"\bar{\nabla f_{\theta}}")(x)
    (rel,) = parse_display(r"y = \operatorname{tr}(A) + \det(B) + \mathrm{vec}(C)")
    A, B, C = sp.symbols("A B C")
    assert rel.rhs == sum(sp.Function("\\operatorname{" + n + "}")(s) for n, s in (("tr", A), ("det", B), ("vec", C)))
    f = parse_display(r"y = \operatorname{tr} A")                          # tr A: its argument not delimited
    assert isinstance(f, ParseFailure) and "matrix function" in f.reason
    (rel,) = parse_display(r"y = \mathbb{E}(b)_{k} + (z_l)_i")
    comp = lambda i, e: sp.Function("(\\cdot)_{" + i + "}")(e)             # noqa: E731
    assert rel.rhs == comp("k", sp.Function(r"\mathbb{E}")(b)) + comp("i", sp.Symbol("z_{l}"))
    (rel,) = parse_display(r"f = \sum_{i \in A} c_i x + 1")
    assert rel.rhs == sp.Function(r"\sum_{i \in A}")(sp.IndexedBase("c")[sp.Symbol("i")] * x) + 1
    (rel,) = parse_display(r"K = \langle a b \rangle_{L_2} + \langle a, b \rangle")
    assert rel.rhs == sp.Function(r"\langle\cdot\rangle_{L_2}")(a * b) + sp.Function(r"\langle\cdot,\cdot\rangle")(a, b)
    (rel,) = parse_display(r"\mathcal{D}_{KL}(a \| b) = x")
    assert rel.lhs == sp.Function(r"\mathcal{D}_{KL}")(a, b)
    (rel,) = parse_display(r"y = P^{\perp} x + U_{l}{\bm{\Sigma}}_{l}")
    assert rel.rhs == sp.Symbol(r"P^{\perp}") * x + sp.Symbol("U_{l}") * sp.Symbol(r"\Sigma_{l}")
    (rel,) = parse_display(r"y = n\lambda\boldsymbol{I} + v^{T}(a + b)")   # a transpose before a group is a product
    assert rel.rhs == sp.Symbol("n") * sp.Symbol(r"\lambda") * sp.Symbol("I") + sp.Symbol("v^{T}") * (a + b)
    f = parse_display(r"H = \left\{ f \middle| f = a \right\}")
    assert isinstance(f, ParseFailure) and "set defined by a condition" in f.reason


def test_a_constrained_optimum_is_a_named_value_of_its_objective_and_constraints():
    """ptft-relu (5), adaptive-tangent (30): \\min_{S} f \\text{ s.t. } g = c, h <= d is the named value
    "\\min_{S}\\text{ s.t. }" of the objective and the constraints (relations, kept as data); quantified constraints
    and several values on the left stay reported."""
    _parser()
    x, y = sp.symbols("x y")
    (rel,) = parse_display(r"y = \min_{x} f(x) \text{ s.t. } x > 0, x \le 2.")
    opt = sp.Function(r"\min_{x}\text{ s.t. }")
    assert rel == sp.Eq(y, opt(sp.Function("f")(x), x > 0, x <= 2))
    nm = NotationMap(symbols={r"\min_{x}\text{ s.t. }": lambda f, *cons: f.subs(x, 2)})
    assert parse_display(r"y = \min_{x} x^2 \text{ s.t. } x \ge 2", nm)[0].rhs == 4
    f = parse_display(r"b = \argmin_{x} f(x) \text{ s.t. } g(x_i) = 0 \; \forall i \in [N]")
    assert isinstance(f, ParseFailure) and "quantified" in f.reason and f.construct == "\\forall"
    f = parse_display(r"a, b = \argmin_{x, y} f(x, y) \text{ s.t. } x y = 1")
    assert isinstance(f, ParseFailure) and "several values on its left" in f.reason


def test_a_continuation_finds_its_chain_across_a_label_only_display_and_stray_punctuation():
    """features-are-fate (42) (a ':' between it and (41)) and (90) (after '$$\\tag{89}$$', the label of the display
    before it): the display they continue is their lead, so they get a left side; an unbalanced side (the misprints
    of (6), (62)) says so."""
    _parser()
    md = ("$$a = b$$\n(1)\n\n:\n\n7\n$$= c + 1$$\n(2)\n\n$$= d$$\n\n$$\\tag{3}$$\n\n$$= w$$\n(4)\n")
    out = read_source(md, fmt="md")
    assert out.get("(2)").lead == "a = b" and out.get("(4)").lead == "= d"
    a, c, d, w = sp.symbols("a c d w")
    assert parse_printed(out).get("(4)").relations == (sp.Eq(d, w),)
    assert parse_printed(out).get("(2)").relations == (sp.Eq(sp.Symbol("b"), c + 1),)
    f = parse_display(r"R = \mathbb{E}[(f(x) - g(x)^2]")
    assert isinstance(f, ParseFailure) and "parentheses" in f.reason and "do not balance" in f.reason
    f = parse_display(r"= x", lead=r"a \le (b + c")
    assert isinstance(f, ParseFailure) and f.reason.startswith("a continuation whose left side")


def test_absolute_value_bars_and_a_differential_first():
    """features-are-fate (22): \\left| ... \\right| after a subscript is an absolute value, never a conditional bar;
    (146): \\int dx f(x) is reported as such (not 'an empty side')."""
    _parser()
    a, b, h = sp.symbols("a b h")
    (rel,) = parse_display(r"g = \sup_{\|h\|_{BL} \le 1} \left| a b \right|")
    assert rel.rhs == sp.Function(r"\sup_{\|h\|_{BL} \le 1}")(sp.Abs(a * b))
    f = parse_display(r"T f = \int dx' p(x') f(x')")
    assert isinstance(f, ParseFailure) and "differential before its integrand" in f.reason


def test_an_evaluation_bar_is_never_dropped():
    """adaptive-tangent (20): (M_{\\theta'} - I)|_{\\theta'=(1-t)\\theta_0+t\\theta} inside an integral: the variable
    is only inside a name, so a substitution would change nothing and the bar would vanish: reported instead (the
    old engine read it as the integral of M_{\\theta'} - I over t, a wrong value)."""
    _parser()
    f = parse_display(r"y = \int_0^1 (M_{\theta^{\prime}} - I)\big{|}_{\theta^{\prime}=(1-t)a+tb} dt")
    assert isinstance(f, ParseFailure) and "evaluation bar" in f.reason
    f = parse_display(r"y = M_{\theta} \Big|_{\theta=0}")
    assert isinstance(f, ParseFailure) and "only inside a name" in f.reason
    v = sp.Symbol("v")
    assert parse_display(r"y = 2 v + 1 \Big|_{v=0}")[0].rhs == sp.Subs(2 * v + 1, v, 0)


def test_a_matrix_expression_sympy_cannot_form_is_a_parse_failure_never_a_crash():
    """A scalar of the parse inside a product of the map's matrices (SymPy's MatMul raises NotImplementedError for
    a noncommutative scalar): the display is reported with its reason, and the paper's other displays still parse."""
    z, v = sp.Matrix(sp.symbols("z1:4")), sp.Matrix(sp.symbols("v1:3"))
    got = parse_display(r"P = \frac{1}{\|\boldsymbol{z}_{s}\|_{2}^{2}} \boldsymbol{v}_{s} \boldsymbol{z}_{s}^{T}",
                        NotationMap(symbols={"z_{s}": z, "v_{s}": v}))
    assert isinstance(got, ParseFailure), got
    assert "SymPy cannot form" in got.reason


def test_a_display_the_next_one_continues_is_a_cut_side_never_parsed_as_complete():
    r"""adaptive-tangent's (17) ends in the middle of a product that (18) continues ('\hskip 120pt\cdot vec(...)'):
    (17) alone would parse as a relation missing a factor, so it is reported, never compared as if complete."""
    from theorylab._sources.sources import cut_sides, parse_printed

    items = [Printed(label="(1)", kind="display", text=r"K = a + b c", line=1),
             Printed(label="(2)", kind="display", text=r"\hskip 120.00018pt\cdot d", line=2),
             Printed(label="(3)", kind="display", text=r"x = -2 y", line=3),
             Printed(label="(4)", kind="display", text=r"-2 y = z", line=4)]
    assert set(cut_sides(items)) == {"(1)"}            # a display opening with '-' may be an expression of its own
    parsed = {p.label: p.relations for p in parse_printed(items)}
    assert isinstance(parsed["(1)"], ParseFailure) and "(2) continues it" in parsed["(1)"].reason
    assert not isinstance(parsed["(3)"], ParseFailure)


def test_a_thin_space_before_a_parenthesis_is_a_product_unless_the_name_is_a_declared_function():
    """#35: `b\\,(s - a\\cdot b)` was read as the call b(...); a thin space (\\, \\; \\:) between a name and a
    parenthesis marks a product, unless the notation map declares the name a function. Without the space the
    reading is unchanged (an undefined function applied, as the built-in papers' q(z), p(u) are)."""
    import sympy as sp

    from theorylab._sources import sources

    a, b, s, y = sp.symbols("a b s y")
    (rel,) = sources.parse_display(r"y = b\,(s - a\cdot b)")
    assert rel.rhs == b * (s - a * b), rel
    (rel,) = sources.parse_display(r"y = \alpha\;(s + 1)")
    assert rel.rhs == sp.Symbol(r"\alpha") * (s + 1), rel
    declared = sources.NotationMap(symbols={"b": sp.Function("b")})
    (rel,) = sources.parse_display(r"y = b\,(s - a\cdot b)", declared)
    assert rel.rhs == sp.Function("b")(s - a * b), rel
    (rel,) = sources.parse_display(r"y = b(s - a)")                     # b no value here: applied, as q(z) is
    assert rel.rhs == sp.Function("b")(s - a), rel


def test_the_source_layer_is_single_role_modules_behind_one_facade():
    """#35 item 6: sources.py (2,181 lines) split into single-role modules of at most ~600 lines; the facade
    `theorylab._sources.sources` defines nothing, it re-exports each name from the one module that defines it."""
    import ast

    from theorylab._sources import sources

    folder = Path(sources.__file__).parent
    sizes = {p.name: len(p.read_text().splitlines()) for p in folder.glob("*.py")}
    assert len(sizes) >= 10 and all(n <= 620 for n in sizes.values()), sizes
    tree = ast.parse((folder / "sources.py").read_text())
    defined = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Assign))
               and not (isinstance(n, ast.Assign) and n.targets[0].id == "__all__")]
    assert not defined, [getattr(n, "name", None) for n in defined]
    for name in sources.__all__:                 # each public name is the defining module's own object
        obj = getattr(sources, name)
        assert getattr(obj, "__module__", "theorylab._sources.x").startswith("theorylab._sources."), name
