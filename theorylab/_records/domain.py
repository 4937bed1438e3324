"""Where a step's symbols range: each symbol's interval (declared, else from its assumptions) and the step's
conditions narrowing it. Records-level rules used at declaration (a condition it cannot use is refused) and by the
deciders (the box they search and certify)."""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import sympy as sp

from .errata import TrivialStepError

__all__ = ["finite_interval", "Domain", "contains"]


def _bound(v: Any, default: float) -> float:
    if v is None:
        return default
    if isinstance(v, sp.Basic) and v in (sp.oo, -sp.oo, sp.zoo):
        return math.inf if v == sp.oo else -math.inf
    return float(v)


def finite_interval(lo: Any, hi: Any) -> tuple[float, float]:
    """A domain's bounds as floats: None, sympy.oo and math.inf all mean unbounded (None below is -oo)."""
    return _bound(lo, -math.inf), _bound(hi, math.inf)


class Domain(dict):
    """A step's domain: symbol -> (low, high) as declared or narrowed (the deciders read it as that dict), with what
    a pair cannot say: which ends are open (`open`: symbol -> (low_open, high_open)) and the conditions that relate
    several symbols (`relations`: 0 < u0 < uf < s as u0 < uf, uf < s). `contains(point)` is what "inside the
    domain" means for a counterexample."""

    def __init__(self, items: Any = (), *, open: Mapping | None = None, relations: tuple = ()):
        super().__init__(items)
        self.open = dict(open or {})
        self.relations = tuple(relations)

    def contains(self, point: Mapping[Any, Any]) -> bool:
        return contains(self, point)


def _natural(sym: sp.Symbol) -> tuple[Any, Any, bool, bool]:
    """A symbol's range from its assumptions alone (what a condition narrows when no domain is declared):
    positive (0, oo), nonnegative [0, oo), negative (-oo, 0), nonpositive (-oo, 0], else (-oo, oo)."""
    if sym.is_positive:
        return 0, sp.oo, True, True
    if sym.is_nonnegative:
        return 0, sp.oo, False, True
    if sym.is_negative:
        return -sp.oo, 0, True, True
    if sym.is_nonpositive:
        return -sp.oo, 0, True, False
    return -sp.oo, sp.oo, True, True


def _declared(value: Any) -> tuple[Any, Any, bool, bool]:
    """A declared domain value: a pair (low, high), closed where finite, or a SymPy Interval with its open ends
    (sympy.Interval.open(0, 1), Interval.Lopen(0, 1), ...)."""
    if isinstance(value, sp.Interval):
        return value.start, value.end, bool(value.left_open), bool(value.right_open)
    lo, hi = value
    return lo, hi, False, False


def _condition_domain(where: str, conditions: Sequence[Any], domain: Mapping) -> Domain:
    """`domain` narrowed by the conditions. A condition that bounds one symbol by a number (x < 1, 0 <= x,
    x > 1/10) narrows its interval (the declared one, else its natural range from its assumptions: never the
    default search box in its place), open at a strict bound; a chain (0 < u0 < uf < s: a SymPy And of
    relations) is split into its links; a relation between symbols (u0 < uf) is kept in `relations`: a point
    outside it is outside the domain. Anything else is a one-line TrivialStepError naming it."""
    out: dict = {}
    opened: dict = {}
    for sym, value in domain.items():
        try:
            lo, hi, lo_open, hi_open = _declared(value)
        except (TypeError, ValueError):
            raise TrivialStepError(f"{where}: domain[{sym}] must be a pair (low, high) or a sympy Interval; got "
                                   f"{value!r}"[:200]) from None
        out[sym] = (lo, hi)
        if lo_open or hi_open:
            opened[sym] = (lo_open, hi_open)
    relations = []
    links = []
    for c in conditions:
        links += list(c.args) if isinstance(c, sp.And) else [c]
    for c in links:
        if not isinstance(c, sp.core.relational.Relational) or isinstance(c, (sp.Eq, sp.Ne)):
            raise TrivialStepError(f"{where}: conditions must be inequalities such as gamma < 1 or u0 < uf; got {c!r}")
        free = (c.lhs - c.rhs).free_symbols
        sides = [x for x in (c.lhs, c.rhs) if x.free_symbols]
        if len(free) > 1 or (len(sides) == 2):
            relations.append(c)
            continue
        if len(sides) != 1 or not isinstance(sides[0], sp.Symbol) or free != {sides[0]}:
            raise TrivialStepError(f"{where}: each condition must bound one symbol by a number (gamma < 1) or "
                                   f"relate symbols (u0 < uf); got {c}")
        sym = sides[0]
        bound_expr = c.rhs if c.lhs == sym else c.lhs
        bound = float(bound_expr)
        upper = isinstance(c, (sp.StrictLessThan, sp.LessThan)) == (c.lhs == sym)
        strict = isinstance(c, (sp.StrictLessThan, sp.StrictGreaterThan))
        if sym in out:
            lo, hi = out[sym]
            lo_open, hi_open = opened.get(sym, (False, False))
        else:
            lo, hi, lo_open, hi_open = _natural(sym)
        fl, fh = finite_interval(lo, hi)
        if upper and bound <= fh:
            hi, hi_open = (bound_expr, strict or (hi_open and bound == fh))
        elif not upper and bound >= fl:
            lo, lo_open = (bound_expr, strict or (lo_open and bound == fl))
        nl, nh = finite_interval(lo, hi)
        if not (nl < nh):
            raise TrivialStepError(f"{where}: condition {c} leaves {sym} no interval (its interval was "
                                   f"{_interval(sym, domain)})")
        out[sym] = (lo, hi)
        if lo_open or hi_open:
            opened[sym] = (lo_open, hi_open)
        else:
            opened.pop(sym, None)
    return Domain(out, open=opened, relations=tuple(relations))


def contains(domain: Mapping, point: Mapping[Any, Any]) -> bool:
    """True when the point (symbol or name -> value) lies in the domain: each symbol's interval with its open ends,
    its assumptions (positive, integer), and every relation between symbols. Symbols the point lacks are not
    judged; a relation that cannot be evaluated there is not held against the point."""
    by_name = {getattr(k, "name", str(k)): v for k, v in point.items()}
    opened = getattr(domain, "open", {})
    syms = {getattr(k, "name", str(k)): k for k in domain}
    for name, v in by_name.items():
        sym = syms.get(name)
        try:
            x = sp.nsimplify(v) if isinstance(v, float) else sp.sympify(v)
        except (TypeError, ValueError, sp.SympifyError):
            continue
        if not x.is_number or x.is_real is False:
            continue
        if sym is None:
            continue
        if sym.is_integer and x.is_integer is False:
            return False
        if (sym.is_positive and x <= 0) or (sym.is_nonnegative and x < 0):
            return False
        lo, hi = finite_interval(*domain[sym])
        lo_open, hi_open = opened.get(sym, (False, False))
        if x < lo or x > hi or (lo_open and x == lo) or (hi_open and x == hi):
            return False
    relations = getattr(domain, "relations", ())
    if relations:
        subs = {}
        for r in relations:
            for s in r.free_symbols:
                if s.name in by_name:
                    v = by_name[s.name]
                    subs[s] = sp.nsimplify(v) if isinstance(v, float) else v
        for r in relations:
            try:
                verdict = r.subs(subs)
            except (TypeError, ValueError):
                continue
            if verdict is sp.false:
                return False
    return True


def _interval(sym: sp.Symbol, domain: dict) -> tuple[float, float]:
    """The interval a symbol is searched on, as floats: the step's domain (a bound of None, sympy.oo or math.inf is
    unbounded), else by its assumptions: positive (0.05, 3), nonnegative (0, 3), real (-3, 3)."""
    if sym in domain:
        lo, hi, _, _ = _declared(domain[sym])
        return finite_interval(lo, hi)
    if sym.is_positive:
        return (0.05, 3.0)
    if sym.is_nonnegative:
        return (0.0, 3.0)
    return (-3.0, 3.0)

