"""Guaranteed enclosures (ball arithmetic: Arb through python-flint) of SymPy expressions at points and over boxes:
the sign of a slack at a point with the precision raised until the ball excludes zero, and certification on a box
by bisection. Every sign the inequality and equality deciders act on comes from here.

A sign no precision up to MAX_PREC settles is undecided ("undecided at this point (precision reached)"): never a
violation, never a point that holds. A function with no ball-arithmetic rule raises NoEnclosure naming it: the
caller reports "not certified: no enclosure of f" and its search verdict stands.
"""
from __future__ import annotations

import contextlib
import math
import operator
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import flint
import mpmath
import sympy as sp

from .._records.relation import Greater, GreaterEqual
from . import search as _search

__all__ = ["NoEnclosure", "compile_arb", "to_arb", "PointSign", "sides_at", "certify_on_box", "START_PREC",
           "MAX_PREC", "CERTIFY_PREC"]

START_PREC = 64     # bits of the first evaluation at a point; raised 4x at a time while the ball contains zero
MAX_PREC = 8192     # bits (~2,466 digits): 1 - erf(z) needs ~1,300 at z = 30; beyond this a sign is "undecided"
CERTIFY_PREC = 64   # bits on a box: bisection, not precision, narrows a cell's enclosure


class NoEnclosure(TypeError):
    """An operation with no ball-arithmetic rule (the function is named in the message)."""


def _folded(fs: list, op: Any) -> Any:
    """The compiled terms (or factors) of a sum (or product) combined left to right by `op`, in the backend's own
    arithmetic (Arb balls or mpmath intervals)."""
    def run(v):
        out = fs[0](v)
        for f in fs[1:]:
            out = op(out, f(v))
        return out
    return run


@contextlib.contextmanager
def _prec(bits: int) -> Iterator[None]:
    old = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = old


def to_arb(v: Any) -> flint.arb:
    """An exact number (int, float, SymPy Rational/Float, mpmath mpf) as a ball containing it at the working precision
    (exact where it is representable); a (lo, hi) pair as the ball containing that interval."""
    if isinstance(v, flint.arb):
        return v
    if isinstance(v, tuple):
        return to_arb(v[0]).union(to_arb(v[1]))
    if isinstance(v, bool):
        raise NoEnclosure(f"no enclosure of the truth value {v}")
    if isinstance(v, int):
        return flint.arb(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"a value is not finite ({v})")
        return flint.arb(v)
    if isinstance(v, sp.Integer):
        return flint.arb(int(v))
    if isinstance(v, sp.Rational):
        return flint.arb(int(v.p)) / int(v.q)
    if isinstance(v, sp.Float):
        sign, man, exp, _ = v._mpf_
        if not man and exp:  # inf / nan specials
            raise ValueError(f"a value is not finite ({v})")
        return (-1 if sign else 1) * flint.arb(int(man)) * flint.arb(2) ** int(exp)
    if hasattr(v, "_mpf_"):  # mpmath mpf
        return to_arb(sp.Float(v))
    return to_arb(float(v))


def _const(e: sp.Expr) -> Callable[[], flint.arb]:
    """A constant as a function of the working precision (so pi is recomputed at every precision)."""
    if e.is_Integer:
        return lambda: flint.arb(int(e))
    if e.is_Rational:
        return lambda: flint.arb(int(e.p)) / int(e.q)
    if isinstance(e, sp.Float):
        return lambda: to_arb(e)
    if e is sp.pi:
        return flint.arb.pi
    if e is sp.E:
        return flint.arb.const_e
    if e is sp.EulerGamma:
        return flint.arb.const_euler
    if e is sp.Catalan:
        return flint.arb.const_catalan
    if e is sp.GoldenRatio:
        return lambda: (1 + flint.arb(5).sqrt()) / 2
    raise NoEnclosure(f"no enclosure of the number {e}")


def _piecewise(branches):
    def run(v):
        for fv, fc in branches:
            c = fc(v)
            if c is True:
                return fv(v)
            if c is None:
                raise _Undecidable("a Piecewise condition is undecided on this enclosure")
        raise ValueError("no Piecewise branch applies")
    return run


class _Undecidable(ArithmeticError):
    """A Piecewise condition or a Min/Max comparison the enclosure cannot decide at this precision."""


def _cmp(op: str, a: flint.arb, b: flint.arb):
    """True / False when the enclosures decide `a op b`, None when they overlap."""
    yes = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    no = {"<": a >= b, "<=": a > b, ">": a <= b, ">=": a < b}[op]
    return True if yes else False if no else None


def _max(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = out.max(x)
    return out


def _min(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = out.min(x)
    return out


def _pow(b: flint.arb, e: flint.arb) -> flint.arb:
    return b ** e


# SymPy function -> its ball-arithmetic rule (one argument unless noted). What is not here has no enclosure.
_ARB_FUNCS: dict = {
    sp.exp: lambda x: x.exp(), sp.log: lambda x: x.log(), sp.sin: lambda x: x.sin(), sp.cos: lambda x: x.cos(),
    sp.tan: lambda x: x.tan(), sp.sinh: lambda x: x.sinh(), sp.cosh: lambda x: x.cosh(),
    sp.tanh: lambda x: x.tanh(), sp.asinh: lambda x: x.asinh(), sp.acosh: lambda x: x.acosh(),
    sp.atanh: lambda x: x.atanh(), sp.atan: lambda x: x.atan(), sp.asin: lambda x: x.asin(),
    sp.acos: lambda x: x.acos(), sp.erf: lambda x: x.erf(), sp.erfc: lambda x: x.erfc(),
    sp.gamma: lambda x: x.gamma(), sp.loggamma: lambda x: x.lgamma(), sp.Abs: lambda x: abs(x),
    sp.sec: lambda x: x.sec(), sp.csc: lambda x: x.csc(), sp.cot: lambda x: x.cot(), sp.coth: lambda x: x.coth(),
    sp.sech: lambda x: x.sech(), sp.csch: lambda x: x.csch(), sp.LambertW: lambda x: x.lambertw(),
    sp.sinc: lambda x: x.sinc(), sp.zeta: lambda x: x.zeta(), sp.Ei: lambda x: x.ei(), sp.erfi: lambda x: x.erfi(),
    sp.Max: _max, sp.Min: _min, sp.atan2: lambda y, x: flint.arb.atan2(y, x),
    sp.factorial: lambda x: (x + 1).gamma(), sp.digamma: lambda x: x.digamma(),
    sp.uppergamma: lambda a, x: flint.arb.gamma_upper(x, a), sp.lowergamma: lambda a, x: flint.arb.gamma_lower(x, a),
    sp.besselj: lambda nu, x: x.bessel_j(nu), sp.besseli: lambda nu, x: x.bessel_i(nu),
    sp.besselk: lambda nu, x: x.bessel_k(nu), sp.bessely: lambda nu, x: x.bessel_y(nu),
}
_REL_OPS = {sp.StrictLessThan: "<", sp.LessThan: "<=", sp.StrictGreaterThan: ">", sp.GreaterThan: ">="}


def _prepared(expr: sp.Expr) -> sp.Expr:
    """Derivatives and substitutions carried out (doit), so their values are enclosed like any expression."""
    if expr.has(sp.Derivative, sp.Subs):
        expr = expr.replace(lambda e: isinstance(e, (sp.Subs, sp.Derivative)), lambda e: e.doit())
    return expr


def compile_arb(exprs: Sequence[sp.Expr], syms: Sequence[sp.Symbol]) -> Callable[[Sequence[flint.arb]], list]:
    """The expressions compiled once into ball arithmetic over the symbols' values (common subexpressions evaluated
    once): run(values) -> [arb, ...] at the working precision. NoEnclosure (naming the function) when an operation
    has no rule; an enclosure is valid for every value in the input balls."""
    exprs = [_prepared(sp.sympify(e)) for e in exprs]
    reps, reduced = sp.cse(exprs)
    slot = {s: i for i, s in enumerate(syms)}

    def comp(e):
        if e in slot:
            i = slot[e]
            return lambda v: v[i]
        if e.is_Symbol:
            raise NoEnclosure(f"no value for the symbol {e}")
        if e.is_Number or e.is_NumberSymbol:
            if e.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or not e.is_real:
                raise NoEnclosure(f"no enclosure of the number {e}")
            c = _const(e)
            return lambda v: c()
        if e.is_Add or e.is_Mul:
            return _folded([comp(a) for a in e.args], operator.add if e.is_Add else operator.mul)
        if e.is_Pow:
            base, ex = e.args
            fb = comp(base)
            if ex.is_Integer:
                n = int(ex)
                return (lambda v: fb(v) ** n) if n >= 0 else (lambda v: 1 / (fb(v) ** (-n)))
            if ex == sp.S.Half:
                return lambda v: fb(v).sqrt()
            if ex == -sp.S.Half:
                return lambda v: fb(v).rsqrt()
            if ex.is_Rational and ex.q % 2 == 1:  # odd root: real for a negative base too
                p, q = int(ex.p), int(ex.q)

                def odd_root(v):
                    b = fb(v)
                    r = abs(b).root(q) ** abs(p)
                    r = r if p > 0 else 1 / r
                    if b >= 0:
                        return r
                    if b < 0:
                        return r if p % 2 == 0 else -r
                    raise _Undecidable("the sign of an odd root's base is undecided")
                return odd_root
            fe = comp(ex)
            return lambda v: _pow(fb(v), fe(v))
        if isinstance(e, sp.Piecewise):
            branches = []
            for val, cond in e.args:
                fv = comp(val)
                if cond is sp.true:
                    branches.append((fv, lambda v: True))
                    continue
                if type(cond) not in _REL_OPS:
                    raise NoEnclosure(f"no enclosure of the Piecewise condition {cond}")
                fl, fr, op = comp(cond.lhs), comp(cond.rhs), _REL_OPS[type(cond)]
                branches.append((fv, lambda v, fl=fl, fr=fr, op=op: _cmp(op, fl(v), fr(v))))
            return _piecewise(branches)
        rule = _ARB_FUNCS.get(e.func)
        if rule is None:
            raise NoEnclosure(f"no enclosure of {getattr(e.func, '__name__', e.func)}")
        fs = [comp(a) for a in e.args]
        if e.func in (sp.besselj, sp.besseli, sp.besselk, sp.bessely) and not e.args[0].is_number:
            raise NoEnclosure(f"no enclosure of {e.func.__name__} with a symbolic order")
        return lambda v: rule(*(f(v) for f in fs))

    program = []
    for sym, sub in reps:
        program.append(comp(sub))
        slot[sym] = len(slot)
    finals = [comp(r) for r in reduced]

    def run(values: Sequence[flint.arb]) -> list:
        v = list(values)
        for f in program:
            v.append(f(v))
        return [f(v) for f in finals]
    return run


@dataclass(frozen=True)
class PointSign:
    """The relation decided at one point from guaranteed enclosures of both sides.

    status   "holds", "fails", "undecided" (no precision up to MAX_PREC separates the slack from zero) or
             "not evaluable" (a side is not a finite real number there: a singular point, a complex value).
    lhs, rhs, slack   the balls (arb) at the final precision; prec its bits; why: for "not evaluable"."""

    status: str
    lhs: Any = None
    rhs: Any = None
    slack: Any = None
    prec: int = 0
    why: str = ""

    def digits(self) -> int:
        """Significant digits that show the failure: enough to see lhs and rhs differ (at least 12)."""
        try:
            a, b, s = (abs(float(x.mid())) for x in (self.lhs, self.rhs, self.slack))
        except (TypeError, ValueError, OverflowError):
            return 12
        scale = max(a, b)
        if not (scale and s) or not math.isfinite(scale / s):
            return 12 if scale == 0 or s else 30
        return int(min(max(12, math.ceil(math.log10(scale / s)) + 4), 2000))

    def text(self, x: Any) -> str:
        return x.str(self.digits(), radius=False) if isinstance(x, flint.arb) else str(x)


def sides_at(run: Callable[[Sequence[flint.arb]], list], values: Sequence[Any], relation: Any, *,
             margin: Callable[[flint.arb, flint.arb], flint.arb] | None = None,
             start: int | None = None, max_prec: int | None = None) -> PointSign:
    """Decide `lhs relation rhs` at a point (`values`: the symbols' exact values, in the compiled order): both sides
    enclosed at `start` bits, raised 4x until the slack's ball is on one side of zero (holds / fails), up to
    `max_prec` ("undecided"). `margin(lhs, rhs)`: the tolerance the relation's slack allows, as a ball."""
    start = START_PREC if start is None else start  # read at call time: the module's constants are the engine's
    max_prec = MAX_PREC if max_prec is None else max_prec
    prec = start
    while True:
        with _prec(prec):
            try:
                a, b = run([to_arb(x) for x in values])
                if not (a.is_finite() and b.is_finite()):
                    raise ValueError("a side is not a finite real number here")
                m = margin(a, b) if margin is not None else 0
                s = relation.slack(a, b, m)
            except _Undecidable:
                s = a = b = None
            except (ValueError, ZeroDivisionError) as exc:
                return PointSign("not evaluable", prec=prec, why=str(exc) or type(exc).__name__)
            if s is not None:
                if not s.is_finite():
                    if prec >= max_prec:
                        return PointSign("not evaluable", a, b, s, prec, "the slack is not finite")
                else:
                    if relation.strict:
                        if s > 0:
                            return PointSign("holds", a, b, s, prec)
                        if s <= 0:
                            return PointSign("fails", a, b, s, prec)
                    else:
                        if s >= 0:
                            return PointSign("holds", a, b, s, prec)
                        if s < 0:
                            return PointSign("fails", a, b, s, prec)
            if prec >= max_prec:
                return PointSign("undecided", a, b, s, prec)
            prec = min(4 * prec, max_prec)


# the functions mpmath.iv has (it has no tanh, atan, sinh, cosh: the AttributeError); only the fallback
_IV_FUNCS = {sp.exp: "exp", sp.log: "log", sp.sin: "sin", sp.cos: "cos", sp.sqrt: "sqrt"}


def _iv_compile(expr: sp.Expr, syms: Sequence[sp.Symbol]) -> Callable[[Sequence[Any]], Any]:
    """Interval arithmetic (mpmath.iv) compiled once: the fallback enclosure of a cell the ball does not decide (a
    pole at a box edge: iv divides by [0, c] into [1/c, +oo], a ball cannot hold a half-line; a slack whose lower
    end is exactly 0); the interval rules, constants converted once and common subexpressions
    (SymPy cse) evaluated once per box: the enclosure of each occurrence is the same interval, so the result is an
    enclosure (evaluated once per box). TypeError if an operation has no rule."""
    iv = mpmath.iv
    reps, (reduced,) = sp.cse([expr])
    slot = {s: i for i, s in enumerate(syms)}

    def const(c):
        return lambda v: c

    def comp(e):
        if e in slot:
            i = slot[e]
            return lambda v: v[i]
        if e.is_Symbol:
            raise TypeError(f"no interval for the symbol {e}")
        if e.is_Rational:
            return const(iv.mpf(e.p) / iv.mpf(e.q))
        if e.is_Number or e.is_NumberSymbol:
            val = sp.N(e, 40)
            return const(iv.mpf([str(val - sp.Float(10, 40) ** -35), str(val + sp.Float(10, 40) ** -35)]))
        if e.is_Add or e.is_Mul:
            return _folded([comp(a) for a in e.args], operator.add if e.is_Add else operator.mul)
        if e.is_Pow:
            base, ex = e.args
            fb = comp(base)
            if ex.is_Integer:
                n = int(ex)
                one = iv.mpf(1)
                return (lambda v: fb(v) ** n) if n >= 0 else (lambda v: one / (fb(v) ** (-n)))
            if ex == sp.Rational(1, 2):
                return lambda v: iv.sqrt(fb(v))
            if ex == -sp.Rational(1, 2):
                one = iv.mpf(1)
                return lambda v: one / iv.sqrt(fb(v))
            fe = comp(ex)
            return lambda v: iv.exp(fe(v) * iv.log(fb(v)))
        if isinstance(e, sp.Abs):
            fa = comp(e.args[0])

            def absolute(v):
                a = fa(v)
                if a.a >= 0:
                    return a
                if a.b <= 0:
                    return -a
                return iv.mpf([0, max(-a.a, a.b)])
            return absolute
        if e.func in _IV_FUNCS:
            g, fa = getattr(iv, _IV_FUNCS[e.func]), comp(e.args[0])
            return lambda v: g(fa(v))
        raise TypeError(f"no interval rule for {e.func}")

    program = []
    for sym, sub in reps:
        program.append(comp(sub))
        slot[sym] = len(slot)
    final = comp(reduced)

    def run(values: Sequence[Any]) -> Any:
        v = list(values)
        for f in program:
            v.append(f(v))
        return final(v)
    return run


def certify_on_box(slack: sp.Expr, box: Mapping[sp.Symbol, tuple[float, float]], *, strict: bool = False,
                   max_boxes: int = 20000, log: Iterable[sp.Symbol] = ()) -> tuple[bool | None, str, int]:
    """Certify slack >= 0 (> 0 if strict) on a closed box by interval arithmetic with bisection.

    Returns (True, detail, boxes) when every sub-box's enclosure is >= 0, (False, point, boxes) when a sub-box's
    midpoint violates it, (None, reason, boxes) when the budget runs out or an operation has no interval rule (the
    reason names the cell left open). A cell is split along its widest side relative to the box; along the symbols
    in `log` (a positive or negative interval) geometrically, so a multi-decade box is bisected by decades.
    """
    ok, detail, done, _ = _certify(slack, box, strict=strict, max_boxes=max_boxes, log=log)
    return ok, detail, done


def _certify(slack: sp.Expr, box: Mapping[sp.Symbol, tuple[float, float]], *, strict: bool = False,
             max_boxes: int = 20000, log: Iterable[sp.Symbol] = ()) -> tuple[bool | None, str, int, dict | None]:
    """certify_on_box, with the violating midpoint as a point (symbol -> rational) when there is one."""
    syms = sorted(box, key=lambda s: s.name)
    full = [(float(box[s][0]), float(box[s][1])) for s in syms]
    geo = [s in set(log) and lo * hi > 0 for s, (lo, hi) in zip(syms, full)]
    span = [math.log(hi / lo) if g else hi - lo for g, (lo, hi) in zip(geo, full)]
    stack = [tuple(full)]
    done = 0
    try:
        run = compile_arb([slack, sp.Integer(0)], syms)
    except NoEnclosure as exc:
        return None, f"not certified: {exc}", done, None
    try:
        half_lines = _iv_compile(slack, syms)
    except (TypeError, AttributeError, ZeroDivisionError, ValueError):
        half_lines = None
    relation = Greater() if strict else GreaterEqual()
    # the precision the cells are enclosed at: CERTIFY_PREC, or what the box's midpoint needed to decide its sign
    # (1 - erf(z) at z ~ 30 has no correct bit below ~1,300: no bisection narrows that)
    prec = CERTIFY_PREC
    centre = [_search.rational((lo + hi) / 2, 13) for lo, hi in full]
    at_centre = sides_at(run, centre, relation)
    if at_centre.status in ("holds", "fails"):
        prec = max(prec, at_centre.prec)

    def cell_text(cell) -> str:
        return ", ".join(f"{s} in [{lo:.6g}, {hi:.6g}]" for s, (lo, hi) in zip(syms, cell))

    def middle(k: int, lo: float, hi: float) -> float:
        return math.copysign(math.sqrt(lo * hi), lo) if geo[k] else (lo + hi) / 2

    while stack:
        if done >= max_boxes:
            return None, (f"undecided after {done} boxes (the enclosure is still too wide on {len(stack) + 1} cells, "
                          f"e.g. {cell_text(cell)})"), done, None
        cell = stack.pop()
        done += 1
        with _prec(prec):
            try:
                enc = run([to_arb(c) for c in cell])[0]
            except (_Undecidable, ValueError, ZeroDivisionError):
                enc = None
        if enc is not None and enc.is_finite() and (enc > 0 or (enc >= 0 and not strict)):
            continue
        # a ball cannot hold a half-line (a pole at an edge) nor an interval whose lower end is exactly 0 (a
        # square's [0, c] is a ball c/2 +- c/2 rounded outward): interval arithmetic decides those cells
        if half_lines is not None:
            try:
                iv = half_lines([mpmath.iv.mpf([lo, hi]) for lo, hi in cell])
                if iv.a > 0 or (iv.a >= 0 and not strict):
                    continue
            except (TypeError, ZeroDivisionError, ValueError, ArithmeticError):
                pass
        mid = {s: _search.rational(middle(k, lo, hi), 13) if lo != hi else _search.rational(lo, 13)
               for k, (s, (lo, hi)) in enumerate(zip(syms, cell))}
        # a violation only where the midpoint's slack is certainly on the failing side (raised precision)
        if sides_at(run, list(mid.values()), relation).status == "fails":
            return False, ", ".join(f"{s}={float(v):.12g}" for s, v in mid.items()), done, mid
        k = max(range(len(syms)), key=lambda i: (math.log(cell[i][1] / cell[i][0]) if geo[i] else
                                                  cell[i][1] - cell[i][0]) / (span[i] or 1.0))
        lo, hi = cell[k]
        m = middle(k, lo, hi)
        if hi - lo < 1e-12 * (max(abs(lo), abs(hi)) if geo[k] else 1.0) or not lo < m < hi:
            return None, f"the enclosure does not decide near {cell_text(cell)}", done, None
        for half in ((lo, m), (m, hi)):
            stack.append(cell[:k] + (half,) + cell[k + 1:])
    return True, f"{done} boxes", done, None

