"""Tests for verify/tangent_features.py (seed 003, Fig. 1, eqs (2), (7), (19)): tangent features by torch.func,
the path average, kernel alignment, the eq (19) least-squares fit, training, the records' computed verdicts and
bad input.
"""
import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from theorylab._records.evidence import Context, Evidence, Finding
from theorylab.verify import tangent_features as tf

NAMES = ("W1", "W2", "w3")


def _tiny(seed=0, D=4, width=3, N=5):
    gen = torch.Generator().manual_seed(seed)
    X = torch.randn(N, D, generator=gen, dtype=torch.float64)
    return X, tf.init_params(D, width, gen), tf.init_params(D, width, gen)


def _loop_features(params, X):
    """Naive per-example gradients: one autograd backward pass per example."""
    ps = {k: v.clone().requires_grad_(True) for k, v in params.items()}
    rows = [torch.autograd.grad(tf.mlp(ps, X[i]), [ps[k] for k in NAMES]) for i in range(X.shape[0])]
    return torch.stack([torch.cat([g.reshape(-1) for g in row]) for row in rows])


@pytest.mark.parametrize("seed", range(5))
def test_tangent_features_match_autograd_loop(seed):
    X, p0, _ = _tiny(seed)
    G = tf.tangent_features(p0, X)
    assert G.shape == (5, 4 * 3 + 3 * 3 + 3)
    # the same chain rule evaluated in another order: float64 rounding, ~10 ops x 2.2e-16, held to 1e-12
    torch.testing.assert_close(G, _loop_features(p0, X), rtol=0, atol=1e-12 * float(G.abs().max()))
    # the kernel is G G^T and the network is 1-homogeneous in w3: f(x) = grad_w3 f(x) . w3
    K = tf.tangent_kernel(G)
    torch.testing.assert_close(K, G @ G.T, rtol=0, atol=0)
    torch.testing.assert_close(G[:, -3:] @ p0["w3"], tf.mlp(p0, X), rtol=1e-13, atol=1e-13)


def test_path_average_matches_node_loop_and_eq2():
    X, p0, p1 = _tiny(1)
    T = 50
    loop = sum(_loop_features({k: p0[k] + (j + 0.5) / T * (p1[k] - p0[k]) for k in NAMES}, X) for j in range(T)) / T
    Gbar = tf.path_averaged_features(p0, p1, X, T, chunk=3)
    torch.testing.assert_close(Gbar, loop, rtol=0, atol=1e-12 * float(loop.abs().max()))  # summation order only
    # eq (2): G_bar (theta - theta0) = f_theta - f_theta0 up to the midpoint error E_T, bounded by the halving
    # estimate |Q_T - Q_2T| / (1 - rho) with |E_2T| <= rho |E_T|: rho = 1/2 for an O(1/T) rule (ReLU switches
    # make the integrand jump), taken as 3/4 (the bound verify uses)
    delta = torch.cat([(p1[k] - p0[k]).reshape(-1) for k in NAMES])
    df = tf.mlp(p1, X) - tf.mlp(p0, X)
    for T in (50, 200):
        err = float(torch.linalg.norm(tf.path_averaged_features(p0, p1, X, T) @ delta - df))
        halving = float(torch.linalg.norm(tf.path_directional_average(p0, p1, X, T)
                                          - tf.path_directional_average(p0, p1, X, 2 * T)))
        assert 0 < err <= halving / (1 - 0.75)


@pytest.mark.parametrize("seed", range(3))
def test_forward_mode_route_matches_path_average(seed):
    X, p0, p1 = _tiny(seed)
    delta = torch.cat([(p1[k] - p0[k]).reshape(-1) for k in NAMES])
    Gbar = tf.path_averaged_features(p0, p1, X, 60)
    q = tf.path_directional_average(p0, p1, X, 60)
    # the same midpoint sum of grad f . delta, reverse vs forward mode: float64 rounding, held to 1e-12
    torch.testing.assert_close(q, Gbar @ delta, rtol=0, atol=1e-12 * float((Gbar @ delta).abs().max()))


def test_path_average_of_constant_path_is_initial_features():
    X, p0, _ = _tiny(2)
    torch.testing.assert_close(tf.path_averaged_features(p0, p0, X, 64), tf.tangent_features(p0, X),
                               rtol=0, atol=1e-13)  # mean of 64 equal matrices: 64 x 2.2e-16 rounding


sym = arrays(np.float64, (5, 5), elements=st.floats(-10, 10, allow_nan=False, allow_subnormal=False))
vec = arrays(np.float64, 5, elements=st.floats(-10, 10, allow_nan=False, allow_subnormal=False))


@given(sym, sym)
def test_alignment_is_a_cosine(A, B):
    K, L = A + A.T, B @ B.T
    if np.linalg.norm(K) < 1e-6 or np.linalg.norm(L) < 1e-6:
        return
    c = tf.alignment(K, L)
    assert -1 - 1e-12 <= c <= 1 + 1e-12  # Cauchy-Schwarz, up to float64 rounding
    assert math.isclose(tf.alignment(L, K), c, rel_tol=1e-12, abs_tol=1e-15)
    assert math.isclose(tf.alignment(3.5 * K, L), c, rel_tol=1e-12, abs_tol=1e-15)  # scale invariant


@given(vec, st.floats(1e-3, 1e3))
def test_alignment_of_label_kernel_with_itself_is_one(y, c):
    if np.linalg.norm(y) < 1e-3:
        return
    Ky = np.outer(y, y)
    assert math.isclose(tf.alignment(c * Ky, Ky), 1.0, rel_tol=1e-13)
    assert math.isclose(tf.alignment(-Ky, Ky), -1.0, rel_tol=1e-13)


@given(arrays(np.float64, (6, 8), elements=st.floats(-3, 3, allow_nan=False, allow_subnormal=False)), vec,
       st.floats(-5, 5), st.floats(-5, 5))
def test_fit_kernel_recovers_coefficients(G, y, a, b):
    K0 = G @ G.T
    y = np.concatenate([y, [1.0]])
    Ky = np.outer(y, y)
    # (a, b) are identifiable only when K0 and Ky are far from parallel; the lstsq error is then
    # ~ eps * cond([K0, Ky]), held to 1e-8 with the conditioning bounded below
    M = np.stack([K0.ravel(), Ky.ravel()], 1)
    s = np.linalg.svd(M, compute_uv=False)
    if s[-1] < 1e-3 * s[0] or np.linalg.norm(a * K0 + b * Ky) < 1e-6:
        return
    fit = tf.fit_kernel(a * K0 + b * Ky, K0, Ky)
    assert math.isclose(fit["a"], a, abs_tol=1e-8 * (1 + abs(a) + abs(b)))
    assert math.isclose(fit["b"], b, abs_tol=1e-8 * (1 + abs(a) + abs(b)))
    assert fit["residual"] < 1e-9


def test_fit_kernel_example_2K0_plus_3Ky():
    rng = np.random.default_rng(0)
    G, y = rng.normal(size=(10, 30)), rng.normal(size=10)
    K0, Ky = G @ G.T, np.outer(y, y)
    fit = tf.fit_kernel(2 * K0 + 3 * Ky, K0, Ky)
    assert abs(fit["a"] - 2) < 1e-12 and abs(fit["b"] - 3) < 1e-12 and fit["residual"] < 1e-13
    # an orthogonal remainder R shows up as the residual fraction ||R|| / ||K||
    R = np.zeros((10, 10))
    R[0, 1] = R[1, 0] = 1.0
    R -= (np.sum(R * K0) * np.sum(Ky * Ky) - np.sum(R * Ky) * np.sum(K0 * Ky)) / (
        np.sum(K0 * K0) * np.sum(Ky * Ky) - np.sum(K0 * Ky) ** 2) * K0 + (
        np.sum(R * Ky) * np.sum(K0 * K0) - np.sum(R * K0) * np.sum(K0 * Ky)) / (
        np.sum(K0 * K0) * np.sum(Ky * Ky) - np.sum(K0 * Ky) ** 2) * Ky
    K = 2 * K0 + 3 * Ky + R
    assert math.isclose(tf.fit_kernel(K, K0, Ky)["residual"], np.linalg.norm(R) / np.linalg.norm(K), rel_tol=1e-9)


def test_digits_and_targets():
    X, labels = tf.digits_2_3(20, 0)
    assert X.shape == (40, 64) and set(labels.tolist()) == {-1.0, 1.0}
    torch.testing.assert_close(X.mean(1), torch.zeros(40, dtype=X.dtype), rtol=0, atol=1e-12)
    torch.testing.assert_close(X.std(1, unbiased=False), torch.ones(40, dtype=X.dtype), rtol=0, atol=1e-12)
    assert tf.digits_2_3(None, 0)[0].shape == (360, 64)  # all of digits 2 (177) and 3 (183)
    gen = torch.Generator().manual_seed(0)
    y, acc = tf.linear_fit_targets(X, labels, tf.init_params(64, 8, gen))
    # y is the orthogonal projection of the labels onto the feature span: residual orthogonal to the features
    Z = tf.last_layer_features(tf.init_params(64, 8, torch.Generator().manual_seed(0)), X)
    assert float((Z.T @ (labels - y)).abs().max()) < 1e-10 and 0.5 < acc <= 1.0


def test_training_converges_on_a_small_problem():
    X, labels = tf.digits_2_3(10, 1)
    gen = torch.Generator().manual_seed(1)
    p0 = tf.init_params(64, 8, gen)
    Y = torch.stack([labels, 0.5 * labels])
    res = tf.train_heavy_ball({k: v.expand(2, *v.shape).clone() for k, v in p0.items()}, tf._batched_loss(X, Y),
                              1e-8, 20_000)
    assert bool(res["converged"].all()) and float(res["loss"].max()) <= 1e-8
    # the hand-written float32 steps that drop converged runs (what the checks use): same end criterion, in float64
    Xr = X.expand(2, *X.shape)
    fast = tf.train_heavy_ball({k: v.expand(2, *v.shape).clone() for k, v in p0.items()}, tf._batched_loss(X, Y),
                               1e-8, 20_000, data=(Xr, Y))
    assert bool(fast["converged"].all()) and float(fast["loss"].max()) <= 1e-8
    assert fast["params"]["W1"].dtype == torch.float64
    assert abs(int(fast["steps"][0]) - int(res["steps"][0])) <= 0.2 * int(res["steps"][0])


def test_hand_written_gradient_matches_autograd():
    """loss_and_gradient (the training steps) against autograd of the same loss, batched over runs with their own
    inputs: the same chain rule in another order, float64 rounding."""
    gen = torch.Generator().manual_seed(4)
    X = torch.randn(3, 10, 6, generator=gen, dtype=torch.float64)
    Y = torch.randn(3, 10, generator=gen, dtype=torch.float64)
    p = {k: torch.stack([tf.init_params(6, 5, gen)[k] for _ in range(3)]) for k in NAMES}
    loss, grad = tf.loss_and_gradient(p, X, Y)
    ps = {k: v.clone().requires_grad_(True) for k, v in p.items()}
    ref = tf._batched_loss(X, Y)(ps)
    auto = dict(zip(NAMES, torch.autograd.grad(ref.sum(), [ps[k] for k in NAMES])))
    torch.testing.assert_close(loss, ref.detach(), rtol=1e-14, atol=0)
    for k in NAMES:
        torch.testing.assert_close(grad[k], auto[k], rtol=0, atol=1e-13 * float(auto[k].abs().max()))


def test_implementation_check_passes():
    """The implementation check: its five kernel records and the two that test Theorem 1 on the network's own
    tangent features (the constraint G M theta_delta = r and the penalty against a direct minimization)."""
    ev = tf.CHECKS[0].run(Context())
    assert len(ev) == 7 and all(e.passed for e in ev), [(e.check, e.abs_error, e.tolerance) for e in ev]


@given(arrays(np.float64, 12, elements=st.floats(-5, 5, allow_nan=False, allow_subnormal=False)),
       arrays(np.float64, 12, elements=st.floats(-5, 5, allow_nan=False, allow_subnormal=False)))
def test_spearman_matches_scipy(a, b):
    from scipy.stats import spearmanr

    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return
    assert math.isclose(tf._spearman(a, b), spearmanr(a, b).statistic, rel_tol=1e-12, abs_tol=1e-12)


def test_ordering_record_verdict_is_computed():
    rng = np.random.default_rng(0)
    noise = rng.normal(size=12)
    up = tf._ordering("x", 1.0 + 0.1 * noise, 3.0, "an ordering", "d")
    flat = tf._ordering("x", 0.1 * noise, 3.0, "an ordering", "d")
    down = tf._ordering("x", -1.0 + 0.1 * noise, 3.0, "an ordering", "d")
    assert up.passed and not flat.passed and not down.passed
    assert up.relation == ">=" and math.isclose(up.predicted, 3 * up.stderr) and up.samples == 12


TINY = dict(per_class=12, width=16, seeds=3, group=2, path_points=50, loss_tol=1e-6, max_steps=20_000)


@pytest.fixture
def tiny_profile(monkeypatch):
    # width < N, so the linear-fit targets y are not the labels themselves (the two tasks differ); 3 seeds in groups
    # of 2: two parts, combined
    monkeypatch.setattr(tf, "_sizes", lambda profile: dict(TINY))
    return Context()


def test_figure1_records_are_evidence_or_findings(tiny_profile):
    assert tf.CHECKS[1].parts(tiny_profile) == [{"seeds": [0, 1]}, {"seeds": [2]}]
    recs = tf.CHECKS[1].evaluate(tiny_profile)
    ev = [r for r in recs if isinstance(r, Evidence)]
    fi = [r for r in recs if isinstance(r, Finding)]
    assert len(ev) + len(fi) == len(recs) and len(ev) == 7 and len(fi) == 5
    assert all(r.tolerance_source for r in ev) and not any(r.passed for r in fi)
    conv, path = ev[0], ev[-1]
    assert conv.passed and conv.relation == "<=" and path.relation == "<="
    assert path.passed, (path.predicted, path.observed)  # each run within its own halving bound


def test_figure1_eq2_record_catches_a_wrong_path_average(tiny_profile, monkeypatch):
    """A planted mistake: a path average off by 10% (the bound allows a few percent) must break eq (2)."""
    right = tf.path_averaged_features
    monkeypatch.setattr(tf, "path_averaged_features", lambda *a, **k: 1.1 * right(*a, **k))
    path = [r for r in tf.CHECKS[1].evaluate(tiny_profile) if isinstance(r, Evidence)][-1]
    assert path.check.startswith("eq (2)") and not path.passed


@pytest.mark.parametrize("call, name", [
    (lambda: tf.path_averaged_features(*_tiny()[1:], _tiny()[0], points=49), "points"),
    (lambda: tf.path_averaged_features(*_tiny()[1:], _tiny()[0], points=50.0), "points"),
    (lambda: tf.path_averaged_features(*_tiny()[1:], _tiny()[0], points=True), "points"),
    (lambda: tf.path_averaged_features(*_tiny()[1:], _tiny()[0], points=50, chunk=0), "chunk"),
    (lambda: tf.path_directional_average(*_tiny()[1:], _tiny()[0], points=0), "points"),
    (lambda: tf.alignment_experiment("fast"), "profile"),
    (lambda: tf.digits_2_3(500, 0), "per_class"),
    (lambda: tf.digits_2_3(1, 0), "per_class"),
    (lambda: tf.alignment(np.eye(3), np.eye(4)), "L"),
    (lambda: tf.alignment(np.zeros((3, 3)), np.eye(3)), "K"),
    (lambda: tf.fit_kernel(np.eye(3), np.eye(3), np.eye(2)), "K0"),
])
def test_bad_input_raises_one_line_value_error(call, name):
    with pytest.raises(ValueError) as info:
        call()
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(name)
