"""l12: the l1,2 reduction of multi-task diagonal and ReLU networks (seed 000, App. B).

The minimum parameter norm (26) of a network realizing beta is 2 ||beta||_{1,2} (eqs 28-30), and the same
per hidden unit for ReLU networks (eqs 33-35).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp

from theorylab.derivation import Derivation, Erratum, Step, claim
from theorylab.entry import Entry, Source
from theorylab.params import matrix, vector

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
    reference=lambda b: float(2 * _mp_norms(b[None, :], 1)[0]),
    strategy_fn=lambda: __import__("hypothesis.extra.numpy", fromlist=["arrays"]).arrays(
        np.float64, __import__("hypothesis.strategies", fromlist=["integers"]).integers(1, 5),
        elements=__import__("hypothesis.strategies", fromlist=["floats"]).floats(-1e150, 1e150, allow_subnormal=False)
    ).map(lambda a: {"b": a}))
norm = Entry(
    id="l12.norm", title="The l1,2 norm sum_d ||beta_{:,d}||_2", source=Source(SEED, "eq (30)"),
    doc="Sum over input dimensions (columns) of the Euclidean norm across tasks (rows).",
    params=(beta_p,), lhs=r"\|\beta\|_{1,2}", display=r"\sum_{d=1}^{D} \|\beta_{:,d}\|_2",
    compute=lambda beta: float(np.sum(norms(beta, 0))),
    reference=lambda beta: float(sum(_mp_norms(beta, 0))), strategy_fn=_strategy("O", "D", "beta"))
min_param_norm = Entry(
    id="l12.min_param_norm", title="Minimum parameter norm (26) of a multi-task diagonal network realizing beta",
    source=Source(SEED, "eqs (25)-(30)"),
    doc=("min over (w+^(1), w-^(1), w+^(2), w-^(2)) of (26) subject to (25) = beta: 2 ||beta||_{1,2}. Checked against "
         "direct numerical minimization over network weights (verify)."),
    params=(beta_p,), lhs=r"\min_{w:\ \beta(w) = \beta} \|w\|_2^2", display=r"2\|\beta\|_{1,2}",
    compute=lambda beta: 2 * float(np.sum(norms(beta, 0))),
    reference=lambda beta: float(2 * sum(_mp_norms(beta, 0))), strategy_fn=_strategy("O", "D", "beta"))
relu_min_param_norm = Entry(
    id="l12.relu_min_param_norm", title="Minimum parameter norm of a multi-task ReLU network realizing the m_h",
    source=Source(SEED, "eqs (31)-(35)"),
    doc="min sum_h ||w_h^(1)||^2 + ||w_h^(2)||^2 over networks with m_h = w_h^(2) ||w_h^(1)||: 2 sum_h ||m_h||_2.",
    params=(m_p,), lhs=r"\min \sum_h \|w_h^{(1)}\|^2 + \|w_h^{(2)}\|^2", display=r"2\sum_{h=1}^{H}\|m_h\|_2",
    compute=lambda m: 2 * float(np.sum(norms(m, 1))),
    reference=lambda m: float(2 * sum(_mp_norms(m, 1))), strategy_fn=_strategy("H", "O", "m"))

ENTRIES = (unit, norm, min_param_norm, relu_min_param_norm)

# -- derivation (26)-(30), (33)-(35) -------------------------------------------------------------------
z = sp.Symbol("z", positive=True)
Bn = sp.Symbol("B", positive=True)  # ||beta_d||_2 (or ||m_h||_2)
b1, b2 = sp.symbols("beta_1 beta_2", real=True)
P = z**2 + Bn**2 / z**2


def _both_branches():
    # beta = 1 (O = D = 1) realized by w+ = (1/sqrt2, 1/sqrt2) and w- = (1/sqrt2, -1/sqrt2):
    # beta = w+2 w+1 - w-2 w-1 = 1/2 + 1/2 = 1 and (26) = 2 = 2|beta|, the minimum, with no branch zero
    r = 1 / math.sqrt(2)
    beta = r * r - (-r) * r
    cost = 4 * r * r
    return False, (f"beta = {beta:.12g} (O = D = 1): w+ = (1/sqrt2, 1/sqrt2), w- = (1/sqrt2, -1/sqrt2) give (26) = "
                   f"{cost:.12g} = 2|beta|, a minimum with both branches non-zero")


def _lower_bound():
    # P_d = sum over branches of a^2 + ||c||^2 >= 2 ||a c|| (AM-GM) and ||a+ c+|| + ||a- c-|| >= ||beta_d||
    rng = np.random.default_rng(0)
    worst = np.inf
    for _ in range(2000):
        a_p, a_m = rng.normal(size=2)
        c_p, c_m = rng.normal(size=(2, 3))
        beta = a_p * c_p - a_m * c_m
        cost = a_p**2 + c_p @ c_p + a_m**2 + c_m @ c_m
        worst = min(worst, cost - 2 * np.linalg.norm(beta))
    return worst >= -1e-12, f"min over 2000 random realizations of (26) - 2||beta_d|| = {worst:.3g} (>= 0)"


DERIVATIONS = (
    Derivation("l12.reduction", "The l1,2 reduction of multi-task diagonal and ReLU networks", SEED,
               "App. B, eqs (26)-(35)", ("l12.unit", "l12.norm", "l12.min_param_norm", "l12.relu_min_param_norm"), (
        Step("'in the minimum-norm solution either all + or all - weights of a dimension are zero'", erratum=Erratum(
            "000-B-branches", SEED, "text before eq (27)",
            "in the minimum parameter norm solution, for a given input dimension d, either all its + weights or all "
            "its - weights will be zero",
            "the minimum value 2||beta_d|| is also attained with both branches non-zero when w+^(2) w+^(1) and "
            "-w-^(2) w-^(1) point the same way; the reduction to one branch is a choice (WLOG), not a property "
            "of every minimizer", "The minimum value (30) is unaffected."),
             check_fn=claim(_both_branches, "explicit realization at beta = 1")),
        Step("both branches cost at least 2||beta_d|| (AM-GM and the triangle inequality)",
             check_fn=claim(_lower_bound, "2000 random realizations (O = 3)")),
        Step("(28): w^(2)_{o,d} = beta_{o,d}/z gives z^2 + ||beta_d||^2/z^2",
             z**2 + (b1 / z) ** 2 + (b2 / z) ** 2, z**2 + (b1**2 + b2**2) / z**2, "O = 2"),
        Step("(29): the derivative vanishes at z^2 = ||beta_d||", sp.diff(P, z).subs(z, sp.sqrt(Bn)), 0),
        Step("(29) is the global minimum: z^2 + B^2/z^2 - 2B = (z - B/z)^2 >= 0", P - 2 * Bn, (z - Bn / z) ** 2),
        Step("(30): the value at z^2 = ||beta_d|| is 2||beta_d||", P.subs(z, sp.sqrt(Bn)), 2 * Bn),
        Step("beta_d = 0: the infimum 0 is approached as z -> 0, not attained", sp.Limit(z**2, z, 0, "+"), 0),
        Step("(33)-(35): the same problem per ReLU unit, z_h^2 = ||m_h||",
             (z**2 + Bn**2 / z**2).subs(z, sp.sqrt(Bn)), 2 * Bn, "||w_h^(1)|| = z, w_h^(2) = m_h/z"),
    )),
)
