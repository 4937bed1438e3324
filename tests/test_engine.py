"""The engine on its own: parameter domains, kernel generation traps, derivation bookkeeping, CLI."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

from theorylab import DomainError
from theorylab._decide.derivation import Derivation, Erratum, Step, TrivialStepError, check_equal
from theorylab._numerics.kernels import numpy_kernel, torch_kernel
from theorylab._records.params import expression, integer, scalar, vector
from helpers import run_cli

x = sp.Symbol("x", real=True)


def test_scalar_domain_messages_name_parameter_and_domain():
    gamma = scalar("gamma", low=0, low_open=True, exclude=(1.0,), exclude_why="the risk diverges there")
    assert gamma.validate(2) == 2.0
    with pytest.raises(DomainError, match=r"gamma must be a real number > 0 other than 1; got gamma=-1"):
        gamma.validate(-1)
    with pytest.raises(DomainError, match=r"gamma must not be 1 \(the risk diverges there\)"):
        gamma.validate(1.0)
    with pytest.raises(DomainError, match="finite"):
        gamma.validate(float("nan"))


def test_integer_and_vector_kinds():
    n = integer("n", low=2, low_open=True)
    assert n.validate(5.0) == 5
    with pytest.raises(DomainError, match="an integer > 2"):
        n.validate(3.5)
    v = vector("beta", "D")
    with pytest.raises(DomainError, match="beta must be a vector"):
        v.validate([[1.0]])
    with pytest.raises(DomainError, match="not empty"):
        v.validate([])


def test_expression_kind_parses_in_z_only():
    omega = expression("omega")
    assert omega.validate("(z-1)**2").free_symbols == {sp.Symbol("z", real=True)}
    with pytest.raises(DomainError, match="omega must be a SymPy expression in z alone"):
        omega.validate("z + q")
    with pytest.raises(DomainError, match="omega must be"):
        omega.validate("z +* 1")


def test_constant_kernel_broadcasts():
    f = numpy_kernel(sp.Integer(3) + 0 * x, [x])
    assert f(np.zeros((2, 3))).shape == (2, 3)


def test_piecewise_kernels_have_no_nan_from_the_unused_branch():
    expr = sp.Piecewise((sp.sqrt(x), x >= 0), (-x, True))
    xs = np.array([-4.0, 4.0])
    np.testing.assert_allclose(numpy_kernel(expr, [x])(xs), [4.0, 2.0])
    import torch

    np.testing.assert_allclose(torch_kernel(expr, [x])(torch.tensor(xs)).numpy(), [4.0, 2.0])


def test_torch_printer_handles_max_and_constants():
    import torch

    f = torch_kernel(sp.Max(x, 0) * sp.sqrt(2) + sp.pi, [x])
    got = f(torch.tensor([-1.0, 2.0], dtype=torch.float64)).numpy()
    np.testing.assert_allclose(got, [np.pi, 2 * np.sqrt(2) + np.pi])


def test_numeric_identity_test_is_labelled_and_finds_small_counterexamples():
    ok = check_equal(2 - sp.sqrt(4 + x**2), -4 * sp.sinh(sp.asinh(x / 2) / 2) ** 2)
    assert ok.holds and ok.method.startswith("numeric identity test")
    bad = check_equal(4 * sp.sinh(x), sp.exp(x) - sp.exp(-x))
    assert not bad.holds and bad.counterexample.startswith("x=1:")


def test_erratum_that_holds_is_reported_as_not_reproduced():
    e = Erratum(key="t-1", source="seed", where="eq 1", says="(x+1)^2 = x^2 + 2x + 1", truth="(x+1)^2 = x^2 + 2x + 1",
                severity="wrong-value")
    d = Derivation(key="t", title="t", source="seed", where="eq 1", entries=(), steps=(Step("holds but marked", lhs=(x + 1) ** 2, rhs=x**2 + 2 * x + 1, erratum=e),
                                                   Step("fails unmarked", lhs=x, rhs=2 * x)))
    results = d.check()
    assert [r.ok for r in results] == [False, False]
    assert results[0].status.startswith("ERRATUM NOT REPRODUCED")


def test_console_script_runs_as_a_process():
    done = subprocess.run([sys.executable, "-m", "theorylab", "eval", "qpenalty.q", "z=1"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and '"value": 0.245143847' in done.stdout
    bad = subprocess.run([sys.executable, "-m", "theorylab", "eval", "qpenalty.q", "z=x"], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.startswith("error: z must be")


def test_unknown_id_and_usage_errors_follow_the_bad_input_rule():
    for argv in (("eval", "nope.entry"), ("eval",), ("frobnicate",), ("eval", "qpenalty.q", "z")):
        code, out, err = run_cli(*argv)
        assert code == 2 and out == "" and err.startswith("error:") and err.count("\n") == 1, (argv, err)


def test_check_lists_every_step_with_its_method():
    # --jobs 1: decided in this process, whose per-process cache the contract tests (same xdist group) filled; the
    # default spawns a pool on a machine with no timings yet (the pool's own tests are tests/test_runner.py's)
    code, out, _ = run_cli("check", "qpenalty", "--jobs", "1")
    assert code == 0
    assert "erratum confirmed" in out and "(proved); sympy" in out and "numeric identity test" in out
    assert "chain strength:" in out


# -- the guards: a check that cannot fail is refused, a verdict is always computed ---------------------------

y = sp.Symbol("y", positive=True)


def test_structurally_identical_sides_are_refused_at_declaration():
    from theorylab._decide.derivation import TrivialStepError

    with pytest.raises(TrivialStepError, match="same expression"):
        Step("copy", lhs=sp.sqrt(y) + 1, rhs=sp.sqrt(y) + 1)
    # SymPy decides some statements while building them: d/dy of an affine function is already the constant
    with pytest.raises(TrivialStepError, match="same expression"):
        Step("affine derivative", lhs=sp.diff(3 * y + 1, y), rhs=3)
    # stated unevaluated, the same statement is a real step that the engine decides
    ok = Step("affine derivative", lhs=sp.Derivative(3 * y + 1, y), rhs=3).check()
    assert ok.holds and ok.strength == "proved"
    bad = Step("wrong derivative", lhs=sp.Derivative(3 * y + 1, y), rhs=4).check()
    assert not bad.holds and bad.strength == "refuted"
    with pytest.raises(TrivialStepError, match="two expressions"):
        Step("words alone")
    f = lambda y: y  # noqa: E731
    with pytest.raises(TrivialStepError, match="same callable"):
        Step("same callable", lhs=f, rhs=f, search=lambda: [{"y": 1.0}])
    with pytest.raises(TrivialStepError, match="needs `search`"):
        Step("numeric without points", lhs=lambda y: y, rhs=lambda y: y + 0.0)
    with pytest.raises(TrivialStepError, match="tol_source"):
        Step("unexplained tolerance", lhs=lambda y: y, rhs=lambda y: y + 1e-9, tol=1e-8, search=lambda: [{"y": 1.0}])
    with pytest.raises(TypeError):
        Step("old style", lhs=x, rhs=2 * x, check_fn=lambda: None)  # the check-function escape hatch is gone
    with pytest.warns(DeprecationWarning, match=r"write Step\(label, lhs=\.\.\., rhs=\.\.\.\)"):
        assert Step("positional sides", x, 2 * x).rhs == 2 * x  # the API-1 form: works, with one warning
    assert Step(label="the label by keyword", lhs=x, rhs=2 * x).label == Step("the label by keyword", lhs=x,
                                                                               rhs=2 * x).label


def test_erratum_verdict_is_computed_at_its_counterexample_and_flips_when_the_paper_is_corrected():
    e = Erratum(key="t-2", source="seed", where="eq 2", says="y^2 >= y", truth="y^2 >= y only for y >= 1",
                at={"y": sp.Rational(1, 2)}, severity="false-statement")
    wrong = Step("the paper's claim", lhs=y**2, rhs=y, relation=">=", erratum=e).check()
    assert not wrong.holds and wrong.strength == "refuted" and "y=1/2" in wrong.counterexample
    corrected = Step("a corrected paper", lhs=y**2 + sp.Rational(1, 4), rhs=y, relation=">=", erratum=e).check()
    assert corrected.holds  # the ledger would report ERRATUM NOT REPRODUCED: it cannot go stale


def test_numeric_sides_are_evaluated_by_the_engine_at_the_search_points():
    calls = []

    def solver(y):
        calls.append(y)
        return y**0.5

    step = Step("sqrt by a solver", lhs=solver, rhs=lambda y: np.exp(0.5 * np.log(y)), rtol=1e-15,
                tol_source="a few ulps of exp and log",
                search=lambda: [{"y": v} for v in (1.0, 2.0, 9.0)])
    out = step.check()
    assert out.holds and out.strength == "searched" and out.points == 3 and calls == [1.0, 2.0, 9.0]
    planted = Step("planted", lhs=lambda y: 2 * y**0.5, rhs=lambda y: y**0.5, search=lambda: [{"y": 4.0}]).check()
    assert not planted.holds and "y=4" in planted.counterexample


def test_inequalities_are_proved_certified_searched_or_refuted():
    a, b = sp.symbols("a b", real=True)
    assert Step("AM-GM", lhs=a**2 + b**2, rhs=2 * a * b, relation=">=").check().strength == "proved"
    cert = Step("exp bound on a box", lhs=sp.exp(y), rhs=1 + y, relation=">=", domain={y: (0.5, 2)}, symbolic=False).check()
    assert cert.holds and cert.strength == "certified" and "box" in cert.method
    false = Step("planted false inequality", lhs=sp.sin(a) + sp.cos(b), rhs=sp.Rational(13, 10), relation="<=",
                 domain={a: (-3, 3), b: (-3, 3)}).check()
    assert not false.holds and false.strength == "refuted"
    lhs, rhs = false.counterexample.split(": ")[1].split(", ")
    assert float(lhs.split("= ")[1]) > 1.3


def test_derivation_names_its_weakest_link():
    d = Derivation(key="w", title="w", source="seed", where="eq 3", entries=(), steps=(
        Step("proved", lhs=(y + 1) ** 2, rhs=y**2 + 2 * y + 1),
        Step("searched", lhs=sp.gamma(y + 1), rhs=y * sp.gamma(y), symbolic=False)))
    assert d.weakest().step.label == "searched"


def test_evidence_verdict_is_computed_never_given():
    from theorylab._records.evidence import Evidence, Finding, compare, compare_mc

    with pytest.raises(TypeError):
        Evidence(entry="e", check="c", kind="numeric", predicted=1.0, observed=2.0, tolerance=0.1,
                 tolerance_source="t", passed=True)
    with pytest.raises(TypeError):
        Evidence("e", "c", "numeric", 1.0, 2.0, 0.1, "t")  # keyword-only
    ev = Evidence(entry="e", check="c", kind="numeric", predicted=1.0, observed=1.05, tolerance=0.1,
                  tolerance_source="a bound")
    assert ev.passed and abs(ev.abs_error - 0.05) < 1e-12
    assert not Evidence(entry="e", check="c", kind="numeric", predicted=1.0, observed=1.2, tolerance=0.1,
                        tolerance_source="a bound").passed
    assert not Evidence(entry="e", check="c", kind="numeric", predicted=None, observed=None, tolerance=0.0,
                        tolerance_source="the check raised").passed
    assert Evidence(entry="e", check="c", kind="training", predicted=1.0, observed=0.5, tolerance=0.0,
                    tolerance_source="upper bound", relation="<=").passed
    assert not compare("e", "c", "numeric", 1.0, 0.5, atol=0.1, source="s", relation=">=").passed
    assert not compare_mc("e", "c", 1.0, 1.5, 0.1, 100).passed
    with pytest.raises(ValueError, match="bias_source"):
        compare_mc("e", "c", 1.0, 1.5, 0.1, 100, bias=0.6)
    f = Finding(entry="e", check="c", kind="training", text="reported, not asserted", values={"x": np.float64(1)})
    assert f.passed is False and f.to_json()["record"] == "finding"


def test_scaling_fit_passes_the_right_limit_and_order_and_catches_a_wrong_one():
    from theorylab._records.evidence import compare_scaling

    rng = np.random.default_rng(0)
    N = np.array([50, 100, 200, 400, 800.0])
    se = np.full(5, 0.002)
    y = 1.0 + 0.8 / N + rng.normal(0, se)
    assert all(r.passed for r in compare_scaling("e", "c", N, y, se, theory=1.0, order=1))
    wrong_limit = compare_scaling("e", "c", N, y, se, theory=1.05, order=1)
    assert not wrong_limit[0].passed  # a wrong limit cannot widen its own tolerance
    sqrt_law = 1.0 + 0.8 / np.sqrt(N) + rng.normal(0, se)
    recs = compare_scaling("e", "c", N, sqrt_law, se, theory=1.0, order=1)
    assert not any(r.passed for r in recs)  # the order 1/2 is not 1, and extrapolating with 1 misses the limit
    flat = compare_scaling("e", "c", N, 1.0 + rng.normal(0, se), se, theory=1.0, order=1)
    assert flat[0].passed and flat[1].kind == "monte-carlo" and not flat[1].passed and flat[1].to_json()[
        "record"] == "finding"
    with pytest.raises(ValueError, match=">= 3 sizes"):
        compare_scaling("e", "c", N[:2], y[:2], se[:2], theory=1.0, order=1)


def test_symbolic_step_verdicts_are_cached_by_content(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    from theorylab._decide import cache

    monkeypatch.setattr(cache, "_STEP_CACHE", cache._StepCache())
    step = Step("cached", lhs=sp.sin(y) ** 2 + sp.cos(y) ** 2, rhs=1)
    first = step.check()
    again = Step("cached", lhs=sp.sin(y) ** 2 + sp.cos(y) ** 2, rhs=1).check()
    assert first.holds and again.holds and again.method.endswith("[cached]") and not first.method.endswith("[cached]")
    changed = Step("cached", lhs=sp.sin(y) ** 2 + sp.cos(y) ** 2, rhs=2).check()  # other content: recomputed, refuted
    assert not changed.holds and not changed.method.endswith("[cached]")
    assert Step("numeric", lhs=lambda y: y, rhs=lambda y: 2 * y, search=lambda: [{"y": 1.0}]).content_key() is None


def test_a_formula_with_an_undeclared_symbol_is_refused_at_declaration():
    from theorylab._decide.entry import Entry, Source

    g = scalar("gamma", low=0, low_open=True)
    with pytest.raises(ValueError, match=r"toy.f: the formula uses sigma, which is not a declared parameter"):
        Entry(id="toy.f", title="t", source=Source("toy", "eq (1)"), doc="", params=(g,),
              formula=g.symbol / (1 + sp.Symbol("sigma")))
    with pytest.raises(ValueError, match="other assumptions"):
        Entry(id="toy.g", title="t", source=Source("toy", "eq (1)"), doc="", params=(g,),
              formula=1 / (1 + sp.Symbol("gamma")))


def test_a_refuted_inequality_reports_a_minimized_counterexample(tmp_path, monkeypatch):
    monkeypatch.setenv("THEORYLAB_STEP_CACHE", "0")
    # x^2 >= 3x - 2 fails exactly on (1, 2): no simple point violates it, a random one does, and it shrinks to 3/2
    out = Step("planted false inequality", lhs=y**2, rhs=3 * y - 2, relation=">=", domain={y: (0.05, 3)}).check()
    assert not out.holds and out.strength == "refuted"
    assert out.counterexample.startswith("y=3/2:") and "minimized" in out.method


def test_context_pick_is_the_one_profile_switch():
    from theorylab._records.evidence import Check, Context

    assert Context(profile="paper").pick(quick=1, paper=2) == 2 and Context().pick(quick=1, paper=2) == 1
    with pytest.raises(ValueError, match="profile must be one of quick, paper"):
        Context(profile="fast")
    with pytest.raises(ValueError, match="no value for profile 'paper'"):
        Context(profile="paper").pick(quick=1)
    with pytest.raises(ValueError, match="parts and combine go together"):
        Check(name="c", entries=("x.y",), kind="numeric", run=lambda ctx: [], parts=lambda ctx: [1])
    parted = Check(name="c", entries=("x.y",), kind="numeric", run=lambda ctx, part: {"v": part * 2},
                   parts=lambda ctx: [1, 2, 3],
                   combine=lambda ctx, rs: [sum(r["v"] for r in rs)])
    assert parted.evaluate(Context()) == [12]


def test_a_50_digit_identity_test_is_relative_for_small_values():
    """exp(-1000 y) = 2 exp(-1000 y) is false however small both sides are: the 50-digit comparison is relative
    (an absolute 1e-35 margin once let it hold at y in [0.09, 0.1], where both sides are below 1e-39)."""
    y = sp.Symbol("y", positive=True)
    out = Step("planted factor 2 on a tiny value", lhs=sp.exp(-1000 * y), rhs=2 * sp.exp(-1000 * y), domain={y: (0.09, 0.1)},
               symbolic=False).check()
    assert not out.holds and out.strength == "refuted", out
    same = Step("the same value through a cancellation", lhs=sp.exp(-1000 * y), rhs=sp.cosh(1000 * y) - sp.sinh(1000 * y),
                domain={y: (0.09, 0.1)}, symbolic=False).check()
    assert same.holds, same


def test_step_conditions_narrow_the_search_and_the_proof():
    """A step that holds only under a condition (gamma < 1) carries it: searched, certified on the narrowed box;
    without it the same relation is refuted; a condition that bounds no single symbol is a one-line error."""
    g = sp.Symbol("gamma", positive=True)
    held = Step("1/(1 - gamma) >= 1 for gamma < 1", lhs=1 / (1 - g), rhs=1, relation=">=", conditions=(g < 1,))
    # the condition narrows gamma's natural range (0, oo) from its assumptions, never the default box (0.05, 3),
    # open at the strict bound (#34 item 5)
    assert held.search_domain == {g: (0, 1)} and held.search_domain.open == {g: (True, True)}
    out = held.check()
    assert out.holds and out.strength in ("proved", "certified")
    assert Step("without the condition", lhs=1 / (1 - g), rhs=1, relation=">=").check().strength == "refuted"
    with pytest.raises(TrivialStepError, match=r"each condition must bound one symbol by a number"):
        Step("bad", lhs=g, rhs=1, relation=">=", conditions=(g**2 < 1,))
    with pytest.raises(TrivialStepError, match=r"leaves gamma no interval"):
        Step("empty", lhs=g, rhs=0, relation=">=", conditions=(g < 1, g > 2))


def test_a_numeric_step_prints_its_tex_or_label_never_lambda():
    s = Step("x < x + 1 on numbers", lhs=lambda x: x, rhs=lambda x: x + 1, relation="<", search=lambda: [{"x": 1}])
    assert "<lambda>" not in s.statement() and s.latex() == r"\text{x < x + 1 on numbers}"
    t = Step("x < x + 1", lhs=lambda x: x, rhs=lambda x: x + 1, relation="<", search=lambda: [{"x": 1}],
             tex=r"x < x + 1")
    assert t.latex() == "x < x + 1" and t.statement() == "x < x + 1"


def test_records_refuse_wrong_types_in_one_line():
    from theorylab.authoring import Check

    with pytest.raises(TrivialStepError, match=r"steps must be a tuple of Step records; got the str 'x'"):
        Derivation(key="d", title="t", source="s", where="w", entries=(), steps=("x",))
    with pytest.raises(TrivialStepError, match=r"entries must be a tuple of entry IDs"):
        Derivation(key="d", title="t", source="s", where="w", entries=(1,), steps=())
    with pytest.raises(ValueError, match=r"check 'c': run must be a function; got run=3"):
        Check(name="c", entries=("a.b",), kind="numeric", run=3)
    with pytest.raises(ValueError, match=r"entries must be a tuple of entry IDs"):
        Check(name="c", entries=(1,), kind="numeric", run=lambda ctx: [])
