"""The Monte Carlo estimator and the batched trainer on problems with known answers."""
from __future__ import annotations

import math

import numpy as np
import torch

from theorylab.montecarlo import estimate
from theorylab.training import TrainConfig, train


def test_estimate_is_reproducible_and_batch_independent():
    sampler = lambda rng, n: rng.normal(size=n) ** 2  # noqa: E731  E = 1, Var = 2
    a = estimate(sampler, 20000, seed=3, batch=20000)
    b = estimate(sampler, 20000, seed=3, batch=20000)
    assert a == b
    # the standard error estimates sqrt(Var/n) = sqrt(2/20000); its own relative error is ~ 1/sqrt(n)
    assert abs(a.stderr / math.sqrt(2 / 20000) - 1) < 0.1
    assert abs(a.mean - 1) < 5 * a.stderr


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
