"""Derivations: ordered steps, each an equation checked by SymPy or by a labelled numeric identity test.

A step marked as a seed erratum must fail its check and an unmarked step must pass, so the errata ledger
can never go stale: `Derivation.check()` reports an unexpected result for either.
"""
from __future__ import annotations

import itertools
import random
import signal
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import sympy as sp
from sympy.core.function import AppliedUndef

__all__ = ["Erratum", "Step", "StepResult", "Derivation", "claim", "check_equal"]

SYMPY_TIMEOUT_S = 20
NUMERIC_DIGITS = 50
NUMERIC_POINTS = 24


@dataclass(frozen=True)
class Erratum:
    """A statement of a seed that does not hold, with what holds instead."""

    key: str          # stable identifier, e.g. "000-A-eq18"
    seed: str         # seed file name
    where: str        # equation numbers / section
    says: str         # what the seed states (as written)
    truth: str        # what holds, the correction the package uses
    note: str = ""    # why it matters / what it affects


@dataclass(frozen=True)
class Outcome:
    holds: bool
    method: str
    detail: str = ""
    counterexample: str | None = None


@dataclass(frozen=True)
class Step:
    """One equation `lhs = rhs` of a derivation (or a claim checked by a function).

    `domain` maps symbols to (low, high) intervals for the numeric test; otherwise symbols are sampled
    from their SymPy assumptions (positive -> (0, 3], real -> [-3, 3]). `check_fn`, when given,
    replaces the equation check (for claims about roots, limits over sets, inequalities).
    """

    label: str
    lhs: Any = None
    rhs: Any = None
    why: str = ""
    domain: dict = field(default_factory=dict)
    erratum: Erratum | None = None
    check_fn: Callable[[], Outcome] | None = field(default=None, compare=False)
    symbolic: bool = True  # False: go straight to the numeric identity test (simplify too slow)
    points: int | None = None  # random points of the numeric test (default NUMERIC_POINTS)

    def statement(self) -> str:
        if self.lhs is None:
            return self.why
        return f"{sp.sstr(self.lhs)} = {sp.sstr(self.rhs)}"

    def latex(self) -> str:
        if self.lhs is None:
            return ""
        return f"{sp.latex(self.lhs)} = {sp.latex(self.rhs)}"

    def check(self) -> Outcome:
        if self.check_fn is not None:
            return self.check_fn()
        if self.erratum is not None:
            # an erratum is expected to fail: a numeric counterexample settles it without slow simplification
            numeric = check_equal(self.lhs, self.rhs, domain=self.domain, symbolic=False, points=self.points)
            if not numeric.holds:
                return numeric
        return check_equal(self.lhs, self.rhs, domain=self.domain, symbolic=self.symbolic, points=self.points)


@dataclass(frozen=True)
class StepResult:
    step: Step
    outcome: Outcome

    @property
    def ok(self) -> bool:
        """True when the result is what the ledger says: errata fail, other steps hold."""
        return self.outcome.holds != (self.step.erratum is not None)

    @property
    def status(self) -> str:
        if self.step.erratum is None:
            return "holds" if self.outcome.holds else "FAILS (unexpected)"
        return "erratum confirmed" if not self.outcome.holds else "ERRATUM NOT REPRODUCED (step holds)"


@dataclass(frozen=True)
class Derivation:
    """The steps from a seed's premises to a closed form, each machine-checked."""

    key: str
    title: str
    seed: str
    where: str
    entries: tuple[str, ...]
    steps: tuple[Step, ...]

    def check(self, progress: Callable[[StepResult], None] | None = None) -> list[StepResult]:
        """Check every step (results are cached per process: the steps are pure)."""
        cached = _RESULTS.get(id(self))
        if cached is not None and cached[0] is self:
            for r in cached[1]:
                if progress:
                    progress(r)
            return list(cached[1])
        results = []
        for step in self.steps:
            try:
                outcome = step.check()
            except Exception as exc:  # a crashing check is a failed check, reported as such
                outcome = Outcome(False, "error", f"{type(exc).__name__}: {exc}")
            result = StepResult(step, outcome)
            results.append(result)
            if progress:
                progress(result)
        _RESULTS[id(self)] = (self, tuple(results))
        return results

    @property
    def errata(self) -> list[Erratum]:
        return [s.erratum for s in self.steps if s.erratum is not None]


_RESULTS: dict[int, tuple[Derivation, tuple[StepResult, ...]]] = {}


def claim(fn: Callable[[], tuple[bool, str]], method: str, counterexample: Callable[[], str] | None = None):
    """Wrap a predicate `fn() -> (holds, detail)` as a step check labelled with `method`."""

    def run() -> Outcome:
        holds, detail = fn()
        return Outcome(bool(holds), method, detail, None if holds else detail)

    return run


# --------------------------------------------------------------------------------------------
# equation checks


class _Timeout(Exception):
    pass


def _with_timeout(fn: Callable[[], Any], seconds: int) -> Any:
    """Run fn with a SIGALRM timeout where possible (main thread on POSIX); else without one."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        return fn()

    def handler(signum, frame):
        raise _Timeout

    old = signal.signal(signal.SIGALRM, handler)
    signal.alarm(seconds)
    try:
        return fn()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _elements(x: Any) -> list[sp.Expr]:
    if isinstance(x, sp.MatrixBase):
        return list(x)
    return [sp.sympify(x)]


def _symbolic_zero(diff: sp.Expr) -> bool:
    if diff == 0:
        return True
    for transform in (sp.expand, sp.cancel, lambda e: sp.simplify(e.doit()),
                      lambda e: sp.simplify(sp.expand(e.rewrite(sp.exp).doit()))):
        try:
            if _with_timeout(lambda: transform(diff), SYMPY_TIMEOUT_S) == 0:
                return True
        except _Timeout:
            return False
        except Exception:  # noqa: BLE001 - a transform SymPy cannot apply just does not decide
            continue
    return False


def _interval(sym: sp.Symbol, domain: dict) -> tuple[float, float]:
    if sym in domain:
        return domain[sym]
    if sym.is_positive:
        return (0.05, 3.0)
    if sym.is_nonnegative:
        return (0.0, 3.0)
    return (-3.0, 3.0)


def _candidate_points(syms: Sequence[sp.Symbol], domain: dict, rng: random.Random, points: int = NUMERIC_POINTS):
    """Simple points first (so a counterexample is small), then random real points in the domain."""
    simple = (1, 2, sp.Rational(1, 2), 3, -1, -2)

    def inside(sym, v):
        lo, hi = _interval(sym, domain)
        if sym.is_integer and not sp.sympify(v).is_integer:
            return False
        return lo <= float(v) <= hi

    base = {}
    for s in syms:
        base[s] = next((v for v in simple if inside(s, v)), None)
    if all(v is not None for v in base.values()):
        yield dict(base)
        for s in syms:
            for v in simple[1:]:
                if inside(s, v) and v != base[s]:
                    yield {**base, s: v}
    for _ in range(points):
        pt = {}
        for s in syms:
            lo, hi = _interval(s, domain)
            if s.is_integer:
                pt[s] = rng.randint(int(lo), int(hi))
            else:
                pt[s] = sp.Rational(round(rng.uniform(lo, hi) * 1000), 1000) or sp.Rational(1, 1000)
        yield pt


def _replace_functions(expr: sp.Expr, rng: random.Random) -> sp.Expr:
    """Undefined functions (r(s)) become random cubic polynomials so integrals can be evaluated."""
    mapping = {}
    for f in expr.atoms(AppliedUndef):
        if f.func in mapping:
            continue
        x = sp.Dummy("x")
        coeffs = [sp.Rational(rng.randint(-9, 9), 7) for _ in range(4)]
        mapping[f.func] = sp.Lambda(x, sum(c * x ** k for k, c in enumerate(coeffs)))
    return expr.subs(mapping).doit() if mapping else expr


def check_equal(lhs: Any, rhs: Any, *, domain: dict | None = None, symbolic: bool = True,
                seed: int = 0, points: int | None = None) -> Outcome:
    """Decide lhs = rhs: SymPy simplification first, else a numeric identity test at real points.

    The numeric test evaluates both sides at NUMERIC_DIGITS digits at simple points and then
    NUMERIC_POINTS random rational points of the domain; the first failing point is the counterexample.
    """
    domain = domain or {}
    lhs_el, rhs_el = _elements(lhs), _elements(rhs)
    if len(lhs_el) != len(rhs_el):
        return Outcome(False, "shape", f"sides have {len(lhs_el)} and {len(rhs_el)} entries")
    diffs = [sp.sympify(a) - sp.sympify(b) for a, b in zip(lhs_el, rhs_el)]
    if symbolic and all(_symbolic_zero(d) for d in diffs):
        return Outcome(True, "sympy: simplifies to 0")
    rng = random.Random(seed)
    lhs_el = [_replace_functions(sp.sympify(e), rng) for e in lhs_el]
    rng = random.Random(seed)
    rhs_el = [_replace_functions(sp.sympify(e), rng) for e in rhs_el]
    syms = sorted(set().union(*[e.free_symbols for e in lhs_el + rhs_el]), key=lambda s: s.name)
    tested = 0
    tol = sp.Float(10, NUMERIC_DIGITS) ** (-(NUMERIC_DIGITS - 15))
    npts = NUMERIC_POINTS if points is None else points
    # a step that asks for few points (costly integrals) also gets few simple points
    cap = npts + 40 if points is None else 2 * npts + 1
    for point in itertools.islice(_candidate_points(syms, domain, random.Random(seed), npts), cap):
        try:
            pairs = [(sp.N(a.subs(point), NUMERIC_DIGITS), sp.N(b.subs(point), NUMERIC_DIGITS))
                     for a, b in zip(lhs_el, rhs_el)]
        except (ZeroDivisionError, TypeError, ValueError):
            continue
        if any(not (a.is_number and b.is_number) or a.has(sp.zoo, sp.nan, sp.oo, -sp.oo)
               or b.has(sp.zoo, sp.nan, sp.oo, -sp.oo) for a, b in pairs):
            continue  # a singular point of either side: not evidence either way
        bad = next(((a, b) for a, b in pairs
                    if sp.Abs(sp.N(a - b, NUMERIC_DIGITS)) > tol * max(1, sp.Abs(a), sp.Abs(b))), None)
        if bad is not None:
            where = ", ".join(f"{s}={v}" for s, v in point.items())
            text = f"{where}: lhs = {sp.N(bad[0], 12)}, rhs = {sp.N(bad[1], 12)}"
            return Outcome(False, "numeric counterexample", "at " + text, text)
        tested += 1
    if tested == 0:
        return Outcome(False, "undecided", "SymPy could not simplify and no point could be evaluated")
    return Outcome(True, f"numeric identity test ({tested} real points, {NUMERIC_DIGITS} digits)",
                   "SymPy did not simplify the difference to 0" if symbolic else "")
