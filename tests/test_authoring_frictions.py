"""The frictions a second author met (#38), each held: the dynamics evidence helpers, the author-API policy, and each
error that now says what to write instead."""
from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
import sympy as sp

from theorylab import authoring
from theorylab.authoring import (API_CHANGES, API_VERSION, AuthoringDeprecationWarning, Derivation, Entry, Erratum,
                                 PremiseError, Source, Step, TrivialStepError, as_written, integrate, ode_check,
                                 scalar, trajectory_check)

S = scalar("s", "target", low=0.1, high=10)
TAU = scalar("tau", "time constant", low=0.1, high=10)
U0 = scalar("u_0", "initial product", low=0, low_open=True, high=10)
T = scalar("t", "time", low=0, high=100)
s, tau, u0, t = S.symbol, TAU.symbol, U0.symbol, T.symbol
E = sp.exp(2 * s * t / tau)
SIGMOID = s * E / (E - 1 + s / u0)
S_ARR, U0_ARR = np.array([1.0, 2.0, 3.0]), np.array([1e-3, 1e-2, 0.1])


def _sigmoid(t, factor=1.0):
    return S_ARR * np.exp(2 * S_ARR * factor * t) / (np.exp(2 * S_ARR * factor * t) - 1 + S_ARR / U0_ARR)


# -- the dynamics helpers --------------------------------------------------------------------------------------------
def _logistic(factor=1.0, t_factor=1.0):
    return ode_check("x.u", "logistic", system=lambda t, u: 2 * u * (S_ARR - u), y0=U0_ARR,
                     times=np.linspace(0, 6, 31), solution=lambda t: _sigmoid(t, factor),
                     events={"half": (lambda t, u: u - S_ARR / 2, t_factor * np.log(S_ARR / U0_ARR - 1) / (2 * S_ARR))})


def test_ode_check_passes_the_closed_form_and_its_event_times_within_a_stated_tolerance():
    curve, half = _logistic()
    assert curve.passed and half.passed and curve.kind == "numeric"
    assert "rtol=1e-10" in curve.tolerance_source and "/ 10" in curve.tolerance_source
    assert curve.tolerance < 1e-8 and np.shape(curve.observed) == (31, 3)   # three initial conditions, one solve


def test_ode_check_fails_a_closed_form_off_by_a_part_in_a_thousand_and_a_wrong_event_time():
    curve, half = _logistic(factor=1.001, t_factor=2.0)    # (8)'s missing 1/2 would be t_factor = 2
    assert not curve.passed and not half.passed


def test_ode_check_of_an_observed_quantity_holds_a_conserved_one_and_fails_a_drifting_one():
    a0, b0 = np.array([0.1, 0.5]), np.array([0.3, 0.2])

    def flow(t, y):
        a, b = y[:, 0], y[:, 1]
        return np.stack([b * (1 - a * b), a * (1 - a * b)], axis=1)

    y0 = np.stack([a0, b0], 1)
    kept = ode_check("x.u", "a^2 - b^2", system=flow, y0=y0, times=np.linspace(0, 5, 11),
                     observe=lambda y: y[..., 0] ** 2 - y[..., 1] ** 2, solution=lambda t: a0**2 - b0**2 + 0 * t)
    plus = ode_check("x.u", "a^2 + b^2", system=flow, y0=y0, times=np.linspace(0, 5, 11),
                     observe=lambda y: y[..., 0] ** 2 + y[..., 1] ** 2, solution=lambda t: a0**2 + b0**2 + 0 * t)
    assert kept[0].passed and not plus[0].passed


def test_integrate_refuses_bad_tolerances_and_times_in_one_line():
    for kwargs, match in (({"rtol": 0}, "rtol must be a number in"), ({"rtol": 5e-13}, "rtol / refine must be"),
                          ({"refine": 1}, "refine must be")):
        with pytest.raises(ValueError, match=match) as err:
            integrate(lambda t, y: -y, [1.0], [0, 1], **kwargs)
        assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="times must be >= 2 increasing"):
        integrate(lambda t, y: -y, [1.0], [1, 0])


def _trained(factor=1.0, read_at=0):
    import torch

    st = torch.tensor(S_ARR)
    a0 = torch.tensor(np.sqrt(U0_ARR))
    return trajectory_check("x.u", "gd", params={"a": a0, "b": a0}, loss=lambda p: (st - p["a"] * p["b"]) ** 2 / 2,
                            observe={"u": lambda p: p["a"] * p["b"]}, lr=2e-3, steps=1500, every=100, read_at=read_at,
                            predicted={"u": lambda t, start: S_ARR * np.exp(2 * S_ARR * factor * t)
                                       / (np.exp(2 * S_ARR * factor * t) - 1 + S_ARR / start["u"])})


def test_trajectory_check_tracks_the_flow_and_states_its_read_off_conventions():
    record, = _trained()
    assert record.passed and record.kind == "training" and np.shape(record.observed) == (16, 3)
    assert "t = (k - 0) x 0.001" in record.tolerance_source and "read at step 0" in record.tolerance_source
    later, = _trained(read_at=200)   # u0 read after 200 steps: the curve restarts there, and still matches
    assert later.passed and "read at step 400" in later.tolerance_source   # at lr/2: step 400 is step 200 at lr


def test_trajectory_check_fails_a_curve_off_by_one_percent_in_its_rate():
    record, = _trained(factor=1.01)
    assert not record.passed


# -- the author-API policy -------------------------------------------------------------------------------------------
def test_the_api_has_a_version_and_the_guide_lists_every_change():
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[1] / "docs" / "authoring.md").read_text()
    assert API_VERSION >= 3 and f"author API {API_VERSION}" in guide
    for version, old, new in API_CHANGES:
        assert old in guide and version <= API_VERSION, old


def test_a_positional_step_works_with_one_warning_naming_the_keyword_form():
    x = sp.Symbol("x", positive=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(3):  # one call site: one warning
            step = Step("old", (x + 1) ** 2, x**2 + 2 * x + 1, "expanded")
    assert step.lhs == (x + 1) ** 2 and step.why == "expanded" and step.check().strength == "proved"
    got = [w for w in caught if issubclass(w.category, AuthoringDeprecationWarning)]
    assert len(got) == 1 and "Step(label, lhs=..., rhs=..., why=...)" in str(got[0].message)
    with pytest.warns(AuthoringDeprecationWarning, match=r"Erratum\(key=\.\.\., source=\.\.\."):
        e = Erratum("k", "toy.txt", "(3)", "a", "b", "typo")
    assert e.severity == "typo"
    with pytest.raises(TypeError, match="given both by position and by keyword"):
        Step("old", x, lhs=x)


# -- each friction ---------------------------------------------------------------------------------------------------
def _sigmoid_entry():
    return Entry(id="x.u_f", title="u_f", source=Source("p.tex", "(7)"), doc="", params=(S, TAU, U0, T),
                 formula=SIGMOID)


def test_as_function_names_its_argument_or_warns_and_refuses_a_call_at_an_implicit_parameter():
    entry = _sigmoid_entry()
    with pytest.warns(AuthoringDeprecationWarning, match=r"as_function\('u_f', of=NAME\) with NAME one of s, tau"):
        silent = entry.as_function("u_f")
    with pytest.raises(TypeError, match=r"u_f\(t\): t is an implicit parameter of u_f, whose argument is s; .*"
                                        r"of='t'"):
        silent(t)
    named = entry.as_function("u_f", of="t")
    assert sp.simplify(named(t).doit() - SIGMOID) == 0 and named(2 * t).doit() == SIGMOID.subs(t, 2 * t)


def test_a_premise_from_another_derivation_is_a_premise_error_saying_what_to_write():
    x = sp.Symbol("x", positive=True)
    step = Step("uses it", lhs=(x + 1) ** 2, rhs=x**2 + 2 * x + 1, premises=("a step of another derivation",))
    with pytest.raises(PremiseError, match="not an earlier step; k has no step .* state it as a step of this") as err:
        Derivation(key="k", title="t", source="s", where="w", entries=(), steps=(step,))
    assert not isinstance(err.value, TrivialStepError)


def test_subs_of_a_matrix_side_is_compared_entry_by_entry():
    x = sp.Symbol("x", positive=True)
    ok = Step("subs", lhs=sp.Subs(sp.Matrix([x**2 + 1, sp.cos(x)]), x, 0), rhs=sp.Matrix([1, 1])).check()
    bad = Step("subs wrong", lhs=sp.Subs(sp.Matrix([x**2 + 1, sp.cos(x)]), x, 0), rhs=sp.Matrix([1, 2])).check()
    assert ok.strength == "proved" and bad.strength == "refuted"


def test_a_limit_equal_to_infinity_is_a_side():
    assert Step("diverges", lhs=sp.Limit(sp.log(s / u0 - 1), u0, 0, "+"), rhs=sp.oo).check().strength == "proved"
    wrong = Step("does not diverge", lhs=sp.Limit(1 / (u0 + 1), u0, 0, "+"), rhs=sp.oo).check()
    assert wrong.strength == "refuted" and "evaluates to 1, not oo" in wrong.counterexample


def test_the_sign_of_a_substituted_derivative_is_proved_not_searched():
    u = sp.Symbol("u", positive=True)
    out = Step("rate", lhs=sp.Subs(sp.Derivative(2 * u * (s - u) / tau, u), u, 0), rhs=0, relation=">").check()
    assert out.strength == "proved" and out.method.startswith("sympy") and out.points in (None, 0)  # not searched
    wrong = Step("rate at s", lhs=sp.Subs(sp.Derivative(2 * u * (s - u) / tau, u), u, s), rhs=0, relation=">")
    assert wrong.check().strength == "refuted"   # -2s/tau: never proved by the same route


def test_a_refuted_inequality_shows_the_relation_and_17_digits():
    x = sp.Symbol("x", positive=True)
    out = Step("tie", lhs=sp.sin(x) ** 2, rhs=sp.sin(x) ** 2 * (1 + sp.exp(-50 * x)), relation=">").check()
    assert out.strength == "refuted" and "(lhs > rhs fails; lhs - rhs = " in out.counterexample
    assert "0.70807341827357119" in out.counterexample   # 17 digits: the two sides differ past the 12th


def test_a_stable_form_as_written_is_kept_by_the_kernels_and_latex():
    P = scalar("p", "exponent", low=0, low_open=True, high=1e3)
    U = scalar("u", "u", low=1, high=1e6)
    TT = scalar("tau", "tau", low=1, high=1e300)
    written = as_written("exp(p*log(u) - log(tau))", P, U, TT)
    assert sp.exp(P.symbol * sp.log(U.symbol) - sp.log(TT.symbol)) != written   # what SymPy does unasked
    entry = Entry(id="x.w", title="w", source=Source("p.tex", "(1)"), doc="", params=(P, U, TT),
                  formula=U.symbol**P.symbol / TT.symbol, stable_form=written)
    assert entry(p=400.0, u=10.0, tau=1e300) == pytest.approx(1e100, rel=1e-12)   # u^p alone overflows
    assert r"e^{p \log{\left(u \right)} - \log{\left(\tau \right)}}" in entry.latex("stable")
    with pytest.raises(ValueError, match="q is not among the symbols given"):
        as_written("exp(q)", P)


def test_the_torch_kernel_of_expm1_and_log1p_compiles():
    import torch
    from sympy.codegen.cfunctions import expm1, log1p

    x = scalar("x", "x", low=-1e-3, high=1e-3)
    entry = Entry(id="x.e", title="e", source=Source("p.tex", "(1)"), doc="", params=(x,),
                  formula=sp.exp(x.symbol) - 1 + sp.log(1 + x.symbol), stable_form=expm1(x.symbol) + log1p(x.symbol))
    got = entry.torch(torch.tensor([1e-12], dtype=torch.float64))
    assert float(got[0]) == pytest.approx(2e-12, rel=1e-12)


def test_a_latex_document_omits_the_step_caches_note(tmp_path):
    from theorylab._outputs.latex import _method

    assert _method("sympy: simplifies to 0 [cached]") == "sympy: simplifies to 0"
    assert _method("sympy: simplifies to 0") == "sympy: simplifies to 0"


def test_rel_error_is_stated_as_the_frobenius_ratio():
    r = authoring.compare("x.u", "c", "training", [1.0, 2.0], [1.1, 2.0], atol=0.2, source="s")
    assert r.rel_error == pytest.approx(0.1 / np.sqrt(5)) and "rel error ||p-o||/||p||" in r._repr_html_()


def test_a_paper_file_naming_its_own_module_by_its_stem_loads(tmp_path):
    (tmp_path / "probe_paper.py").write_text(
        "import sympy as sp\nfrom theorylab.authoring import Entry, Family, Paper, Source, scalar\n"
        "X = scalar('x', 'x', low=0, high=1)\n"
        "ENTRIES = (Entry(id='probe_paper.sq', title='x^2', source=Source('p', '(1)'), doc='', params=(X,), "
        "formula=X.symbol**2),)\n"
        "PAPER = Paper(name='probe', title='p', source='p', families=(Family(name='probe_paper', "
        "entries='probe_paper'),))\n")
    run = subprocess.run([sys.executable, "-m", "theorylab", "eval", "--paper", str(tmp_path / "probe_paper.py"),
                          "probe_paper.sq", "x=0.5"], cwd="/", capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ, "THEORYLAB_ONLY_FAMILIES": "probe_paper"})
    assert run.returncode == 0 and "0.25" in run.stdout, run.stderr
