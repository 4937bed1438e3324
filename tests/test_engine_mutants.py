"""The engine's own arithmetic, checked with exact expectations: closeness and tolerances, the verdict, the resolution
of a record, the Monte Carlo tolerance, the inequality search's default domains, interval certification, and the
hand-written gradients of the trainers against autograd at their own scale. Each mutant of
theorylab/_tools/engine_mutants.py names the tests here (or elsewhere) that catch it; the last test plants every one of
them in turn and asserts that its tests fail (benchmarks/engine_mutants.py reports the same against check, verify
and the whole suite)."""
from __future__ import annotations

import importlib
import math

import numpy as np
import pytest
import sympy as sp
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from theorylab._tools import engine_mutants as engine
from theorylab._decide.derivation import Step, certify_on_box, check_inequality
from theorylab._records.evidence import Evidence, compare, compare_mc, resolution

x = sp.Symbol("x", positive=True)
y = sp.Symbol("y", positive=True)
r = sp.Symbol("r", real=True)


def ev(p, o, tol, relation="==", elementwise=False, kind="numeric"):
    return Evidence(entry="e", check="c", kind=kind, predicted=p, observed=o, tolerance=tol, tolerance_source="t",
                    relation=relation, elementwise=elementwise)


# ---------------------------------------------------------------------------------------------------
# closeness, tolerances, the verdict


def test_elementwise_tolerance_is_relative_to_each_element():
    # the small element is off by 50% of itself: failing, whatever the large one does
    assert not ev([1.0, 1e-6], [1.0, 1.5e-6], 0.1, elementwise=True).passed
    # relative to |predicted|, not |observed|: 0.12 > 0.11 * 1 (but < 0.11 * 1.12)
    assert not ev(1.0, 1.12, 0.11, elementwise=True).passed
    assert ev(1.0, 0.9, 0.11, elementwise=True).passed
    # binary-exact boundary: |1.5 - 1| = 0.5 = 0.5 * 1 passes
    assert ev([1.0, 4.0], [1.5, 6.0], 0.5, elementwise=True).passed
    assert not ev([1.0, 4.0], [1.5, 6.5], 0.5, elementwise=True).passed


@settings(max_examples=60)
@given(st.lists(st.tuples(st.floats(-300, 300), st.booleans(), st.booleans()), min_size=1, max_size=6),
       st.sampled_from([1e-12, 1e-6, 0.01, 0.3]))
def test_elementwise_verdict_is_each_elements_relative_error(cells, tol):
    """Values spanning 600 decades, each off by half or twice the tolerance (either sign): the verdict is exactly
    'every element within its own relative tolerance'."""
    p = np.array([10.0 ** e for e, _, _ in cells])
    rel = np.array([(0.5 if inside else 2.0) * tol * (1 if up else -1) for _, inside, up in cells])
    o = p * (1 + rel)
    assert ev(p, o, tol, elementwise=True).passed == all(inside for _, inside, _ in cells)


def test_compare_tolerance_is_atol_plus_rtol_of_the_prediction():
    rec = compare("e", "c", "numeric", 1.0, 1.5, rtol=0.4, source="s")
    assert rec.tolerance == 0.4 and not rec.passed          # 0.4 x max|predicted|, not x max|observed| (0.6)
    rec = compare("e", "c", "numeric", 2.0, 2.5, atol=0.25, rtol=0.125, source="s")
    assert rec.tolerance == 0.5 and rec.passed               # atol + rtol * 2, not max(atol, rtol * 2)
    rec = compare("e", "c", "numeric", [1.0, -4.0], [1.0, -2.0], rtol=0.5, source="s")
    assert rec.tolerance == 2.0 and rec.passed               # the scale is the largest |predicted|


def test_errors_are_exact_on_small_cases():
    rec = ev([3.0, 4.0], [3.0, 9.0], 10.0)
    assert rec.abs_error == 5.0 and rec.rel_error == 1.0    # ||p - o|| / ||p||, the prediction's norm
    rec = ev([1.0, 1.0], [1.0, 2.0], 10.0)
    assert rec.abs_error == 1.0                              # the largest difference, not the mean


def test_verdict_at_the_boundary_and_on_vectors():
    assert ev(1.0, 1.5, 0.5).passed and not ev(1.0, 1.5, 0.25).passed
    assert not ev([1.0, 1.0], [1.0, 2.0], 0.6).passed       # one element off by 1 > 0.6
    assert ev([1.0, 1.0], [1.0, 2.0], 1.0).passed


def test_bounds_pass_and_fail_exactly():
    assert ev(1.0, 1.25, 0.25, "<=").passed and not ev(1.0, 1.25, 0.125, "<=").passed
    assert ev(1.0, 0.5, 0.0, "<=").passed
    assert ev(1.0, 0.75, 0.25, ">=").passed and not ev(1.0, 0.75, 0.125, ">=").passed
    assert ev(1.0, 2.0, 0.0, ">=").passed and not ev(1.0, 2.0, 0.0, "<=").passed


def test_a_non_finite_value_never_passes():
    for rel in ("==", "<=", ">="):
        for p, o in ((1.0, math.nan), (1.0, math.inf), (math.inf, math.inf), ([1.0, 2.0], [1.0, -math.inf])):
            assert not ev(p, o, 1e300, rel).passed, (rel, p, o)


def test_resolution_is_exact_on_small_cases():
    assert resolution(1.0, 1.25, 0.25) == 0.5                # (tol + |error|) / |p|
    assert resolution(2.0, 2.0, 0.5) == 0.25
    assert resolution(-4.0, -4.0, 1.0) == 0.25
    assert resolution([1.0, 4.0], [1.0, 4.0], 1.0) == 0.25   # the element that sees it first
    assert resolution(1.0, 0.5, 0.0, "<=") == 0.5            # an upper bound sees only what its slack leaves
    assert resolution(1.0, 1.5, 0.0, ">=") == 0.5
    assert resolution([1.0, 4.0], [1.0, 4.0], 0.5, "==", True) == 1.0   # (tol + 0) / (1 - tol)
    assert resolution(1.0, 1.0, 1.0, "==", True) == math.inf
    assert resolution(0.0, 0.1, 1.0) is None and resolution([0.0, 0.0], [1.0, 1.0], 0.0) is None


@settings(max_examples=80)
@given(st.lists(st.floats(-1e3, 1e3).filter(lambda v: abs(v) > 1e-3), min_size=1, max_size=4),
       st.floats(0, 0.5), st.floats(0, 0.5), st.sampled_from(["==", "<=", ">="]), st.booleans())
def test_a_deviation_beyond_the_resolution_is_detected(p, noise, tol_rel, relation, sign):
    """The resolution is a guarantee: the prediction scaled by 1 + delta with |delta| just beyond it (the sign the
    relation can see) fails the comparison against the same observation and tolerance."""
    p = np.array(p)
    o = p * (1 + noise * 0.3)
    tol = tol_rel * float(np.max(np.abs(p)))
    res = resolution(p, o, tol, relation)
    if res is None or not math.isfinite(res):
        return
    delta = res * 1.001 + 1e-9
    if relation == "==":
        signs = (1.0, -1.0) if sign else (-1.0, 1.0)
    else:  # a bound detects the deviation that moves it past the observation
        signs = (-1.0,) if relation == "<=" else (1.0,)
    for s in signs:
        q = p * (1 + s * np.sign(p) * delta) if relation != "==" else p * (1 + s * delta)
        assert not ev(q, o, tol, relation).passed, (p, o, tol, relation, res, s)


def test_records_state_their_resolution_and_weak_ones_are_not_a_full_pass():
    # four standard errors of 0.01 around 1: resolution 0.04 + the error shown
    mc = compare_mc("e", "c", 1.0, 1.01, 0.01, 1000)
    assert mc.passed and abs(mc.resolution - 0.05) < 1e-12 and mc.verdict == "pass"
    assert mc.to_json()["resolution"] == mc.resolution and mc.to_json()["verdict"] == "pass"
    # the standard error with no 1/sqrt(N) (x 31.6 at N = 1000): still within tolerance, but weak
    bad = compare_mc("e", "c", 1.0, 1.01, 0.01 * math.sqrt(1000), 1000)
    assert bad.passed and bad.weak and bad.verdict == "weak" and "WEAK" in repr(bad)
    assert bad.resolution_needed == 0.25 and bad.to_json()["weak"] is True
    # a record may declare what it needs
    assert not compare_mc("e", "c", 1.0, 1.01, 0.01 * math.sqrt(1000), 1000, needs=2.0).weak


def test_compare_mc_tolerance_is_k_standard_errors_plus_bias():
    rec = compare_mc("e", "c", 0.0, 3.5, 1.0, 100)
    assert rec.tolerance == 4.0 and rec.passed
    assert not compare_mc("e", "c", 0.0, 3.5, 1.0, 100, k=3.0).passed
    rec = compare_mc("e", "c", 0.0, 4.5, 1.0, 100, bias=1.0, bias_source="exact finite-size value")
    assert rec.tolerance == 5.0 and rec.passed
    assert not compare_mc("e", "c", 0.0, 5.5, 1.0, 100, bias=1.0, bias_source="exact finite-size value").passed


def test_a_check_declares_the_resolution_its_records_need():
    from theorylab._records.evidence import Check, Context

    recs = lambda ctx: [compare("a.b", "c", "numeric", 1.0, 1.001, rtol=0.01, source="s"),  # noqa: E731
                        compare("a.b", "d", "numeric", 1.0, 1.001, rtol=0.01, source="s", needs=0.001)]
    default, declared = (Check(name="x", entries=("a.b",), kind="numeric", run=recs, resolution=res)
                         for res in (None, {"numeric": 0.005}))
    assert [r.verdict for r in default.evaluate(Context())] == ["pass", "weak"]
    assert [r.verdict for r in declared.evaluate(Context())] == ["weak", "weak"]
    assert [r.resolution_needed for r in declared.run(Context())] == [0.005, 0.001]
    with pytest.raises(ValueError, match="resolution"):
        Check(name="x", entries=("a.b",), kind="numeric", run=recs, resolution=-1.0)


# ---------------------------------------------------------------------------------------------------
# the inequality search: false inequalities that fail only near the edge of a default domain


def _refuted(lhs, rhs, relation, **kw):
    out = check_inequality(lhs, rhs, relation, **kw)
    return not out.holds and out.strength == "refuted"


def test_search_refutes_near_the_low_edge_of_the_positive_domain():
    """Positive symbols are searched down to 0.05: x >= 1/10 fails only below 0.1, and is refuted there."""
    assert _refuted(x, sp.Rational(1, 10), ">=")
    assert _refuted(x * y, sp.Rational(1, 50), ">=")
    step = Step("a false lower bound, violated only near 0", lhs=x + x**2, rhs=sp.Rational(1, 5), relation=">=")
    assert not step.check().holds


def test_search_refutes_near_the_high_edge_of_the_positive_domain():
    """... and up to 3: x <= 29/10 fails only above 2.9."""
    assert _refuted(x, sp.Rational(29, 10), "<=")
    assert _refuted(x * y, sp.Rational(8, 1), "<=")


def test_search_refutes_below_zero_for_a_real_symbol():
    """Real symbols are searched on (-3, 3): r >= -1/2 fails for r < -1/2."""
    assert _refuted(r, -sp.Rational(1, 2), ">=")
    assert _refuted(r**3, -sp.Rational(8, 1), ">=")


def test_a_declared_domain_is_searched():
    assert Step("x >= 4 where x in [5, 10]", lhs=x, rhs=4, relation=">=", domain={x: (5, 10)}).check().holds
    assert _refuted(x, 4, "<=", domain={x: (3, 10)})


# ---------------------------------------------------------------------------------------------------
# interval certification


def test_certification_is_exact_on_small_cases():
    s = sp.Symbol("s", real=True)
    assert certify_on_box(s - 1, {s: (0, 2)})[0] is False                        # violated on [0, 1)
    assert certify_on_box(s**2 + sp.Rational(1, 10), {s: (-1, 1)}, strict=True)[0] is True
    assert certify_on_box(s**2, {s: (-1, 1)}, strict=True)[0] is False           # zero at s = 0
    assert certify_on_box(s**2, {s: (-1, 1)})[0] is True
    assert certify_on_box(sp.Abs(s) + sp.Rational(1, 10), {s: (-1, 1)})[0] is True
    assert certify_on_box(sp.Rational(1, 10) - sp.Abs(s), {s: (-1, 1)})[0] is False
    assert certify_on_box(s - sp.Rational(1, 20), {s: (0, 2)})[0] is False          # violated only at the edge


# ---------------------------------------------------------------------------------------------------
# hand-written gradients against autograd at their own scale


def test_relu_fit_gradient_matches_autograd_at_scale():
    """relu_networks._fit's NumPy gradient of sum mask (f - y)^2 / sum mask y^2: one step of the trainer moves the
    weights by lr x gradient, and (W0 - W1) / lr is autograd's gradient of that loss to rounding (a loss or a
    gradient off by a constant factor shows, not only a wrong direction)."""
    import theorylab.verify.relu_networks as V
    from theorylab._numerics.training import TrainConfig

    gen = torch.Generator().manual_seed(7)
    R, H, d, n = 3, 4, 3, 5
    W1 = torch.randn(R, H, d, generator=gen, dtype=torch.float64)
    w2 = torch.randn(R, H, generator=gen, dtype=torch.float64)
    X = torch.randn(R, n, d, generator=gen, dtype=torch.float64)
    y = torch.randn(R, n, generator=gen, dtype=torch.float64)
    mask = torch.ones_like(y)
    mask[1, -1] = 0.0
    res = V._fit(W1, w2, X, y, mask, TrainConfig(max_steps=1, loss_tol=0.0))
    lr = res.lr.view(-1, 1, 1)
    ps = {"W1": W1.clone().requires_grad_(True), "w2": w2.clone().requires_grad_(True)}
    loss = (mask * (V._net(ps["W1"], ps["w2"], X) - y) ** 2).sum(1) / (mask * y * y).sum(1)
    g1, g2 = torch.autograd.grad(loss.sum(), [ps["W1"], ps["w2"]])
    step1, step2 = (W1 - res.params["W1"]) / lr, (w2 - res.params["w2"]) / lr[:, :, 0]
    for mine, ref in ((step1, g1), (step2, g2)):
        assert float((mine - ref).abs().max()) <= 1e-9 * float(ref.abs().max()), (mine, ref)


def test_relu_kernel_derivative_matches_autograd_of_the_formula():
    """relu_transfer's hand-written k'(u) = (pi - arccos u)/(2 pi) against autograd of k(u) itself inside (-1, 1)."""
    from theorylab.verify.relu_transfer import relu_kernel_torch

    u = torch.linspace(-0.99, 0.99, 41, dtype=torch.float64, requires_grad=True)
    (mine,) = torch.autograd.grad(relu_kernel_torch(u).sum(), u)
    v = u.detach().clone().requires_grad_(True)
    k = (torch.sqrt(1 - v * v) + v * (math.pi - torch.acos(v))) / (2 * math.pi)
    (ref,) = torch.autograd.grad(k.sum(), v)
    torch.testing.assert_close(mine, ref, rtol=1e-12, atol=0)


# ---------------------------------------------------------------------------------------------------
# checks that could not fail


def test_kernel_grid_check_is_sensitive_to_its_entry():
    """The per-check view on qpenalty's 'kernel grid' (kernel vs the mpmath quadrature of q'): a mistake in the
    stable form or the formula fails it. Compared with itself it would pass every perturbation (issue #25)."""
    from theorylab._pipeline import catalogue
    from theorylab._tools import mutate

    check = next(c for c in catalogue.checks(["qpenalty"]) if c.name == "kernel grid")
    (res,) = mutate.sensitivity([check], profile="quick", baselines=mutate._Baselines("quick", check_seconds=math.inf))
    assert res.judged and not res.insensitive, [(p.op, p.target, p.detail[:80]) for p in res.tried]


# ---------------------------------------------------------------------------------------------------
# every engine mutant is caught by the tests it names


def _test_function(node: str):
    path, name = node.split("::")
    module = importlib.import_module(path.rsplit("/", 1)[-1].removesuffix(".py"))
    return getattr(module, name)


@pytest.mark.parametrize("mutant", engine.MUTANTS, ids=lambda m: m.name)
def test_every_engine_mutant_is_caught_by_its_tests(mutant):
    tests = [_test_function(t) for t in mutant.tests]  # each named test exists
    failed = []
    with engine.applied(mutant):
        for node, fn in zip(mutant.tests, tests):
            try:
                fn()
            except Exception as exc:  # noqa: BLE001 - an assertion or a crash: either way the mutant is caught
                failed.append(f"{node}: {type(exc).__name__}")
    assert failed, f"engine mutant {mutant.name} ({mutant.description}) escaped {', '.join(mutant.tests)}"


def test_the_engine_mutant_list_holds_the_issues_escapes_and_more():
    names = [m.name for m in engine.MUTANTS]
    assert len(set(names)) == len(names) and sum(m.escape for m in engine.MUTANTS) == 4
    assert len(names) >= 14 and all(m.tests for m in engine.MUTANTS)


@pytest.mark.parametrize("clock", ["cpu", "wall"])
def test_a_nested_timeout_keeps_the_enclosing_budget(clock):
    """with_timeout inside with_timeout (fidelity: a 2 s expansion inside a comparison's 10 s budget): the inner
    budget's end used to cancel the outer timer, so the outer ran unbounded; the outer still expires."""
    import time

    from theorylab._shared import with_timeout

    def spin(t):
        now = time.process_time if clock == "cpu" else time.monotonic
        end = now() + t
        while now() < end:
            pass

    with pytest.raises(TimeoutError):
        with_timeout(lambda: (with_timeout(lambda: spin(0.05), 5.0, clock=clock), spin(3.0)), 0.4, clock=clock)
    assert with_timeout(lambda: with_timeout(lambda: 7, 5.0, clock=clock), 5.0, clock=clock) == 7
