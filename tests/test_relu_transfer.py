"""ReLU student-teacher linear transfer (seed 002 §4): the pieces of verify/relu_transfer.py on small cases.

Forward-pass scaling, exact transfer when the features contain the target, (18) against Monte Carlo, bad input.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import theorylab
from theorylab.verify import relu_transfer as rt

torch.set_num_threads(1)
kern = theorylab.get("transfer.relu_kernel")
rkhs = theorylab.get("transfer.rkhs_residual")


def _sphere(rng, k, d):
    W = rng.standard_normal((k, d))
    return W / np.linalg.norm(W, axis=1, keepdims=True)


@given(st.integers(1, 6), st.integers(1, 4), st.integers(0, 2**31 - 1))
def test_mean_field_forward_is_the_1_over_m_average(m, copies, seed):
    rng = np.random.default_rng(seed)
    W, c, X = _sphere(rng, m, 3), rng.standard_normal(m), rng.standard_normal((5, 3))
    f = rt.mean_field_forward(torch.as_tensor(c), torch.as_tensor(W), torch.as_tensor(X)).numpy()
    direct = sum(c[i] * np.maximum(X @ W[i], 0) for i in range(m)) / m
    # same sum in a different order: rounding only (a few ulps of sum |c_i relu|)
    assert np.allclose(f, direct, rtol=1e-12, atol=1e-14)
    # 1/m scaling: duplicating every neuron (m -> copies*m, same c) leaves f unchanged -- the mean-field limit
    Wk, ck = np.repeat(W, copies, axis=0), np.repeat(c, copies)
    fk = rt.mean_field_forward(torch.as_tensor(ck), torch.as_tensor(Wk), torch.as_tensor(X)).numpy()
    assert np.allclose(fk, f, rtol=1e-12, atol=1e-14)


def test_population_loss_matches_sampling():
    """The closed-form loss 1/2 ||f - f_s*||^2 (through eq (150)) against its Monte Carlo mean, 4.5 SE."""
    rng = np.random.default_rng(3)
    W_star, c_star, cs = rt.teacher(4, 3, (0.0, 1 / 3), seed=1)
    V = torch.as_tensor(_sphere(rng, 5, 4)).expand(2, 5, 4).clone()
    c = torch.as_tensor(rng.standard_normal((2, 5)) * 3)
    loss = rt._population_loss(torch.as_tensor(W_star), torch.as_tensor(cs))({"V": V, "c": c}).numpy()
    X = torch.as_tensor(rng.standard_normal((400_000, 4)))
    for r in range(2):
        f = rt.mean_field_forward(c[r], V[r], X)
        fs = rt.mean_field_forward(torch.as_tensor(cs[r]), torch.as_tensor(W_star), X)
        sq = (0.5 * (f - fs) ** 2).numpy()
        assert abs(sq.mean() - loss[r]) <= 4.5 * sq.std(ddof=1) / math.sqrt(sq.size)


def test_teacher_is_unit_norm_and_source_is_ablated_and_rescaled():
    W_star, c_star, cs = rt.teacher(5, 6, (0.0, 1 / 3, 2 / 3), seed=0)
    G = kern.numpy(np.clip(W_star @ W_star.T, -1, 1))
    assert abs(c_star @ G @ c_star / 36 - 1) <= 1e-12          # ||f_t*||^2 = 1 (rounding of a 6x6 form)
    assert np.array_equal(cs[0], c_star)                        # mu = 0: f_s* = f_t*
    for r, mu in ((1, 1 / 3), (2, 2 / 3)):
        kept = cs[r] != 0
        assert kept.sum() == round((1 - mu) * 6)                # |A| = mu m*
        assert np.allclose(cs[r][kept], c_star[kept] / (1 - mu), rtol=1e-15)   # 1/((1-mu) m*) of eq (16)
    assert set(np.flatnonzero(cs[2])) <= set(np.flatnonzero(cs[1]))            # nested ablations


def test_kernel_gradient_is_finite_at_aligned_pairs_and_matches_the_entry():
    u = torch.tensor([-1.0, -0.3, 0.0, 0.7, 1.0], dtype=torch.float64, requires_grad=True)
    k = rt.relu_kernel_torch(u)
    assert np.allclose(k.detach().numpy(), kern.numpy(u.detach().numpy()), rtol=1e-13, atol=1e-16)
    (g,) = torch.autograd.grad(k.sum(), u)
    # k'(u) = (pi - arccos u)/(2 pi): 0 at u = -1, 1/2 at u = 1 (autograd of the formula gives nan there)
    want = (math.pi - np.arccos(u.detach().numpy())) / (2 * math.pi)
    assert torch.isfinite(g).all() and np.allclose(g.numpy(), want, rtol=1e-14, atol=1e-16)


def test_transfer_is_exact_when_the_features_contain_the_target():
    rng = np.random.default_rng(0)
    W_star, c_star, _ = rt.teacher(4, 3, (0.0,), seed=2)
    W = np.vstack([W_star, _sphere(rng, 3, 4)])
    assert rkhs(W=W, W_star=W_star, c_star=c_star) <= 1e-12   # f_t* is in the span: ~eps * ||f_t*||^2 * cond
    errs = rt.transfer_errors(W, W_star, c_star, n=50, draws=20, seed=0)
    # noiseless least squares recovers the coefficients to ~ cond(Psi) eps: squared error ~1e-25, held to 1e-16
    assert np.all(errs <= 1e-16)


def test_transfer_mean_matches_rkhs_residual_plus_sandwich_term():
    """(18) in an easy, well-conditioned case: 4 random features, tau at the rounding floor so residual_tau is
    transfer.rkhs_residual; mean over 400 target sets vs residual + S/n, 4 SE + the stated second-order term."""
    rng = np.random.default_rng(5)
    W_star, c_star, _ = rt.teacher(3, 3, (0.0,), seed=4)
    W = _sphere(rng, 4, 3)
    res = rkhs(W=W, W_star=W_star, c_star=c_star)
    assert res > 1e-3                                   # a genuinely misspecified case
    S, p, kappa = rt.sandwich_constant(W, W_star, c_star, 200_000, seed=0, tau=0.0)
    n = 200
    e = rt.transfer_errors(W, W_star, c_star, n=n, draws=400, seed=1, tau=0.0)
    se = e.std(ddof=1) / math.sqrt(e.size)
    assert abs(rt.spectral_residual(W, W_star, c_star, 0.0)[0] - res) <= 1e-12
    assert abs(e.mean() - (res + S / n)) <= 4 * se + S / n * kappa / (n - p - 1)
    assert e.mean() > res                               # C(n) > 0: the residual is a lower bound (eq (18))


def test_gram_alignment_is_perfect_for_the_source_teacher_itself():
    W_star, c_star, cs = rt.teacher(4, 4, (0.5,), seed=0)
    active = np.flatnonzero(cs[0])
    rec = rt.gram_alignment(W_star[active], np.ones(active.size), W_star, cs[0], points=50, seed=0)
    assert abs(rec["cosine"] - 1) <= 1e-12 and rec["relative_frobenius"] <= 1e-12
    assert abs(rec["trace_fraction_in_source_span"] - 1) <= 1e-10 and rec["share_neurons_aligned"] == 1.0


@pytest.mark.parametrize("mu", [-0.1, 1.0, 1.5, float("nan")])
def test_mu_outside_unit_interval_is_rejected_in_one_line(mu):
    with pytest.raises(ValueError, match=r"^mu must be in \[0, 1\)") as err:
        rt.teacher(4, 4, (mu,), seed=0)
    assert "\n" not in str(err.value)


def test_mu_off_the_grid_and_unknown_profile_are_rejected_in_one_line():
    with pytest.raises(ValueError, match=r"^mu must make mu\*m_star an integer") as err:
        rt.teacher(4, 4, (0.3,), seed=0)
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match=r"^profile must be one of quick, paper; got profile='fast'") as err:
        rt.student_teacher("fast")
    assert "\n" not in str(err.value)


def _fake_run(loss, source_residual, ladder, n, rank):
    """A synthetic student_teacher result (one mu) for the record-building checks, no training."""
    g = {"K_model": np.eye(3), "K_source": np.eye(3), "cosine": 0.9, "relative_frobenius": 0.5,
         "trace_fraction_in_source_span": 0.95, "share_neurons_aligned": 0.8, "share_readout_mass_aligned": 0.9}
    rec = {"mu": 0.0, "gram": g, "gram_init": {**g, "cosine": 0.5, "relative_frobenius": 0.9,
                                               "trace_fraction_in_source_span": 0.4},
           "source_residual_learned": source_residual, "residual_tau": np.array(ladder[:-1]),
           "residual_eps": ladder[-1], "residual_learned": ladder[-1], "rounding_band": 0.0,
           "residual_source_teacher": 0.1, "residual_init": 0.5, "residual_at_tau": ladder[1],
           "sandwich": 1.0, "rank": rank, "kappa": 1.0, "error_mean": np.array([ladder[1] + 1.0 / n]),
           "error_se": np.array([1e-3])}
    return {"d": 4, "m": 8, "m_star": 2, "tau": 1e-8, "taus": np.array([1e-6, 1e-8]), "ns": np.array([n]),
            "pretrain_loss": np.array([loss]), "pretrain_steps": np.array([10]), "pretrain_seconds": 0.0,
            "per_mu": [rec], "loss_tol": 1e-4, "draws": 100, "gram_points": 200}


@pytest.mark.parametrize("loss, residual, ladder, converged, bound, monotone", [
    (1e-5, 1e-5, [0.3, 0.2, 0.1], True, True, True),
    (1e-3, 1e-5, [0.3, 0.2, 0.1], False, True, True),     # not converged: its own failing record
    (1e-5, 5e-5, [0.3, 0.2, 0.1], True, False, True),     # ||P_perp f_s*||^2 > 2 L: the bound fails
    (1e-5, 1e-5, [0.2, 0.3, 0.1], True, True, False),     # a ladder that goes up fails
])
def test_convergence_bound_and_monotonicity_are_separate_records(monkeypatch, loss, residual, ladder, converged,
                                                                 bound, monotone):
    from theorylab._records.evidence import Context, Finding
    o = _fake_run(loss, residual, ladder, 1000, 3)
    conv, bnd = rt._pretraining(Context(), o)
    assert (conv.passed, bnd.passed) == (converged, bound)
    _, mono = rt._residual_ladder(Context(), o)
    assert mono.passed == monotone
    gram = rt._gram(Context(), o)
    assert all(isinstance(r, Finding) and not r.passed for r in gram)   # Fig. 3(a)/(b): reported, not asserted


def test_transfer_outside_the_expansion_is_a_finding(monkeypatch):
    from theorylab._records.evidence import Context, Evidence, Finding
    recs = rt._transfer_mc(Context(), _fake_run(1e-5, 1e-5, [0.3, 0.2, 0.1], 5, 10))
    # C(n) > 0 asserted; the 1/n expansion not; one size: no scaling fit (a finding)
    assert [type(r) for r in recs] == [Evidence, Finding, Finding]
    recs = rt._transfer_mc(Context(), _fake_run(1e-5, 1e-5, [0.3, 0.2, 0.1], 1000, 10))
    assert [type(r) for r in recs] == [Evidence, Evidence, Finding] and all(r.passed for r in recs[:2])


def _scaling_run(residual, S, kappa, p, ns, se, offset=0.0):
    """Means exactly residual + S/n + the second-order term (+ offset), with standard errors se."""
    o = _fake_run(1e-5, 1e-5, [0.3, residual, 0.1], 1000, p)
    rec = o["per_mu"][0]
    ns = np.array(ns, dtype=float)
    rec.update(sandwich=S, kappa=kappa, error_mean=residual + offset + S / ns + S / ns * kappa / (ns - p - 1),
               error_se=np.full(ns.size, se))
    o["ns"] = ns
    return o


@pytest.mark.parametrize("offset, ok", [(0.0, True), (1e-3, False)])
def test_transfer_scaling_fit_extrapolates_to_the_residual(offset, ok):
    """The n -> oo fit over 3 sizes: exact data pass (order 1, limit residual_tau); a limit off by 1e-3 (20 SE of
    the extrapolation at these standard errors) fails. The record carries the data for the report's figure."""
    from theorylab._records.evidence import Context, Evidence

    recs = rt._transfer_mc(Context(), _scaling_run(0.05, 2.0, 12.0, 10, (480, 1920, 7680), 2e-5, offset))
    fit = [r for r in recs if "n -> oo" in r.check]
    assert len(fit) == 2 and all(isinstance(r, Evidence) for r in fit)
    assert fit[0].passed is ok and "scaling" in fit[0].extra
    assert fit[1].passed and abs(fit[1].observed - 1.0) < 1e-6
