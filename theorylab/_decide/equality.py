"""Equality steps: lhs = rhs decided by SymPy simplification, else by a numeric identity test at real points (float64
where it decides, high precision at one point always and wherever float64 cannot decide).
"""
from __future__ import annotations

import itertools
import math
import random
import warnings
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from .._records.step import Outcome
from .._shared import with_timeout
from .evaluate import NUMERIC_DIGITS, NUMERIC_POINTS, PointDecider, _candidate_points

SYMPY_TIMEOUT_S = 20


class _Timeout(Exception):
    pass


def _with_timeout(fn: Callable[[], Any], seconds: int) -> Any:
    """fn() stopped by _Timeout after `seconds` of wall time where possible (main thread on POSIX; else unbounded):
    `_shared.with_timeout`."""
    return with_timeout(fn, seconds, error=_Timeout)


def _elements(x: Any) -> list[sp.Expr]:
    if isinstance(x, sp.MatrixBase):
        return list(x)
    if isinstance(x, sp.Subs) and isinstance(x.expr, sp.MatrixBase):  # Subs(Matrix, u, 0): each entry substituted
        return [sp.Subs(e, x.variables, x.point) for e in x.expr]
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


FLOAT64_RTOL = 1e-9  # float64 agreement that decides a point: far above rounding, far below any transcription slip


def _float_evaluator(expr: sp.Expr, syms: Sequence[sp.Symbol]) -> Callable[..., Any] | None:
    """A float64 evaluator of expr (SciPy quadrature for definite integrals), or None where float64 cannot be built
    (limits, sums, functions without a NumPy/SciPy counterpart)."""
    if expr.has(sp.Limit, sp.Sum, sp.Product) or expr.atoms(AppliedUndef):
        return None
    expr = expr.replace(lambda e: isinstance(e, (sp.Subs, sp.Derivative)), lambda e: e.doit())
    try:
        return sp.lambdify(list(syms), expr, modules=["scipy", "numpy"])
    except Exception:  # noqa: BLE001 - no float64 route: the point goes to high precision
        return None


def _float_pair(fa: Callable | None, fb: Callable | None, point: Mapping[sp.Symbol, Any],
                syms: Sequence[sp.Symbol]) -> bool:
    """True when float64 decides this point: both sides finite, real and equal to FLOAT64_RTOL relative."""
    if fa is None or fb is None:
        return False
    args = [float(point[s]) for s in syms]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            a, b = complex(fa(*args)), complex(fb(*args))
    except Exception:  # noqa: BLE001 - float64 cannot evaluate it here: high precision decides
        return False
    if a.imag or b.imag or not (math.isfinite(a.real) and math.isfinite(b.real)):
        return False
    scale = max(abs(a.real), abs(b.real))
    if scale < 1e-290:  # zeros and near-underflow: float64 cannot tell 0 from exp(-1000) (high precision can)
        return False
    return abs(a.real - b.real) <= FLOAT64_RTOL * scale


def _at(expr: sp.Expr, point: Mapping[sp.Symbol, Any]) -> sp.Expr:
    """expr at a point, its limits and substitutions carried out (evalf leaves an unevaluated Limit as it is;
    integrals stay for evalf's quadrature, which is faster than SymPy integrating)."""
    return expr.subs(point).replace(lambda e: isinstance(e, (sp.Limit, sp.Subs)), lambda e: e.doit())


def _infinite_sides(lhs_el: Sequence[Any], rhs_el: Sequence[Any]) -> Outcome | None:
    """A side that is oo or -oo (lim f = oo as printed): proved when the other side evaluates (doit) to the same
    infinity, refuted when it evaluates to a number, else None (the usual test). Subtracting oo decides nothing."""
    pairs = [(sp.sympify(a), sp.sympify(b)) for a, b in zip(lhs_el, rhs_el)]
    if not any(x in (sp.oo, -sp.oo) for pair in pairs for x in pair):
        return None
    for a, b in pairs:
        inf, other = (b, a) if b in (sp.oo, -sp.oo) else (a, b)
        if inf not in (sp.oo, -sp.oo):
            return None  # a finite entry beside an infinite one: the entries' usual test
        try:
            done = _with_timeout(lambda: other.doit(), SYMPY_TIMEOUT_S)
        except _Timeout:
            return None
        if done != inf:
            if done.is_number and done.is_finite or done in (sp.oo, -sp.oo, sp.zoo):
                text = f"the side evaluates to {sp.sstr(done)}, not {sp.sstr(inf)}"
                return Outcome(False, "sympy: evaluated", text, text, strength="refuted")
            return None
    return Outcome(True, "sympy: the side evaluates (doit) to the infinity stated", strength="proved")


def check_equal(lhs: Any, rhs: Any, *, domain: dict | None = None, symbolic: bool = True,
                seed: int = 0, points: int | None = None) -> Outcome:
    """Decide lhs = rhs: SymPy simplification first, else a numeric identity test at real points.

    The numeric test evaluates both sides at simple points and then NUMERIC_POINTS random rational points of the
    domain, in float64 first (SciPy quadrature for integrals): a point where both sides agree to FLOAT64_RTOL is
    decided there; any other point (a float64 disagreement, an overflow, a limit, a complex value) is evaluated at
    NUMERIC_DIGITS digits, and only that evaluation can refute. The verdict says how many points each decided.
    """
    domain = domain or {}
    lhs_el, rhs_el = _elements(lhs), _elements(rhs)
    if len(lhs_el) != len(rhs_el):
        return Outcome(False, "shape", f"sides have {len(lhs_el)} and {len(rhs_el)} entries", strength="error")
    infinite = _infinite_sides(lhs_el, rhs_el)
    if infinite is not None:
        return infinite
    diffs = [sp.sympify(a) - sp.sympify(b) for a, b in zip(lhs_el, rhs_el)]
    if symbolic and all(_symbolic_zero(d) for d in diffs):
        return Outcome(True, "sympy: simplifies to 0", strength="proved")
    rng = random.Random(seed)
    lhs_el = [_replace_functions(sp.sympify(e), rng) for e in lhs_el]
    rng = random.Random(seed)
    rhs_el = [_replace_functions(sp.sympify(e), rng) for e in rhs_el]
    syms = sorted(set().union(*[e.free_symbols for e in lhs_el + rhs_el]), key=lambda s: s.name)
    floats = [(_float_evaluator(a, syms), _float_evaluator(b, syms)) for a, b in zip(lhs_el, rhs_el)]
    tested = by_float = 0
    guarded = False
    tol = sp.Float(10, NUMERIC_DIGITS) ** (-(NUMERIC_DIGITS - 15))
    floor = sp.Float(10, NUMERIC_DIGITS) ** (-(NUMERIC_DIGITS - 5))
    npts = NUMERIC_POINTS if points is None else points
    # a step that asks for few points (costly integrals) also gets few simple points
    cap = npts + 40 if points is None else 2 * npts + 1
    deciders = [PointDecider(a, b, "==") for a, b in zip(lhs_el, rhs_el)]
    for point in itertools.islice(_candidate_points(syms, domain, random.Random(seed), npts), cap):
        # one point is always evaluated at high precision: float64 cannot see a difference below its resolution
        # (a dropped e^-40), 50 digits can; every other point is decided in float64 where it can be
        if guarded and all(_float_pair(fa, fb, point, syms) for fa, fb in floats):
            tested += 1
            by_float += 1
            continue
        try:
            pairs = [(sp.N(_at(a, point), NUMERIC_DIGITS), sp.N(_at(b, point), NUMERIC_DIGITS))
                     for a, b in zip(lhs_el, rhs_el)]
        except (ZeroDivisionError, TypeError, ValueError):
            continue
        if any(not (a.is_number and b.is_number) or a.has(sp.zoo, sp.nan, sp.oo, -sp.oo)
               or b.has(sp.zoo, sp.nan, sp.oo, -sp.oo) for a, b in pairs):
            continue  # a singular point of either side: not evidence either way
        # relative agreement to NUMERIC_DIGITS - 15 digits, with an absolute floor for sides that cancel to zero
        # (an absolute 1e-35 for values below 1 let exp(-1000 y) = 2 exp(-1000 y) hold at y ~ 0.1)
        bad = next(((i, a, b) for i, (a, b) in enumerate(pairs)
                    if sp.Abs(sp.N(a - b, NUMERIC_DIGITS)) > tol * max(sp.Abs(a), sp.Abs(b)) + floor), None)
        if bad is not None:
            # SymPy's evalf states no error: the disagreement is confirmed by enclosures of both sides where they
            # exist (the same tolerance); a point they show equal, or cannot separate, refutes nothing
            status = deciders[bad[0]]({s.name: v for s, v in point.items()})[0]
            if status in ("holds", "undecided"):
                continue
            bad = bad[1:]
            where = ", ".join(f"{s}={v}" for s, v in point.items())
            text = f"{where}: lhs = {sp.N(bad[0], 12)}, rhs = {sp.N(bad[1], 12)}"
            return Outcome(False, f"numeric counterexample ({NUMERIC_DIGITS} digits)", "at " + text, text,
                           strength="refuted", points=tested + 1)
        tested += 1
        guarded = True
    if tested == 0:
        return Outcome(False, "undecided", "SymPy could not simplify and no point could be evaluated", strength="error")
    if by_float == 0:
        how = f"{NUMERIC_DIGITS} digits"
    else:
        how = (f"{by_float} decided in float64 (agreement to {FLOAT64_RTOL:g} relative), {tested - by_float} at "
               f"{NUMERIC_DIGITS} digits (one always; the others where float64 could not decide)")
    return Outcome(True, f"numeric identity test ({tested} real points, {how})",
                   "SymPy did not simplify the difference to 0" if symbolic else "", strength="searched",
                   points=tested)
