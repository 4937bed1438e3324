"""Certification on a box: a guaranteed enclosure of the slack over each cell (interval arithmetic), cells bisected
until every enclosure is on the holding side, a violating midpoint found, or the budget spent.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Mapping, Sequence

import mpmath
import sympy as sp

from . import search as _search


_IV_FUNCS = {sp.exp: "exp", sp.log: "log", sp.sin: "sin", sp.cos: "cos", sp.sqrt: "sqrt", sp.atan: "atan",
             sp.tanh: "tanh", sp.cosh: "cosh", sp.sinh: "sinh"}


def _iv_eval(expr: sp.Expr, box: Mapping[sp.Symbol, Any]):
    """Interval enclosure of expr over the box (mpmath.iv), by structural recursion; TypeError if unsupported."""
    iv = mpmath.iv
    if expr.is_Symbol:
        return box[expr]
    if expr.is_Rational:
        return iv.mpf(expr.p) / iv.mpf(expr.q)
    if expr.is_Number or expr.is_NumberSymbol:
        v = sp.N(expr, 40)
        return iv.mpf([str(v - sp.Float(10, 40) ** -35), str(v + sp.Float(10, 40) ** -35)])
    if expr.is_Add:
        out = iv.mpf(0)
        for a in expr.args:
            out = out + _iv_eval(a, box)
        return out
    if expr.is_Mul:
        out = iv.mpf(1)
        for a in expr.args:
            out = out * _iv_eval(a, box)
        return out
    if expr.is_Pow:
        base, e = expr.args
        b = _iv_eval(base, box)
        if e.is_Integer:
            n = int(e)
            if n >= 0:
                return b ** n
            return iv.mpf(1) / (b ** (-n))
        if e == sp.Rational(1, 2):
            return iv.sqrt(b)
        if e == -sp.Rational(1, 2):
            return iv.mpf(1) / iv.sqrt(b)
        return iv.exp(_iv_eval(e, box) * iv.log(b))
    if isinstance(expr, sp.Abs):
        a = _iv_eval(expr.args[0], box)
        lo, hi = a.a, a.b
        if lo >= 0:
            return a
        if hi <= 0:
            return -a
        return iv.mpf([0, max(-lo, hi)])
    if expr.func in _IV_FUNCS:
        return getattr(iv, _IV_FUNCS[expr.func])(_iv_eval(expr.args[0], box))
    raise TypeError(f"no interval rule for {expr.func}")


def _iv_compile(expr: sp.Expr, syms: Sequence[sp.Symbol]) -> Callable[[Sequence[Any]], Any]:
    """_iv_eval compiled once: the same interval rules, constants converted once and common subexpressions
    (SymPy cse) evaluated once per box: the enclosure of each occurrence is the same interval, so the result is an
    enclosure as _iv_eval's is, several times faster on a large side. TypeError if an operation has no rule."""
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
            fs = [comp(a) for a in e.args]
            if e.is_Add:
                def add(v):
                    out = fs[0](v)
                    for f in fs[1:]:
                        out = out + f(v)
                    return out
                return add

            def mul(v):
                out = fs[0](v)
                for f in fs[1:]:
                    out = out * f(v)
                return out
            return mul
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
        enclose = _iv_compile(slack, syms)
    except (TypeError, ZeroDivisionError, ValueError) as exc:
        return None, f"interval arithmetic cannot evaluate it ({exc})", done, None
    try:
        fast = sp.lambdify(syms, slack, "mpmath")
    except Exception:  # noqa: BLE001 -- no mpmath form: every midpoint goes to SymPy
        fast = None

    def cell_text(cell) -> str:
        return ", ".join(f"{s} in [{lo:.6g}, {hi:.6g}]" for s, (lo, hi) in zip(syms, cell))

    def clearly_ok(mid: dict) -> bool:
        """The slack at a midpoint is certainly > 0 (so no violation there) when 40- and 60-digit mpmath values
        agree to half their size: cancellation would make them disagree. SymPy's exact evaluation (~1 ms a box,
        most of a box's cost) is left for the points this cannot settle."""
        if fast is None:
            return False
        try:
            vals = []
            for dps in (40, 60):
                with mpmath.workdps(dps):
                    vals.append(fast(*(mpmath.mpf(v.p) / v.q for v in mid.values())))
            lo_, hi_ = vals
            return bool(mpmath.isfinite(hi_) and hi_ > 0 and abs(lo_ - hi_) < hi_ / 2)
        except Exception:  # noqa: BLE001 -- any failure: decide with SymPy
            return False

    def middle(k: int, lo: float, hi: float) -> float:
        return math.copysign(math.sqrt(lo * hi), lo) if geo[k] else (lo + hi) / 2

    while stack:
        if done >= max_boxes:
            return None, (f"undecided after {done} boxes (the enclosure is still too wide on {len(stack) + 1} cells, "
                          f"e.g. {cell_text(cell)})"), done, None
        cell = stack.pop()
        done += 1
        try:
            enc = enclose([mpmath.iv.mpf([lo, hi]) for lo, hi in cell])
        except (TypeError, ZeroDivisionError, ValueError) as exc:
            return None, f"interval arithmetic cannot evaluate it ({exc})", done, None
        if enc.a > 0 or (enc.a >= 0 and not strict):
            continue
        mid = {s: _search.rational(middle(k, lo, hi), 13) if lo != hi else _search.rational(lo, 13)
               for k, (s, (lo, hi)) in enumerate(zip(syms, cell))}
        if not clearly_ok(mid):
            val = sp.N(slack.subs(mid), 30)
            if val.is_number and (val < 0 or (strict and val <= 0)):
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

