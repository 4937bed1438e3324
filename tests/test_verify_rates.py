"""The rate-aware verdicts and the parts of the ptft-diagonal and features-are-fate checks, on synthetic data.

The trained experiments themselves run in `theorylab verify`; here their combine steps meet data with a known
answer (and with planted mistakes), so the scaling verdicts are seen to pass and to fail.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from theorylab._records.evidence import Context, Evidence, Finding

ROOT = Path(__file__).resolve().parents[1]
MINE = ("diagonal_networks", "linear_networks", "qpenalty", "l12", "measure", "transfer")


def _mtl_results(ctx, excess):
    """Synthetic part results for the multi-task check: ratio - 1 = excess(alpha, rng) per draw."""
    from theorylab.verify import diagonal_networks as dn

    s = dn._mtl_setup(ctx)
    rng = np.random.default_rng(0)
    per = s["draws"] // s["groups"]
    out = []
    for part in dn._mtl_parts(ctx):
        out.append([{"alpha_index": i, "draw": part["group"] * per + j, "converged": True, "steps": 100,
                     "ratio": 1 + excess(a, rng), "gap": 0.05, "slack": 1e-6, "dist": 0.1}
                    for i, a in enumerate(s["alphas"]) for j in range(per)])
    return out


def _scaling(records):
    return [r for r in records if isinstance(r, Evidence) and "rich limit of multi-task" in r.check]


def test_multitask_rich_limit_passes_on_an_alpha_squared_excess():
    from theorylab.verify import diagonal_networks as dn

    ctx = Context()
    recs = dn._mtl_combine(ctx, _mtl_results(ctx, lambda a, rng: a * a * rng.uniform(2, 6)))
    fit = _scaling(recs)
    assert len(fit) == 2 and all(r.passed for r in fit), [(r.check, r.observed, r.tolerance) for r in fit]
    assert all("scaling" in r.extra for r in fit)
    assert any(isinstance(r, Finding) and "control O=1" in r.check for r in recs)


@pytest.mark.parametrize("planted, which", [
    (lambda a, rng: 0.003 + a * a * rng.uniform(2, 6), "extrapolated"),   # does not reach 1 as alpha -> 0
    (lambda a, rng: a * rng.uniform(0.5, 1.5), "order"),                    # approaches 1 like alpha, not alpha^2
])
def test_multitask_rich_limit_fails_on_a_planted_mistake(planted, which):
    from theorylab.verify import diagonal_networks as dn

    ctx = Context()
    fit = _scaling(dn._mtl_combine(ctx, _mtl_results(ctx, planted)))
    assert any(not r.passed and which in r.check for r in fit), [(r.check, r.observed, r.tolerance) for r in fit]


def test_padded_target_sets_leave_the_loss_unchanged():
    """The slices batch several n in one run axis by zero rows, each run's loss divided by its own n."""
    from theorylab.verify import linear_networks as ln

    gen = torch.Generator().manual_seed(0)
    R, d, ns = 3, 6, (2, 4, 5)
    W1 = torch.randn(R, d, d, generator=gen, dtype=torch.float64)
    w2 = torch.randn(R, d, generator=gen, dtype=torch.float64)
    X = torch.zeros(R, max(ns), d, dtype=torch.float64)
    y = torch.zeros(R, max(ns), dtype=torch.float64)
    for r, n in enumerate(ns):
        X[r, :n] = torch.randn(n, d, generator=gen, dtype=torch.float64)
        y[r, :n] = torch.randn(n, generator=gen, dtype=torch.float64)
    padded = ln._padded_loss(X, y, ns)({"W1": W1, "w2": w2})
    for r, n in enumerate(ns):
        one = ln._empirical(X[r:r + 1, :n], y[r:r + 1, :n])({"W1": W1[r:r + 1], "w2": w2[r:r + 1]})
        assert float(abs(padded[r] - one[0])) <= 1e-14 * float(one[0])


def test_the_checks_size_themselves_with_ctx_pick_only():
    for name in MINE:
        src = (ROOT / "verify" / f"{name}.py").read_text()
        assert not re.search(r"ctx\.profile\s*==", src), name


@pytest.mark.parametrize("family", ["qpenalty", "l12", "transfer"])
def test_the_big_checks_come_in_parts_with_a_cost(family):
    """verify --dry-run estimates the paper profile from a declared cost; the big experiments declare one per part
    and have more parts at paper scale than at quick scale (they run in parallel there)."""
    from theorylab._pipeline import catalogue

    big = {"trained PT+FT diagonal networks", "trained multi-task diagonal networks",
           "trained linear networks: Fig. 1(c)/2(c) slices"}
    found = [c for c in catalogue.checks([family]) if c.name in big]
    assert found
    for c in found:
        assert c.parts is not None and c.cost is not None
        quick, paper = Context(profile="quick"), Context(profile="paper")
        assert len(c.parts(paper)) >= len(c.parts(quick))
        q = sum(c.cost(quick, p) for p in c.parts(quick))
        w = sum(c.cost(paper, p) for p in c.parts(paper))
        assert 0 < q < w and all(math.isfinite(c.cost(paper, p)) for p in c.parts(paper))


def _two_estimates(ctx):
    from theorylab._records.evidence import compare_mc
    from theorylab.verify import transfer as T

    a = T.estimate(lambda rng, size: rng.standard_normal(size), 1000, seed=ctx.seed, key="a", batch=50)
    b = T.estimate(lambda rng, size: rng.uniform(size=size), 300, seed=ctx.seed, key="b", batch=1000)
    return [compare_mc("transfer.scratch_risk", "a", 0.0, a.mean, a.stderr, a.samples),
            compare_mc("transfer.scratch_risk", "b", 0.5, b.mean, b.stderr, b.samples)]


def test_a_monte_carlo_check_in_chunks_gives_the_estimate_of_all_its_draws():
    """transfer's Monte Carlo checks run as parts (the paper's big calls in chunks of draws): combine() answers each
    estimate() call with the chunks merged, equal to the mean and standard error of all the draws at once; quick is one
    part with the numbers of the check run without parts."""
    from theorylab._records.evidence import Check
    from theorylab._numerics.montecarlo import rng_for
    from theorylab.verify import transfer as T

    check = T._mc_parts(Check(name="two estimates", entries=("transfer.scratch_risk",), kind="monte-carlo",
                              run=_two_estimates),
                        _two_estimates)
    paper = Context(profile="paper", seed=3)
    parts = check.parts(paper)
    assert [(p["stage"], p["draws"]) for p in parts] == [(0, [0, 500]), (0, [500, 1000]), (1, [0, 300])]
    recs = check.combine(paper, [check.run(paper, p) for p in reversed(parts)][::-1])
    x = np.concatenate([rng_for(3, ("a", "draws", s)).standard_normal(500) for s in (0, 500)])
    assert recs[0].observed == pytest.approx(x.mean(), abs=1e-14) and recs[0].samples == 1000
    assert recs[0].stderr == pytest.approx(x.std(ddof=1) / math.sqrt(1000), rel=1e-10)
    quick = Context(profile="quick", seed=3)
    assert check.parts(quick) == [{"calls": "all"}]
    direct = _two_estimates(quick)
    got = check.combine(quick, [check.run(quick, {"calls": "all"})])
    assert [(r.observed, r.stderr) for r in got] == [(r.observed, r.stderr) for r in direct]
    assert got[1].observed == direct[1].observed == check.combine(paper, [check.run(paper, p) for p in parts])[1].observed
