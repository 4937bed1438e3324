"""A step evaluated at points: both sides at a point, the relation's slack there, and the verdict of a list of points
(the first violating point refutes); the simple and random points a symbolic step is tested at.
"""
from __future__ import annotations

import math
import random
from typing import Any, Iterable, Mapping, Sequence

import flint
import mpmath
import numpy as np
import sympy as sp

from . import search as _search
from .._records import domain as _domain  # _domain._interval: one holder, so a patched rule reaches every caller
from .._records.relation import Proportional, Relation, relation_of
from .._records.step import Outcome, Step, _is_numeric_side, _name, _sympify
from . import enclosure as _enc

NUMERIC_DIGITS = 50
NUMERIC_POINTS = 24


def _side_value(side: Any, point: Mapping[str, Any], digits: int = NUMERIC_DIGITS) -> Any:
    """A side at a point: a numeric side's own value; a SymPy side evaluated by SymPy at `digits` digits (the route
    for expressions with no ball-arithmetic rule: integrals, limits, matrices)."""
    if _is_numeric_side(side):
        return side(**point)
    expr = _sympify(side)
    subs = {s: point[s.name] for s in (expr.free_symbols if not isinstance(expr, sp.MatrixBase)
                                       else set().union(*[e.free_symbols for e in expr])) if s.name in point}
    out = expr.subs({s: sp.nsimplify(v) if isinstance(v, float) else v for s, v in subs.items()})
    if isinstance(out, sp.MatrixBase):
        return np.array([float(sp.N(_carried_out(e), digits)) for e in out], dtype=float)
    return sp.N(_carried_out(out), digits)


def _carried_out(expr: Any) -> Any:
    """Limits, substitutions and derivatives carried out (doit); integrals and sums left to evalf's quadrature and
    summation at the digits asked: SymPy's symbolic integration of an integral it cannot do (the Marchenko-Pastur
    inverse moment) took 80 s a point in meijerint before giving up, where quadrature takes milliseconds."""
    if not isinstance(expr, sp.Basic):
        return expr
    return expr.replace(lambda e: isinstance(e, (sp.Limit, sp.Subs, sp.Derivative)), lambda e: e.doit())


def _margin(a: Any, b: Any, relation: Relation, tol: float, rtol: float, sympy_sides: bool) -> Any:
    """The tolerance of a comparison: tol + rtol max(|a|, |b|) as stated; for SymPy sides of "==" without one,
    agreement to NUMERIC_DIGITS - 15 digits relative with an absolute floor of 10^-(NUMERIC_DIGITS - 5) for sides
    that cancel to zero (an absolute 1e-35 let exp(-1000 y) = 2 exp(-1000 y) hold wherever both sides were below)."""
    if tol == 0 and rtol == 0 and sympy_sides and relation.symbol in ("==", "propto"):
        ten = 10 * (a - a + 1)  # 10 in the sides' own number type (mpf or arb)
        return ten ** (-(NUMERIC_DIGITS - 15)) * _bigger(abs(a), abs(b)) + ten ** (-(NUMERIC_DIGITS - 5))
    return tol + rtol * _bigger(abs(a), abs(b))


def _bigger(x: Any, y: Any) -> Any:
    return x.max(y) if isinstance(x, flint.arb) else max(x, y)


def _slack(lhs: Any, rhs: Any, relation: Any, tol: float, rtol: float) -> Any:
    """The margin by which `lhs relation rhs` holds (>= 0 holds; < 0 fails; strict relations need > 0), in the
    sides' own arithmetic: an mpmath number at NUMERIC_DIGITS + 10 digits for scalars (never a float: a slack
    that underflows a float is still a sign), the smallest elementwise slack as a float for arrays."""
    relation = relation_of(relation)
    with mpmath.workdps(NUMERIC_DIGITS + 10):
        def scalar(x):
            if isinstance(x, sp.Basic):
                if x.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or not x.is_number:
                    raise ValueError(f"a side is not a finite number ({x})")
                if x.is_real is False:
                    raise ValueError("a side is complex at this point")
                return mpmath.mpf(str(sp.re(x)))
            return x

        a, b = scalar(lhs), scalar(rhs)
        if isinstance(a, (np.ndarray, list, tuple)) or isinstance(b, (np.ndarray, list, tuple)):
            a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
            if a.shape != b.shape and a.size != 1 and b.size != 1:
                raise ValueError(f"sides have shapes {a.shape} and {b.shape}")
            if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
                raise ValueError("a side is not finite at this point")
            return float(np.min(relation.slack(a, b, tol + rtol * np.maximum(np.abs(a), np.abs(b)))))
        a = a if isinstance(a, mpmath.mpf) else mpmath.mpf(a)
        b = b if isinstance(b, mpmath.mpf) else mpmath.mpf(b)
        if not (mpmath.isfinite(a) and mpmath.isfinite(b)):
            raise ValueError("a side is not finite at this point")
        sympy_sides = isinstance(lhs, sp.Basic) or isinstance(rhs, sp.Basic)
        return relation.slack(a, b, _margin(a, b, relation, tol, rtol, sympy_sides))


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
    if isinstance(x, flint.arb):
        return x.str(digits, radius=False)
    if isinstance(x, mpmath.mpf):
        return mpmath.nstr(x, digits)
    try:
        return sp.sstr(sp.N(x, digits)) if isinstance(x, sp.Basic) else f"{float(x):.{digits}g}"
    except (TypeError, ValueError):
        return str(x)


def _fmt_slack(x: Any) -> str:
    """A slack for the verdict text: its sign kept (an underflowing slack is never printed as -0)."""
    if isinstance(x, flint.arb):
        return x.mid().str(3, radius=False)
    if isinstance(x, mpmath.mpf):
        return mpmath.nstr(x, 3)
    return f"{x:.3g}"


def _digits(lhs: Any, rhs: Any, slack: Any) -> int:
    """Digits that show lhs and rhs differ by the slack (at least 12, at most NUMERIC_DIGITS)."""
    try:
        scale = max(abs(float(mpmath.mpf(str(sp.re(x))) if isinstance(x, sp.Basic) else x)) for x in (lhs, rhs))
        gap = abs(float(slack))
    except (TypeError, ValueError, OverflowError):
        return 12
    if not (scale > 0 and gap > 0) or not math.isfinite(scale / gap):
        return 12
    return int(min(max(12, math.ceil(math.log10(scale / gap)) + 4), NUMERIC_DIGITS))


def _as_float(x: Any) -> float:
    """A slack as a float for the record (min_slack), its sign kept: a nonzero slack that underflows a float is
    recorded as the smallest float of its sign, never as 0 or -0 (whose `< 0` is False)."""
    try:
        v = float(x.mid()) if isinstance(x, flint.arb) else float(x)
    except (TypeError, ValueError, OverflowError):
        return math.nan
    if v == 0:
        sign = float(x.mid().sgn()) if isinstance(x, flint.arb) else float(mpmath.sign(x))
        if sign:
            return math.copysign(5e-324, sign)
    return v


class PointDecider:
    """The decision of `lhs relation rhs` at points, rigorous where it can be: SymPy scalar sides compiled once into
    ball arithmetic (theorylab._decide.enclosure) and decided with the precision raised until the slack's ball
    excludes zero; sides with no enclosure (integrals, limits, undefined functions, matrices) and numeric sides by
    their value at NUMERIC_DIGITS digits, a near-tie re-evaluated at twice the digits and left undecided when the
    two disagree. `__call__(point)` -> (status, lhs, rhs, slack, digits): status "holds", "fails", "undecided" or
    "not evaluable" (with the reason in place of lhs)."""

    def __init__(self, lhs: Any, rhs: Any, relation: Any, *, tol: float = 0.0, rtol: float = 0.0):
        self.lhs, self.rhs, self.relation, self.tol, self.rtol = lhs, rhs, relation_of(relation), tol, rtol
        self.run, self.syms, self.no_enclosure = None, [], ""
        numeric = _is_numeric_side(lhs) or _is_numeric_side(rhs)
        if not numeric:
            a, b = _sympify(lhs), _sympify(rhs)
            if isinstance(self.relation, Proportional):
                b = self.relation.constant * b
            if not (isinstance(a, sp.MatrixBase) or isinstance(b, sp.MatrixBase)):
                self.syms = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
                try:
                    self.run = _enc.compile_arb([a, b], self.syms)
                except _enc.NoEnclosure as exc:
                    self.no_enclosure = str(exc)

    def _arb_margin(self, a, b):
        return _margin(a, b, self.relation, self.tol, self.rtol, True)

    def __call__(self, point: Mapping[str, Any]) -> tuple:
        point = {_name(k): v for k, v in point.items()}
        if self.run is not None and all(s.name in point for s in self.syms):
            run, values = self.run, [point[s.name] for s in self.syms]
            exact = {s: v for s, v in zip(self.syms, values) if isinstance(v, sp.Basic) and not v.is_Rational
                     and not isinstance(v, sp.Float)}
            if exact:
                # a value such as pi/2 is substituted symbolically first: SymPy's exact rules (cos(pi/2) = 0) give
                # the exact zeros a ball around pi/2 never could
                try:
                    a, b = _sympify(self.lhs), _sympify(self.rhs)
                    if isinstance(self.relation, Proportional):
                        b = self.relation.constant * b
                    rest = [s for s in self.syms if s not in exact]
                    run = _enc.compile_arb([a.subs(exact), b.subs(exact)], rest)
                    values = [point[s.name] for s in rest]
                except _enc.NoEnclosure:
                    return self._by_value(point)
            res = _enc.sides_at(run, values, self.relation, margin=self._arb_margin)
            if res.status == "not evaluable":
                return "not evaluable", res.why, None, None, 12
            return res.status, res.lhs, res.rhs, res.slack, res.digits()
        return self._by_value(point)

    def _values(self, point: Mapping[str, Any], digits: int) -> tuple:
        lhs, rhs = _side_value(self.lhs, point, digits), _side_value(self.rhs, point, digits)
        if isinstance(self.relation, Proportional):
            c = self.relation.constant_at(point)
            if isinstance(rhs, sp.Basic):
                rhs = rhs * c
            elif isinstance(rhs, (mpmath.mpf, int)):  # the constant at the side's own precision, not a float's
                with mpmath.workdps(NUMERIC_DIGITS + 10):
                    rhs = rhs * mpmath.mpf(str(sp.N(c, NUMERIC_DIGITS + 10)))
            else:
                rhs = rhs * float(sp.N(c, 20))
        return lhs, rhs, _slack(lhs, rhs, self.relation, self.tol, self.rtol)

    def _by_value(self, point: Mapping[str, Any]) -> tuple:
        try:
            lhs, rhs, slack = self._values(point, NUMERIC_DIGITS)
        except (ValueError, ZeroDivisionError, ArithmeticError, TypeError) as exc:
            return "not evaluable", str(exc), None, None, 12
        symbolic = not (_is_numeric_side(self.lhs) or _is_numeric_side(self.rhs))
        if symbolic and isinstance(slack, mpmath.mpf):
            # SymPy's evalf states no error: a slack within 10^-(NUMERIC_DIGITS - 10) of the sides' size (or a
            # zero SymPy returned for a value it could not resolve) is evaluated again at twice the digits, and
            # a sign the two evaluations do not share is undecided
            scale = max(abs(mpmath.mpf(str(sp.re(x)))) for x in (lhs, rhs)) if all(
                isinstance(x, sp.Basic) for x in (lhs, rhs)) else 1
            if abs(slack) <= mpmath.mpf(10) ** -(NUMERIC_DIGITS - 10) * (scale or 1):
                try:
                    lhs2, rhs2, slack2 = self._values(point, 2 * NUMERIC_DIGITS)
                except (ValueError, ZeroDivisionError, ArithmeticError, TypeError):
                    return "undecided", lhs, rhs, slack, 2 * NUMERIC_DIGITS
                if self.relation.holds(slack) != self.relation.holds(slack2) or (slack2 == 0 and slack != 0):
                    return "undecided", lhs2, rhs2, slack2, 2 * NUMERIC_DIGITS
                lhs, rhs, slack = lhs2, rhs2, slack2
        return ("holds" if self.relation.holds(slack) else "fails"), lhs, rhs, slack, _digits(lhs, rhs, slack)


def _counterexample_text(point: Mapping[str, Any], lhs: Any, rhs: Any, relation: Any, slack: Any,
                         digits: int) -> str:
    """'x=1: lhs = 0.1..., rhs = 0.1... (lhs > rhs fails; lhs - rhs = -2.1e-17)': the point, both sides to the
    digits that show them differ (at least 17: a float64 tie and a near-tie differ there), and the relation that
    fails with the difference of its sides."""
    digits = max(digits, 17)
    try:
        diff = _fmt_slack(lhs - rhs)
    except (TypeError, ValueError, ArithmeticError):
        diff = None
    tail = f"; lhs - rhs = {diff}" if diff is not None else f"; slack {_fmt_slack(slack)}"
    return (f"{_fmt_point(point)}: lhs = {_fmt_val(lhs, digits)}, rhs = {_fmt_val(rhs, digits)} "
            f"(lhs {relation_of(relation).symbol} rhs fails{tail})")


def _evaluate_at(step: Step, points: Iterable[Mapping[str, Any]], how: str) -> Outcome:
    return _evaluate(step.lhs, step.rhs, step.relation, points, how, tol=step.tol, rtol=step.rtol,
                     tol_source=step.tol_source, at=step.erratum is not None and step.erratum.at is not None,
                     domain=step.search_domain if not step.numeric else None)


def _evaluate(lhs_side: Any, rhs_side: Any, relation: Any, points: Iterable[Mapping[str, Any]], how: str, *,
              tol: float = 0.0, rtol: float = 0.0, tol_source: str = "", at: bool = False,
              decider: PointDecider | None = None, domain: Mapping | None = None) -> Outcome:
    """Evaluate both sides at each point; the verdict is the relation's slack, computed here, never given. A point
    refutes only when its slack is certainly on the failing side (PointDecider) and it lies in the domain (open
    ends, integer symbols, relations between symbols: theorylab._records.domain); an undecided point counts neither
    way and is stated."""
    decider = decider or PointDecider(lhs_side, rhs_side, relation, tol=tol, rtol=rtol)
    tried, skipped, undecided, outside = 0, 0, 0, 0
    worst: Any = None
    for point in points:
        if domain is not None and not _domain.contains(domain, point):
            outside += 1
            continue
        status, lhs, rhs, slack, digits = decider(point)
        if status == "not evaluable":
            if at:
                return Outcome(False, "error", f"the counterexample cannot be evaluated: {lhs}", strength="error")
            skipped += 1
            continue
        if status == "undecided":
            if at:
                return Outcome(False, "undecided", f"at {_fmt_point(point)}: undecided at this point (precision "
                               "reached): no precision up to the maximum separates the slack from 0",
                               strength="error")
            undecided += 1
            continue
        tried += 1
        if worst is None or _as_float(slack) < _as_float(worst):
            worst = slack
        if status == "fails":
            text = _counterexample_text(point, lhs, rhs, relation, slack, digits)
            return Outcome(False, f"counterexample ({how})", "at " + text, text, strength="refuted",
                           points=tried, min_slack=_as_float(slack))
    if tried == 0:
        why = f"no point could be evaluated ({skipped} skipped" + (f", {undecided} undecided at this point "
                                                                   "(precision reached)" if undecided else "") + \
            (f", {outside} outside the domain" if outside else "") + ")"
        return Outcome(False, "undecided", why, strength="error")
    tol = f"; tolerance {tol:g} + {rtol:g} rel ({tol_source})" if tol or rtol else ""
    return Outcome(True, f"searched: {tried} points ({how})", f"minimum slack {_fmt_slack(worst)}{tol}"
                   + (f"; {skipped} points not evaluable" if skipped else "")
                   + (f"; {undecided} points undecided (precision reached)" if undecided else "")
                   + (f"; {outside} points outside the domain" if outside else ""),
                   strength="searched", points=tried, min_slack=_as_float(worst))


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
                u = rng.uniform(c.lo, c.hi)
                pt[s] = sp.Rational(round(u * 1000), 1000) or sp.Rational(1, 1000)
                if not c.lo <= pt[s] <= c.hi:  # an interval narrower than 1/1000: 4 significant digits instead
                    pt[s] = _search.rational(u, 4)
            else:
                pt[s] = _search.point_of([c], [rng.uniform(c.ulo, c.uhi)], digits=4)[s]
        yield pt

