"""relu family: properties of the penalty (a global minimum), its symmetries, the exact log-slope, the quartic's
roots, the seed's uniqueness conjecture (refuted), Fig. 1 data, and bad inputs."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings

import theorylab
from theorylab.derivations import relu as R
from theorylab.derivations import relu_proofs as RP  # the family's derivations module (Family.derivations)
from theorylab import DomainError
from helpers import run_cli

penalty = theorylab.get("relu.penalty")
penalty_aux = theorylab.get("relu.penalty_aux")
log_slope = theorylab.get("relu.log_slope")
stationary = theorylab.get("relu.stationary_points")
quartic = theorylab.get("relu.quartic")
EPS = np.finfo(float).eps


def p_stable(u, m, m0, rho, gamma):
    return (m / u - gamma) ** 2 + (u - m0 * rho) ** 2 + m0 * m0 * (1 - rho) * (1 + rho)


@given(penalty.strategy())
def test_penalty_is_nonnegative_and_below_p_everywhere(kw):
    """r~ >= 0 and r~ <= p(u) for every u > 0 (it is the infimum): u on a log grid around every scale."""
    r = penalty(**kw)
    assert r >= 0
    scale = max(math.sqrt(abs(kw["m"])), kw["m0"], abs(kw["gamma"]), 1e-300)
    us = scale * np.logspace(-6, 3, 400)
    with np.errstate(over="ignore"):
        ps = p_stable(us, kw["m"], kw["m0"], kw["rho"], kw["gamma"])
    # p(u) in float64: each nonnegative term to a few ulps, so 8 eps relative; r~ to ~1e-15 relative
    assert np.all(r <= ps * (1 + 8 * EPS) + 1e-300)


@given(penalty.strategy())
@example({"m": 0.0, "m0": 1.0, "rho": 5e-324, "gamma": 0.0})  # m0 rho underflows in the scaled problem
def test_penalty_equals_p_at_its_minimizer(kw):
    res = R.minimize_p(kw["m"], kw["m0"], kw["rho"], kw["gamma"])
    u = float(res["u"])
    if not np.isfinite(u):  # m = 0 and m0 rho <= 0 (or below the float range): the infimum is not attained
        assert kw["m"] == 0
        inf = kw["gamma"] ** 2 + kw["m0"] ** 2 * (1 - max(kw["rho"], 0.0) ** 2)
        assert abs(float(res["value"]) - inf) <= 4 * EPS * inf
        return
    val = p_stable(u, kw["m"], kw["m0"], kw["rho"], kw["gamma"])
    # float64 p at the float u* carries ~8 eps of rounding plus cancellation in m/u - gamma, u - m0 rho:
    # bounded by 4 eps (|m/u||m/u - gamma| + |m0 rho||u - m0 rho|) (the compensated path removes it from r~)
    bound = 16 * EPS * val + 4 * EPS * (abs(kw["m"] / u) * abs(kw["m"] / u - kw["gamma"])
                                        + abs(kw["m0"] * kw["rho"]) * abs(u - kw["m0"] * kw["rho"])) + 1e-300
    assert abs(float(res["value"]) - val) <= bound + 4 * EPS * abs(val)


@given(penalty.strategy())
def test_sign_symmetry_and_power_of_two_scaling(kw):
    """p(u; -m, -gamma) = p(u; m, gamma): r~(-m, gamma) = r~(m, -gamma); r~(4m, 2m0, rho, 2gamma) = 4 r~ (the
    solver scales every point by a power of two, so this holds to the last bit when nothing overflows)."""
    m, m0, rho, g = kw["m"], kw["m0"], kw["rho"], kw["gamma"]
    a, b = penalty(m=-m, m0=m0, rho=rho, gamma=g), penalty(m=m, m0=m0, rho=rho, gamma=-g)
    assert abs(a - b) <= 4 * EPS * abs(a)  # two evaluations each ~1e-15 relative
    assert penalty(m=4 * m, m0=2 * m0, rho=rho, gamma=2 * g) == 4 * penalty(**kw)


@given(penalty_aux.strategy())
@example({"m": -31.622776601683793, "m_aux": 1000.0, "rho": 1.0, "gamma": -1.0})  # m = gamma * float(sqrt(m_aux))
def test_penalty_aux_is_penalty_with_sqrt(kw):
    """penalty_aux(m_aux) = penalty(m0 = sqrt(m_aux)) up to the rounding of sqrt(m_aux): by the envelope theorem
    dr~/dm0 = 2 (m0 - u* rho) at the minimizer and d^2 r~/dm0^2 <= d^2 p/dm0^2 = 2 (a minimum over u), so a
    rounding delta <= eps m0/2 of m0 moves r~ by at most 2 delta |m0 - u* rho| + delta^2."""
    m0 = math.sqrt(kw["m_aux"])
    a = penalty_aux(**kw)
    res = R.minimize_p(kw["m"], m0, kw["rho"], kw["gamma"])
    b, u = float(res["value"]), float(res["u"])
    sens = 2 * m0 * abs(m0 - (u if np.isfinite(u) else 0.0) * kw["rho"])
    assert abs(a - b) <= 4 * EPS * abs(b) + EPS * sens + (EPS * m0) ** 2 + 1e-300


@given(stationary.strategy())
@example({"m": 1.0, "m0": 3.0, "rho": 1.0, "gamma": 4.0})
@example({"m": 1.0, "m0": 2.0, "rho": 1.0, "gamma": 2.0})
def test_stationary_points_are_roots_and_descartes_holds(kw):
    m, m0, rho, g = kw["m"], kw["m0"], kw["rho"], kw["gamma"]
    roots = stationary(**kw)
    assert np.all(roots > 0) and np.all(np.diff(roots) > 0)
    if m == 0:
        assert roots.size == (1 if m0 * rho > 0 else 0)
        return
    # Descartes: one positive root unless m0 rho > 0 and gamma m > 0; then one or three (a double root counts once)
    if not (m0 * rho > 0 and g * m > 0):
        assert roots.size == 1
    assert roots.size in (1, 2, 3)
    coeffs = quartic(**kw)
    with mpmath.workdps(60):
        cs = [mpmath.mpf(float(c)) for c in coeffs]
        for r in roots:
            x = mpmath.mpf(float(r))
            # |f(r)| against its terms' size: a simple root rounded to float64 leaves f(r) ~ eps r |f'(r)|; a
            # multiple root even less. The bound is eps times the sum of the terms' magnitudes (times u's error 4)
            terms = sum(abs(c) * x ** (4 - i) for i, c in enumerate(cs))
            assert abs(mpmath.polyval(cs, x)) <= 16 * EPS * terms
    res = R.minimize_p(m, m0, rho, g)
    # the minimizer is one of the stationary points (within sqrt(eps) for a multiple root)
    assert np.min(np.abs(roots - res["u"])) <= 1e-7 * res["u"]


@given(log_slope.strategy())
@example({"m": -1.0, "m0": 1.0, "rho": 0.5, "gamma": -2.0})  # u* = 0.5: m/u* = gamma and u* = m0 rho, slope 0
@settings(max_examples=40)  # each example runs three 120-digit mpmath minimizations
def test_log_slope_is_the_high_precision_derivative(kw):
    """The envelope formula against a central difference of the mpmath penalty in log|m| (step 1e-25 at 120 digits:
    truncation ~1e-50); agreement 1e-10 relative (the contract)."""
    s = log_slope(**kw)
    ref = R.log_slope_reference(**kw)
    assert abs(s - ref) <= 1e-10 * abs(ref)


@given(log_slope.strategy())
def test_log_slope_equals_both_envelope_forms(kw):
    """d log r~/d log|m| = 2 (m/u - gamma)(m/u)/r~ = 2u(u - m0 rho)/r~ at the minimizer (derivation step)."""
    res = R.minimize_p(kw["m"], kw["m0"], kw["rho"], kw["gamma"])
    u, r = float(res["u"]), float(res["value"])
    other = 2 * u * (u - kw["m0"] * kw["rho"]) / r
    # the second form cancels in u - m0 rho: its error is eps |u| |m0 rho| / r~ (the first is compensated)
    assert abs(float(res["slope"]) - other) <= 1e-12 * abs(other) + 8 * EPS * 2 * u * abs(kw["m0"] * kw["rho"]) / r


def test_log_slope_limits():
    """rho = 1, gamma = 0: l2-like (2) as m -> 0 and l1-like (-> 1) as m -> oo: r~ = 2m - 2 sqrt(m) m0 + 3m0^2/4
    + O(m^-1/2), so the slope is (1 - x/2)/(1 - x + ...) = 1 + x/2 + O(x^2), x = m0/sqrt(m); and
    r~ = m^2/m0^2 (1 + O(m^2)) near 0."""
    assert log_slope(m=1e-6, m0=1.0, rho=1.0, gamma=0.0) == pytest.approx(2.0, abs=1e-9)
    big = 1e10
    assert log_slope(m=big, m0=1.0, rho=1.0, gamma=0.0) == pytest.approx(1 + 0.5 / math.sqrt(big), abs=2 / big)


def test_uniqueness_conjecture_fails_at_1_3_1_4():
    """Three positive roots; the global minimum is the smallest one; np.roots lists the largest first, +75%."""
    kw = {"m": 1.0, "m0": 3.0, "rho": 1.0, "gamma": 4.0}
    roots = stationary(**kw)
    np.testing.assert_allclose(roots, [0.26235969, 1.47726, 2.35567429], rtol=1e-7)
    vals = p_stable(roots, 1.0, 3.0, 1.0, 4.0)
    assert penalty(**kw) == pytest.approx(vals[0], rel=1e-14) and vals[2] > vals[0]
    from theorylab.verify.relu import seed_first_root

    assert seed_first_root(**kw) / penalty(**kw) == pytest.approx(1.7528, abs=1e-4)


def test_single_root_choice_error_is_unbounded():
    """(1e-8, 0.01, 1, 1): the left local minimum u ~ m/gamma costs ~m0^2 = 1e-4, the right one u ~ m0 rho costs
    ~(m/m0 - gamma)^2 ~ 1 (np.roots lists it first): choosing it is off by a factor ~1e4."""
    kw = {"m": 1e-8, "m0": 0.01, "rho": 1.0, "gamma": 1.0}
    roots = stationary(**kw)
    assert roots.size == 3
    vals = p_stable(roots, *kw.values())
    assert penalty(**kw) == pytest.approx(min(vals), rel=1e-13)
    assert vals[-1] / penalty(**kw) > 1e3


def test_hypothesis_finds_two_local_minima_over_the_domain():
    """Attack on the seed's 'unique positive root': Hypothesis searches the whole domain for two local minima."""
    from hypothesis import find

    hit = find(R._kwargs_strategy(), lambda kw: bool(np.isfinite(R.minimize_p(**kw)["gap"])),
               settings=settings(max_examples=2000, database=None, derandomize=True))
    assert R.stationary_points_exact(**hit).size == 3
    assert hit["m0"] * hit["rho"] > 0 and hit["gamma"] * hit["m"] > 0


def test_log_slope_at_ties_and_the_zero_set():
    """The zero set (rho = 1, m = gamma m0) is refused; a tie is not (#26, found by the joint neighbourhoods at
    m = -1, m0 = 1e6, rho = 1, gamma = -1e6): p(u) - p(|m|/u) = 2 (sign(m) gamma - m0 rho)(u - |m|/u), so two local
    minima tie only where gamma = sign(m) m0 rho, and there p(|m|/u) = p(u) for every m of that sign: r~(m) is
    smooth and both minima give one slope. At (1, 3, 1, 3) the minima u = (3 +- sqrt 5)/2 have u^2 - 3u = -1 and
    p = 7 (derivation step), so the slope 2u(u - 3)/7 is -2/7 exactly."""
    with pytest.raises(DomainError, match="penalty 0"):
        log_slope(m=2.0, m0=1.0, rho=1.0, gamma=2.0)
    assert penalty(m=1.0, m0=3.0, rho=1.0, gamma=3.0) == 7.0 and penalty(m=2.0, m0=1.0, rho=1.0, gamma=2.0) == 0.0
    assert log_slope(m=1.0, m0=3.0, rho=1.0, gamma=3.0) == pytest.approx(-2 / 7, rel=1e-14)
    for kw in ({"m": 1.0, "m0": 3.0, "rho": 1.0, "gamma": 3.0}, {"m": -1.0, "m0": 1e6, "rho": 1.0, "gamma": -1e6},
               {"m": 2.0, "m0": 5.0, "rho": 0.7, "gamma": 3.5}):
        assert float(R.minimize_p(**kw)["gap"]) <= 1e-13  # a tie
        got, ref = log_slope(**kw), R.log_slope_reference(**kw)
        assert abs(got - ref) <= 1e-10 * abs(ref), (kw, got, ref)


def test_log_slope_where_the_penalty_underflows():
    """Regression (#26, joint neighbourhoods): r~ below float64's range is not r~ = 0. At m = -2.2e-308, m0 = 1e300,
    rho = 1, gamma = 0, r~ = (m/u)^2 + (u - m0)^2 ~ (m/m0)^2 = 5e-1216 and, with u - m0 = m^2/u^3 at the minimizer,
    the slope is 2 (m/u)^2/r~ = 2/(1 + m^2/u^4) = 2 - 1e-1231: the kernel refused it as 'penalty 0'. The zero set
    is now decided on the exact inputs. Likewise m = -1, m0 = 1e300, gamma = -2.2e-308: r~ ~ (m/m0 - gamma)^2, the
    slope 2 (m/m0)/(m/m0 - gamma) = 2/(1 - gamma m0/m); and m0 = 0, gamma = -1e300 (r~ ~ (m/gamma)^2 = 1e-600)."""
    # the reference's agreement at this first point (a 720-digit minimization, 7 CPU s) is asserted by the contract:
    # it is a pinned example of relu.log_slope, which tests/test_contract.py's test_value_matches_reference always
    # runs at 1e-10 relative
    kw = {"m": -2.2250738585072014e-308, "m0": 1e300, "rho": 1.0, "gamma": 0.0}
    assert kw in log_slope.examples
    assert log_slope(**kw) == 2.0
    assert log_slope(m=-1.0, m0=1e300, rho=1.0, gamma=-2.2250738585072014e-308) == pytest.approx(
        2 / (1 - 2.2250738585072014e-308 * 1e300), rel=1e-14)
    kw = {"m": -1.0, "m0": 0.0, "rho": 1.0, "gamma": -1e300}
    got, ref = log_slope(**kw), R.log_slope_reference(**kw)
    assert got == pytest.approx(2.0, rel=1e-15) and abs(got - ref) <= 1e-10 * abs(ref), (got, ref)


def test_log_slope_reference_precision_grows_with_gamma():
    """Regression (#26 item 2, the accuracy map's miss): at m = 1, m0 = 1, rho = 0.99, gamma = -1e180 the u-dependent
    part of r~ is 1e-240 of gamma^2 and the 120-digit reference returned noise (relative error 1). With u ~ |gamma
    m|^(1/3) >> m0, r~ ~ gamma^2 + 3 |gamma m|^(2/3) and the slope is 2 |m|^(2/3) |gamma|^(-4/3) = 2e-240; at
    m = 1e300, gamma = -1e300 (m0 negligible) 2e-200."""
    for kw, want in (({"m": 1.0, "m0": 1.0, "rho": 0.99, "gamma": -1e180}, 2e-240),
                     ({"m": 1e300, "m0": 0.0, "rho": 1.0, "gamma": -1e300}, 2e-200),
                     ({"m": 1e300, "m0": 1.0, "rho": 0.99, "gamma": -1e300}, 2e-200)):
        got, ref = log_slope(**kw), R.log_slope_reference(**kw)
        assert abs(got - ref) <= 1e-10 * abs(ref) and ref == pytest.approx(want, rel=1e-12), (kw, got, ref)


def test_log_slope_reference_decides_its_exact_zeros():
    """m = gamma m0 rho with m/gamma > 0 (rho < 1): u = m/gamma = m0 rho zeroes both squares of p, r~ = m0^2 (1 -
    rho^2) and the slope is 0 exactly; the reference's grid minimizer alone left 4.8e-122 (relative error 1) once its
    precision grew with gamma."""
    assert R.log_slope_reference(-1.0, 1.0, 0.5, -2.0) == 0.0 and log_slope(m=-1.0, m0=1.0, rho=0.5, gamma=-2.0) == 0
    assert R.log_slope_reference(1.0, 4.0, 0.5, 0.5) == 0.0 and log_slope(m=1.0, m0=4.0, rho=0.5, gamma=0.5) == 0


def test_m_zero_is_the_infimum_and_the_penalty_jumps_there():
    """m = 0: gamma^2 + m0^2 (1 - max(rho, 0)^2), not attained for rho <= 0 (erratum 001-eq6-divergence); a tiny m
    with gamma's sign costs ~m0^2 instead (u = m/gamma -> 0 keeps the readout)."""
    assert penalty(m=0.0, m0=2.0, rho=-0.5, gamma=3.0) == 13.0
    assert penalty(m=0.0, m0=2.0, rho=0.5, gamma=3.0) == pytest.approx(9 + 4 * 0.75, rel=1e-15)
    assert penalty(m=1e-12, m0=2.0, rho=-0.5, gamma=3.0) == pytest.approx(4.0, rel=1e-11)
    assert penalty(m=-1e-12, m0=2.0, rho=-0.5, gamma=3.0) == pytest.approx(13.0, rel=1e-5)


def test_extreme_ranges_use_exact_arithmetic():
    # |m| < 1e-125 max(m0, |gamma|)^2 leaves float64's range for the quartic: answered by mpmath, still 1e-10
    for kw in ({"m": 1e-130, "m0": 1.0, "rho": 1.0, "gamma": 0.0},
               {"m": -1e-140, "m0": 3.0, "rho": -0.3, "gamma": 0.5}):
        assert penalty(**kw) == pytest.approx(penalty.reference_value(**kw), rel=1e-10)
    assert log_slope(m=1e-130, m0=1.0, rho=1.0, gamma=0.0) == pytest.approx(2.0, rel=1e-12)


def test_vectorized_equals_pointwise():
    rng = np.random.default_rng(3)
    from theorylab.verify.relu import random_parameters

    m, m0, rho, g = random_parameters(rng, 3000)
    m[:5] = 0.0
    batch = penalty(m=m, m0=m0, rho=rho, gamma=g)
    assert batch.shape == (3000,)
    np.testing.assert_array_equal(batch[::97], [penalty(m=a, m0=b, rho=c, gamma=d) for a, b, c, d in
                                                zip(m[::97], m0[::97], rho[::97], g[::97])])
    grid = penalty(m=np.ones((2, 3)), m0=np.array([1.0, 2.0, 3.0]), rho=0.5, gamma=0.0)
    assert grid.shape == (2, 3)
    assert quartic(m=np.array([1.0, 2.0]), m0=1.0, rho=0.5, gamma=3.0).shape == (2, 5)


def test_quartic_coefficients():
    np.testing.assert_array_equal(quartic(m=2.0, m0=3.0, rho=0.5, gamma=-1.0), [1.0, -1.5, 0.0, -2.0, -4.0])


def test_figure1_data():
    from theorylab.derivations.relu import figure1_data

    d = figure1_data(ms=np.array([1e-4, 1.0, 1e4]))
    assert d["penalty"].shape == (3, 3, 3) and d["log_slope"].shape == (3, 3, 3)
    # gamma = 0: r~(m; m0, rho) = m0^2 r~(m/m0^2; 1, rho) (the scaling of the problem)
    np.testing.assert_allclose(d["penalty"][:, 2, 1], 100 * penalty(m=0.01, m0=1.0, rho=np.array([1, .99, .9]),
                                                                     gamma=0.0), rtol=1e-14)
    assert d["log_slope"][0, 1, 0] == pytest.approx(2.0, abs=1e-7)   # rho = 1: l2 at small m
    assert abs(d["log_slope"][1, 1, 0]) < 1e-3                      # rho = 0.99: flat on the floor m_aux (1 - rho^2)
    assert d["log_slope"][0, 1, 2] == pytest.approx(1.0, abs=0.01)  # l1 at large m


def test_bad_inputs():
    with pytest.raises(DomainError, match="rho must be"):
        penalty(m=1.0, m0=1.0, rho=1.5, gamma=0.0)
    with pytest.raises(DomainError, match="m0 must be"):
        penalty(m=1.0, m0=-1.0, rho=0.5, gamma=0.0)
    with pytest.raises(DomainError, match="m_aux must be"):
        penalty_aux(m=1.0, m_aux=-1.0, rho=0.5, gamma=0.0)
    with pytest.raises(DomainError, match="m must not be 0"):
        log_slope(m=0.0, m0=1.0, rho=0.5, gamma=0.0)
    with pytest.raises(DomainError, match="gamma must be"):
        penalty(m=1.0, m0=1.0, rho=0.5, gamma=float("nan"))
    with pytest.raises(DomainError, match="m must be a real number .*scalars"):
        stationary(m=[1.0, 2.0], m0=1.0, rho=0.5, gamma=0.0)
    with pytest.raises(DomainError, match="not representable"):
        penalty(m=1e300, m0=1.0, rho=0.5, gamma=-1e300)  # (m/u - gamma)^2 + u^2 >= 1e600 for every u
    code, out, err = run_cli("eval", "relu.log_slope", "m=2", "m0=1", "rho=1", "gamma=2")
    assert code == 2 and out == "" and err.startswith("error:") and "penalty 0" in err


def test_cli_penalty_at_the_counterexample():
    import json

    code, out, _ = run_cli("eval", "relu.penalty", "m=1", "m0=3", "rho=1", "gamma=4")
    assert code == 0 and json.loads(out)["value"] == pytest.approx(7.530183669611409, rel=1e-15)


def test_tiny_m_root_cluster_regression():
    """|m| = 5.6e-283, rho = -1, gamma = 0: the quartic u^4 + u^3 - m^2 has a root cluster 190 decades below the
    root at -1 (found by a Hypothesis test of verify/relu_networks.py; it raised 'min() arg is an empty
    sequence'). r~ = min_u (m/u)^2 + (u + 1)^2 = 1 + 3 (m^2/4)^(1/3) + ..., i.e. 1 to float64."""
    from theorylab.derivations.relu import minimize_p

    res = minimize_p(5.614306650391608e-283, 1.0, -1.0, 0.0)
    assert float(res["value"]) == 1.0
    # the minimizer solves 2u^3 (u + 1) = 2 m^2, so u ~ m^(2/3) to first order
    assert abs(float(res["u"]) / 5.614306650391608e-283 ** (2 / 3) - 1) < 1e-10


# ---------------------------------------------------------------------------------------------------------------
# the independent references and the derivation steps on the solvers' own output
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kw", [dict(m=1.0, m0=3.0, rho=1.0, gamma=4.0), dict(m=1.0, m0=2.0, rho=1.0, gamma=2.0),
                                dict(m=1e-8, m0=0.01, rho=1.0, gamma=1.0), dict(m=-0.3, m0=2.0, rho=-0.4, gamma=5.0),
                                dict(m=2.0 + 2**-51, m0=1.0, rho=1.0, gamma=2.0),
                                dict(m=0.0, m0=1.0, rho=0.5, gamma=2.0)])
def test_direct_minimization_agrees_with_the_quartic_route(kw):
    """The reference (grid + bisection on p', no polynomial roots) against the mpmath quartic route the solver uses
    below float64's range: two independent high-precision routes, 1e-25 relative."""
    a = R._direct_minimize(**kw)["value"]
    b = R._mp_minimize(kw["m"], None, kw["m0"], kw["rho"], kw["gamma"])["value"]
    assert abs(a - b) <= 1e-25 * abs(b)


def test_quartic_reference_is_exact_rational_arithmetic():
    # (u^3/2) p'(u) at m = 1/3 (as a float), m0 = 3, rho = 0.1, gamma = 7: each coefficient the correctly rounded
    # exact product
    from fractions import Fraction

    m_, r_ = 1 / 3, 0.1
    ref = R._quartic_reference(m_, 3.0, r_, 7.0)
    assert list(ref) == [1.0, float(-3 * Fraction(r_)), 0.0, float(7 * Fraction(m_)), float(-Fraction(m_) ** 2)]


def test_stationary_reference_from_p_itself():
    np.testing.assert_allclose(R._stationary_reference(1.0, 3.0, 1.0, 3.0),
                               [(3 - math.sqrt(5)) / 2, 1.0, (3 + math.sqrt(5)) / 2], rtol=1e-15)


def test_relu_derivations_check_as_recorded():
    """Every unmarked step holds and every erratum is confirmed at its counterexample."""
    for d in RP.DERIVATIONS:
        assert d.key.startswith("relu.")
        bad = [(r.step.label, r.status, r.outcome.detail) for r in d.check(cache=False) if not r.ok]
        assert not bad, bad


def test_the_rho099_claim_is_not_an_erratum():
    """Sec. 1.2's 'rho = 0.99 is l1-like at m ~ 1' is qualitative: reported as a finding in verify, not an erratum."""
    assert "001-sec1.2-rho099" not in {e.key for d in RP.DERIVATIONS for e in d.errata}


def test_the_ledger_is_ranked_with_roots():
    """Issue #22: each erratum of seed 001 has its severity by the one rule (docs/authoring.md); every amendment
    names the erratum it follows from, and each amended label is also stated as printed in the same derivation."""
    from theorylab._decide.derivation import AS_PRINTED, Amendment

    errata = {e.key: e for d in RP.DERIVATIONS for e in d.errata}
    assert {k: (e.severity, e.root) for k, e in errata.items()} == {
        "001-eq8-rho": ("typo", None), "001-eq6-divergence": ("missing-hypothesis", None),
        "001-eq10-unique": ("wrong-value", None), "001-sec1.2-dlog": ("typo", None)}
    amended = {}
    for d in RP.DERIVATIONS:
        printed = {c for s in d.steps if s.fidelity == AS_PRINTED for c in s.cites}
        for s in d.steps:
            if isinstance(s.fidelity, Amendment):
                assert set(s.cites) <= printed, s.label
                amended[s.fidelity.key] = (s.fidelity.kind, s.fidelity.severity, s.fidelity.root)
    assert amended == {
        "001-eq8-rho-cosine": ("typo fixed", "typo", "001-eq8-rho"),
        "001-eq6-divergence-m-nonzero": ("hypothesis added", "missing-hypothesis", "001-eq6-divergence"),
        "001-eq10-unique-descartes": ("hypothesis added", "wrong-value", "001-eq10-unique"),
        "001-eq11-global-root": ("statement replaced", "wrong-value", "001-eq10-unique")}
    assert all(v[2] in errata for v in amended.values())
    # every label (1)-(11) is stated as printed by some step (or is the erratum that states it)
    from theorylab.derivations import coverage_001
    as_printed = {c for d in RP.DERIVATIONS for s in d.steps if s.fidelity == AS_PRINTED for c in s.cites}
    assert as_printed == set(coverage_001.LABELS)


def _mutated(entry, factor):
    """The entry with its compute output scaled in place (as the mutation tester does), restored on exit."""
    import contextlib

    @contextlib.contextmanager
    def cm():
        orig = entry.compute
        object.__setattr__(entry, "compute", lambda **kw: factor * orig(**kw))
        try:
            yield
        finally:
            object.__setattr__(entry, "compute", orig)
    return cm()


@pytest.mark.parametrize("factor", [2.0, 0.5, -1.0])
def test_a_mutated_penalty_fails_a_solver_step(factor):
    main = next(d for d in RP.DERIVATIONS if d.key == "relu.penalty")
    steps = [s for s in main.steps if s.numeric and "relu.penalty" in s.label and "penalty_aux" not in s.label]
    assert steps
    with _mutated(penalty, factor):
        assert any(not s.check().holds for s in steps)


def test_a_mutated_log_slope_fails_its_step():
    main = next(d for d in RP.DERIVATIONS if d.key == "relu.penalty")
    step = next(s for s in main.steps if s.label.startswith("relu.log_slope"))
    with _mutated(log_slope, 1.0 + 1e-6):
        assert not step.check().holds


def test_minimizer_alone_is_as_accurate_as_the_full_solve():
    """minimize_p(..., outputs=("u",)) returns u* to a few ulps (Newton to 1e-9 u whenever u is asked for; it stopped
    at 1e-6 u before, ~1e-12 relative), against the full solve whose p'(u*) = 0 the derivation checks."""
    rng = np.random.default_rng(7)
    n = 20000
    m = rng.choice([-1, 1], n) * 10 ** rng.uniform(-4, 4, n)
    m0 = 10 ** rng.uniform(-2, 2, n)
    rho = rng.uniform(-1, 1, n)
    g = rng.choice([-1, 1], n) * 10 ** rng.uniform(-3, 2, n)
    full = R.minimize_p(m, m0, rho, g)
    ok = full["curvature"] > 1e-2  # well conditioned: away from the triple root
    for outs in (("u",), ("value", "u")):
        uu = R.minimize_p(m, m0, rho, g, outputs=outs)["u"]
        assert np.max(np.abs(uu[ok] - full["u"][ok]) / full["u"][ok]) <= 8 * EPS


def test_uniqueness_fails_just_above_the_sharp_threshold():
    """m = rho = 1, m0 = gamma = t: (10) = (u^2 - 1)(u^2 - t u + 1), three positive roots iff t > 2 (the derived
    necessary condition kappa > 2, alpha > 2 is sharp); the erratum's counterexample t = 5/2 has roots 1/2, 1, 2."""
    np.testing.assert_allclose(stationary(m=1.0, m0=2.5, rho=1.0, gamma=2.5), [0.5, 1.0, 2.0], rtol=1e-14)
    assert stationary(m=1.0, m0=2.01, rho=1.0, gamma=2.01).size == 3
    assert stationary(m=1.0, m0=2.0, rho=1.0, gamma=2.0).size == 1   # the triple root u = 1
    assert stationary(m=1.0, m0=1.99, rho=1.0, gamma=1.99).size == 1


def test_hypothesis_finds_no_three_roots_below_kappa_2():
    """The derived necessary condition: three positive roots only where gamma sgn(m)/sqrt|m| > 2 and
    m0 rho/sqrt|m| > 2, searched over the whole domain."""
    from hypothesis import find
    from hypothesis.errors import NoSuchExample

    def bad(kw):
        if R.positive_root_count(**kw) != 3:  # the exact count (stationary_points_exact's, without the values)
            return False
        s = math.sqrt(abs(kw["m"]))
        return not (kw["gamma"] * math.copysign(1.0, kw["m"]) > 2 * s and kw["m0"] * kw["rho"] > 2 * s)

    with pytest.raises(NoSuchExample):
        find(R._kwargs_strategy(), bad, settings=settings(max_examples=1500, database=None, derandomize=True))


def test_large_m_rate_checks_pass_and_catch_a_wrong_coefficient(monkeypatch):
    """verify's compare_scaling records (issue #15): the derived series r~ = 2m - 2(a + gamma) sqrt(m) + c2 + c3/sqrt(m)
    + ... passes; a penalty scaled by (1 + 1e-6) breaks the series check against the entry."""
    try:
        theorylab.get("qpenalty.q")
    except DomainError:
        pytest.skip("the qpenalty family (seed 000's Q-penalty) is not loaded")
    from theorylab._records.evidence import Context, Evidence
    import theorylab.verify.relu as V

    recs = [r for r in V._vs_qpenalty(Context()) if isinstance(r, Evidence)]
    assert sum("like m^-1/2" in r.check or "1/log m" in r.check for r in recs) >= 8
    assert all(r.passed for r in recs), [(r.check, r.observed, r.predicted, r.tolerance) for r in recs if not r.passed]
    real = V.minimize_p
    monkeypatch.setattr(V, "minimize_p", lambda *a, **k: {key: (v * (1 + 1e-6) if key == "value" else v)
                                                         for key, v in real(*a, **k).items()})
    bad = [r for r in V._vs_qpenalty(Context()) if isinstance(r, Evidence) and not r.passed]
    assert any("far from the initialization" in r.check for r in bad)


def test_edge_findings_are_findings():
    from theorylab._records.evidence import Context, Finding
    import theorylab.verify.relu as V

    recs = V._edges(Context())
    assert len(recs) == 3 and all(isinstance(r, Finding) for r in recs)
    assert "(1.0, -1.0, 0.0): 1 = 1" in recs[0].text
    assert "identical: True" in recs[1].text and "root for every m" in recs[2].text


def test_stationary_points_hundreds_of_decades_apart():
    """Regression (found by the accuracy map): m = 1e-300 raised 'could not separate the positive roots' after
    minutes of rising precision; the roots 2.5e-301, sqrt(4e-300/3) and 3 are separated by exact sign changes."""
    e = theorylab.get("relu.stationary_points")
    got = e(m=1e-300, m0=3, rho=1, gamma=4)
    want = [2.5e-301, (4e-300 / 3) ** 0.5, 3.0]
    assert len(got) == 3 and all(abs(g - w) <= 4e-16 * w for g, w in zip(got, want)), got


def test_scaled_m_that_underflows_is_not_m_zero():
    """Regression (accuracy map, #16): scaling max(sqrt|m|, m0, |gamma|) to [1/2, 1) sends m = 1 beside gamma = 1e180
    below float64's range; the solver took the underflowed 0 for m = 0 and returned gamma^2 (inf: 'not
    representable'; m = 1e-300, gamma = 1e100 gave 1e200 where r~ = 9). Such points go to the exact (mpmath) path.
    Here the small root u = m/gamma zeroes the first term: r~ = (m/gamma - m0 rho)^2 + m0^2 (1 - rho^2) = 9 - 6e-180,
    and for penalty_aux (m0 = sqrt 2) 2 - tiny; both are those floats."""
    assert theorylab.get("relu.penalty")(m=1.0, m0=3.0, rho=1.0, gamma=1e180) == 9.0
    assert theorylab.get("relu.penalty_aux")(m=1.0, m_aux=2.0, rho=1.0, gamma=1e180) == 2.0


def test_m0_squared_beyond_float64_is_formed_after_scaling():
    """Regression (accuracy map, #16): m0 = 1e180 overflowed m0^2 before the power-of-two scaling (NaN: 'not
    representable'); at u ~ m0 rho the first term is (m/u - gamma)^2 = (1e-180 - 4)^2: r~ = 16."""
    assert theorylab.get("relu.penalty")(m=1.0, m0=1e180, rho=1.0, gamma=4.0) == 16.0


def test_log_slope_reference_keeps_relative_accuracy_when_m_over_u_cancels_gamma():
    """Regression (accuracy map, #16): at gamma = 1e60 the minimizer is u ~ m/gamma and m/u - gamma ~ 1e-120 is
    below the 120-digit reference's resolution in the form 2 (m/u - gamma)(m/u)/r~; the equal stationary form
    2 u (u - m0 rho)/r~ keeps its digits. Slope = 2 (1e-60)(1e-60 - 0.99)/1 = -1.98e-60."""
    ref = R.log_slope_reference(1.0, 1.0, 0.99, 1e60)
    got = theorylab.get("relu.log_slope")(m=1.0, m0=1.0, rho=0.99, gamma=1e60)
    assert abs(ref - (-1.98e-60)) <= 1e-15 * 1.98e-60
    assert abs(got - ref) <= 1e-13 * abs(ref)
