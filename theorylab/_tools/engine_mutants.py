"""Mutants of the engine itself: mistakes planted in the code that decides (closeness and tolerance arithmetic, the
Monte Carlo standard error, the verdict comparison, the inequality search's default domains, interval
certification, hand-written gradients, a check's own comparison), each with the tests that must catch it.

`theorylab mutate` plants mistakes in a paper's entries; a verification tool is trusted only as far as its checks
also catch mistakes in the checks. Each `EngineMutant` is applied in this process by `applied(m)` (the function's
code replaced in place, so every reference to it, `from x import f` included, runs the mutant) and undone after.
`benchmarks/engine_mutants.py` runs each in a subprocess against `theorylab check`, `theorylab verify` and the
test suite and prints which layer catches it; tests/test_engine_mutants.py asserts in CI that every mutant here is
caught by the tests it names.

A source mutant names the function and the exact text it replaces: when the code changes so the text is gone,
`applied` raises `NotApplicable` (the list must follow the code; the CI test says which mutant went stale).
"""
from __future__ import annotations

import contextlib
import importlib
import inspect
import sys
import textwrap
from dataclasses import dataclass, field
from typing import Callable, Iterator

__all__ = ["EngineMutant", "MUTANTS", "NotApplicable", "applied", "by_name"]


class NotApplicable(RuntimeError):
    """The code a mutant patches is gone (renamed, rewritten): the mutant list must be updated."""


@dataclass(frozen=True)
class EngineMutant:
    """One planted mistake in the engine. `module`/`function`: where; either `old`/`new` (text of the function's
    source replaced once) or `wrap` (the function replaced by wrap(original)). `tests`: test node IDs (relative to
    the repository) that must fail under it; `escape`: one of the issue's (#25) four escapes."""

    name: str
    area: str
    description: str
    module: str
    function: str
    tests: tuple[str, ...]
    old: str = ""
    new: str = ""
    wrap: Callable | None = field(default=None, repr=False)
    escape: bool = False


def _resolve(module: str, qualname: str):
    """The function named `qualname` in `module` ("a|b": the first of these that exists)."""
    mod = importlib.import_module(module)
    for name in qualname.split("|"):
        owner, obj = mod, mod
        try:
            for part in name.split("."):
                owner, obj = obj, getattr(obj, part)
        except AttributeError:
            continue
        return mod, owner, obj, name
    raise NotApplicable(f"engine mutant target {module}.{qualname} is gone: update theorylab/_engine_mutants.py")


@contextlib.contextmanager
def applied(m: EngineMutant) -> Iterator[None]:
    """Plant the mutant in this process; undo it on exit."""
    mod, owner, fn, qualname = _resolve(m.module, m.function)
    if m.wrap is not None:
        new = m.wrap(fn)
        name = qualname.rsplit(".", 1)[-1]
        # every module that imported the function by name sees the mutant too
        holders = [(owner, name)] + [(x, name) for x in list(sys.modules.values())
                                     if x is not None and x is not owner and getattr(x, name, None) is fn]
        for h, n in holders:
            setattr(h, n, new)
        try:
            yield
        finally:
            for h, n in holders:
                setattr(h, n, fn)
        return
    fn = inspect.unwrap(fn)
    src = textwrap.dedent(inspect.getsource(fn))
    if src.count(m.old) != 1:
        raise NotApplicable(f"engine mutant {m.name}: {m.module}.{qualname} no longer contains {m.old!r} exactly "
                            f"once (found {src.count(m.old)} times): update theorylab/_engine_mutants.py")
    namespace: dict = {}
    code = compile(src.replace(m.old, m.new), inspect.getsourcefile(fn) or "<mutant>", "exec")
    exec(code, fn.__globals__, namespace)  # noqa: S102 - the repository's own source, with one planted change
    mutated = namespace[fn.__name__]
    mutated = getattr(mutated, "__func__", mutated)  # a staticmethod / classmethod: its function
    mutated = inspect.unwrap(mutated) if hasattr(mutated, "__wrapped__") else mutated
    if mutated.__code__.co_freevars != fn.__code__.co_freevars:
        raise NotApplicable(f"engine mutant {m.name}: {m.function} is a closure; plant it by `wrap` instead")
    original = fn.__code__
    fn.__code__ = mutated.__code__
    try:
        yield
    finally:
        fn.__code__ = original


def by_name(name: str) -> EngineMutant:
    for m in MUTANTS:
        if m.name == name:
            return m
    raise KeyError(f"no engine mutant {name!r}; known: {', '.join(m.name for m in MUTANTS)}")


# ---------------------------------------------------------------------------------------------------
# wrappers for the behaviour-level mutants (the search is being rewritten: these patch its public seams)


def _narrow_positive_low(orig):
    def _interval(sym, domain):
        lo, hi = orig(sym, domain)
        return (max(lo, 1.0), hi) if sym not in domain and sym.is_positive else (lo, hi)
    return _interval


def _narrow_positive_high(orig):
    def _interval(sym, domain):
        lo, hi = orig(sym, domain)
        return (lo, min(hi, 1.0)) if sym not in domain and sym.is_positive else (lo, hi)
    return _interval


def _real_as_nonnegative(orig):
    def _interval(sym, domain):
        lo, hi = orig(sym, domain)
        return (max(lo, 0.0), hi) if sym not in domain and not sym.is_nonnegative else (lo, hi)
    return _interval


def _domain_ignored(orig):
    def _interval(sym, domain):
        return orig(sym, {})
    return _interval


def _strict_ignored(orig):
    def certify_on_box(slack, box, *, strict=False, **kw):
        return orig(slack, box, strict=False, **kw)
    return certify_on_box


def _box_edges_dropped(orig):
    def certify_on_box(slack, box, **kw):
        inner = {s: (lo + (hi - lo) / 10, hi - (hi - lo) / 10) for s, (lo, hi) in box.items()}
        return orig(slack, inner, **kw)
    return certify_on_box


_T = "tests/test_engine_mutants.py::"
_MC = "tests/test_montecarlo_training.py::"

MUTANTS: tuple[EngineMutant, ...] = (
    # --- the four escapes
    EngineMutant("mc-se-is-sample-sd", "monte-carlo standard error",
                 "estimate's standard error is the sample standard deviation (no 1/sqrt(N))",
                 "theorylab._numerics.montecarlo", "estimate", (_MC + "test_standard_error_matches_the_spread_of_repeats",),
                 old="math.sqrt(m2 / (n - 1) / n)", new="math.sqrt(m2 / (n - 1))", escape=True),
    EngineMutant("check-kernel-vs-itself", "a check's comparison",
                 "'kernel grid' (qpenalty) compares the NumPy kernel with itself instead of the mpmath reference",
                 "theorylab.verify.qpenalty", "_kernel_grid", (_T + "test_kernel_grid_check_is_sensitive_to_its_entry",),
                 old="ref = np.array([q.reference_value(z=z) for z in zs])", new="ref = q(z=zs)", escape=True),
    EngineMutant("elementwise-tol-of-max", "closeness",
                 "the elementwise relative tolerance taken relative to max|predicted| instead of each |predicted_i|",
                 "theorylab._records.evidence", "rel_close", (_T + "test_elementwise_tolerance_is_relative_to_each_element",),
                 old="rtol * np.abs(r))", new="rtol * np.max(np.abs(r)))", escape=True),
    EngineMutant("search-positive-from-1", "search domain",
                 "the default search interval of a positive symbol narrowed from (0.05, 3) to (1, 3)",
                 "theorylab._decide.derivation", "_interval",
                 (_T + "test_search_refutes_near_the_low_edge_of_the_positive_domain",), wrap=_narrow_positive_low,
                 escape=True),
    # --- closeness and tolerance arithmetic
    EngineMutant("elementwise-tol-of-observed", "closeness",
                 "the elementwise relative tolerance taken relative to |observed_i| instead of |predicted_i|",
                 "theorylab._records.evidence", "_verdict", (_T + "test_elementwise_tolerance_is_relative_to_each_element",),
                 old="rel_close(o, p, tol)", new="rel_close(p, o, tol)"),
    EngineMutant("compare-scale-of-observed", "closeness",
                 "compare's relative tolerance scaled by max|observed| instead of max|predicted|",
                 "theorylab._records.evidence", "compare", (_T + "test_compare_tolerance_is_atol_plus_rtol_of_the_prediction",),
                 old="_errors(predicted, observed)", new="_errors(observed, predicted)"),
    EngineMutant("compare-max-not-sum", "closeness",
                 "compare's tolerance max(atol, rtol*scale) instead of atol + rtol*scale",
                 "theorylab._records.evidence", "compare", (_T + "test_compare_tolerance_is_atol_plus_rtol_of_the_prediction",),
                 old="tolerance=atol + rtol * scale", new="tolerance=max(atol, rtol * scale)"),
    EngineMutant("rel-error-of-observed", "closeness",
                 "the relative (Frobenius) error normalized by the observation instead of the prediction",
                 "theorylab._records.evidence", "_errors", (_T + "test_errors_are_exact_on_small_cases",),
                 old="np.linalg.norm((p / big).ravel())", new="np.linalg.norm((o / big).ravel())"),
    EngineMutant("abs-error-mean", "closeness",
                 "the absolute error the mean instead of the largest elementwise difference",
                 "theorylab._records.evidence", "_errors", (_T + "test_errors_are_exact_on_small_cases",
                                                   _T + "test_verdict_at_the_boundary_and_on_vectors"),
                 old="abs_err = float(np.max(diff))", new="abs_err = float(np.mean(diff))"),
    # --- the verdict comparison
    EngineMutant("verdict-strict", "verdict",
                 "'==' passes only when |p - o| < tol (an error exactly at the tolerance fails)",
                 "theorylab._records.evidence", "_verdict", (_T + "test_verdict_at_the_boundary_and_on_vectors",),
                 old="bool(abs_err <= tol)", new="bool(abs_err < tol)"),
    EngineMutant("bound-sign", "verdict",
                 "an upper bound checked as observed <= predicted - tolerance",
                 "theorylab._records.evidence", "_verdict", (_T + "test_bounds_pass_and_fail_exactly",),
                 old="o <= p + tol", new="o <= p - tol"),
    EngineMutant("lower-bound-flipped", "verdict",
                 "a lower bound checked as observed <= predicted + tolerance",
                 "theorylab._records.evidence", "_verdict", (_T + "test_bounds_pass_and_fail_exactly",),
                 old="o >= p - tol", new="o <= p + tol"),
    EngineMutant("nonfinite-passes", "verdict",
                 "a record with a NaN or infinite value passes",
                 "theorylab._records.evidence", "_verdict", (_T + "test_a_non_finite_value_never_passes",),
                 old="return abs_err, rel_err, False", new="return abs_err, rel_err, True"),
    EngineMutant("resolution-ignores-error", "verdict",
                 "the resolution of a record from its tolerance alone (the error it shows left out)",
                 "theorylab._records.evidence", "resolution", (_T + "test_resolution_is_exact_on_small_cases",),
                 old="thr = (tol + np.abs(pn - b)) / a", new="thr = tol / a"),
    # --- the Monte Carlo standard error
    EngineMutant("mc-se-is-variance", "monte-carlo standard error",
                 "a variance used for a standard deviation (no square root) in estimate",
                 "theorylab._numerics.montecarlo", "estimate", (_MC + "test_standard_error_matches_the_spread_of_repeats",),
                 old="math.sqrt(m2 / (n - 1) / n)", new="(m2 / (n - 1) / n)"),
    EngineMutant("mc-biased-variance", "monte-carlo standard error",
                 "the sample variance divided by n instead of n - 1",
                 "theorylab._numerics.montecarlo", "estimate", (_MC + "test_standard_error_is_exact_on_two_draws",),
                 old="m2 / (n - 1) / n", new="m2 / n / n"),
    EngineMutant("mc-chan-term-dropped", "monte-carlo standard error",
                 "the between-batch term of Chan's update dropped (batches' means never spread the variance)",
                 "theorylab._numerics.montecarlo", "estimate", (_MC + "test_estimate_does_not_depend_on_the_batch_size",),
                 old="m2 += b_m2 + delta * delta * n * size / total", new="m2 += b_m2"),
    EngineMutant("mc-k-ignored", "monte-carlo standard error",
                 "compare_mc's tolerance one standard error whatever k",
                 "theorylab._records.evidence", "compare_mc", (_T + "test_compare_mc_tolerance_is_k_standard_errors_plus_bias",),
                 old="tol = k * stderr + abs(bias)", new="tol = stderr + abs(bias)"),
    EngineMutant("mc-bias-dropped", "monte-carlo standard error",
                 "compare_mc's stated finite-size bias left out of the tolerance",
                 "theorylab._records.evidence", "compare_mc", (_T + "test_compare_mc_tolerance_is_k_standard_errors_plus_bias",),
                 old="tol = k * stderr + abs(bias)", new="tol = k * stderr"),
    # --- the inequality search's default domains and points
    EngineMutant("search-positive-to-1", "search domain",
                 "the default search interval of a positive symbol narrowed from (0.05, 3) to (0.05, 1)",
                 "theorylab._decide.derivation", "_interval",
                 (_T + "test_search_refutes_near_the_high_edge_of_the_positive_domain",), wrap=_narrow_positive_high),
    EngineMutant("search-real-nonnegative", "search domain",
                 "the default search interval of a real symbol narrowed from (-3, 3) to (0, 3)",
                 "theorylab._decide.derivation", "_interval", (_T + "test_search_refutes_below_zero_for_a_real_symbol",),
                 wrap=_real_as_nonnegative),
    EngineMutant("search-domain-ignored", "search domain",
                 "a step's declared domain ignored (the symbol's default searched instead)",
                 "theorylab._decide.derivation", "_interval", (_T + "test_a_declared_domain_is_searched",),
                 wrap=_domain_ignored),
    # --- interval certification
    EngineMutant("cert-strict-ignored", "interval certification",
                 "certification of a strict inequality accepts a zero of the slack",
                 "theorylab._decide.derivation", "certify_on_box", (_T + "test_certification_is_exact_on_small_cases",),
                 wrap=_strict_ignored),
    EngineMutant("cert-upper-end", "interval certification",
                 "a box accepted when the upper end of the slack's enclosure is >= 0 (not its lower end)",
                 "theorylab._decide.enclosure", "_certify|certify_on_box",
                 (_T + "test_certification_is_exact_on_small_cases",),
                 old="(enc > 0 or (enc >= 0 and not strict))",
                 new="(enc.upper() > 0 or (enc.upper() >= 0 and not strict))"),
    EngineMutant("cert-box-edges-dropped", "interval certification",
                 "certification on the box without its edges (a tenth of each side cut off at both ends)",
                 "theorylab._decide.derivation", "certify_on_box", (_T + "test_certification_is_exact_on_small_cases",),
                 wrap=_box_edges_dropped),
    # --- hand-written gradients (checked against autograd at their own scale)
    EngineMutant("relu-fit-grad-half", "hand-written gradient",
                 "relu_networks._fit: the gradient of the normalized squared loss off by a factor 1/2",
                 "theorylab.verify.relu_networks", "_fit", (_T + "test_relu_fit_gradient_matches_autograd_at_scale",),
                 old="e = 2 * e / sa[:, None]", new="e = e / sa[:, None]"),
    EngineMutant("tangent-grad-double", "hand-written gradient",
                 "tangent_features.loss_and_gradient: the gradient of 1/(2N) sum (f - y)^2 doubled",
                 "theorylab.verify.tangent_features", "loss_and_gradient",
                 ("tests/test_tangent_features.py::test_hand_written_gradient_matches_autograd",),
                 old="e = e / N", new="e = 2 * e / N"),
    EngineMutant("relu-kernel-derivative-half", "hand-written gradient",
                 "relu_transfer's arc-cosine kernel derivative k'(u) off by a factor 1/2",
                 "theorylab.verify.relu_transfer", "_ReluKernel.backward",
                 (_T + "test_relu_kernel_derivative_matches_autograd_of_the_formula",),
                 old="/ (2 * math.pi)", new="/ (4 * math.pi)"),
)
