"""l12: the l1,2 reduction of multi-task diagonal and ReLU networks (seed 000, App. B).

The minimum parameter norm (26) of a network realizing beta is 2 ||beta||_{1,2} (eqs 28-30), and the same
per hidden unit for ReLU networks (eqs 33-35).
"""
from __future__ import annotations


import math

import mpmath
import numpy as np
import sympy as sp

from theorylab.authoring import golden_mp
from theorylab.authoring import AS_PRINTED, Amendment, Derivation, Erratum, Step
from theorylab.authoring import Entry, Source
from theorylab.authoring import matrix, vector

SEED = "000_a994d0e1146a9c4a.txt"


def norms(A: np.ndarray, axis: int) -> np.ndarray:
    """Euclidean norms along an axis without overflow or underflow (scaled by the largest magnitude)."""
    scale = np.max(np.abs(A), axis=axis, keepdims=True)
    safe = np.where(scale > 0, scale, 1.0)
    return (np.squeeze(safe, axis=axis) * np.sqrt(np.sum((A / safe) ** 2, axis=axis)))


def _mp_norms(A, axis):
    with mpmath.workdps(40):
        rows = A.T if axis == 0 else A
        return [mpmath.sqrt(sum(mpmath.mpf(float(x)) ** 2 for x in r)) for r in rows]


def _inf_over_z(sq):
    """inf_{z>0} z^2 + sq/z^2 for sq = ||b||_2^2 >= 0 (an mpf), by golden-section search over t = log z.

    The function e^{2t} + sq e^{-2t} is convex in t, so golden section on [-800, 800] (every float64
    magnitude of ||b||) converges to its minimum; stopped at a bracket of 1e-12 in t, where the value is
    within 2e-24 relative of the infimum. sq = 0: the infimum of z^2 is 0, approached as z -> 0 (not attained).
    No closed form of the minimizer is used.
    """
    if sq == 0:
        return mpmath.mpf(0)
    f = lambda t: mpmath.exp(2 * t) + sq * mpmath.exp(-2 * t)  # noqa: E731
    return golden_mp(f, -800, 800, iters=None, xtol=mpmath.mpf(10) ** -12)[1]


def _per_vector_min(A, axis):
    """sum over the vectors along `axis` of the defining infimum (28), each solved numerically (40 digits)."""
    with mpmath.workdps(40):
        rows = np.asarray(A).T if axis == 0 else np.asarray(A)
        return float(sum(_inf_over_z(sum(mpmath.mpf(float(x)) ** 2 for x in r)) for r in rows))


def _unit_reference(b):
    """inf_{z>0} z^2 + ||b||^2/z^2 solved numerically: golden section over log z at 40 digits (eq 28)."""
    return _per_vector_min(np.asarray(b)[None, :], 1)


def _norm_reference(beta):
    """sum_d ||beta_{:,d}||_2 from the definition in 40-digit arithmetic (sum of squares, square root; no scaling)."""
    return float(sum(_mp_norms(beta, 0)))


def _min_param_norm_reference(beta):
    """sum_d inf_{z>0} z^2 + ||beta_d||^2/z^2: the per-dimension problem (27)-(28) solved numerically
    (golden section over log z, 40 digits), not its closed-form minimum (29)-(30)."""
    return _per_vector_min(beta, 0)


def _relu_min_param_norm_reference(m):
    """sum_h inf_{z>0} z^2 + ||m_h||^2/z^2: the per-unit problem (33)-(34) solved numerically (golden section)."""
    return _per_vector_min(m, 1)


class _StatePoint(dict):
    """A search point some of whose values (`state_values`: here the minimizer z) are computed from the same state as
    the step's side, so the machine comparison (#24) knows that the print's z is the step's minimizer, not an input."""
    state_values: frozenset = frozenset()


def _argmin_z(sq):
    """The minimizer z* > 0 of (28), z^2 + sq/z^2 (sq = ||b||_2^2 > 0 an mpf), by golden section over t = log z at
    60 digits to a bracket of 1e-28 in t (so z* to ~1e-28 relative; the objective is convex in t). No closed form of
    the minimizer (29) is used."""
    with mpmath.workdps(60):
        f = lambda t: mpmath.exp(2 * t) + sq * mpmath.exp(-2 * t)  # noqa: E731
        return mpmath.exp(golden_mp(f, -800, 800, iters=None, xtol=mpmath.mpf(10) ** -28)[0])


def _argmin_sq(*coords):
    """z*^2 for (28) with ||b||_2^2 the sum of the coordinates' squares (60-digit arithmetic; a float)"""
    with mpmath.workdps(60):
        return float(_argmin_z(mpmath.fsum(mpmath.mpf(float(c)) ** 2 for c in coords)) ** 2)


def _argmin_points(names):
    """(29)/(34) in the two-output instance: points (name_1, name_2) with the minimizer z* of (28)/(33) as the print's
    z (a state value)"""
    for a, b in ((1.0, 0.0), (0.3, -0.4), (2.5, 1.5), (-7.0, 0.01), (1e-3, 2e-3), (40.0, -9.0)):
        with mpmath.workdps(60):
            zs = float(_argmin_z(mpmath.mpf(a) ** 2 + mpmath.mpf(b) ** 2))
        pt = _StatePoint({names[0]: a, names[1]: b, "z": zs})
        pt.state_values = frozenset({"z"})
        yield pt


def _cost(**point):
    """the parameter norm of the realization in the point: the sum of the squares of its weights w1, w2_1, w2_2
    ((28)/(30), one input dimension) or r_1..r_3, n_1, n_2 ((33)/(35), one unit), at 40 digits on the float weights"""
    names = ("w1", "w2_1", "w2_2") if "w1" in point else ("r_1", "r_2", "r_3", "n_1", "n_2")
    with mpmath.workdps(40):
        return mpmath.fsum(mpmath.mpf(float(point[k])) ** 2 for k in names)


def _diag_realizations(optimal):
    """(28)/(30) in the two-output instance (O = 2): the realization w1 = z, w2_o = beta_o/z of beta_d = (beta_1,
    beta_2) ("we can set w_{+,o,d}^(2) := beta_{o,d}/z"), at given z > 0 or (optimal) at the minimizer z* of (28)
    (`_argmin_z`); the weights are state values of the point"""
    for a, b, zz in ((1.0, 0.5, 0.7), (0.3, -0.4, 2.0), (2.5, 1.5, 1.3), (-7.0, 0.01, 0.2), (40.0, -9.0, 5.0)):
        if optimal:
            with mpmath.workdps(60):
                zz = float(_argmin_z(mpmath.mpf(a) ** 2 + mpmath.mpf(b) ** 2))
        pt = _StatePoint(beta_1=a, beta_2=b, z=zz, O=2, w1=zz, w2_1=a / zz, w2_2=b / zz)
        pt.state_values = frozenset({"w1", "w2_1", "w2_2"} | ({"z"} if optimal else set()))
        yield pt


def _relu_unit_realizations(optimal):
    """(33)/(35) for one unit in the instance d = 3, O = 2: w_h^(1) = z v/||v|| = (r_1, r_2, r_3), w_h^(2) = m_h/z =
    (n_1, n_2) ("we can set w_h^(2) := m_h/z"), at given z > 0 or (optimal) at the minimizer z* of (33); the
    weights are state values of the point"""
    for (a, b), v, zz in (((1.0, 0.5), (1.0, 2.0, -2.0), 0.7), ((0.3, -0.4), (0.5, 0.0, 1.0), 2.0),
                          ((2.5, 1.5), (-1.0, 1.0, 1.0), 1.3), ((-7.0, 0.01), (3.0, 4.0, 0.0), 0.2)):
        if optimal:
            with mpmath.workdps(60):
                zz = float(_argmin_z(mpmath.mpf(a) ** 2 + mpmath.mpf(b) ** 2))
        nv = math.sqrt(sum(c * c for c in v))
        pt = _StatePoint(m_1=a, m_2=b, z=zz, r_1=zz * v[0] / nv, r_2=zz * v[1] / nv, r_3=zz * v[2] / nv,
                         n_1=a / zz, n_2=b / zz)
        pt.state_values = frozenset({"r_1", "r_2", "r_3", "n_1", "n_2"} | ({"z"} if optimal else set()))
        yield pt


REALIZATION_SOURCE = ("the weights of the realization rounded to float64 (z v/||v||, beta_o/z, m_o/z: a few ulp each, "
                      "relative); the sum of their squares at 40 digits against the right side from the float inputs")


ARGMIN_SOURCE = ("z* by golden section over log z at 60 digits to a bracket of 1e-28 (z*^2 to ~1e-27 relative), "
                 "the norm from the float inputs; the float64 result rounds at 1.1e-16")


def _strategy(rows: str, cols: str, name: str):
    def make():
        from hypothesis import strategies as st
        from hypothesis.extra import numpy as hnp

        @st.composite
        def draw(d):
            shape = (d(st.integers(1, 4)), d(st.integers(1, 4)))
            return {name: d(hnp.arrays(np.float64, shape, elements=st.floats(-1e150, 1e150, allow_subnormal=False)))}

        return draw()

    return make


b_p = vector("b", "O", "the outputs' coefficients of one input dimension, beta_{:,d}")
beta_p = matrix("beta", "O", "D", "multi-task predictor: row o = task o, column d = input dimension")
m_p = matrix("m", "H", "O", "per-unit output magnitudes: row h = m_h = w_h^(2) ||w_h^(1)||")

unit = Entry(
    id="l12.unit", title="The per-dimension problem inf_{z>0} z^2 + ||b||^2/z^2",
    source=Source(SEED, "eqs (28)-(29)"),
    doc="The infimum over the first-layer weight z of the parameter norm of one input dimension: 2||b||_2, "
        "attained at z^2 = ||b|| for b != 0; for b = 0 it is 0 and not attained (z -> 0).",
    params=(b_p,), lhs=r"\inf_{z>0}\, z^2 + \frac{\|b\|_2^2}{z^2}", display=r"2\|b\|_2",
    compute=lambda b: 2 * float(norms(b[None, :], 1)[0]),
    reference=_unit_reference,
    strategy_fn=lambda: __import__("hypothesis.extra.numpy", fromlist=["arrays"]).arrays(
        np.float64, __import__("hypothesis.strategies", fromlist=["integers"]).integers(1, 5),
        elements=__import__("hypothesis.strategies", fromlist=["floats"]).floats(-1e150, 1e150, allow_subnormal=False)
    ).map(lambda a: {"b": a}))
norm = Entry(
    id="l12.norm", title="The l1,2 norm sum_d ||beta_{:,d}||_2", source=Source(SEED, "eq (30)"),
    doc="Sum over input dimensions (columns) of the Euclidean norm across tasks (rows).",
    params=(beta_p,), lhs=r"\|\beta\|_{1,2}", display=r"\sum_{d=1}^{D} \|\beta_{:,d}\|_2",
    compute=lambda beta: float(np.sum(norms(beta, 0))),
    reference=_norm_reference, strategy_fn=_strategy("O", "D", "beta"))
min_param_norm = Entry(
    id="l12.min_param_norm", title="Minimum parameter norm (26) of a multi-task diagonal network realizing beta",
    source=Source(SEED, "eqs (25)-(30)"),
    doc=("min over (w+^(1), w-^(1), w+^(2), w-^(2)) of (26) subject to (25) = beta: 2 ||beta||_{1,2}. Checked against "
         "direct numerical minimization over network weights (verify)."),
    params=(beta_p,), lhs=r"\min_{w:\ \beta(w) = \beta} \|w\|_2^2", display=r"2\|\beta\|_{1,2}",
    compute=lambda beta: 2 * float(np.sum(norms(beta, 0))),
    reference=_min_param_norm_reference, strategy_fn=_strategy("O", "D", "beta"))
relu_min_param_norm = Entry(
    id="l12.relu_min_param_norm", title="Minimum parameter norm of a multi-task ReLU network realizing the m_h",
    source=Source(SEED, "eqs (31)-(35)"),
    doc="min sum_h ||w_h^(1)||^2 + ||w_h^(2)||^2 over networks with m_h = w_h^(2) ||w_h^(1)||: 2 sum_h ||m_h||_2.",
    params=(m_p,), lhs=r"\min \sum_h \|w_h^{(1)}\|^2 + \|w_h^{(2)}\|^2", display=r"2\sum_{h=1}^{H}\|m_h\|_2",
    compute=lambda m: 2 * float(np.sum(norms(m, 1))),
    reference=_relu_min_param_norm_reference, strategy_fn=_strategy("H", "O", "m"))

ENTRIES = (unit, norm, min_param_norm, relu_min_param_norm)

# -- derivation (26)-(30), (33)-(35) -------------------------------------------------------------------
EPS = float(np.finfo(float).eps)
z = sp.Symbol("z", positive=True)
Bn = sp.Symbol("B", positive=True)  # ||beta_d||_2 (or ||m_h||_2)
b1, b2 = sp.symbols("beta_1 beta_2", real=True)
m1, m2 = sp.symbols("m_1 m_2", real=True)
v1, v2, v3 = sp.symbols("v_1:4", real=True)  # a direction of w_h^(1), normalized below
P = z**2 + Bn**2 / z**2

# (25) in one input dimension d (D = 1) with two outputs (O = 2), the instance notation_000 names: the + branch's
# w_{+,d}^(1) = w1, w_{+,o,d}^(2) = w2_o, the - branch's w_{-,d}^(1) = wm1, w_{-,o,d}^(2) = wm2_o; o in {1, 2} is
# the output the print indexes (an integer symbol, sampled at 1 and 2)
w1p, w21p, w22p = sp.symbols("w1 w2_1 w2_2", real=True)
w1m, w21m, w22m = sp.symbols("wm1 wm2_1 wm2_2", real=True)
o_out = sp.Symbol("o", integer=True, positive=True)
x_in = sp.Symbol("x", real=True)


def _by_output(first, second):
    """the output o's value: `first` at o = 1, `second` at o = 2 (O = 2)"""
    return sp.Piecewise((first, sp.Eq(o_out, 1)), (second, True))


# the network of (24)-(25) as a two-layer diagonal network on the doubled input [x, -x] (Woodworth et al.'s X~ =
# [X -X] of App. A, eq (8)): the first layer scales each copy by its own weight, the second maps both to output o
_OUT = [w2 * (w1p * x_in) + wm2 * (w1m * (-x_in)) for w2, wm2 in ((w21p, w21m), (w22p, w22m))]


def _mp(x):
    return mpmath.mpf(float(x))


def _diag_cost(a_p, a_m, c_p, c_m):
    """(26) at the realization (w+^(1), w-^(1), w+^(2), w-^(2)), exactly (40 digits) on the float weights"""
    with mpmath.workdps(40):
        return sum(_mp(x) ** 2 for arr in (a_p, a_m, c_p, c_m) for x in np.ravel(arr))


def _diag_beta(a_p, a_m, c_p, c_m):
    """(25): beta_{o,d} = w+^(2)_{o,d} w+^(1)_d - w-^(2)_{o,d} w-^(1)_d (float64)."""
    return np.asarray(c_p) * np.asarray(a_p)[None, :] - np.asarray(c_m) * np.asarray(a_m)[None, :]


def _mpn_of_realization(a_p, a_m, c_p, c_m):
    """min_param_norm(beta(w)): the entry at the predictor the realization computes"""
    return min_param_norm(beta=_diag_beta(a_p, a_m, c_p, c_m))


def _both_branches_cost(a_p, a_m, c_p, c_m):
    """(26) at a realization whose + and - weights of every dimension are both non-zero"""
    for arr in (a_p, a_m, c_p, c_m):
        if not np.all(np.any(np.atleast_2d(arr) != 0, axis=0)):
            raise ValueError("a branch of some dimension is zero: not a point of the statement")
    return _diag_cost(a_p, a_m, c_p, c_m)


def _realizations():
    """Realizations of (25): simple integer ones first (one branch, both branches, a balanced one), then
    random ones (seeded, O, D <= 4) and balanced ones z_d^2 = ||beta_d|| (where the bound is tight)."""
    yield {"a_p": np.array([1.0]), "a_m": np.array([0.0]), "c_p": np.array([[1.0]]), "c_m": np.array([[0.0]])}
    yield {"a_p": np.array([2.0]), "a_m": np.array([1.0]), "c_p": np.array([[1.0]]), "c_m": np.array([[3.0]])}
    yield {"a_p": np.array([1.0, 2.0]), "a_m": np.array([0.0, 0.0]), "c_p": np.array([[1.0, 2.0], [0.0, 0.0]]),
           "c_m": np.zeros((2, 2))}
    rng = np.random.default_rng(2612)
    for O, D in ((1, 1), (1, 3), (2, 2), (3, 2), (4, 4), (2, 3), (3, 4)):
        yield {"a_p": rng.normal(size=D), "a_m": rng.normal(size=D), "c_p": rng.normal(size=(O, D)),
               "c_m": rng.normal(size=(O, D))}
        beta = rng.normal(size=(O, D))
        zz = np.sqrt(np.linalg.norm(beta, axis=0))
        yield {"a_p": zz, "a_m": np.zeros(D), "c_p": beta / zz, "c_m": np.zeros((O, D))}


def _one_branch_cost(a_p, a_m, c_p, c_m):
    """(27) at the +-only realization of beta(w) with (w+^(1)_d)^2 = ||beta_d||, w+^(2)_{o,d} = beta_{o,d}/w+^(1)_d
    (all - weights zero; beta_d = 0 gets zero weights), summed exactly (40 digits) on the float64 beta(w)"""
    beta = _diag_beta(a_p, a_m, c_p, c_m)
    with mpmath.workdps(40):
        total = mpmath.mpf(0)
        for col in np.atleast_2d(beta).T:
            nb = mpmath.sqrt(sum(_mp(x) ** 2 for x in col))
            if nb == 0:
                continue
            a = mpmath.sqrt(nb)
            total += a ** 2 + sum((_mp(x) / a) ** 2 for x in col)
        return total


def _l1_norm_exact(beta):
    """2 sum_d |beta_{1,d}| for a single-output beta (exact on the floats)"""
    with mpmath.workdps(40):
        return 2 * sum(abs(_mp(x)) for x in np.ravel(beta))


def _single_output():
    """one-row beta (O = 1): simple, then random (seeded) over several magnitudes"""
    yield {"beta": np.array([[1.0]])}
    yield {"beta": np.array([[3.0, -4.0, 0.0]])}
    rng = np.random.default_rng(301)
    for D in (1, 2, 4, 5):
        yield {"beta": rng.normal(size=(1, D)) * 10.0 ** rng.integers(-3, 4, size=D)}


def _relu_unit(w1, w2, x):
    """(31) left: w_h^(2) (<w_h^(1), x>)_+ for one unit, at 50 digits on the float inputs"""
    with mpmath.workdps(50):
        pre = sum(_mp(a) * _mp(c) for a, c in zip(w1, x))
        return np.array([_mp(u) * max(pre, 0) for u in w2])


def _relu_unit_32(w1, w2, x):
    """(31) right: m_h (<theta_h, x>)_+ with m_h = w_h^(2) ||w_h^(1)||, theta_h = w_h^(1)/||w_h^(1)|| (32), 50 digits"""
    with mpmath.workdps(50):
        nrm = mpmath.sqrt(sum(_mp(a) ** 2 for a in w1))
        pre = sum(_mp(a) / nrm * _mp(c) for a, c in zip(w1, x))
        return np.array([_mp(u) * nrm * max(pre, 0) for u in w2])


def _relu_unit_points():
    """one unit, x in R^3, O = 2: active and inactive units (simple ones first), then random (seeded)"""
    yield {"w1": (1.0, 0.0, 0.0), "w2": (1.0, 2.0), "x": (1.0, 0.0, 0.0)}
    yield {"w1": (1.0, 0.0, 0.0), "w2": (1.0, 2.0), "x": (-1.0, 0.0, 0.0)}
    rng = np.random.default_rng(3131)
    for scale in (1e-3, 1.0, 1e3, 1.0, 1.0, 1.0):
        yield {"w1": tuple(scale * rng.normal(size=3)), "w2": tuple(rng.normal(size=2)), "x": tuple(rng.normal(size=3))}


def _relu_unit_1d(**p):
    """(31) middle, one unit in the instance H = 1, d = 1, O = 1: w_h^(2) (<w_h^(1), x>)_+ = w2 max(w1 x, 0) from the
    weights alone, at 50 digits"""
    with mpmath.workdps(50):
        w1, w2, x = _mp(p["w^{(1)}"][0]), _mp(p["w^{(2)}"][0]), _mp(p["x"])
        return w2 * max(w1 * x, 0)


def _relu_unit_1d_32(**p):
    """(31) right, same instance: m_h (<theta_h, x>)_+ with m_h = w_h^(2) ||w_h^(1)||, theta_h = w_h^(1)/||w_h^(1)||
    (32) computed here from the weights (||w1|| = |w1| for d = 1), 50 digits"""
    with mpmath.workdps(50):
        w1, w2, x = _mp(p["w^{(1)}"][0]), _mp(p["w^{(2)}"][0]), _mp(p["x"])
        return w2 * abs(w1) * max(w1 / abs(w1) * x, 0)


def _relu_unit_1d_points():
    """one unit (H = 1), d = O = 1: the weights w^(1) = (w1,), w^(2) = (w2,) (a tuple per unit), the input x, and
    (32)'s m_h, theta_h of the weights (state values: computed from the same weights); active and inactive units,
    w1 of both signs, scales 1e-3 .. 1e3"""
    for w1, w2, x in ((2.0, 0.5, 1.5), (-3.0, 1.25, -0.75), (0.001, -4.0, 2.0), (-700.0, 0.3, 0.02), (1.5, -2.0, -1.0),
                      (-0.25, 3.0, 5.0)):
        pt = _StatePoint({"w^{(1)}": (w1,), "w^{(2)}": (w2,), "x": x, "m": (w2 * abs(w1),), "theta": (w1 / abs(w1),)})
        pt.state_values = frozenset({"m", "theta"})
        yield pt


W1_UNIT, W2_UNIT = "w_{1}^{(1)}", "w_{1}^{(2)}"  # unit h = 1's weights, the names of notation_000's (32) instance


def _unit_output(w1, w2, x):
    """the unit's output w2 (w1 x)_+ (H = 1, d = O = 1), at 50 digits"""
    with mpmath.workdps(50):
        return _mp(w2) * max(_mp(w1) * _mp(x), 0)


def _active_direction(**p):
    """theta_h read off the unit's function alone (d = 1): of the two unit inputs x = -1, +1 the one at which the
    unit's output is non-zero (w2 != 0 at the points; no norm, no quotient)"""
    w1, w2 = p[W1_UNIT], p[W2_UNIT]
    hits = [x for x in (-1, 1) if _unit_output(w1, w2, x) != 0]
    return mpmath.mpf(hits[0]) if len(hits) == 1 else mpmath.nan


def _gain_along_direction(**p):
    """m_h read off the unit's function alone (d = 1): its output at the unit input where it is active (the
    direction above), 50 digits: (31)'s right side m_h (<theta_h, theta_h>)_+ = m_h there"""
    return _unit_output(p[W1_UNIT], p[W2_UNIT], _active_direction(**p))


def _w2_abs_w1(**p):
    """(32)'s m_h for d = O = 1: w_h^(2) |w_h^(1)| (the norm of R^1), 50 digits"""
    with mpmath.workdps(50):
        return _mp(p[W2_UNIT]) * abs(_mp(p[W1_UNIT]))


def _w1_over_abs_w1(**p):
    """(32)'s theta_h for d = 1: w_h^(1)/|w_h^(1)|, 50 digits"""
    with mpmath.workdps(50):
        w1 = _mp(p[W1_UNIT])
        return w1 / abs(w1)


def _unit_weight_points():
    """one unit (H = 1, h = 1), d = O = 1: its weights w_1^(1), w_1^(2) (scalars), w1 of both signs first, scales
    1e-3 .. 1e3, w2 of both signs (never 0: the unit's function then vanishes)"""
    for w1, w2 in ((2.0, 0.5), (-3.0, 1.25), (0.001, -4.0), (-700.0, 0.3), (1.5, -2.0), (-0.25, 3.0)):
        yield {W1_UNIT: w1, W2_UNIT: w2}


def _relu_cost(w1, w2):
    """sum_h ||w_h^(1)||^2 + ||w_h^(2)||^2 (the ReLU network's parameter norm), exactly on the float weights"""
    with mpmath.workdps(40):
        return sum(_mp(x) ** 2 for arr in (w1, w2) for x in np.ravel(arr))


def _relu_mpn_of_realization(w1, w2):
    """relu_min_param_norm(m) at m_h = w_h^(2) ||w_h^(1)|| (32)"""
    m = np.asarray(w2) * np.linalg.norm(np.asarray(w1), axis=1)[:, None]
    return relu_min_param_norm(m=m)


def _relu_realizations():
    """ReLU units (rows of w1 in R^3, rows of w2 in R^O): random ones and balanced ones ||w1_h||^2 = ||m_h||."""
    rng = np.random.default_rng(3535)
    yield {"w1": np.array([[1.0, 0.0, 0.0]]), "w2": np.array([[1.0]])}
    for H, O in ((1, 1), (2, 3), (3, 2), (4, 4)):
        yield {"w1": rng.normal(size=(H, 3)), "w2": rng.normal(size=(H, O))}
        m = rng.normal(size=(H, O))
        u = rng.normal(size=(H, 3))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        zz = np.sqrt(np.linalg.norm(m, axis=1))
        yield {"w1": u * zz[:, None], "w2": m / zz[:, None]}


def _matrices():
    """beta (O x D) and b vectors for the value steps: simple integer ones, then random ones (seeded)."""
    yield {"beta": np.array([[1.0]])}
    yield {"beta": np.array([[3.0, 0.0], [4.0, 0.0]])}
    rng = np.random.default_rng(77)
    for O, D in ((1, 4), (2, 3), (4, 2), (3, 3)):
        yield {"beta": rng.normal(size=(O, D)) * 10.0 ** rng.integers(-3, 4, size=D)}


def _unit_points():
    """(b, z) pairs: z around and far from the minimizer."""
    rng = np.random.default_rng(29)
    for b in (np.array([1.0]), np.array([3.0, 4.0]), rng.normal(size=3), 1e3 * rng.normal(size=2)):
        for zv in (1e-3, 0.1, 0.5, 1.0, 2.0, 10.0, 1e3, float(np.sqrt(np.linalg.norm(b)))):
            yield {"b": b, "z": zv}


def _unit_value(b, z):
    """unit(b): the entry's value of inf_{z>0} z^2 + ||b||^2/z^2"""
    return unit(b=b)


def _unit_objective(b, z):
    """z^2 + ||b||^2/z^2 at the given z > 0 (40 digits)"""
    with mpmath.workdps(40):
        return _mp(z) ** 2 + sum(_mp(x) ** 2 for x in b) / _mp(z) ** 2


# The entries' float64 rounding, the margin of the steps that compare an entry with an exact evaluation:
# a scaled column norm errs by <= (O + 2) eps, a sum of D of them by D eps more, O, D <= 4 at the search points
ENTRY_RTOL = 12 * EPS
ENTRY_RTOL_SOURCE = ("float64 rounding of the entry: a scaled Euclidean norm of O <= 4 entries to (O + 2) eps, a sum "
                     "of D <= 4 of them to D eps more (Higham, ch. 3), and beta(w) formed in float64 (eps/2 per entry)")

E_NORM30 = Erratum(
    key="000-B-eq30-norm", source=SEED, where="text after eq (30)",
    says="sum_d ((w+_d^(1))^2 + sum_o (w+_od^(2))^2) = 2 sum_d ||beta_d||_2, 'where the right-hand side of the "
    "equation is the l1,2 norm'",
    truth="the right-hand side 2 sum_d ||beta_d||_2 is twice the l1,2 norm ||beta||_{1,2} = sum_d ||beta_d||_2; the "
    "equation (30) itself is right",
    severity="wrong-constant",
    note="A factor 2 in what the text calls a norm (docs/authoring.md: a wrong-constant erratum in every paper). The "
    "form survives: the minimum parameter norm is a multiple of the l1,2 norm, so its minimizer, the bias App. B and "
    "App. C rely on, is unaffected.",
    at={"beta_1": 1, "beta_2": 0})
E_NORM35 = Erratum(
    key="000-B-eq35-norm", source=SEED, where="text after eq (35)",
    says="sum_h ||w_h^(1)||^2 + ||w_h^(2)||^2 = 2 sum_h ||m_h||_2, 'where the right-hand side of the equation is the "
    "l1,2 norm'",
    truth="the right-hand side is twice the l1,2 norm sum_h ||m_h||_2; the equation (35) itself is right",
    severity="wrong-constant", root="000-B-eq30-norm",
    note="The remark after (30) repeated for ReLU networks: one root; the minimizer is unaffected.",
    at={"m_1": 1, "m_2": 0})
A_NORM30 = Amendment(
    key="000-B-eq30-twice", kind="constant corrected", severity="wrong-constant", root="000-B-eq30-norm",
    what="'the right-hand side is the l1,2 norm' read as 'the right-hand side is twice the l1,2 norm': "
         "min_param_norm(beta) = 2 ||beta||_{1,2}",
    why="the printed remark is off by the factor 2 of (30) (000-B-eq30-norm); the corrected identity is what the "
        "entries l12.min_param_norm and l12.norm implement")

DERIVATIONS = (
    Derivation(key="l12.reduction", title="The l1,2 reduction of multi-task diagonal and ReLU networks", source=SEED,
               where="App. B, eqs (26)-(35)", entries=("l12.unit", "l12.norm", "l12.min_param_norm", "l12.relu_min_param_norm"), steps=(
        Step("'in the minimum-norm solution either all + or all - weights of a dimension are zero': every "
             "realization with both branches non-zero costs more than the minimum",
             lhs=_both_branches_cost, rhs=_mpn_of_realization, relation=">", erratum=Erratum(
                 key="000-B-branches", source=SEED, where="text before eq (27)",
                 says="in the minimum parameter norm solution, for a given input dimension d, either all its + weights or "
                 "all its - weights will be zero",
                 truth="the minimum value 2||beta_d|| is also attained with both branches non-zero when w+^(2) w+^(1) and "
                 "-w-^(2) w-^(1) point the same way (w+ = (1, 1), w- = (1, -1) realize beta = 2 at cost 4 = 2|beta|); "
                 "the reduction to one branch is a choice (WLOG), not a property of every minimizer",
                 severity="proof-gap",
                 note="A false step of the argument, not of its result: the text uses it only to take all - weights "
                 "zero 'without loss of generality', and that needs just one minimizer with a zero branch, which "
                 "exists (the next steps check it); the minimum value (30) is unaffected.",
                 at={"a_p": np.array([1.0]), "a_m": np.array([1.0]), "c_p": np.array([[1.0]]),
                     "c_m": np.array([[-1.0]])})),
        Step("both branches cost at least 2||beta_d||: (26) at any realization w >= min_param_norm(beta(w))",
             lhs=_diag_cost, rhs=_mpn_of_realization, relation=">=", search=_realizations, rtol=ENTRY_RTOL,
             tol_source=ENTRY_RTOL_SOURCE,
             why="(25) and (26) as printed (the realization and the total parameter norm, unchanged); a^2 + ||c||^2 "
                 ">= 2||a c|| (AM-GM) per branch and ||a+ c+|| + ||a- c-|| >= ||beta_d|| (triangle)",
             cites=('(25)', '(26)'), fidelity=AS_PRINTED),
        Step("(25) as printed in one input dimension d (D = 1, O = 2): beta_{o,d} is the coefficient of x_d in output o "
             "of the diagonal network on [x, -x], w_{+,o,d}^(2) w_{+,d}^(1) - w_{-,o,d}^(2) w_{-,d}^(1)",
             lhs=_by_output(sp.Derivative(_OUT[0], x_in), sp.Derivative(_OUT[1], x_in)),
             rhs=_by_output(w21p * w1p - w21m * w1m, w22p * w1p - w22m * w1m), domain={o_out: (1, 2)},
             why="(24) makes beta_{o,d} the coefficient of x_d in output o; the network computes output o as "
                 "w_{+,o,d}^(2) (w_{+,d}^(1) x_d) + w_{-,o,d}^(2) (w_{-,d}^(1) (-x_d)) (the diagonal layer on the "
                 "doubled input of App. A's X~ = [X -X]); D = 1, O = 2 with o the output index (notation_000: w1, "
                 "w2_o, wm1, wm2_o)",
             cites=("(25)",), fidelity=AS_PRINTED),
        Step("(27) suffices: the +-only realization of beta(w) with z_d^2 = ||beta_d|| costs no more than (26) at w",
             lhs=_one_branch_cost, rhs=_diag_cost, relation="<=", search=_realizations, rtol=ENTRY_RTOL,
             tol_source=ENTRY_RTOL_SOURCE, cites=("(27)",), fidelity=AS_PRINTED,
             why="the reduction to the + branch ('without loss of generality'): for every realization there is a "
                 "+-only one of the same beta that is no more expensive"),
        Step("(28): w^(2)_{o,d} = beta_{o,d}/z gives z^2 + ||beta_d||^2/z^2",
             lhs=z**2 + (b1 / z) ** 2 + (b2 / z) ** 2, rhs=z**2 + (b1**2 + b2**2) / z**2,
             why="(28) as printed at O = 2 (a sum of the same term over o: the instance is the general case; the value "
             "steps below take O <= 4)", cites=('(28)',), fidelity=AS_PRINTED),
        Step("(29): the derivative of (28) vanishes at z^2 = ||beta_d||",
             lhs=sp.Subs(sp.Derivative(P, z), z, sp.sqrt(Bn)), rhs=0,
             why="(29) and (34) as printed: B = ||beta_d||_2 (or ||m_h||_2), z = z_d (or z_h)", cites=('(29)', '(34)'),
             fidelity=AS_PRINTED),
        Step("(28) as printed at the realization w1 = z, w2_o = beta_o/z of beta_d (O = 2): (w_{+,d}^(1))^2 + "
             "sum_o (w_{+,o,d}^(2))^2 = z^2 + ||beta_d||^2/z^2",
             lhs=_cost, rhs=z**2 + (b1**2 + b2**2) / z**2, search=lambda: _diag_realizations(False), rtol=1e-15,
             tol_source=REALIZATION_SOURCE,
             why="(28) as printed, both sides: the text's realization ('we can set w_{+,o,d}^(2) := beta_{o,d}/z', "
                 "(w_{+,d}^(1))^2 = z_d^2) in the point, its parameter norm against z^2 + ||beta_d||^2/z^2",
             cites=('(28)',), fidelity=AS_PRINTED),
        Step("(30) as printed for one input dimension d (D = 1, O = 2): at the realization with z = z* (the "
             "minimizer of (28), solved directly), (w_{+,d}^(1))^2 + sum_o (w_{+,o,d}^(2))^2 = 2||beta_d||_2",
             lhs=_cost, rhs=2 * sp.sqrt(b1**2 + b2**2), search=lambda: _diag_realizations(True), rtol=1e-15,
             tol_source=REALIZATION_SOURCE + "; z* to ~1e-27 relative (golden section at 60 digits)",
             why="(30) as printed, one summand (notation_000's one-unit reading): the cost of the optimal realization "
                 "against 2||beta_d||_2", cites=('(30)',), fidelity=AS_PRINTED),
        Step("(33) as printed at the realization w_h^(1) = z v/||v||, w_h^(2) = m_h/z (d = 3, O = 2): "
             "||w_h^(1)||^2 + ||w_h^(2)||^2 = z^2 + ||m_h||^2/z^2",
             lhs=_cost, rhs=z**2 + (m1**2 + m2**2) / z**2, search=lambda: _relu_unit_realizations(False), rtol=1e-15,
             tol_source=REALIZATION_SOURCE,
             why="(33) as printed, both sides: the text's realization (||w_h^(1)||_2 = z_h, 'we can set w_h^(2) := "
                 "m_h/z') in the point", cites=('(33)',), fidelity=AS_PRINTED),
        Step("(35) as printed for one unit (H = 1, d = 3, O = 2): at the realization with z = z* (the minimizer of "
             "(33), solved directly), ||w_h^(1)||^2 + ||w_h^(2)||^2 = 2||m_h||_2",
             lhs=_cost, rhs=2 * sp.sqrt(m1**2 + m2**2), search=lambda: _relu_unit_realizations(True), rtol=1e-15,
             tol_source=REALIZATION_SOURCE + "; z* to ~1e-27 relative (golden section at 60 digits)",
             why="(35) as printed, one summand (notation_000's one-unit reading)", cites=('(35)',),
             fidelity=AS_PRINTED),
        Step("(29) as printed: the minimizer z* of (28) over z > 0, solved directly, has z*^2 = ||beta_d||_2 "
             "(O = 2: beta_d = (beta_1, beta_2))",
             lhs=lambda beta_1, beta_2, z: _argmin_sq(beta_1, beta_2), rhs=sp.sqrt(b1**2 + b2**2),
             search=lambda: _argmin_points(("beta_1", "beta_2")), rtol=4e-16, tol_source=ARGMIN_SOURCE,
             why="(29) as printed, z = z_d the minimizer 'setting the derivative to zero' selects; the point carries z* "
                 "(the print's z_d) and the step's left side is the minimization itself, not (29)'s closed form",
             cites=('(29)',), fidelity=AS_PRINTED),
        Step("(34) as printed: the minimizer z* of (33) over z > 0, solved directly, has z*^2 = ||m_h||_2 "
             "(O = 2: m_h = (m_1, m_2))",
             lhs=lambda m_1, m_2, z: _argmin_sq(m_1, m_2), rhs=sp.sqrt(m1**2 + m2**2),
             search=lambda: _argmin_points(("m_1", "m_2")), rtol=4e-16, tol_source=ARGMIN_SOURCE,
             why="(34) as printed, z = z_h the minimizer of (33) (its right side z^2 + ||m_h||^2/z^2 is (28)'s); the "
                 "point carries z* (the print's z_h)", cites=('(34)',), fidelity=AS_PRINTED),
        Step("(29) is the global minimum: z^2 + B^2/z^2 - 2B = (z - B/z)^2 >= 0", lhs=P - 2 * Bn, rhs=(z - Bn / z) ** 2,
             why="theorylab's completion of (29): the text only sets the derivative to zero"),
        Step("(30): the value of (28) at z^2 = ||beta_d|| is 2||beta_d||", lhs=sp.Subs(P, z, sp.sqrt(Bn)), rhs=2 * Bn,
             why="(30) and (35) as printed, summand by summand: B = ||beta_d||_2 (or ||m_h||_2)",
             premises=("(29): the derivative of (28) vanishes at z^2 = ||beta_d||",), cites=('(30)', '(35)'),
             fidelity=AS_PRINTED),
        Step("(30), one unit d (D = 1, O = 2): (w+_d^(1))^2 + sum_o (w+_od^(2))^2 at w+_d^(1) = z, w+_od^(2) = beta_o/z "
             "(the realization of (28)) with z^2 = ||beta_d||_2 is 2||beta_d||_2",
             lhs=sp.Subs(z**2 + (b1 / z) ** 2 + (b2 / z) ** 2, z, (b1**2 + b2**2) ** sp.Rational(1, 4)),
             rhs=2 * sp.sqrt(b1**2 + b2**2), premises=("(29): the derivative of (28) vanishes at z^2 = ||beta_d||",),
             why="(30) as printed for one summand in the two-output instance beta_d = (beta_1, beta_2) (notation_000)",
             cites=('(30)',), fidelity=AS_PRINTED),
        Step("beta_d = 0: the infimum 0 is approached as z -> 0, not attained", lhs=sp.Limit(z**2, z, 0, "+"), rhs=0),
        Step("l12.unit is below (28) at every z > 0", lhs=_unit_value, rhs=_unit_objective, relation="<=",
             search=_unit_points, rtol=ENTRY_RTOL, tol_source=ENTRY_RTOL_SOURCE, cites=('(28)',), fidelity=AS_PRINTED,
             why="(28) as printed at z > 0, against the printed minimum value 2||beta_d||_2 of (29)-(30) (the entry)"),
        Step("l12.unit equals the infimum of (28) over z > 0 solved directly (golden section over log z, 40 digits)",
             lhs=lambda b: unit(b=b), rhs=_unit_reference, search=lambda: ({"b": p["b"]} for p in _unit_points()),
             rtol=ENTRY_RTOL, tol_source=ENTRY_RTOL_SOURCE + "; golden section to 2e-24 relative", cites=('(28)', '(29)'),
             fidelity=AS_PRINTED, why="(28) as printed, minimized over z; the entry is the printed value 2||b||_2"),
        Step("(30): min_param_norm(beta) equals the sum over d of (28) minimized directly over z_d",
             lhs=lambda beta: min_param_norm(beta=beta), rhs=_min_param_norm_reference, search=_matrices,
             rtol=ENTRY_RTOL, tol_source=ENTRY_RTOL_SOURCE + "; golden section to 2e-24 relative", cites=('(30)',),
             fidelity=AS_PRINTED, why="(30) as printed: its left side is (27) at the optimal z_d, its right side "
                                      "2 sum_d ||beta_d||_2 (the entry)"),
        Step("(30), the remark corrected: the right-hand side is twice the l1,2 norm, "
             "min_param_norm(beta) = 2 ||beta||_{1,2}",
             lhs=lambda beta: min_param_norm(beta=beta), rhs=lambda beta: 2 * norm(beta=beta), search=_matrices,
             rtol=2 * ENTRY_RTOL, tol_source="both entries' float64 rounding: " + ENTRY_RTOL_SOURCE, cites=('(30)',),
             fidelity=A_NORM30),
        Step("text after (30) as printed: the right-hand side 2 sum_d ||beta_d||_2 is the l1,2 norm sum_d ||beta_d||_2",
             lhs=2 * sp.sqrt(b1**2 + b2**2), rhs=sp.sqrt(b1**2 + b2**2), why="O = 2, D = 1: beta_d = (beta_1, beta_2)",
             cites=('(30)',), quotes=("(30) where the right-hand side of the equation is the $\\ell_{1,2}$ norm",),
             erratum=E_NORM30),
        Step("single output (O = 1): the minimum parameter norm is 2 ||beta||_1 (text after (30))",
             lhs=lambda beta: min_param_norm(beta=beta), rhs=_l1_norm_exact, search=_single_output, rtol=ENTRY_RTOL,
             tol_source=ENTRY_RTOL_SOURCE,
             quotes=("the minimum parameter solution to a diagonal linear network with one output minimizes the "
                     "ℓ_1 norm",), fidelity=AS_PRINTED,
             why="the sentence's claim: the minimum parameter norm is 2 ||beta||_1, a positive multiple of the l1 norm, "
                 "so the solution of minimum parameter norm is the one of minimum l1 norm"),
        Step("(31)-(32): w_h^(2) (<w_h^(1), x>)_+ = m_h (<theta_h, x>)_+ with m_h = w_h^(2) ||w_h^(1)||, "
             "theta_h = w_h^(1)/||w_h^(1)||", lhs=_relu_unit, rhs=_relu_unit_32, why="one unit, O = 2, x in R^3; ReLU is positively "
             "homogeneous", search=_relu_unit_points, rtol=1e-40,
             tol_source="both sides at 50 significant digits (mpmath); the quotient by ||w^(1)|| rounds at 1e-50",
             cites=("(31)", "(32)"), fidelity=AS_PRINTED),
        Step("(31) as printed for one unit with scalar weights (H = 1, d = O = 1): w_h^(2) (<w_h^(1), x>)_+ = "
             "m_h (<theta_h, x>)_+, the left from the weights, the right through (32)'s m_h, theta_h",
             lhs=_relu_unit_1d, rhs=_relu_unit_1d_32, search=_relu_unit_1d_points, rtol=1e-40,
             tol_source="both sides at 50 significant digits (mpmath) on float inputs; |w1|/|w1| and the products "
                        "round at 1e-50",
             why="positive homogeneity of the ReLU, max(c a, 0) = c max(a, 0) for c = |w1| > 0; (31)'s sums over h "
                 "have one term (notation_000: H = 1), the inner product of R^1 is the product, (.)_+ is max(., 0); "
                 "the points carry (32)'s m_h, theta_h computed from the weights (state values)",
             cites=("(31)",), fidelity=AS_PRINTED),
        Step("(32) as printed for one unit with scalar weights (H = 1, h = 1, d = O = 1), theta_h: the unit input x = +-1 at "
             "which the unit is active, read off its function, is w_h^(1)/|w_h^(1)|",
             lhs=_active_direction, rhs=_w1_over_abs_w1, search=_unit_weight_points, rtol=1e-40,
             tol_source="both sides exact or at 50 significant digits (mpmath): +-1 against w1/|w1|",
             tex=r"\theta_h = w_h^{(1)} / |w_h^{(1)}|",
             why="(32)'s theta_h is the unit direction of (31)'s m_h (<theta_h, x>)_+: in d = 1 the unit sphere is "
                 "{-1, +1} and the unit is active at exactly one of them; the norm of R^1 is |.| (notation_000)",
             cites=("(32)",), fidelity=AS_PRINTED),
        Step("(32) as printed for one unit with scalar weights (H = 1, h = 1, d = O = 1), m_h: the unit's output at that "
             "direction, read off its function, is w_h^(2) |w_h^(1)|",
             lhs=_gain_along_direction, rhs=_w2_abs_w1, search=_unit_weight_points, rtol=1e-40,
             tol_source="both sides at 50 significant digits (mpmath) on float inputs: one product each",
             tex=r"m_h = w_h^{(2)} |w_h^{(1)}|",
             why="(31)'s right side at x = theta_h is m_h (<theta_h, theta_h>)_+ = m_h, so m_h is the unit's output "
                 "there; the left side evaluates the unit w2 (w1 x)_+ at the direction found above, never (32)'s formula",
             cites=("(32)",), fidelity=AS_PRINTED),
        Step("(33): a ReLU unit with ||w_h^(1)|| = z and w_h^(2) = m_h/z costs z^2 + ||m_h||^2/z^2 (32)",
             lhs=sum((z * v / sp.sqrt(v1**2 + v2**2 + v3**2)) ** 2 for v in (v1, v2, v3)) + (m1 / z) ** 2 + (m2 / z) ** 2,
             rhs=z**2 + (m1**2 + m2**2) / z**2, why="O = 2, w_h^(1) = z v/||v||; ReLU is positively homogeneous, so "
             "(w^(1), w^(2)) -> (c w^(1), w^(2)/c) keeps the function; (33) as printed at O = 2, d = 3",
             cites=('(32)', '(33)'), fidelity=AS_PRINTED),
        Step("(35), one unit (H = 1, O = 2, d = 3): ||w_h^(1)||^2 + ||w_h^(2)||^2 at w_h^(1) = z v/||v||, w_h^(2) = m_h/z "
             "(33) with z^2 = ||m_h||_2 is 2||m_h||_2",
             lhs=sp.Subs(sum((z * v / sp.sqrt(v1**2 + v2**2 + v3**2)) ** 2 for v in (v1, v2, v3)) + (m1 / z) ** 2
                         + (m2 / z) ** 2, z, (m1**2 + m2**2) ** sp.Rational(1, 4)),
             rhs=2 * sp.sqrt(m1**2 + m2**2), premises=("(33): a ReLU unit with ||w_h^(1)|| = z and w_h^(2) = m_h/z costs "
                                                       "z^2 + ||m_h||^2/z^2 (32)",),
             why="(35) as printed for one summand in the two-output instance m_h = (m_1, m_2) (notation_000)",
             cites=('(35)',), fidelity=AS_PRINTED),
        Step("(34)-(35): the ReLU network's parameter norm at any realization >= relu_min_param_norm(m)",
             lhs=_relu_cost, rhs=_relu_mpn_of_realization, relation=">=", search=_relu_realizations, rtol=ENTRY_RTOL,
             tol_source=ENTRY_RTOL_SOURCE, cites=('(35)',), fidelity=AS_PRINTED,
             why="(35) as printed: the parameter norm of (33) at any realization against its printed minimum "
                 "2 sum_h ||m_h||_2 (the entry)"),
        Step("(35): relu_min_param_norm(m) equals the sum over units of (33) minimized directly over z_h",
             lhs=lambda m: relu_min_param_norm(m=m), rhs=_relu_min_param_norm_reference,
             search=lambda: ({"m": p["beta"].T} for p in _matrices()),
             rtol=ENTRY_RTOL, tol_source=ENTRY_RTOL_SOURCE + "; golden section to 2e-24 relative", cites=('(35)',),
             fidelity=AS_PRINTED, why="(35) as printed: (33) minimized over z_h against 2 sum_h ||m_h||_2 (the entry)"),
        Step("text after (35) as printed: the right-hand side 2 sum_h ||m_h||_2 is the l1,2 norm sum_h ||m_h||_2",
             lhs=2 * sp.sqrt(m1**2 + m2**2), rhs=sp.sqrt(m1**2 + m2**2), why="O = 2, H = 1: m_h = (m_1, m_2)",
             cites=('(35)',), quotes=("(35) where the right-hand side of the equation is the $\\ell_{1,2}$ norm",),
             erratum=E_NORM35),
    )),
)
