r"""A printed \min_{a <= x <= b} f (\max, \inf, \sup) over one real variable as a value (`_Optimum`),
evaluated at 30 digits once the point is put in (a grid brackets it, golden section refines it)."""
from __future__ import annotations

import re
from typing import Mapping

import mpmath
import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits as _WithLimits

from .._numerics import solvers
from .thresholds import _DPS


# -- a printed optimum over one real variable, evaluated -------------------------------------------------------------

_OPT_NAME = re.compile(r"\\(min|max|inf|sup)_\{(.*)\}")
_OPT_REL = re.compile(r"\\leq?(?![A-Za-z])|\\geq?(?![A-Za-z])|<|>")
_OPT_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")
_OPT_NAME_PIECE = re.compile(r"\\?[A-Za-z]+(?:_\{?[A-Za-z0-9]+\}?)?")
_OPT_GRID = 200          # points of the grid that brackets an optimum over a bounded interval
_OPT_DECADES = 12        # ... over an unbounded side: offsets 10^-12 .. 10^12 (8 a decade)


class _Optimum(_WithLimits):
    r"""A printed \min_{a \le x \le b} f(x) (\max, \inf, \sup) over one real variable as a value: the variable is
    bound (not a free symbol), its bounds free (numbers, or printed symbols the points give values to; an absent bound
    is an infinite one). `doit` evaluates it once no other symbol is left (`_optimum_value`)."""

    kind = "min"

    def doit(self, **hints):
        v = _optimum_value(self)
        return sp.nan if v is None else v

    def _latex(self, printer):
        x, lo, hi = self.limits[0]
        sub = " \\le ".join(printer._print(t) for t in (lo, x, hi) if t not in (sp.oo, -sp.oo))
        return f"\\{self.kind}_{{{sub}}} {printer._print(self.function)}"


class _Maximum(_Optimum):
    kind = "max"


def _bound_of(piece: str, names: Mapping[str, sp.Symbol]):
    r"""A bound of a printed optimum's subscript as SymPy: a number, \infty, or a printed name (the display's symbol of
    that name where it has one); None for anything else (an expression: not read)."""
    p = piece.replace(" ", "")
    if _OPT_NUMBER.fullmatch(p):
        return sp.Rational(p)
    if p in ("\\infty", "+\\infty", "-\\infty"):
        return -sp.oo if p.startswith("-") else sp.oo
    if _OPT_NAME_PIECE.fullmatch(p):
        return names.get(p, sp.Symbol(p))
    return None


def _optimum_of(f: sp.Basic, names: Mapping[str, sp.Symbol]):
    r"""An undefined function "\min_{S}"(objective) as the parse gives it (sources: \min_{S} f) as an `_Optimum` when
    S bounds one real variable: "a \le x \le b" (\leq, <; or \ge from the top down), "x \ge a", "x \le b", "a < x";
    strict and non-strict bounds alike (the optimum over the closure). Of two pieces the variable is the one that is a
    name of the objective. None for anything else: x \in B, a variable with no bound (\min_{w}: it may be a vector),
    both pieces names of the objective (which is the variable, the print does not say), a bound that is an
    expression."""
    m = _OPT_NAME.fullmatch(f.func.__name__)
    if m is None or len(f.args) != 1:
        return None
    kind, sub = m.group(1), m.group(2)
    pieces = [p.strip() for p in _OPT_REL.split(sub)]
    ops = ["<=" if o.startswith(("\\le", "<")) else ">=" for o in _OPT_REL.findall(sub)]
    if len(set(ops)) > 1 or not all(pieces) or len(pieces) > 3:
        return None
    obj = f.args[0]
    own = {s.name.replace(" ", ""): s for s in obj.free_symbols if isinstance(s, sp.Symbol)}
    names = {**names, **own}
    if len(pieces) == 1:
        return None
    if len(pieces) == 3:
        k = 1
        lo, hi = (_bound_of(pieces[0], names), _bound_of(pieces[2], names))
        lo, hi = (lo, hi) if ops[0] == "<=" else (hi, lo)
    else:
        ks = [i for i, p in enumerate(pieces) if p.replace(" ", "") in own]
        if len(ks) != 1:
            return None
        k = ks[0]
        c = _bound_of(pieces[1 - k], names)
        below = (ops[0] == ">=") == (k == 0)          # x >= c, c <= x: c is the lower bound
        lo, hi = (c, sp.oo) if below else (-sp.oo, c)
    x = pieces[k].replace(" ", "")
    if lo is None or hi is None or not _OPT_NAME_PIECE.fullmatch(x):
        return None
    var = own.get(x, sp.Symbol(x))
    return (_Maximum if kind in ("max", "sup") else _Optimum)(obj, (var, lo, hi))


def _optima(e: sp.Basic) -> sp.Basic:
    r"""A printed side with each optimum over one real variable it reads (`_optimum_of`) as an `_Optimum`: a bound
    that is a name is the display's symbol of that name."""
    if not isinstance(e, sp.Basic):
        return e
    found = [f for f in e.atoms(sp.core.function.AppliedUndef) if _OPT_NAME.fullmatch(f.func.__name__)]
    if not found:
        return e
    names = {s.name.replace(" ", ""): s for s in e.free_symbols if isinstance(s, sp.Symbol)}
    rep = {f: o for f in found for o in [_optimum_of(f, names)] if o is not None}
    return e.xreplace(rep) if rep else e


def _optimum_value(opt: _Optimum):
    """The value of an optimum whose objective and bounds are numbers but for its variable, at 30 digits: a grid over
    its interval (200 points evenly, and geometrically where the interval is positive; an unbounded side at offsets
    10^-12 .. 10^12 of its finite end, 8 a decade) brackets the best point, golden section refines it; the interval's
    finite ends are candidates. None where it has no value: an empty interval, an objective with no finite real value
    on the grid, or a best point at an unbounded side's last offset (an optimum not attained within 10^12, or none)."""
    x, lo, hi = opt.limits[0]
    if opt.function.free_symbols - {x} or not (lo.is_number and hi.is_number):
        return None
    sign = -1 if isinstance(opt, _Maximum) else 1
    try:
        f = sp.lambdify(x, opt.function, "mpmath")
    except Exception:  # noqa: BLE001 - an objective mpmath cannot evaluate: no value
        return None

    def F(t):
        try:
            y = f(t)
            if isinstance(y, mpmath.mpc):
                if abs(y.imag) > mpmath.mpf(10) ** (-25) * max(1, abs(y.real)):
                    return mpmath.inf
                y = y.real
            y = sign * mpmath.mpf(y)
            return y if mpmath.isfinite(y) else mpmath.inf
        except (TypeError, ValueError, ArithmeticError):
            return mpmath.inf

    with mpmath.workdps(_DPS):
        a = None if lo == -sp.oo else mpmath.mpf(str(sp.N(lo, _DPS)))
        b = None if hi == sp.oo else mpmath.mpf(str(sp.N(hi, _DPS)))
        if a is not None and b is not None and a > b:
            return None
        offsets = [mpmath.mpf(10) ** (mpmath.mpf(k) / 8) for k in range(-8 * _OPT_DECADES, 8 * _OPT_DECADES + 1)]
        if a is not None and b is not None:
            grid = {a + (b - a) * mpmath.mpf(k) / _OPT_GRID for k in range(_OPT_GRID + 1)}
            if a > 0:
                grid |= {a * (b / a) ** (mpmath.mpf(k) / _OPT_GRID) for k in range(_OPT_GRID + 1)}
            grid |= {a, b}
        elif a is not None:
            grid = {a} | {a + max(1, abs(a)) * d for d in offsets}
        elif b is not None:
            grid = {b} | {b - max(1, abs(b)) * d for d in offsets}
        else:
            grid = {mpmath.mpf(0)} | {d for d in offsets} | {-d for d in offsets}
        grid = sorted(grid)
        vals = [F(t) for t in grid]
        k = min(range(len(grid)), key=vals.__getitem__)
        if not mpmath.isfinite(vals[k]):
            return None
        if (k == len(grid) - 1 and b is None) or (k == 0 and a is None):
            return None
        t, best = solvers.golden_mp(F, grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)], 200)
        best = min(best, vals[k])
        return sp.Float(mpmath.nstr(sign * best, _DPS), _DPS)
