"""qpenalty family: properties of q and the Q-norm, the implicit-bias solver's KKT conditions."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import theorylab
from theorylab import DomainError
from helpers import run_cli

q = theorylab.get("qpenalty.q")
norm = theorylab.get("qpenalty.norm")
finetune = theorylab.get("qpenalty.finetune")
implicit_bias = theorylab.get("qpenalty.implicit_bias")

reals = st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False)


@pytest.mark.parametrize("z", [1e-8, 1e-3, 1e3, 1e8, 1e150])
def test_q_pinned_points_against_mpmath(z):
    """The contract's pinned points: 1e-10 relative against the adaptive-precision reference."""
    assert abs(q(z=z) - q.reference_value(z=z)) <= 1e-10 * q.reference_value(z=z)


def test_cli_q_at_1e_minus_8_prints_2_5e_minus_17():
    code, out, _ = run_cli("eval", "qpenalty.q", "z=1e-8")
    import json

    assert code == 0 and f"{json.loads(out)['value']:.9e}" == "2.500000000e-17"


@given(reals)
def test_q_is_even_and_nonnegative(z):
    assert q(z=z) == q(z=-z) and q(z=z) >= 0


@given(reals, reals, st.floats(0, 1))
def test_q_is_convex(a, b, lam):
    # each value is accurate to 1e-15 relative, so the inequality holds up to that rounding
    mid = q(z=lam * a + (1 - lam) * b)
    assert mid <= lam * q(z=a) + (1 - lam) * q(z=b) + 1e-14 * (q(z=a) + q(z=b)) + 1e-300


@given(st.floats(1e-150, 1e-4))
def test_q_is_z_squared_over_4_near_zero(z):
    # q(z) = z^2/4 - z^4/192 + ...: relative deviation below z^2/48 (+ rounding)
    assert abs(q(z=z) / (z * z / 4) - 1) <= z * z / 48 + 1e-15


@given(st.floats(1e6, 1e300))
def test_q_is_z_log_z_at_infinity(z):
    # q(z) = z log z - z + O(log z) for large z: the ratio tends to 1 like 1/log z
    assert abs(q(z=z) / (z * np.log(z)) - 1) <= 1.1 / np.log(z)


def test_q_vectorized_matches_scalar_calls():
    zs = np.logspace(-100, 100, 201)
    np.testing.assert_array_equal(q(z=zs), [q(z=v) for v in zs])


@st.composite
def _instance(draw):
    D = draw(st.integers(1, 5))
    beta = draw(hnp.arrays(np.float64, D, elements=st.floats(-10, 10).filter(lambda x: abs(x) > 1e-3)))
    return beta


@given(_instance())
def test_norm_is_l2_like_for_large_k_and_l1_like_for_small_k(beta):
    """Scaling exponent s = log2(||2 beta||_Q / ||beta||_Q): 2 (l2) as k -> oo, 1 (l1) as k -> 0.

    For k >> |beta| the correction is O((beta/k)^2); for k << |beta| the exponent is
    1 + log 2 / log(2|beta|/k) + ..., i.e. within 0.04 of 1 at k = 1e-10 * max|beta|.
    """
    D = beta.size
    def exponent(kk):
        w1 = np.full(D, np.sqrt(kk))
        w2 = np.zeros(D)
        return np.log2(norm(beta=2 * beta, w1=w1, w2=w2) / norm(beta=beta, w1=w1, w2=w2))

    big = 1e6 * np.max(np.abs(beta))
    assert abs(exponent(big) - 2) <= 1e-9
    small = 1e-10 * np.min(np.abs(beta))
    assert 1 <= exponent(small) <= 1 + 2 * np.log(2) / np.log(2 / 1e-10)


@given(_instance(), st.floats(-3, 3))
def test_finetune_is_norm_with_pretrained_weights(beta, gamma):
    aux = np.linspace(0.5, 2.0, beta.size)
    expected = norm(beta=beta, w1=np.sqrt(np.abs(aux)), w2=np.full(beta.size, gamma))
    assert finetune(beta=beta, beta_aux=aux, gamma=gamma) == pytest.approx(expected, rel=1e-14)


def test_unit_at_zero_is_rejected_naming_the_parameters():
    with pytest.raises(DomainError, match="w1 and w2 .* must give k_d > 0"):
        norm(beta=[1.0], w1=[0.0], w2=[0.0])
    with pytest.raises(DomainError, match="beta_aux and gamma .* must give k_d > 0"):
        finetune(beta=[1.0, 2.0], beta_aux=[1.0, 0.0], gamma=0.0)
    with pytest.raises(DomainError, match=r"\|beta_d\| / k_d <= 1e300"):
        norm(beta=[17.0], w1=[0.0], w2=[3e-154])


def test_inconsistent_system_is_rejected():
    with pytest.raises(DomainError, match="y must lie in the column space of X"):
        implicit_bias(X=[[1.0, 1.0], [1.0, 1.0]], y=[1.0, 2.0], w1=[1.0, 1.0], w2=[0.0, 0.0])


@given(implicit_bias.strategy())
def test_implicit_bias_meets_kkt_and_is_minimal(kwargs):
    """Feasibility and stationarity at 50 digits on the float output, against the a-priori rounding bounds
    the derivation states (derivations/qpenalty.py: the solver's stopping rule, beta = k sinh(X^T lam / 2))."""
    from theorylab.derivations.qpenalty_proofs import (_feasibility_bound, _feasibility_residual, _stationarity_bound,
                                      _stationarity_residual)

    X, y, w1, w2 = (np.asarray(kwargs[k]) for k in ("X", "y", "w1", "w2"))
    beta = implicit_bias(**kwargs)
    assert _feasibility_residual(X, y, w1, w2) <= _feasibility_bound(X, y, w1, w2)
    assert _stationarity_residual(X, y, w1, w2) <= _stationarity_bound(X, y, w1, w2)
    # minimality along feasible directions (the penalty is strictly convex): the increase eps^2 v^T H v / 2
    # >= 5e-7 min_d 1/sqrt(k_d^2 + beta_d^2) is far above the float64 rounding of the Q-norm (~1e-15 relative)
    null = np.linalg.svd(X)[2][np.linalg.matrix_rank(X):]
    base = norm(beta=beta, w1=w1, w2=w2)
    for v in null:
        for eps in (1e-3, -1e-3):
            assert norm(beta=beta + eps * v, w1=w1, w2=w2) >= base


def test_implicit_bias_refines_a_stalled_dual_newton():
    """Regression: the dual Newton stalled at beta_1 = 1 - 38 ulps (exact residual 15 eps, over its bound) here;
    the primal refinement brings the residual within the solver's criterion."""
    from theorylab.derivations.qpenalty_proofs import _feasibility_bound, _feasibility_residual, _stationarity_residual

    X = np.array([[2.0, 0.5, 0, 0, 0], [0, 0, 1, 0, 0], [1.5, 0, 0, 0, 0]])
    y, w1, w2 = np.array([2.5, 1.0, 1.5]), np.full(5, 0.25), np.array([2.0, 0, 0, 0, 0])
    assert _feasibility_residual(X, y, w1, w2) <= _feasibility_bound(X, y, w1, w2)
    assert _stationarity_residual(X, y, w1, w2) < 1e-12
