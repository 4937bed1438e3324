"""A step or a derivation handed to its decider: the draft rule, the step cache, equality or inequality, an
erratum's counterexample, numeric sides at their points. Registers itself as the records' DECIDERS.
"""
from __future__ import annotations

from typing import Callable

from .._records.step import DECIDERS, _RESULTS, Derivation, Outcome, Step, StepResult, StepResults
from . import cache as _cache
from .equality import check_equal
from .evaluate import _evaluate_at
from .inequality import check_inequality

__all__ = ["check_step", "check_derivation"]


def check_step(step: Step) -> Outcome:
    """The engine's verdict on one step (a symbolic step's verdict is cached on disk by a hash of its content)."""
    if step.draft:
        return Outcome(False, "draft", "the printed relation, not derived yet (TODO: the paper's steps)",
                       strength="draft")
    key = _cache.content_key(step)
    if key is not None:
        hit = _cache._STEP_CACHE.get(key)
        if hit is not None:
            return hit
    out = _decide(step)
    if key is not None and out.strength != "error":
        _cache._STEP_CACHE.put(key, out)
    return out


def _decide(step: Step) -> Outcome:
    """The step to its decider: an erratum's counterexample or numeric sides at their points; else the plain relation
    the step's relation is decided as (an Approx's tolerance, a Proportional's constant brought into the sides):
    equality or inequality."""
    if step.erratum is not None and step.erratum.at is not None:
        return _evaluate_at(step, [dict(step.erratum.at)], "the erratum's counterexample")
    if step.numeric:
        return _evaluate_at(step, step.search(), "search")
    lhs, relation, rhs = step.relation.decided_as(step.lhs, step.rhs)
    if relation.direction == 0:
        if step.erratum is not None:
            # an erratum is expected to fail: a numeric counterexample settles it without slow simplification
            numeric = check_equal(lhs, rhs, domain=step.search_domain, symbolic=False, points=step.points)
            if not numeric.holds:
                return numeric
        return check_equal(lhs, rhs, domain=step.search_domain, symbolic=step.symbolic, points=step.points)
    return check_inequality(lhs, rhs, relation, domain=step.search_domain, symbolic=step.symbolic,
                            points=step.points, search=step.search)


def check_derivation(derivation: Derivation, progress: Callable[[StepResult], None] | None = None, *,
                     cache: bool = True) -> StepResults:
    """Check every step (results are cached per process: the steps are pure; cache=False recomputes); a step whose
    check raises is an error verdict, reported as such."""
    cached = _RESULTS.get(id(derivation)) if cache else None
    if cached is not None and cached[0] is derivation:
        for r in cached[1]:
            if progress:
                progress(r)
        return StepResults(cached[1])
    results = []
    for step in derivation.steps:
        try:
            outcome = step.check()
        except Exception as exc:  # a crashing check is a failed check, reported as such
            outcome = Outcome(False, "error", f"{type(exc).__name__}: {exc}", strength="error")
        result = StepResult(step, outcome)
        results.append(result)
        if progress:
            progress(result)
    if cache:
        _RESULTS[id(derivation)] = (derivation, tuple(results))
    return StepResults(results)


DECIDERS.update(step=check_step, content_key=_cache.content_key, derivation=check_derivation)
