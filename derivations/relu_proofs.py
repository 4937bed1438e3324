"""relu's derivations (seed 001): eqs (2)-(11) as the seed writes them, the claims of Sec. 1.2, and the errata
(the definition of rho, the divergence at u -> 0, the uniqueness of the positive root, the log-derivative).

Fidelity (issue #22): every step citing a label states it as printed (up to the notation its `why` names) or
declares an Amendment with its printed counterpart beside it: (8) with rho the cosine (typo fixed), the divergence
after (6) for m != 0 (hypothesis added), the uniqueness after (10) where Descartes gives it (hypothesis added), and
(11) at the global minimizer among the roots of (10) (statement replaced). Steps that are theorylab's own algebra
(the solver's stable form, the sharp three-root condition, the edges) cite no label.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from theorylab.authoring import AS_PRINTED, Amendment, Derivation, Erratum, Step, golden_mp
from theorylab.authoring import DomainError

from .relu_entries import (DP_SEED, FIG_GAMMAS, P_SEED, P_STABLE, QUARTIC_SEED, SEED, gamma, log_slope, m, m0, penalty,
                           penalty_aux, quartic, rho, stationary_points, u)
from .relu_solver import minimize_p


# ------------------------------------------------------------------------------------------------------
# derivation of eqs (2)-(11) as the seed writes them
# ------------------------------------------------------------------------------------------------------

theta = sp.Symbol("theta", real=True)          # direction of w_h^(1): w_hat = (cos theta, sin theta), d = 2
y1, y2 = sp.symbols("y_1 y_2", real=True)      # w_0h^(1)
W_HAT = sp.Matrix([sp.cos(theta), sp.sin(theta)])
W0 = sp.Matrix([y1, y2])
NORM_W0 = sp.sqrt(y1**2 + y2**2)


def _sq(v: sp.Matrix) -> sp.Expr:
    return (v.T * v)[0]


P_EQ6 = (m / u - gamma) ** 2 + _sq(u * W_HAT - W0)
P_EQ7 = (m / u - gamma) ** 2 + u**2 + _sq(W0) - 2 * u * (W_HAT.T * W0)[0]
RHO_SEED = _sq(W0) / (u * NORM_W0)                         # <w0, w0>/(||w_h|| ||w0||), ||w_h|| = u
RHO_TRUE = (W_HAT.T * W0)[0] / NORM_W0                     # <w_hat, w0>/||w0|| = <w_h, w0>/(||w_h|| ||w0||)


E_RHO = Erratum(
    key="001-eq8-rho", source=SEED, where="definition of rho_h before eq (8)",
    says="rho_h := <w_0h^(1), w_0h^(1)> / (||w_h^(1)||_2 ||w_0h^(1)||_2)",
    truth="rho_h := <w_h^(1), w_0h^(1)> / (||w_h^(1)|| ||w_0h^(1)||) = <w_hat_h, w_0h^(1)>/||w_0h^(1)||, the cosine between "
    "the unit's direction and its pretrained weights. As written the numerator is ||w_0h||^2, so rho_h = m0/u "
    "depends on u and (8) would read (m/u - gamma)^2 + u^2 - m0^2, which is not (7).",
    severity="typo",
    note="A typo: the text names rho_h 'the cosine similarity between corresponding pretraining and finetuning task "
    "weights', and (9)-(11) differentiate (8) treating rho as independent of u, i.e. they use the cosine; nothing "
    "downstream uses the misprinted numerator. So do the entries.")

E_DIVERGE = Erratum(
    key="001-eq6-divergence", source=SEED, where="text after eq (6)",
    says="p diverges to infinity both for u -> infinity and u -> 0",
    truth="for m != 0; for m = 0, p(u) = gamma^2 + (u - m0 rho)^2 + m0^2 (1 - rho^2) tends to gamma^2 + m0^2 as u -> 0+, "
    "and when m0 rho <= 0 that limit is the infimum (not attained): r~(0) = gamma^2 + m0^2 (1 - max(rho, 0)^2).",
    severity="missing-hypothesis",
    note="A missing hypothesis: the divergence, and with it the existence of a minimizer that (10)-(11) compute, holds "
    "only for m != 0, which the text neither states nor implies (m_h = ||w_h|| w_h^(2) may be 0). At m = 0, "
    "m0 rho > 0 the conclusion survives (u* = m0 rho); at m = 0, m0 rho <= 0 (10) has no positive root and the "
    "min of (6) is an infimum. relu.penalty returns the infimum at m = 0. r~ is discontinuous there when "
    "|gamma| > m0 max(rho, 0): for m -> 0 with the sign of gamma, u = m/gamma -> 0 keeps the readout at gamma and "
    "costs only m0^2.")

E_UNIQUE = Erratum(
    key="001-eq10-unique", source=SEED, where="text after eq (10)",
    says="select the (unique, in all empirical cases we explored) positive real root u* of (10)",
    truth="(10) has one positive root unless m0 rho > 0 and gamma m > 0 (Descartes' rule of signs), and then one or "
    "three; with three, p has two local minima (the smallest and the largest root) and r~ is the smaller value. "
    "Three roots need kappa = gamma sgn(m)/sqrt|m| > 2 and alpha = m0 rho/sqrt|m| > 2 (proved), and this is sharp: "
    "at m = rho = 1, m0 = gamma = t, (10) = (u^2 - 1)(u^2 - t u + 1) has three positive roots for every t > 2; "
    "t = 5/2 gives 1/2, 1, 2. Smallest integer case: (m, m0, rho, gamma) = (1, 3, 1, 3), roots (3 - sqrt5)/2, 1, "
    "(3 + sqrt5)/2 (a tie, p = 7, 8, 7); at (1, 3, 1, 4) the roots are 0.26236, 1.47726, 2.35567 with "
    "p = 7.5302, 13.3615, 13.1993: np.roots lists 2.35567 first, and (11) at that root is 75% above r~.",
    severity="wrong-value",
    note="A wrong value: the recipe 'select the unique positive root and plug it into (11)' gives a wrong r~ wherever "
    "(10) has three positive roots, by an unbounded factor (below). Not a false theorem: the seed hedges the "
    "uniqueness as empirical ('in all empirical cases we explored') and conditions (11) on it ('as long as we have "
    "a unique positive stationary point'), and on its own Fig. 1 range it holds. "
    "In scale-free terms (u = sqrt|m| v) three roots need kappa in a window above 2 that widens with alpha (never at "
    "gamma = 0), so the seed's Fig. 1 range (gamma <= 0.01, m >= 0.01: kappa <= 0.1) never meets them. "
    "The error of a single-root choice is unbounded: at (m, m0, rho, gamma) = (1e-8, 0.01, 1, 1), r~ = 1.0e-4 "
    "(u* = 1e-8) while the largest root, which np.roots lists first, gives 0.99999.")

E_DLOG = Erratum(
    key="001-sec1.2-dlog", source=SEED, where="Sec. 1.2, the plotted derivative",
    says="d log(r~)/dm: closer to 2 means l2-like, closer to 1 means l1-like",
    truth="the exponent is d log r~ / d log|m| = m d log r~/dm (2 for r = m^2, 1 for r = |m| at every m); "
    "d log(m^2)/dm = 2/m equals 2 only at m = 1. relu.log_slope is the log-log slope.", severity="typo",
    note="A notation slip: the reading '2: l2-like, 1: l1-like' fixes the intended quantity as the log-log slope "
    "(the exponent of a local power law), and Fig. 1b is described only as 'derivative of log(r~), computed "
    "empirically'; no formula downstream uses d/dm.")


# ------------------------------------------------------------------------------------------------------
# numeric sides: the paper's expressions evaluated on numbers, at the solvers' own output (the entries are called,
# so a mutated entry is seen)
# ------------------------------------------------------------------------------------------------------

EPS = float(np.finfo(float).eps)


def _mpf(x):
    return mpmath.mpf(float(x))


def _p_at(uu, mm, m00, rr, gg, *, dps: int = 50):
    """p(u) of eq (8) (with the cosine rho) at a float u, in mpmath (exact inputs, `dps` digits)."""
    with mpmath.workdps(dps):
        U, M, A, R, G = (_mpf(x) for x in (uu, mm, m00, rr, gg))
        return (M / U - G) ** 2 + U**2 + A**2 - 2 * U * A * R


def _solver_points():
    """Points for the solver steps: simple ones first (a small counterexample), the seed's three-root case, both
    signs, the regime of two local minima, then 24 random points over magnitudes 1e-4..1e4 (fixed seed)."""
    pts = [dict(m=1.0, m0=1.0, rho=0.5, gamma=0.0), dict(m=1.0, m0=3.0, rho=1.0, gamma=4.0),
           dict(m=-1.0, m0=1.0, rho=0.5, gamma=-2.0), dict(m=2.0, m0=1.0, rho=-0.5, gamma=1.0),
           dict(m=1e-3, m0=2.0, rho=0.9, gamma=0.01), dict(m=1e4, m0=1.0, rho=-0.5, gamma=3.0),
           dict(m=1e-8, m0=0.01, rho=1.0, gamma=1.0), dict(m=0.01, m0=1.0, rho=0.99, gamma=0.0)]
    rng = np.random.default_rng(20261122)
    for k in range(24):
        mm = float(rng.choice([-1.0, 1.0]) * 10.0 ** rng.uniform(-4, 4))
        if k % 3 == 0:  # the regime of three positive roots: alpha = m0 rho/sqrt|m|, kappa in (2, 8)
            r = float(rng.uniform(0.5, 1.0))
            pts.append(dict(m=mm, m0=float(rng.uniform(2, 8)) * math.sqrt(abs(mm)) / r, rho=r,
                            gamma=float(rng.uniform(2, 8)) * math.sqrt(abs(mm)) * math.copysign(1.0, mm)))
        else:
            pts.append(dict(m=mm, m0=float(10.0 ** rng.uniform(-2, 2)), rho=float(rng.uniform(-1, 1)),
                            gamma=float(rng.choice([-1.0, 1.0]) * 10.0 ** rng.uniform(-3, 2))))
    return pts


def _generic_points():
    """The solver points where r~ > 0, the two local minima do not tie (relative gap > 1e-2) and p''(u*) u*^2 is
    not small against p's terms (away from the triple root of (10), where u* is ill-conditioned)."""
    out = []
    for kw in _solver_points():
        r = minimize_p(**kw)
        if float(r["value"]) > 0 and float(r["gap"]) > 1e-2 and float(r["curvature"]) > 1e-2:
            out.append(kw)
    return out


def stationarity_residual(m, m0, rho, gamma):
    """p'(u*)/2 over the size of its terms, at the minimizer u* that relu.penalty's solver returns"""
    uu = float(minimize_p(m, m0, rho, gamma)["u"])   # the full solve (Newton to 1e-9 u, as log_slope uses it)
    with mpmath.workdps(50):
        U, M, A, G = _mpf(uu), _mpf(m), _mpf(m0) * _mpf(rho), _mpf(gamma)
        w = M / U
        dp = (U - A) - (w - G) * w / U                       # p'(u)/2, eq (9)
        d2 = 1 + (3 * w * w - 2 * G * w) / U**2              # p''(u)/2
        return dp / (U * abs(d2) + U + abs(A) + (abs(w) + abs(G)) * abs(w) / U)


def penalty_value(m, m0, rho, gamma):
    """relu.penalty (the entry's value)"""
    return penalty(m=m, m0=m0, rho=rho, gamma=gamma)


def p_at_solver_minimizer(m, m0, rho, gamma):
    """p(u*), eq (11), at the minimizer u* that the solver returns (50-digit mpmath)"""
    uu = float(minimize_p(m, m0, rho, gamma)["u"])
    return _p_at(uu, m, m0, rho, gamma)


def p_on_grid(m, m0, rho, gamma):
    """p(u) at 161 log-spaced u over eight decades around max(sqrt|m|, m0, |gamma|) (50-digit mpmath)"""
    scale = max(math.sqrt(abs(m)), m0, abs(gamma))
    return np.array([float(_p_at(x, m, m0, rho, gamma)) for x in scale * np.logspace(-4, 4, 161)])


def roots_of_stationary_points(m, m0, rho, gamma):
    """p'(r)/2 over the size of its terms at each root r that relu.stationary_points returns"""
    out = []
    for x in stationary_points(m=m, m0=m0, rho=rho, gamma=gamma):
        with mpmath.workdps(50):
            U, M, A, G = _mpf(x), _mpf(m), _mpf(m0) * _mpf(rho), _mpf(gamma)
            w = M / U
            dp = (U - A) - (w - G) * w / U
            d2 = 1 + (3 * w * w - 2 * G * w) / U**2
            out.append(float(dp / (U * abs(d2) + U + abs(A) + (abs(w) + abs(G)) * abs(w) / U)))
    return np.array(out)


def min_p_over_positive_roots(m, m0, rho, gamma):
    """(11) at every positive root of (10) (relu.stationary_points), the smallest value (50-digit mpmath)"""
    return min(_p_at(x, m, m0, rho, gamma) for x in stationary_points(m=m, m0=m0, rho=rho, gamma=gamma))


def p_at_single_root(m, m0, rho, gamma, ustar=None):
    """(11) at the positive root u* of (10) (relu.stationary_points), where it is the only one (50-digit mpmath).
    `ustar`, the root a search point carries for the machine comparison with the print (its u^*), must be that
    root."""
    roots = stationary_points(m=m, m0=m0, rho=rho, gamma=gamma)
    if roots.size != 1:
        raise DomainError(f"(11) as printed needs a single positive root of (10); got {roots.size} at "
                          f"m={m!r}, m0={m0!r}, rho={rho!r}, gamma={gamma!r}")
    if ustar is not None and float(ustar) != float(roots[0]):
        raise DomainError(f"ustar must be the positive root of (10), {float(roots[0])!r}; got ustar={ustar!r}")
    return _p_at(roots[0], m, m0, rho, gamma)


def penalty_value_at_root(m, m0, rho, gamma, ustar=None):
    """relu.penalty (the entry's value) at a point that also carries u* (the root of (10), for the print's u^*)"""
    return penalty_value(m, m0, rho, gamma)


def positive_root_count(m, m0, rho, gamma):
    """the number of distinct positive roots of (10) (relu.stationary_points)"""
    return stationary_points(m=m, m0=m0, rho=rho, gamma=gamma).size


def quartic_value(m, m0, rho, gamma):
    """relu.quartic (the entry's coefficients)"""
    return quartic(m=m, m0=m0, rho=rho, gamma=gamma)


@functools.lru_cache(maxsize=1)
def _quartic_of_p():
    """(u^3/2) p'(u) as a polynomial in u whose coefficients are polynomials in (m, m0, rho, gamma): SymPy
    differentiates p once, symbolically."""
    x = sp.Symbol("x", positive=True)
    M, A, R, G = sp.symbols("M A R G", real=True)
    expr = sp.cancel(x**3 / 2 * sp.diff((M / x - G) ** 2 + x**2 + A**2 - 2 * x * A * R, x))
    return (M, A, R, G), [sp.Poly(c, M, A, R, G) for c in sp.Poly(expr, x).all_coeffs()]


def quartic_from_p(m, m0, rho, gamma):
    """the coefficients of (u^3/2) p'(u): SymPy's derivative of p evaluated at the exact rational point"""
    syms, coeffs = _quartic_of_p()
    point = [sp.Rational(Fraction(float(x))) for x in (m, m0, rho, gamma)]
    return np.array([float(c.eval(dict(zip(syms, point)))) for c in coeffs])


def log_slope_value(m, m0, rho, gamma):
    """relu.log_slope (the entry's value)"""
    return log_slope(m=m, m0=m0, rho=rho, gamma=gamma)


_FD_H = 1e-3


def log_slope_by_differences(m, m0, rho, gamma):
    """Richardson-extrapolated central difference of log relu.penalty in log|m| (h = 1e-3)"""
    def d(h):
        up = penalty(m=m * math.exp(h), m0=m0, rho=rho, gamma=gamma)
        dn = penalty(m=m * math.exp(-h), m0=m0, rho=rho, gamma=gamma)
        return (math.log(up) - math.log(dn)) / (2 * h)
    return (4 * d(_FD_H) - d(2 * _FD_H)) / 3


def penalty_aux_value(m, m_aux, rho, gamma):
    """relu.penalty_aux (the entry's value)"""
    return penalty_aux(m=m, m_aux=m_aux, rho=rho, gamma=gamma)


def penalty_at_sqrt(m, m_aux, rho, gamma):
    """relu.penalty at m0 = sqrt(m_aux)"""
    return penalty(m=m, m0=math.sqrt(m_aux), rho=rho, gamma=gamma)


def _descartes_points():
    """Random points with m0 rho <= 0 or gamma m <= 0 (every sign pattern but the one excluded), fixed seed."""
    rng = np.random.default_rng(0)
    pts = [dict(m=1.0, m0=1.0, rho=-0.5, gamma=1.0), dict(m=1.0, m0=1.0, rho=0.5, gamma=-1.0),
           dict(m=-1.0, m0=3.0, rho=1.0, gamma=4.0), dict(m=1.0, m0=3.0, rho=0.0, gamma=4.0),
           dict(m=1.0, m0=3.0, rho=1.0, gamma=0.0)]
    while len(pts) < 80:
        mm, g = (float(x) for x in rng.choice([-1, 1], 2) * 10.0 ** rng.uniform(-2, 2, 2))
        m00, r = float(10.0 ** rng.uniform(-2, 2)), float(rng.uniform(-1, 1))
        if not (m00 * r > 0 and g * mm > 0):
            pts.append(dict(m=mm, m0=m00, rho=r, gamma=g))
    return pts


def _single_root_points():
    """The generic solver points (away from ties and the triple root) where (10) has a single positive root: the
    seed's premise for (11); each carries that root as `ustar`, the print's u^* (notation_001), so that (11)'s
    right side is evaluated at it in the machine comparison with the print."""
    out = []
    for kw in _generic_points():
        roots = stationary_points(**kw)
        if roots.size == 1:
            out.append(dict(kw, ustar=float(roots[0])))
    return out


def _three_root_points():
    return [kw for kw in _solver_points() if stationary_points(**kw).size == 3]


class _StatePoint(dict):
    """A search point some of whose values (`state_values`: the minimizer u) are computed from the same state as the
    step's side, so the machine comparison (#24) knows that the print's u is the step's minimizer, not an input."""
    state_values: frozenset = frozenset()


def _argmin_p(m, m0, rho, gamma):
    """The minimizer u* > 0 of p (8) solved directly: golden section over t = log u on [-30, 30] at 60 digits to a
    bracket of 1e-28 in t (p has one stationary point on u > 0 at the points used, so it is unimodal). Neither the
    quartic (10) nor the entry's solver is used."""
    with mpmath.workdps(60):
        m, m0, rho, gamma = (mpmath.mpf(float(x)) for x in (m, m0, rho, gamma))
        f = lambda t: (m / mpmath.exp(t) - gamma) ** 2 + mpmath.exp(2 * t) + m0**2 - 2 * mpmath.exp(t) * m0 * rho  # noqa: E731
        return mpmath.exp(golden_mp(f, -30, 30, iters=None, xtol=mpmath.mpf(10) ** -28)[0])


def _quartic_at(m, m0, rho, gamma, u):
    """(10)'s left side -m^2 + gamma m u - m0 rho u^3 + u^4 at the point (50 digits on the float inputs)"""
    with mpmath.workdps(50):
        m, m0, rho, gamma, u = (mpmath.mpf(float(x)) for x in (m, m0, rho, gamma, u))
        return -m**2 + gamma * m * u - m0 * rho * u**3 + u**4


def _minimizer_points():
    """(10) at the minimizer of p: points (m, m0, rho, gamma) with one positive stationary point (gamma m <= 0 or
    m0 rho <= 0, Descartes), each with u = u* of `_argmin_p` (the print's u, a state value)"""
    for m_, m0_, rho_, g_ in ((2.0, 3.0, 0.5, -1.0), (-1.5, 1.0, 0.3, 0.7), (0.5, 2.0, -0.4, 1.2), (3.0, 0.5, 0.9, -2.0)):
        pt = _StatePoint(m=m_, m0=m0_, rho=rho_, gamma=g_, u=float(_argmin_p(m_, m0_, rho_, g_)))
        pt.state_values = frozenset({"u"})
        yield pt


kap_s, phi_s = sp.Symbol("kappa", positive=True), sp.Symbol("phi", positive=True)
t_of = lambda k: sp.Rational(1, 4) + sp.cos(phi_s + 2 * sp.pi * k / 3) / 2  # noqa: E731
KAPPA_OF_PHI = (1 - sp.cos(3 * phi_s)) / 8

mpos = sp.Symbol("m", positive=True)
D_P = sp.Derivative(P_SEED, u)                 # p'(u), unevaluated: the engine differentiates at check time
AT_INIT = ((rho, u, m), (1, m0, gamma * m0))
CURV_RHO1 = (sp.Derivative(P_SEED, m, 2) - sp.Derivative(P_SEED, m, u) ** 2 / sp.Derivative(P_SEED, u, 2))
w2s, w11, w12 = sp.symbols("w_2 w_11 w_12", real=True)
OBJ5 = (w2s - gamma) ** 2 + (w11 - y1) ** 2 + (w12 - y2) ** 2      # the objective of (5), d = 2


def _qcurv_step():
    from theorylab.derivations.qpenalty import Q_SEED, z as zq

    bb, kk = sp.Symbol("beta", real=True), sp.Symbol("k", positive=True)
    lhs = sp.Subs(sp.Derivative(kk * Q_SEED.subs(zq, 2 * bb / kk), bb, 2), bb, 0)
    return Step("seed 000's Q-penalty has the same curvature at its initialization: d^2/dbeta^2 k q(2 beta/k) "
                "= 2/k at beta = 0", lhs=lhs, rhs=2 / kk)


# ------------------------------------------------------------------------------------------------------
# coverage (issue #14): (1), (3)-(4), the hypotheses at their edges (m = 0, m0 = 0, rho = -1, gamma = 0) and the
# sharp condition for three positive roots of (10)
# ------------------------------------------------------------------------------------------------------

a_s, z_s, w2_s = sp.Symbol("a", positive=True), sp.Symbol("z", real=True), sp.Symbol("w_2", real=True)
v_s, al_s, ka_s = sp.Symbol("v", positive=True), sp.Symbol("alpha", real=True), sp.Symbol("kappa", real=True)
t_s, Maux = sp.Symbol("t", positive=True), sp.Symbol("m_aux", positive=True)
G_SCALED = v_s**4 - al_s * v_s**3 + ka_s * v_s - 1          # (10) over m^2 at u = sqrt(m) v, m > 0


def _unit_objective(uu, what, w0, mm, gg):
    """the objective of (5) for one unit at w^(1) = u w_hat, w^(2) = m/u (float64, vectorized in u)"""
    uu = np.asarray(uu, dtype=float)[..., None]
    return (mm / uu[..., 0] - gg) ** 2 + np.sum((uu * what - w0) ** 2, axis=-1)


_R_UNITS = {  # two hidden units in d = 3: (w_hat, w0, m, gamma) per unit, keyed by a point name
    0: (((1.0, 0.0, 0.0), (1.0, 0.5, 0.0), 1.0, 0.0), ((0.0, 0.6, 0.8), (0.0, -1.0, 2.0), -2.0, 0.1)),
    1: (((0.0, 0.0, 1.0), (0.3, 0.3, 3.0), 1.0, 4.0), ((0.6, 0.0, -0.8), (2.0, 1.0, 0.5), 0.5, -0.3)),
    2: (((0.8, 0.6, 0.0), (-1.0, 2.0, 0.0), 3.0, 1.0), ((1.0, 0.0, 0.0), (0.01, 0.0, 0.0), 0.01, 0.0)),
}


def _units(k):
    return [(np.array(a_, dtype=float), np.array(b_, dtype=float), mm, gg) for a_, b_, mm, gg in _R_UNITS[k]]


def R_tilde_direct(k):
    """(3) for H = 2: R(w) minimized jointly over both units' u_h = ||w_h^(1)|| (w^(2)_h = m_h/u_h, w_hat_h fixed):
    a 2-D log grid (161^2 points over eight decades), then Nelder-Mead in log u, re-evaluated in 50-digit mpmath"""
    import scipy.optimize as so

    un = _units(int(k))
    grid = np.logspace(-4, 4, 161)
    vals = [_unit_objective(grid, *x) for x in un]
    tot = vals[0][:, None] + vals[1][None, :]
    i, j = np.unravel_index(int(np.argmin(tot)), tot.shape)

    def obj(s):
        return sum(float(_unit_objective(math.exp(si), *x)) for si, x in zip(s, un))

    res = so.minimize(obj, [math.log(grid[i]), math.log(grid[j])], method="Nelder-Mead",
                      options=dict(xatol=1e-11, fatol=0.0, maxiter=4000))
    with mpmath.workdps(50):
        tot50 = mpmath.mpf(0)
        for si, (what, w0, mm, gg) in zip(res.x, un):
            U = _mpf(math.exp(si))
            tot50 += (_mpf(mm) / U - _mpf(gg)) ** 2 + sum((U * _mpf(a_) - _mpf(b_)) ** 2 for a_, b_ in zip(what, w0))
        return tot50


def R_tilde_sum(k):
    """(4): the sum over units of relu.penalty at m0 = ||w0h||, rho = <w_hat, w0>/||w0||"""
    tot = 0.0
    for what, w0, mm, gg in _units(int(k)):
        n0 = float(np.linalg.norm(w0))
        tot += penalty(m=mm, m0=n0, rho=float(what @ w0) / n0, gamma=gg)
    return tot


def penalty_m0_zero(m, rho):
    """relu.penalty at m0 = 0, gamma = 0 (a freshly initialized unit)"""
    return penalty(m=m, m0=0.0, rho=rho, gamma=0.0)


def penalty_neg(m, m0, rho, gamma):
    """relu.penalty at -m, -gamma"""
    return penalty(m=-m, m0=m0, rho=rho, gamma=-gamma)


def infimum_at_m_zero(m0, rho, gamma):
    """gamma^2 + m0^2 (1 - max(rho, 0)^2): the infimum of (6) at m = 0 (exact rational arithmetic)"""
    M0, R, G = (Fraction(float(x)) for x in (m0, rho, gamma))
    return float(G * G + M0 * M0 * (1 - max(R, Fraction(0)) ** 2))


def penalty_at_m_zero(m0, rho, gamma):
    """relu.penalty at m = 0"""
    return penalty(m=0.0, m0=m0, rho=rho, gamma=gamma)


def _edge_points_rho_minus_one():
    return [dict(m=mm, m0=a_, rho=-1.0, gamma=g_) for mm in (1.0, -1.0, 1e-3, 50.0) for a_ in (0.0, 0.5, 1.0, 10.0)
            for g_ in (0.0, 1.0, -3.0)]


def _unit_from_weights(**p):
    """(1)'s summand for one unit with scalar weights (H = 1, d = 1): w^(2) (<w^(1), x>)_+ = w2 max(w1 x, 0), from the
    weights alone, at 50 digits (the same unit as seed 000's (31) in that instance: l12's)"""
    from theorylab.derivations.l12 import _relu_unit_1d

    return _relu_unit_1d(**p)


def _unit_from_direction(**p):
    """the same unit through the text's parameterization after (2): w_hat = w^(1)/||w^(1)||, m = ||w^(1)|| w^(2)
    (||w1|| = |w1| for d = 1), m (<w_hat, x>)_+, computed here from the weights at 50 digits"""
    with mpmath.workdps(50):
        w1, w2, x = _mpf(p["w^{(1)}"][0]), _mpf(p["w^{(2)}"][0]), _mpf(p["x"])
        norm = abs(w1)
        return (norm * w2) * max((w1 / norm) * x, 0)


def _unit_points():
    """one unit (H = 1), d = 1: w^(1) = (w1,), w^(2) = (w2,) (a tuple per unit) and the input x; active and inactive
    units, w1 of both signs, scales 1e-3 .. 1e3; an active and an inactive unit first (the machine comparison reads
    the first two points: a print without its (.)_+ differs at the inactive one)"""
    for w1, w2, x in ((2.0, 0.5, 1.5), (1.5, -2.0, -1.0), (-3.0, 1.25, -0.75), (0.001, -4.0, 2.0), (-700.0, 0.3, 0.02),
                      (-0.25, 3.0, 5.0)):
        yield {"w^{(1)}": (w1,), "w^{(2)}": (w2,), "x": x}


_EDGE_RTOL = ("u* = sqrt|m| by Newton to a step below 1e-9 u (error ~1e-18 u) then rounded; p is stationary there and "
              "its two terms are each within 3 ulps: 8 eps relative")

_ONE_ROUNDING = "each coefficient is one float64 product, correctly rounded: relative error <= 2^-53"
_STATIONARY_TOL = ("a float u* within 4 ulps of the root moves p'/2 by <= 4 eps u*|p''/2|; p'/2 at the float u* is "
                   "evaluated in 50-digit mpmath; the residual is divided by u*|p''/2| plus the sum of its terms' "
                   "sizes, so 8 eps bounds it")
_VALUE_RTOL = ("the float64 value: three nonnegative terms from compensated products, each within a few eps "
               "relative; p at the float u* in 50-digit mpmath, and p is stationary there (the rounding of u* moves "
               "it by p'' du^2 ~ eps^2 r~ at these points): 1e-13 relative")

DERIVATIONS_MAIN = Derivation(
    key="relu.penalty", title="The per-unit penalty (3)-(11): reduction to one dimension, the quartic, the global minimum",
    source=SEED, where="Sec. 1.1, eqs (2)-(11)", entries=("relu.quartic", "relu.stationary_points", "relu.penalty", "relu.penalty_aux",
                                    "relu.log_slope"),
    steps=(
        Step("(5) -> (6): w^(1) = u w_hat has norm u (u > 0)", lhs=sp.sqrt(_sq(u * W_HAT)), rhs=u,
             why="every feasible (w^(1), w^(2)) of (5) is w^(1) = u w_hat, w^(2) = m/u with u = ||w^(1)|| > 0 (theorylab's "
             "lemma for the reduction; the printed (5) -> (6) is the next step)"),
        Step("(5) -> (6): the objective of (5) at w^(1) = u w_hat, w^(2) = m/u is p(u)",
             lhs=sp.Subs(OBJ5, (w2s, w11, w12), (m / u, u * sp.cos(theta), u * sp.sin(theta))), rhs=P_EQ6,
             why="as printed: the objective of (5) is the h-th term of (2), and on the feasible set it is p(u) of (6). "
             "Notation: d = 2 with w_hat = (cos theta, sin theta), w_0h^(1) = (y_1, y_2); the objective depends on "
             "w_hat and w_0h only through their norms and inner product, so by rotation invariance d = 2 is general",
             cites=("(2)", "(5)", "(6)"), fidelity=AS_PRINTED),
        Step("(7): ||u w_hat - w0||^2 = u^2 + ||w0||^2 - 2u <w_hat, w0> (||w_hat|| = 1)", lhs=P_EQ6, rhs=P_EQ7,
             why="as printed; notation as in the previous step (d = 2 general by rotation invariance)",
             cites=("(6)", "(7)"), fidelity=AS_PRINTED, binds={"p(u)": "lhs"}),
        Step("(8) with rho as the seed defines it, <w0, w0>/(||w_h|| ||w0||)", lhs=P_EQ7,
             rhs=sp.Subs(P_SEED, (m0, rho), (NORM_W0, RHO_SEED)),
             why="m0 = ||w0||, ||w_h|| = u", erratum=E_RHO, cites=("(8)",)),
        Step("(8) with rho = <w_h, w0>/(||w_h|| ||w0||) = <w_hat, w0>/||w0||", lhs=P_EQ7,
             rhs=sp.Subs(P_SEED, (m0, rho), (NORM_W0, RHO_TRUE)), cites=("(8)",),
             fidelity=Amendment(
                 key="001-eq8-rho-cosine", kind="typo fixed",
                 what="rho_h in (8) is the cosine <w_h, w_0h>/(||w_h|| ||w_0h||) the text names, not the printed "
                      "<w_0h, w_0h>/(||w_h|| ||w_0h||)",
                 why="the text calls rho_h the cosine similarity of the two weights and (9)-(11) treat it as "
                     "independent of u; the printed numerator is the erratum 001-eq8-rho (the step above)",
                 severity="typo", root="001-eq8-rho")),
        Step("(9): p'(u)", lhs=D_P, rhs=DP_SEED,
             why="as printed: the derivative of (8) in u with rho_h a parameter independent of u, as (9) itself treats "
             "it (the definition's misprint is erratum 001-eq8-rho); m = m_h, m0 = m_0h^(1)",
             cites=("(9)",), fidelity=AS_PRINTED),
        Step("(10): (u^3/2) p'(u) is the quartic (same roots and sign for u > 0)", lhs=u**3 / 2 * D_P, rhs=QUARTIC_SEED,
             why="as printed: 'multiplying by u^3/2' turns (9) = 0 into (10)", cites=("(9)", "(10)"),
             fidelity=AS_PRINTED),
        Step("(10) as printed: the minimizer u* of p (8), solved directly, is a root of the quartic: "
             "-m^2 + gamma m u* - m0 rho u*^3 + u*^4 = 0", lhs=_quartic_at, rhs=sp.Integer(0), search=_minimizer_points,
             tol=1e-13, tol_source="u* rounded to float64 (half an ulp, 1.1e-16 relative) moves the quartic by "
                                   "|f'(u*)| u* 1.1e-16 <= 1e-14 at these points; u* itself within ~1e-27 of the minimizer",
             why="as printed: (10) is the stationarity condition p'(u) = 0 of (9) times u^3/2; the minimizer of p is "
                 "found without it (golden section on p) and put in (m = m_h, m0 = m_0h^(1), rho = rho_h)",
             cites=("(10)",), fidelity=AS_PRINTED),
        Step("(1): w2 (<w1, x>)_+ is unchanged by w2 -> a w2, w1 -> w1/a (a > 0), and equals m (<w_hat, x>)_+ with "
             "w1 = u w_hat (u = ||w1|| > 0), m = u w2: the redundancy that (3) removes",
             lhs=sp.Matrix([a_s * w2_s * sp.Max(0, z_s / a_s), w2_s * sp.Max(0, u * z_s)]),
             rhs=sp.Matrix([w2_s * sp.Max(0, z_s), (u * w2_s) * sp.Max(0, z_s)]),
             why="as printed: the text's remark on (1) (multiply w_h^(2) by a > 0, divide w_h^(1) by a: the same "
             "function) and the parameterization (w_hat_h, m_h) that (3) uses; z = <w_h^(1), x> in the first entry, "
             "<w_hat_h, x> in the second", cites=("(1)", "(3)"), fidelity=AS_PRINTED),
        Step("(1) for one unit (H = 1): w^(2) (<w^(1), x>)_+ with w^(1) = u w_hat (u = ||w^(1)|| > 0) is "
             "m (<w_hat, x>)_+, m = u w^(2)", lhs=w2_s * sp.Max(0, u * z_s), rhs=(u * w2_s) * sp.Max(0, z_s),
             why="the second entry of the step above as a scalar: z = <w_hat, x>; the print's sum over h for H = 1 "
                 "(notation_001)", cites=("(1)",), fidelity=AS_PRINTED),
        Step("(1) as printed for one unit with scalar weights (H = 1, d = 1): f_w(x) = w^(2) (<w^(1), x>)_+ from the "
             "weights equals m (<w_hat, x>)_+ with w_hat = w^(1)/||w^(1)||, m = ||w^(1)|| w^(2)",
             lhs=_unit_from_weights, rhs=_unit_from_direction, search=_unit_points, rtol=1e-40,
             tol_source="both sides at 50 significant digits (mpmath) on float inputs; |w1|/|w1| and the products "
                        "round at 1e-50",
             tex=r"w^{(2)} (\langle w^{(1)}, x \rangle)_+ = m (\langle \hat{w}, x \rangle)_+",
             why="(1)'s sum over h for H = 1 (notation_001), the inner product of R^1 the product, (.)_+ = max(., 0); "
                 "the right side computes the unit through the text's (w_hat_h, m_h) ('the normalized hidden weight' "
                 "and '(signed) magnitude', the sentence after (2)): positive homogeneity, max(c a, 0) = c max(a, 0) "
                 "for c = |w1| > 0",
             cites=("(1)",), fidelity=AS_PRINTED, binds={"f_w(x)": "lhs"}),
        Step("(3) = (4): the joint minimum of R over two units (d = 3, 2-D grid then Nelder-Mead, 50-digit "
             "re-evaluation) is the sum of the per-unit minima relu.penalty", lhs=R_tilde_direct, rhs=R_tilde_sum, rtol=1e-12,
             tol_source="the polished log u_h are within ~1e-8 of the minimizers (Nelder-Mead on a float64 objective "
                        "whose rounding noise is 1e-16 p locates a minimum to sqrt(1e-16) relative at these points, "
                        "p'' u^2/p <= 1e2); the value is stationary there: p'' du^2/2 <= 1e-14 p; relu.penalty 1e-15",
             search=lambda: [dict(k=0), dict(k=1), dict(k=2)],
             why="as printed: (3) for H = 2 units in d = 3 (three configurations) against the sum (4) of the "
                 "per-unit minima (5); a numeric check of the printed identity at these instances",
             cites=("(2)", "(3)", "(4)"), fidelity=AS_PRINTED),
        Step("relu.quartic: the entry's coefficients are those of (u^3/2) p'(u), SymPy at the exact point",
             lhs=quartic_value, rhs=quartic_from_p, rtol=2.0**-53, tol_source=_ONE_ROUNDING,
             search=lambda: [dict(m=2.0, m0=3.0, rho=0.5, gamma=-1.0)] + _solver_points(),
             why="as printed: relu.quartic is (10)'s coefficients [1, -m0 rho, 0, gamma m, -m^2] transcribed",
             cites=("(10)",), fidelity=AS_PRINTED),
        Step("(11) in a float-stable form: p = (m/u - gamma)^2 + (u - m0 rho)^2 + m0^2 (1 - rho)(1 + rho), a sum of "
             "nonnegative terms (the expanded (8) cancels when u ~ m0 rho and rho ~ 1)", lhs=P_STABLE, rhs=P_SEED,
             why="theorylab's rewriting for its solver, not a display of the paper"),
        Step("p -> oo as u -> oo (1/p -> 0; p > 0)", lhs=sp.Limit(1 / P_SEED, u, sp.oo), rhs=0,
             why="as printed: the sentence after (6), its u -> oo half", cites=("(6)",), fidelity=AS_PRINTED),
        Step("p -> oo as u -> 0+ for m != 0 (1/p -> 0, m > 0 and m < 0)",
             lhs=sp.Matrix([sp.Limit(1 / P_SEED.subs(m, s * mpos), u, 0, "+") for s in (1, -1)]), rhs=sp.Matrix([0, 0]),
             cites=("(6)",),
             fidelity=Amendment(
                 key="001-eq6-divergence-m-nonzero", kind="hypothesis added",
                 what="the divergence of p at u -> 0+ (the sentence after (6)) is checked for m != 0 only",
                 why="at m = 0 p(0+) = gamma^2 + m0^2 is finite: the printed statement (next step) is the erratum "
                     "001-eq6-divergence",
                 severity="missing-hypothesis", root="001-eq6-divergence")),
        Step("p -> oo as u -> 0+ (as the seed states it, m = 0 included: 1/p -> 0)",
             lhs=sp.Limit(1 / P_SEED.subs(m, 0), u, 0, "+"), rhs=0,
             erratum=dataclasses.replace(E_DIVERGE, at={gamma: 1, m0: 1, rho: 0}), cites=("(6)",)),
        Step("f'' = 6u(2u - m0 rho): the quartic is concave on (0, m0 rho/2) and convex beyond",
             lhs=sp.Derivative(QUARTIC_SEED, u, 2), rhs=6 * u * (2 * u - m0 * rho)),
        Step("critical points of f: u = m0 rho t, 4t^3 - 3t^2 + kappa = 0 at t = 1/4 + cos(phi + 2 pi k/3)/2 with "
             "cos(3 phi) = 1 - 8 kappa, kappa = gamma m/(m0 rho)^3",
             lhs=(4 * t_of(0) ** 3 - 3 * t_of(0) ** 2 + KAPPA_OF_PHI), rhs=0, domain={phi_s: (0.0, 1.0)}),
        Step("the same for the middle critical point (k = 1)", lhs=(4 * t_of(1) ** 3 - 3 * t_of(1) ** 2 + KAPPA_OF_PHI), rhs=0,
             domain={phi_s: (0.0, 1.0)}),
        Step("t_L = 1/4 + cos(phi - 2pi/3)/2 = sin(phi/2 + pi/3) sin(phi/2) (no cancellation at small kappa)",
             lhs=t_of(-1), rhs=sp.sin(phi_s / 2 + sp.pi / 3) * sp.sin(phi_s / 2), domain={phi_s: (0.0, 1.0)}),
        Step("phi = (2/3) asin(2 sqrt(kappa)) solves cos(3 phi) = 1 - 8 kappa (accurate at small kappa)",
             lhs=sp.cos(2 * sp.asin(2 * sp.sqrt(kap_s))), rhs=1 - 8 * kap_s, domain={kap_s: (0.001, 0.25)}),
        Step("one positive root of (10) unless m0 rho > 0 and gamma m > 0 (Descartes): the exact count of "
             "relu.stationary_points at 80 points of the other sign patterns", lhs=positive_root_count, rhs=sp.Integer(1),
             search=_descartes_points, cites=("(10)",),
             fidelity=Amendment(
                 key="001-eq10-unique-descartes", kind="hypothesis added",
                 what="the uniqueness of the positive root of (10) (the text after (10)) is checked only where "
                      "m0 rho <= 0 or gamma m <= 0",
                 why="with m0 rho > 0 and gamma m > 0 (10) can have three positive roots: the printed statement "
                     "is the erratum 001-eq10-unique (a later step)",
                 severity="wrong-value", root="001-eq10-unique")),
        Step("(10) in scale-free form (m > 0): f(sqrt(m) v) = m^2 (v^4 - alpha v^3 + kappa v - 1), "
             "alpha = m0 rho/sqrt(m), kappa = gamma/sqrt(m)",
             lhs=sp.Subs(QUARTIC_SEED, u, sp.sqrt(mpos) * v_s).subs(m, mpos),
             rhs=mpos**2 * G_SCALED.subs({al_s: m0 * rho / sp.sqrt(mpos), ka_s: gamma / sp.sqrt(mpos)}),
             why="theorylab's analysis of (10)'s roots (the sharp condition for three), not a display of the paper"),
        Step("three positive roots need the left critical point v_L (kappa = v^2 (3 alpha - 4 v)) with g(v_L) > 0; "
             "there kappa = 3/(2v) + v^3/2 + (3/(2v)) g(v)", lhs=ka_s.subs(ka_s, v_s**2 * (3 * al_s - 4 * v_s)),
             rhs=sp.Subs(3 / (2 * v_s) + v_s**3 / 2 + 3 / (2 * v_s) * G_SCALED, ka_s, v_s**2 * (3 * al_s - 4 * v_s))),
        Step("3/(2v) + v^3/2 >= 2 for v > 0 (AM-GM, equality at v = 1): three positive roots need kappa > 2, and "
             "two critical points kappa < alpha^3/4, so alpha > 2 (never at gamma = 0; on Fig. 1's range kappa <= "
             "0.01/sqrt(0.01) = 0.1: the root is unique there for every m >= 0.01, not only at the plotted points)",
             lhs=3 / (2 * v_s) + v_s**3 / 2, rhs=sp.Integer(2), relation=">="),
        Step("the condition is sharp: at m = rho = 1, m0 = gamma = t, (10) is (u^2 - 1)(u^2 - t u + 1), three positive "
             "roots for every t > 2 (the smallest counterexample to uniqueness approaches (1, 2, 1, 2))",
             lhs=QUARTIC_SEED.subs({m: 1, rho: 1, m0: t_s, gamma: t_s}), rhs=sp.factor((u**2 - 1) * (u**2 - t_s * u + 1))),
        Step("(10): the positive root is unique (as the seed states it: 'select the (unique ...) positive real "
             "root')", lhs=positive_root_count, rhs=sp.Integer(1),
             erratum=dataclasses.replace(E_UNIQUE, at={"m": 1.0, "m0": 2.5, "rho": 1.0, "gamma": 2.5}),
             cites=("(10)",)),
        Step("relu.stationary_points: p'(r) = 0 at every root it returns (scaled residual)",
             lhs=roots_of_stationary_points, rhs=sp.Integer(0), tol=8 * EPS,
             tol_source="each root is the mpmath root rounded to float64 (half an ulp): " + _STATIONARY_TOL,
             search=_generic_points),
        Step("(11) as printed: where (10) has a single positive root u* (the seed's premise, 'as long as we have a "
             "unique positive stationary point u*'), relu.penalty = p(u*)", lhs=penalty_value_at_root, rhs=p_at_single_root,
             rtol=1e-13, tol_source=_VALUE_RTOL, search=_single_root_points,
             why="as printed: (11) at the positive root of (10), read with its stated premise that the root is "
                 "unique (whether it is unique is the erratum 001-eq10-unique); m = m_h, m0 = m_0h^(1)",
             cites=("(11)",), fidelity=AS_PRINTED),
        Step("(11) with the smallest p over all positive roots of (10) is relu.penalty (the global minimum; with "
             "three roots the seed's single root can be the wrong one)", lhs=penalty_value, rhs=min_p_over_positive_roots,
             rtol=1e-13, tol_source=_VALUE_RTOL, search=_three_root_points, cites=("(11)",),
             fidelity=Amendment(
                 key="001-eq11-global-root", kind="statement replaced",
                 what="u* in (11) is the positive root of (10) with the smallest p, not 'the (unique) positive "
                      "real root'",
                 why="where (10) has three positive roots p has two local minima and a local maximum; (11) at a "
                     "root other than the global minimizer overstates r~ without bound (erratum 001-eq10-unique)",
                 severity="wrong-value", root="001-eq10-unique")),
        Step("relu.penalty's solver: p'(u*) = 0 at the minimizer it returns (scaled residual)",
             lhs=stationarity_residual, rhs=sp.Integer(0), tol=8 * EPS, tol_source=_STATIONARY_TOL, search=_generic_points),
        Step("relu.penalty = p(u*) at the solver's minimizer u*, eq (11)", lhs=penalty_value, rhs=p_at_solver_minimizer,
             rtol=1e-13, tol_source=_VALUE_RTOL, search=_generic_points),
        Step("relu.penalty <= p(u) for every u > 0 (a minimum): 161 u over eight decades", lhs=penalty_value, rhs=p_on_grid,
             relation="<=", rtol=1e-13, tol_source=_VALUE_RTOL.replace("p at the float u* in", "p(u) in"),
             search=_solver_points),
        Step("relu.penalty_aux = relu.penalty at m0 = sqrt(m_aux) (perfect squares: sqrt(m_aux) and m_aux exact)",
             lhs=penalty_aux_value, rhs=penalty_at_sqrt,
             search=lambda: [dict(m=mm, m_aux=a_, rho=r_, gamma=g_) for mm in (1.0, -3.0, 0.01)
                             for a_ in (1.0, 4.0, 0.25, 100.0) for r_, g_ in ((1.0, 0.0), (0.9, 0.3), (-0.5, -2.0))]),
        Step("edge m = 0: relu.penalty is the infimum of (6), gamma^2 + m0^2 (1 - max(rho, 0)^2) (rho = -1, 0, 1 "
             "included)", lhs=penalty_at_m_zero, rhs=infimum_at_m_zero, rtol=4 * EPS,
             tol_source="three float64 products and sums of exact inputs: <= 4 eps relative",
             search=lambda: [dict(m0=a_, rho=r_, gamma=g_) for a_ in (0.0, 1.0, 3.0)
                             for r_ in (-1.0, -0.5, 0.0, 0.5, 1.0)
                             for g_ in (0.0, 2.0, -0.5)],
             why="theorylab's value at an edge the printed (6) and (11) do not reach (at m = 0, m0 rho <= 0 the min "
                 "of (6) is not attained and (10) has no positive root: erratum 001-eq6-divergence)"),
        Step("edge m0 = 0, gamma = 0 (a fresh unit): r~ = min (m/u)^2 + u^2 = 2|m|, exactly l1, for every rho",
             lhs=penalty_m0_zero, rhs=lambda m, rho: 2 * abs(m), rtol=8 * EPS, tol_source=_EDGE_RTOL,
             search=lambda: [dict(m=mm, rho=r_) for mm in (1.0, -2.0, 0.01, 100.0, 3.7, -1e-6)
                             for r_ in (-1.0, 0.0, 1.0)],
             why="theorylab's edge value (the cosine rho is 0/0 at m0 = 0 and drops out), not a display of the paper"),
        Step("edge rho = -1: r~ > m0^2 (a unit pointing against its pretrained weights costs more than their whole "
             "norm), m0 = 0 and gamma = 0 included", lhs=penalty_value, rhs=lambda m, m0, rho, gamma: m0 * m0, relation=">",
             search=_edge_points_rho_minus_one, why="theorylab's edge bound, not a display of the paper"),
        Step("p(m, gamma) = p(-m, -gamma) in (8)", lhs=sp.Subs(P_SEED, (m, gamma), (-m, -gamma)), rhs=P_SEED,
             why="a symmetry of (8) theorylab uses (the paper assumes m_aux > 0 WLOG), not a display of the paper"),
        Step("so relu.penalty(m, gamma) = relu.penalty(-m, -gamma), and r~ is even in m at gamma = 0", lhs=penalty_value,
             rhs=penalty_neg, search=lambda: [dict(m=mm, m0=a_, rho=r_, gamma=g_) for mm in (1.0, 0.01, 3.0)
                                         for a_ in (0.0, 1.0, 3.0) for r_ in (-1.0, 0.5, 1.0) for g_ in (0.0, 4.0)]),
        Step("rho = 1, gamma = m0: p(m/u) = p(u), so two local minima always tie (the minimizer jumps)",
             lhs=P_SEED.subs({rho: 1, gamma: m0, u: mpos / u, m: mpos}), rhs=P_SEED.subs({rho: 1, gamma: m0, m: mpos})),
        Step("envelope theorem: dr~/dm = dp/dm at u* = 2 (m/u - gamma)/u", lhs=sp.Derivative(P_SEED, m),
             rhs=2 * (m / u - gamma) / u),
        Step("log-slope forms agree at stationary points: m dp/dm - 2u(u - m0 rho) = -u p'(u)",
             lhs=m * sp.Derivative(P_SEED, m) - 2 * u * (u - m0 * rho), rhs=-u * D_P),
        Step("relu.log_slope (envelope theorem at the solver's u*) = d log r~/d log|m| of relu.penalty by "
             "Richardson-extrapolated central differences", lhs=log_slope_value, rhs=log_slope_by_differences, tol=1e-9,
             tol_source="Richardson on central differences with h = 1e-3 in log|m|: truncation h^4 |d^5 log r~/"
                        "dt^5|/30 <= 3e-11 where that derivative is below 1e3 (points away from ties and the triple "
                        "root), plus rounding 2.5 delta/h = 2.5e-12 for the solver's relative error delta <= 1e-15",
             search=_generic_points),
    ))

FIG_M_NEAR_ONE = tuple(float(x) for x in np.linspace(0.5, 2.0, 16))


def aux_100(m, rho, gamma):
    """relu.penalty_aux at m_aux = 100"""
    return penalty_aux(m=m, m_aux=100.0, rho=rho, gamma=gamma)


def aux_001(m, rho, gamma):
    """relu.penalty_aux at m_aux = 0.01"""
    return penalty_aux(m=m, m_aux=0.01, rho=rho, gamma=gamma)


def aux_1(m, rho, gamma):
    """relu.penalty_aux at m_aux = 1"""
    return penalty_aux(m=m, m_aux=1.0, rho=rho, gamma=gamma)


def slope_aux_1(m, rho, gamma):
    """relu.log_slope at m0 = sqrt(m_aux) = 1"""
    return log_slope(m=m, m0=1.0, rho=rho, gamma=gamma)


def _l1_regime_points():
    """m in [1e-2, 1e3] (101 log-spaced) where relu.log_slope at m_aux = 1 is within 0.2 of 1 (the l1-like regime),
    for rho in (1, 0.99) and both Fig. 1 gammas."""
    def l1_like(x, r_, g_):
        try:
            return abs(float(slope_aux_1(x, r_, g_)) - 1) <= 0.2
        except DomainError:  # the zero set m = gamma m0 (rho = 1): the slope is undefined there
            return False

    ms = np.logspace(-2, 3, 101)
    return [dict(m=float(x), rho=r_, gamma=g_) for r_ in (1.0, 0.99) for g_ in FIG_GAMMAS for x in ms
            if l1_like(float(x), r_, g_)]


def figure_root_counts(m_aux, rho, gamma):
    """the number of positive roots of (10) (relu.stationary_points) at m0 = sqrt(m_aux), 9 log-spaced m in
    [1e-2, 1e2]"""
    return np.array([positive_root_count(float(x), math.sqrt(m_aux), rho, gamma) for x in np.logspace(-2, 2, 9)])


E_DLOG_AT = dataclasses.replace(E_DLOG, at={"m": 2})

DERIVATIONS_CLAIMS = Derivation(
    key="relu.claims", title="Sec. 1.2: the log-derivative, rho = 1 against seed 000's diagonal-network penalty",
    source=SEED, where="Sec. 1.2", entries=("relu.log_slope", "relu.penalty", "relu.penalty_aux"),
    steps=(
        Step("the plotted d log(r~)/dm is 2 for the l2 norm r = m^2", lhs=sp.Derivative(sp.log(mpos**2), mpos), rhs=2,
             erratum=E_DLOG_AT),
        Step("the log-log slope m d log(r)/dm is 2 for r = m^2 and 1 for r = |m|",
             lhs=sp.Matrix([mpos * sp.Derivative(sp.log(mpos**2), mpos), mpos * sp.Derivative(sp.log(mpos), mpos)]),
             rhs=sp.Matrix([2, 1])),
        Step("Sec. 1.2: a pretrained unit of minimum parameter norm has m0 = sqrt(m_aux): (m_aux/u)^2 + u^2 >= 2 m_aux",
             lhs=(Maux / u) ** 2 + u**2, rhs=2 * Maux, relation=">="),
        Step("... with equality at u = ||w_0h^(1)|| = sqrt(m_aux)", lhs=sp.Subs((Maux / u) ** 2 + u**2, u, sp.sqrt(Maux)),
             rhs=2 * Maux),
        Step("rho = 1: p = 0 at m = gamma m0, u = m0 (the initialization itself)", lhs=sp.Subs(P_SEED, *AT_INIT), rhs=0),
        Step("rho = 1: p'(m0) = 0 there", lhs=sp.Subs(D_P, *AT_INIT), rhs=0),
        Step("rho = 1: relu.penalty = 0 at m = gamma m0 (dyadic points, the product exact)", lhs=penalty_value,
             rhs=sp.Integer(0), search=lambda: [dict(m=g_ * a_, m0=a_, rho=1.0, gamma=g_)
                                            for a_, g_ in ((1.0, 2.0), (0.5, 3.0), (4.0, -0.25), (2.0, 0.0))]),
        Step("rho = 1: r~''(gamma m0) = p_mm - p_mu^2/p_uu = 2/(m0^2 + gamma^2) (implicit function theorem)",
             lhs=sp.Subs(CURV_RHO1, *AT_INIT), rhs=2 / (m0**2 + gamma**2), domain={m0: (0.1, 3.0)}),
        _qcurv_step(),
        Step("Fig. 1a: rho = 1, m ~ 1 (m in [0.5, 2]): m_aux = 100 has a smaller penalty than m_aux = 0.01",
             lhs=aux_100, rhs=aux_001, relation="<",
             search=lambda: [dict(m=x, rho=1.0, gamma=g_) for g_ in FIG_GAMMAS for x in FIG_M_NEAR_ONE]),
        Step("Fig. 1a: rho = 0.9, m ~ 1 (m in [0.5, 2]): m_aux = 100 has a larger penalty than m_aux = 0.01 (the "
             "reversal)", lhs=aux_100, rhs=aux_001, relation=">",
             search=lambda: [dict(m=x, rho=0.9, gamma=g_) for g_ in FIG_GAMMAS for x in FIG_M_NEAR_ONE]),
        Step("Sec. 1.2 '(whereas if the weights are comparable in magnitude it will benefit)': rho = 0.9, m ~ m_aux = "
             "100 (m in [50, 200]): m_aux = 100 has a smaller penalty than m_aux = 0.01 (the reversal is for small m "
             "only)", lhs=aux_100, rhs=aux_001, relation="<",
             search=lambda: [dict(m=float(x), rho=0.9, gamma=g_) for g_ in FIG_GAMMAS
                             for x in np.linspace(50, 200, 16)]),
        Step("rho near 1 (1, 0.99): in the l1-like regime (log-slope within 0.2 of 1 at m_aux = 1) a gap remains: "
             "r~(m_aux = 0.01) > r~(m_aux = 1)", lhs=aux_001, rhs=aux_1, relation=">", search=_l1_regime_points),
        Step("rho = 0.9: l1-like at m ~ m_aux = 1 (m in [0.5, 2]): the log-slope is nearer 1 than 2 (below 1.5)",
             lhs=slope_aux_1, rhs=sp.Rational(3, 2), relation="<",
             search=lambda: [dict(m=x, rho=0.9, gamma=g_) for g_ in FIG_GAMMAS for x in FIG_M_NEAR_ONE]),
        Step("rho < 1 (0.99, 0.9): the log-slope stays below 2 for every m in [1e-3, 1e3] (gamma = 0)",
             lhs=slope_aux_1, rhs=sp.Integer(2), relation="<",
             search=lambda: [dict(m=float(x), rho=r_, gamma=0.0) for r_ in (0.99, 0.9)
                             for x in np.logspace(-3, 3, 121)]),
        Step("on Fig. 1's range p has a single local minimum (the seed's 'all empirical cases'): one positive root "
             "of (10) for m in [1e-2, 1e2] (9 log-spaced), each m_aux, rho and gamma of the figure (between them the "
             "proved condition kappa > 2 decides: kappa <= 0.1 on the whole range)",
             lhs=figure_root_counts, rhs=sp.Integer(1),
             search=lambda: [dict(m_aux=a_, rho=r_, gamma=g_) for a_ in (0.01, 1.0, 100.0)
                             for r_ in (1.0, 0.99, 0.9) for g_ in FIG_GAMMAS]),
    ))

DERIVATIONS = (DERIVATIONS_MAIN, DERIVATIONS_CLAIMS)
