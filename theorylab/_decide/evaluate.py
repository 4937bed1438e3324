"""A step evaluated at points: both sides at a point, the relation's slack there, and the verdict of a list of points
(the first violating point refutes); the simple and random points a symbolic step is tested at.
"""
from __future__ import annotations

import math
import random
from typing import Any, Iterable, Mapping, Sequence

import mpmath
import numpy as np
import sympy as sp

from . import search as _search
from .._records import domain as _domain  # _domain._interval: one holder, so a patched rule reaches every caller
from .._records.step import Outcome, Step, _is_numeric_side, _name, _sympify

NUMERIC_DIGITS = 50
NUMERIC_POINTS = 24


def _to_float(x: Any) -> Any:
    if isinstance(x, dict):
        return np.concatenate([np.ravel(np.asarray(_to_float(v), dtype=float)) for _, v in sorted(x.items())])
    if isinstance(x, sp.Basic):
        return float(x)
    return x


def _side_value(side: Any, point: Mapping[str, Any]) -> Any:
    if _is_numeric_side(side):
        return side(**point)
    expr = _sympify(side)
    subs = {s: point[s.name] for s in (expr.free_symbols if not isinstance(expr, sp.MatrixBase)
                                       else set().union(*[e.free_symbols for e in expr])) if s.name in point}
    out = expr.subs({s: sp.nsimplify(v) if isinstance(v, float) else v for s, v in subs.items()})
    if isinstance(out, sp.MatrixBase):
        return np.array([float(sp.N(e.doit(), NUMERIC_DIGITS)) for e in out], dtype=float)
    return sp.N(out.doit(), NUMERIC_DIGITS)


def _slack(lhs: Any, rhs: Any, relation: str, tol: float, rtol: float) -> float:
    """The margin by which `lhs relation rhs` holds (>= 0 holds; < 0 fails; strict relations need > 0).

    Scalars are compared in mpmath at NUMERIC_DIGITS + 10 digits, so 50-digit SymPy sides keep their digits."""
    with mpmath.workdps(NUMERIC_DIGITS + 10):
        return _slack_at_precision(lhs, rhs, relation, tol, rtol)


def _slack_at_precision(lhs: Any, rhs: Any, relation: str, tol: float, rtol: float) -> float:
    def arr(x):
        if isinstance(x, sp.Basic):
            if x.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or not x.is_number:
                raise ValueError(f"a side is not a finite number ({x})")
            return mpmath.mpf(str(sp.re(x))) if x.is_real is not False else None
        return x

    a, b = arr(lhs), arr(rhs)
    if a is None or b is None:
        raise ValueError("a side is complex at this point")
    if isinstance(a, (np.ndarray, list, tuple)) or isinstance(b, (np.ndarray, list, tuple)):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if a.shape != b.shape and a.size != 1 and b.size != 1:
            raise ValueError(f"sides have shapes {a.shape} and {b.shape}")
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            raise ValueError("a side is not finite at this point")
        margin = tol + rtol * np.maximum(np.abs(a), np.abs(b))
        if relation == "==":
            return float(np.min(margin - np.abs(a - b)))
        d = (b - a) if relation in ("<=", "<") else (a - b)
        return float(np.min(d + (margin if relation in ("<=", ">=") else -margin)))
    a = mpmath.mpf(a) if not isinstance(a, mpmath.mpf) else a
    b = mpmath.mpf(b) if not isinstance(b, mpmath.mpf) else b
    if not (mpmath.isfinite(a) and mpmath.isfinite(b)):
        raise ValueError("a side is not finite at this point")
    if tol == 0 and rtol == 0 and (isinstance(lhs, sp.Basic) or isinstance(rhs, sp.Basic)) and relation == "==":
        # SymPy sides: 50-digit evaluation, equality to NUMERIC_DIGITS - 15 digits relative, with an absolute floor
        # of 10^-(NUMERIC_DIGITS - 5) for sides that cancel to zero (an absolute 1e-35 let exp(-1000 y) = 2
        # exp(-1000 y) hold wherever both sides were below it)
        margin = (mpmath.mpf(10) ** (-(NUMERIC_DIGITS - 15)) * max(abs(a), abs(b))
                  + mpmath.mpf(10) ** (-(NUMERIC_DIGITS - 5)))
    else:
        margin = tol + rtol * max(abs(a), abs(b))
    if relation == "==":
        return float(margin - abs(a - b))
    d = (b - a) if relation in ("<=", "<") else (a - b)
    return float(d + margin if relation in ("<=", ">=") else d - margin)


def _fmt_point(point: Mapping[str, Any]) -> str:
    def f(v):
        if isinstance(v, np.ndarray):
            return np.array2string(v, precision=6, separator=", ", threshold=12)
        if isinstance(v, float):
            return f"{v:.12g}"
        return str(v)
    return ", ".join(f"{_name(k)}={f(v)}" for k, v in point.items())


def _fmt_val(x: Any, digits: int = 12) -> str:
    if isinstance(x, np.ndarray):
        return np.array2string(x, precision=max(digits - 2, 10), threshold=8)
    try:
        return sp.sstr(sp.N(x, digits)) if isinstance(x, sp.Basic) else f"{float(x):.{digits}g}"
    except (TypeError, ValueError):
        return str(x)


def _counterexample_text(point: Mapping[str, Any], lhs: Any, rhs: Any, relation: str) -> str:
    """'x=1: lhs = 0, rhs = 0 (lhs > rhs fails; lhs - rhs = 0)': the point, both sides to 17 digits (a float64 tie
    and a near-tie differ there), and the relation that fails with its difference."""
    diff = ""
    try:
        d = sp.sympify(lhs) - sp.sympify(rhs) if isinstance(lhs, sp.Basic) or isinstance(rhs, sp.Basic) else lhs - rhs
        diff = f"; lhs - rhs = {_fmt_val(d, 6)}"
    except (TypeError, ValueError, ArithmeticError):
        pass
    return (f"{_fmt_point(point)}: lhs = {_fmt_val(lhs, 17)}, rhs = {_fmt_val(rhs, 17)} "
            f"(lhs {relation} rhs fails{diff})")


def _evaluate_at(step: Step, points: Iterable[Mapping[str, Any]], how: str) -> Outcome:
    return _evaluate(step.lhs, step.rhs, step.relation, points, how, tol=step.tol, rtol=step.rtol,
                     tol_source=step.tol_source, at=step.erratum is not None and step.erratum.at is not None)


def _evaluate(lhs_side: Any, rhs_side: Any, relation: str, points: Iterable[Mapping[str, Any]], how: str, *,
              tol: float = 0.0, rtol: float = 0.0, tol_source: str = "", at: bool = False) -> Outcome:
    """Evaluate both sides at each point; the verdict is the relation's slack, computed here, never given."""
    tried, worst, skipped = 0, math.inf, 0
    strict = relation in ("<", ">")
    for point in points:
        point = {_name(k): v for k, v in point.items()}
        try:
            lhs, rhs = _side_value(lhs_side, point), _side_value(rhs_side, point)
            slack = _slack(lhs, rhs, relation, tol, rtol)
        except (ValueError, ZeroDivisionError, ArithmeticError, TypeError) as exc:
            if at:
                return Outcome(False, "error", f"the counterexample cannot be evaluated: {exc}", strength="error")
            skipped += 1
            continue
        tried += 1
        worst = min(worst, slack)
        if slack < 0 or (strict and slack <= 0):
            text = _counterexample_text(point, lhs, rhs, relation)
            return Outcome(False, f"counterexample ({how})", "at " + text, text, strength="refuted",
                           points=tried, min_slack=slack)
    if tried == 0:
        return Outcome(False, "undecided", f"no point could be evaluated ({skipped} skipped)", strength="error")
    tol = f"; tolerance {tol:g} + {rtol:g} rel ({tol_source})" if tol or rtol else ""
    return Outcome(True, f"searched: {tried} points ({how})", f"minimum slack {worst:.3g}{tol}"
                   + (f"; {skipped} points not evaluable" if skipped else ""),
                   strength="searched", points=tried, min_slack=worst)


def _candidate_points(syms: Sequence[sp.Symbol], domain: dict, rng: random.Random, points: int = NUMERIC_POINTS):
    """Simple points first (so a counterexample is small), then random real points in the domain: uniform on a
    linear interval (rounded to 1/1000), uniform in the search coordinate elsewhere (log coordinates for a
    multi-decade or unbounded interval, theorylab._decide.search), rounded to 4 significant digits."""
    simple = (1, 2, sp.Rational(1, 2), 3, -1, -2)
    coords = {s: _search.coordinate(s, *_domain._interval(s, domain)) for s in syms}

    def inside(sym, v):
        lo, hi = _domain._interval(sym, domain)
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
            c = coords[s]
            if s.is_integer:
                pt[s] = rng.randint(int(c.ulo), int(c.uhi))
            elif c.kind == "lin":
                pt[s] = sp.Rational(round(rng.uniform(c.lo, c.hi) * 1000), 1000) or sp.Rational(1, 1000)
            else:
                pt[s] = _search.point_of([c], [rng.uniform(c.ulo, c.uhi)], digits=4)[s]
        yield pt

