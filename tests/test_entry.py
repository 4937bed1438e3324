"""Entries as functions (#26): an entry used as m(-lambda) in another entry's formula, stable form, display and
derivation steps keeps the paper's form in LaTeX and `show`, its kernels are composed (m's own kernels are called),
the engine proves through its definition; kernels evaluate a stable form in the order it is written; Entry.mpmath is
adaptive."""
from __future__ import annotations

import dataclasses
import mpmath
import numpy as np
import pytest
import sympy as sp

from theorylab._numerics import kernels
from theorylab.authoring import Derivation, Entry, EntryFunction, Source, Step, function, scalar

LAM = scalar("lam", "ridge penalty", low=0, low_open=True, high=1e12, tex=r"\lambda")
GAMMA = scalar("gamma", "aspect ratio", low=0, low_open=True, high=1e6)
ZNEG = scalar("z", "argument", low=-1e12, high=0, high_open=True)
lam, g, z = LAM.symbol, GAMMA.symbol, ZNEG.symbol
A = sp.Add(sp.Add(1, -g, evaluate=False), -z, evaluate=False)
S = sp.sqrt(sp.Add(A**2, -4 * g * z, evaluate=False))
M_FORMULA = (1 - g - z - sp.sqrt((1 - g - z) ** 2 - 4 * g * z)) / (2 * g * z)
M_STABLE = sp.Piecewise((2 / sp.Add(A, S, evaluate=False), A >= 0),
                        (sp.Add(S, sp.Mul(-1, A, evaluate=False), evaluate=False) / (-2 * g * z), True))


def _mp_m(z, gamma):
    """Route: the root of gamma z m^2 + (z - 1 + gamma) m + 1 = 0 by mpmath's polynomial solver, the positive one."""
    with mpmath.workdps(40):
        roots = mpmath.polyroots([gamma * z, z - 1 + gamma, 1], maxsteps=200, extraprec=200)
        return float(max(mpmath.re(r) for r in roots))


STIELTJES = Entry(id="toy.m", title="m", source=Source("p", "(1)"), doc="", params=(ZNEG, GAMMA), lhs="m(z)",
                  formula=M_FORMULA, stable_form=M_STABLE, reference=np.vectorize(_mp_m, otypes=[float]))
M = STIELTJES.as_function("m", of="z", derivatives={1: lambda m: m(z) * (1 + g * m(z)) / S})
RIDGE = lam**2 * M.derivative()(-lam) + g * (M(-lam) - lam * M.derivative()(-lam))


def _ridge_entry(**kw) -> Entry:
    return Entry(id="toy.ridge", title="R", source=Source("p", "(2)"), doc="", params=(LAM, GAMMA),
                 lhs=r"R(\lambda)", formula=RIDGE, reference=lambda lam, gamma: None, **kw)


def test_an_entry_used_as_a_function_prints_as_the_paper_writes_it():
    assert isinstance(M, EntryFunction) and STIELTJES.as_function("m", of="z", derivatives=M.derivatives) is M
    text = sp.latex(RIDGE)
    assert "m(-\\lambda)" in text and "m'(-\\lambda)" in text and "sqrt" not in text
    assert sp.latex(sp.diff(M(-lam), lam)) == "- m'(-\\lambda)"            # the chain rule, printed as m'
    assert sp.latex(M(-lam) ** 2) == "m^{2}(-\\lambda)" and "m''(" in sp.latex(M.derivative(2)(z))
    shown = sp.pretty(RIDGE)
    assert "m(-λ)" in shown and "m'(-λ)" in shown and "\\" not in shown  # `show` (Unicode) keeps the form too
    assert str(M(-lam)) == "m(-lam)"
    entry = _ridge_entry()
    assert "m(-\\lambda)" in entry.latex() and entry.latex().startswith("R(\\lambda) = ")
    assert [p.name for p in entry.kernel_params] == ["lam", "gamma"]    # gamma: m's implicit parameter


def test_its_kernels_are_composed_and_agree_with_the_inlined_formula():
    import torch

    entry = _ridge_entry()
    inlined = RIDGE.doit()          # the definition, substituted: what an author would have had to write by hand
    assert not inlined.atoms(type(M(z))) and inlined.has(sp.Pow)
    for kw in ({"lam": 0.5, "gamma": 0.5}, {"lam": 3.0, "gamma": 2.0}, {"lam": 1e-3, "gamma": 1.5}):
        want = float(sp.N(inlined.subs({lam: kw["lam"], g: kw["gamma"]}), 30))
        assert entry(**kw) == pytest.approx(want, rel=1e-12)
        assert float(entry.mpmath(kw["lam"], kw["gamma"])) == pytest.approx(want, rel=1e-14)
    composed = kernels._composed("numpy", RIDGE)    # the kernel calls m's and m''s own kernels, by name
    assert sorted(composed.values(), key=id) == sorted([M.kernel("numpy"), M.derivative().kernel("numpy")], key=id)
    assert M.kernel("numpy") is kernels.build("numpy", M_STABLE, (z, g))
    t = torch.tensor([0.5, 3.0], dtype=torch.float64, requires_grad=True)
    out = entry.torch(t, torch.tensor([0.5, 2.0], dtype=torch.float64))
    out.sum().backward()
    assert torch.all(torch.isfinite(t.grad)) and np.allclose(out.detach().numpy(), entry(lam=[0.5, 3.0],
                                                                                         gamma=[0.5, 2.0]))


def test_the_engine_proves_through_the_definition():
    steps = (Step("m solves its equation", lhs=g * z * M(z) ** 2 + (z - 1 + g) * M(z) + 1, rhs=0),
             Step("m' in terms of m", lhs=M.derivative()(z), rhs=M(z) * (1 + g * M(z)) / S),
             Step("lambda -> 0 at gamma = 1/2", lhs=sp.Limit(RIDGE.subs(g, sp.Rational(1, 2)), lam, 0, "+"),
                  rhs=sp.Rational(1, 2) / (1 - sp.Rational(1, 2))))
    results = Derivation(key="toy.ridge", title="t", source="p", where="Sec. 1", entries=("toy.ridge",),
                         steps=steps).check(cache=False)
    assert [r.strength for r in results] == ["proved"] * 3, results
    assert "m'(z)" in steps[1].latex() and "m(z)" in steps[1].latex()
    wrong = Step("a wrong derivative", lhs=M.derivative()(z), rhs=M(z) ** 2 / S)
    assert not wrong.check().holds            # the numeric test evaluates m through its definition too
    assert "EntryFunction('m'" in sp.srepr(M(z))   # a cached verdict is keyed by the definition


def test_a_helper_function_and_one_line_errors():
    x = sp.Symbol("x", positive=True)
    h = function("h", x, sp.log(1 + x), sp.log1p(x) if hasattr(sp, "log1p") else sp.log(1 + x), tex=r"\eta")
    assert sp.latex(h(lam)) == r"\eta(\lambda)" and h(2).doit() == sp.log(3)
    entry = Entry(id="toy.h", title="", source=Source("p", "(1)"), doc="", params=(LAM,), formula=h(lam) / lam)
    assert entry(lam=2.0) == pytest.approx(np.log(3) / 2, rel=1e-15)
    with pytest.raises(TypeError, match="h takes 1 argument"):
        h(1, 2)
    with pytest.raises(ValueError, match="uses y, which is neither its argument"):
        function("k", x, x + sp.Symbol("y"))
    with pytest.raises(TypeError, match="unknown parameter"):
        M(-lam, sigma=1)


def test_kernels_keep_the_stable_forms_order_of_evaluation():
    """(1 - gamma) + lam, written with evaluate=False: exact 1 - gamma near gamma = 1, then lam added. SymPy's own
    order lam - gamma + 1 (or -gamma + lam + 1) loses lam next to 1 - gamma; lambdify and CSE reorder it."""
    written = sp.Add(sp.Add(1, -g, evaluate=False), lam, evaluate=False)
    assert kernels.hand_ordered(written) and not kernels.hand_ordered(1 - g + lam)
    gamma_, lam_ = 1 + 2.0**-52, 1e-17
    exact = float(mpmath.mpf(1) - mpmath.mpf(gamma_) + mpmath.mpf(lam_))
    assert kernels.build("numpy", written, (g, lam))(gamma_, lam_) == (1 - gamma_) + lam_
    assert abs(kernels.build("numpy", written, (g, lam))(gamma_, lam_) - exact) <= 1e-16 * abs(exact) * 4
    import torch

    got = kernels.build("torch", written * sp.sqrt(2), (g, lam))(torch.tensor(gamma_, dtype=torch.float64),
                                                                 torch.tensor(lam_, dtype=torch.float64))
    assert float(got) == pytest.approx(exact * np.sqrt(2), rel=1e-15)


def test_entry_mpmath_is_adaptive():
    """A form that cancels (((1 + l)^2 - 1 - 2 l)/l^2 = 1) at l = 1e-20: 15 digits give 0 or garbage, the adaptive
    kernel gives 1 at the caller's precision, and more digits inside mpmath.workdps."""
    p = scalar("l", low=0, low_open=True, high=1)
    l_ = p.symbol
    entry = Entry(id="toy.c", title="", source=Source("p", "(1)"), doc="", params=(p,),
                  formula=((1 + l_) ** 2 - 1 - 2 * l_) / l_**2, stable_form=sp.Integer(1) + 0 * l_)
    raw = entry.mpmath.raw(mpmath.mpf(1e-20))
    assert abs(raw - 1) > 1e-3                                   # the fixed-precision kernel is wrong
    assert entry.mpmath(1e-20) == 1 and isinstance(entry.mpmath(1e-20), mpmath.mpf)
    with mpmath.workdps(50):
        assert abs(entry.mpmath(mpmath.mpf("1e-40")) - 1) < mpmath.mpf(10) ** -45
    assert entry.reference_value(l=1e-20) == 1.0


def test_an_entry_states_what_its_rtol_is_relative_to():
    """error_scale "element" (the default: the one closeness rule, each element to its own reference) refuses a
    component that is 1e-17 where the reference is exactly 0; "largest" holds each element to rtol times the largest
    |reference| element (qpenalty.implicit_bias: a solver's float64 error scales with the whole solution). Neither
    lets a component be off by more than rtol ||ref||_inf: a planted 1e-8 error fails both."""
    import numpy as np

    import theorylab
    from theorylab.testing import close

    e = theorylab.get("qpenalty.implicit_bias")
    X, y, w1, w2 = np.array([[0.0, 1.0], [1.0, 1.0]]), np.array([1.0, 1.0]), np.ones(2), np.zeros(2)
    got, ref = e(X=X, y=y, w1=w1, w2=w2), e.reference_value(X=X, y=y, w1=w1, w2=w2)
    ref = np.asarray(ref, dtype=float)
    assert e.error_scale == "largest" and abs(ref[0]) < 1e-40 and abs(got[0]) > 1e-20  # ~1e-17 in place of 0
    assert not close(got, ref, e.rtol)                                   # per element: infinitely far
    assert close(got, ref, e.rtol, atol=e.atol_for(ref))                  # per the entry's stated scale
    planted = got + np.array([0.0, 1e-8])
    assert not close(planted, ref, e.rtol, atol=e.atol_for(ref))
    with pytest.raises(ValueError, match="error_scale must be one of element, largest"):
        dataclasses.replace(e, error_scale="norm")
    with pytest.raises(ValueError, match="error_scale='largest' needs reference_rtol_note"):
        dataclasses.replace(e, reference_rtol_note="")


def test_a_closed_form_that_leaves_the_reals_is_a_one_line_domain_error():
    """A scaffolded entry (new --from) keeps placeholder domains: t* = tau/s log(s/u0 - 1) is complex where u0 > s.
    The reference said `TypeError: float() argument must be ... not 'mpc'` from inside mpmath; it now names the entry,
    the point and what to do."""
    from theorylab.authoring import DomainError

    s_p, u_p = scalar("s", "target", low=0.5, high=2.0), scalar("u0", "start", low=0.5, high=2.0)
    e = Entry(id="x.t_star", title="t*", source=Source("p.tex", "(8)"), doc="d", params=(s_p, u_p),
              formula=sp.log(s_p.symbol / u_p.symbol - 1))
    with pytest.raises(DomainError, match=r"x.t_star: the closed form is not real at .* s=0.5, u0=0.7; restrict the "
                                          r"parameters' domains") as exc:
        e.reference_value(s=0.5, u0=0.7)
    assert "\n" not in str(exc.value)
    assert e.reference_value(s=2.0, u0=0.7) == pytest.approx(np.log(2.0 / 0.7 - 1), rel=1e-15)
