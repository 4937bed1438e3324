"""Where a step's symbols range: each symbol's interval (declared, else from its assumptions) and the step's
conditions narrowing it. Records-level rules used at declaration (a condition it cannot use is refused) and by the
deciders (the box they search and certify)."""
from __future__ import annotations

import math
from typing import Any, Sequence

import sympy as sp

from .errata import TrivialStepError

__all__ = ["finite_interval"]


def _bound(v: Any, default: float) -> float:
    if v is None:
        return default
    if isinstance(v, sp.Basic) and v in (sp.oo, -sp.oo, sp.zoo):
        return math.inf if v == sp.oo else -math.inf
    return float(v)


def finite_interval(lo: Any, hi: Any) -> tuple[float, float]:
    """A domain's bounds as floats: None, sympy.oo and math.inf all mean unbounded (None below is -oo)."""
    return _bound(lo, -math.inf), _bound(hi, math.inf)


def _condition_domain(where: str, conditions: Sequence[Any], domain: dict) -> dict:
    """`domain` narrowed by conditions that each bound one symbol by a number (x < 1, 0 <= x, x > 1/10); a
    condition of any other form is a one-line TrivialStepError naming it."""
    out = dict(domain)
    for c in conditions:
        if not isinstance(c, sp.core.relational.Relational) or isinstance(c, (sp.Eq, sp.Ne)):
            raise TrivialStepError(f"{where}: conditions must be inequalities such as gamma < 1; got {c!r}")
        sides = [x for x in (c.lhs, c.rhs) if x.free_symbols]
        if len(sides) != 1 or not isinstance(sides[0], sp.Symbol) or not (c.lhs - c.rhs).free_symbols == {sides[0]}:
            raise TrivialStepError(f"{where}: each condition must bound one symbol by a number (gamma < 1); "
                                   f"got {c}")
        sym = sides[0]
        bound = float(c.rhs if c.lhs == sym else c.lhs)
        upper = isinstance(c, (sp.StrictLessThan, sp.LessThan)) == (c.lhs == sym)
        lo, hi = out[sym] if sym in out else _interval(sym, out)  # a declared bound may be unbounded (None, oo)
        fl, fh = finite_interval(lo, hi)
        if upper and bound < fh:
            hi = bound
        elif not upper and bound > fl:
            lo = bound
        if not finite_interval(lo, hi)[0] < finite_interval(lo, hi)[1]:
            raise TrivialStepError(f"{where}: condition {c} leaves {sym} no interval (its interval was "
                                   f"{_interval(sym, domain)})")
        out[sym] = (lo, hi)
    return out


def _interval(sym: sp.Symbol, domain: dict) -> tuple[float, float]:
    """The interval a symbol is searched on, as floats: the step's domain (a bound of None, sympy.oo or math.inf is
    unbounded), else by its assumptions: positive (0.05, 3), nonnegative (0, 3), real (-3, 3)."""
    if sym in domain:
        lo, hi = domain[sym]
        return finite_interval(lo, hi)
    if sym.is_positive:
        return (0.05, 3.0)
    if sym.is_nonnegative:
        return (0.0, 3.0)
    return (-3.0, 3.0)

