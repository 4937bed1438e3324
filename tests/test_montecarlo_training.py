"""The Monte Carlo estimator and the batched trainer on problems with known answers. The standard error is checked
exactly (two draws), against the spread of independent repeats, and for independence of the batch size: the tests
that catch the Monte Carlo mutants of theorylab/_tools/engine_mutants.py."""
from __future__ import annotations

import math

import numpy as np
import torch

from theorylab._numerics.montecarlo import estimate
from theorylab._numerics.training import TrainConfig, train


def test_estimate_is_reproducible_and_batch_independent():
    sampler = lambda rng, n: rng.normal(size=n) ** 2  # noqa: E731  E = 1, Var = 2
    a = estimate(sampler, 20000, seed=3, batch=20000)
    b = estimate(sampler, 20000, seed=3, batch=20000)
    assert a == b
    # the standard error estimates sqrt(Var/n) = sqrt(2/20000); its own relative error is ~ 1/sqrt(n)
    assert abs(a.stderr / math.sqrt(2 / 20000) - 1) < 0.1
    assert abs(a.mean - 1) < 5 * a.stderr


def test_standard_error_is_exact_on_two_draws():
    """Draws 0 and 1: mean 1/2, sample variance (n - 1 in the denominator) 1/2, standard error sqrt(1/2 / 2) = 1/2."""
    est = estimate(lambda rng, n: np.arange(n, dtype=float), 2)
    assert (est.mean, est.stderr, est.samples) == (0.5, 0.5, 2)
    # four draws 0, 1, 2, 3: variance 5/3, standard error sqrt(5/12)
    est = estimate(lambda rng, n: np.arange(n, dtype=float), 4)
    assert est.mean == 1.5 and abs(est.stderr - math.sqrt(5 / 12)) < 1e-15


def test_standard_error_matches_the_spread_of_repeats():
    """The reported standard error is the spread of independent estimates: 400 repeats of 200 uniform draws (SE
    sqrt(1/12/200) = 0.0204); a sample standard deviation (no 1/sqrt(N), 14x) or a variance (0.02x) is far off."""
    ests = [estimate(lambda rng, n: rng.uniform(size=n), 200, seed=s) for s in range(400)]
    means, ses = np.array([e.mean for e in ests]), np.array([e.stderr for e in ests])
    spread = float(means.std(ddof=1))
    # the sample standard deviation of 400 values is within ~3.5% of the truth (1 sd): 15% is > 4 sd
    assert abs(spread / math.sqrt(1 / 12 / 200) - 1) < 0.15, spread
    assert abs(float(ses.mean()) / spread - 1) < 0.15, (float(ses.mean()), spread)
    # the same with a vector-valued sampler (each draw the mean of 3 values: variance 1/36)
    ests = [estimate(lambda rng, n: rng.uniform(size=(n, 3)), 200, seed=s, key="v") for s in range(400)]
    spread = float(np.std([e.mean for e in ests], ddof=1))
    assert abs(float(np.mean([e.stderr for e in ests])) / spread - 1) < 0.15


def test_estimate_does_not_depend_on_the_batch_size():
    """Chan's update combines batches exactly: one draw a batch, 7 a batch and all at once give the same mean and
    standard error (to rounding), on a sampler whose draws do not depend on the batching."""
    values = np.random.default_rng(5).exponential(size=1000)

    def sampler(rng, n, pos=[0]):  # noqa: B006 - the position in the fixed stream
        out = values[pos[0]:pos[0] + n]
        pos[0] += n
        return out

    results = []
    for batch in (1, 7, 1000):
        sampler.__defaults__[0][0] = 0
        results.append(estimate(sampler, 1000, batch=batch))
    ref_se = float(values.std(ddof=1) / math.sqrt(values.size))
    for r in results:
        assert abs(r.mean - values.mean()) < 1e-12 and abs(r.stderr / ref_se - 1) < 1e-10, (r, ref_se)


def test_estimate_coverage_of_four_standard_errors():
    # 200 independent estimates of a known mean: a 4-SE interval misses with probability 6e-5 each
    misses = sum(not (lo <= 0.5 <= hi) for lo, hi in
                 (estimate(lambda rng, n: rng.uniform(size=n), 500, seed=s).interval(4) for s in range(200)))
    assert misses == 0


def test_gradient_descent_from_zero_finds_the_minimum_norm_interpolant():
    """Linear regression from w = 0: gradient flow stays in the row space, so it ends at X^+ y."""
    gen = torch.Generator().manual_seed(0)
    R, n, d = 6, 4, 12
    X = torch.randn(R, n, d, dtype=torch.float64, generator=gen)
    y = torch.randn(R, n, dtype=torch.float64, generator=gen)
    loss = lambda p: ((torch.einsum("rnd,rd->rn", X, p["w"]) - y) ** 2).sum(1)  # noqa: E731
    res = train({"w": torch.zeros(R, d, dtype=torch.float64)}, loss, TrainConfig(loss_tol=1e-22))
    assert bool(res.converged.all())
    expected = torch.einsum("rdn,rn->rd", torch.linalg.pinv(X), y)
    # loss 1e-22 bounds the residual by 1e-11; the row-space component error is residual/sigma_min
    assert float((res.params["w"] - expected).abs().max()) < 1e-8


def test_non_converged_runs_are_reported():
    X = torch.ones(2, 1, 1, dtype=torch.float64)
    loss = lambda p: ((p["w"] * X[:, 0] - 1) ** 2).sum(1)  # noqa: E731
    res = train({"w": torch.zeros(2, 1, dtype=torch.float64)}, loss, TrainConfig(max_steps=3, loss_tol=1e-12))
    assert not bool(res.converged.any()) and "0/2 runs converged" in res.summary()
