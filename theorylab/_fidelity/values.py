"""Values of sides at points: 30-digit evaluation (quadrature, sums, matrices), closeness and decisive
failure (`_close`, `_holds`, `_fails`), a point's scalars and arrays, and the sampled points."""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import mpmath
import numpy as np
import sympy as sp

from .._shared import close
from .thresholds import DECISIVE, _DPS
from .names import _normal
from .optimum import _Optimum


# -- values at points ------------------------------------------------------------------------------------------------

class _Timeout(Exception):
    pass


def _number(x: Any):
    """x as an mpmath number (real), or None when it is not a finite real number."""
    try:
        if isinstance(x, sp.Basic):
            if x.free_symbols or x in (sp.zoo, sp.nan, sp.oo, -sp.oo):
                return None
            strict = x.has(sp.zoo, sp.nan, sp.oo, -sp.oo)
            if x.has(sp.Integral):
                # each integral of one variable by quadrature (`_quad`); one it cannot settle (divergent, not
                # converged) leaves the expression without a value
                failed: list = []
                x = x.replace(lambda e: isinstance(e, sp.Integral), lambda e: _quad(e, failed))
                if failed:
                    return None
                strict = strict or x.has(sp.Integral)
            # an infinite bound or an integral of another form left: a value only where evalf reaches every digit
            # asked for (a divergent integral exhausts the precision: none)
            v = x.evalf(_DPS, strict=True, maxn=2 * _DPS) if strict else x.evalf(_DPS)
            if strict and v.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
                return None
            if not v.is_number:
                return None
            re_, im_ = v.as_real_imag()
            if abs(float(im_)) > 1e-25 * max(1.0, abs(float(re_))):
                return None
            v = mpmath.mpf(str(sp.Float(re_, _DPS)))
        else:
            arr = np.asarray(x)
            if arr.dtype == object and arr.ndim == 0:
                v = mpmath.mpf(arr.item()) if not isinstance(arr.item(), mpmath.mpf) else arr.item()
            elif arr.size != 1 or not np.isrealobj(arr):
                return None
            else:
                v = mpmath.mpf(float(arr.reshape(())))
        return v if mpmath.isfinite(v) else None
    except (TypeError, ValueError, ArithmeticError, AttributeError, RecursionError):  # PrecisionExhausted too
        return None


def _quad(integral: sp.Integral, failed: list) -> sp.Basic:
    """A definite integral of one variable with numeric bounds as a number: mpmath's tanh-sinh quadrature of the
    integrand at 20 and at 30 digits, kept where the two agree to 1e-12 relative; where they do not (a divergent or
    oscillating integral) it is appended to `failed`. An integral of another form is returned as it is."""
    if len(integral.limits) != 1 or len(integral.limits[0]) != 3:
        return integral
    var, lo, hi = integral.limits[0]
    if integral.function.free_symbols - {var} or not (lo.is_number and hi.is_number):
        return integral
    try:
        f = sp.lambdify(var, integral.function, "mpmath")
        bounds = [mpmath.mpmathify(sp.N(b, _DPS)) if b.is_finite else (mpmath.inf if b == sp.oo else -mpmath.inf)
                  for b in (lo, hi)]
        values = []
        for dps in (20, _DPS):
            with mpmath.workdps(dps):
                values.append(mpmath.quad(f, bounds))
        a, b = values
        with mpmath.workdps(_DPS):
            if not (mpmath.isfinite(a) and mpmath.isfinite(b)) or abs(a - b) > 1e-12 * max(1, abs(b)) \
                    or abs(mpmath.im(b)) > 1e-25 * max(1, abs(b)):
                failed.append(integral)
                return integral
            return sp.Float(mpmath.nstr(mpmath.re(b), _DPS), _DPS)
    except _Timeout:
        raise
    except Exception:  # noqa: BLE001 - an integrand mpmath cannot evaluate: evalf tries
        return integral


def _conjugate_square_root(x: sp.Basic):
    """E where x is sqrt(conjugate(E) E) (that is |E|), else None."""
    if not (isinstance(x, sp.Pow) and x.exp == sp.S.Half and isinstance(x.base, sp.Mul) and len(x.base.args) == 2):
        return None
    a, b = x.base.args
    for c, other in ((a, b), (b, a)):
        if isinstance(c, sp.conjugate) and c.args[0] == other:
            return other
    return None


def _ready(expr: sp.Basic, functions: Mapping[str, Any]) -> sp.Basic:
    """expr with its undefined functions replaced by their stand-ins and its derivatives and substitutions carried
    out (symbolically, once: a derivative needs its variable before the point is put in)."""
    e = expr
    if functions:
        rep = {}
        for f in e.atoms(sp.core.function.AppliedUndef):
            stand = functions.get(_normal(f.func.__name__))
            if stand is not None:
                rep[f] = stand(*f.args)
        if rep:
            e = e.xreplace(rep)
    try:
        # |E| as SymPy may leave it, sqrt(conjugate(E) E) (an Abs whose argument's conjugate it cannot resolve at parse
        # time): the same value, read as |E| so that an integral E is evaluated once, not twice (its conjugate by a
        # slower path: seconds a point)
        e = e.replace(_conjugate_square_root, lambda x: sp.Abs(_conjugate_square_root(x), evaluate=False))
        e = e.replace(lambda x: isinstance(x, sp.Integral) and all(
            x.function.is_polynomial(lim[0]) for lim in x.limits), lambda x: x.doit())
        return e.replace(lambda x: isinstance(x, (sp.Subs, sp.Derivative)), lambda x: x.doit())
    except _Timeout:
        raise
    except Exception:  # noqa: BLE001 - SymPy cannot carry it out: evaluated as it stands
        return e


_TERMS = 10_000    # a sum or product with at most this many terms is written out term by term


def _carry_out(x: sp.Basic) -> sp.Basic:
    """A derivative, substitution, limit, sum or product carried out; a sum or product over a finite integer range
    (at most _TERMS terms) term by term, as its definition reads: SymPy's own summation of a summand that is a case
    distinction in the index (beta_j as Piecewise((beta_1, j = 1), ...)) can fail where each term has a value."""
    if isinstance(x, (sp.Sum, sp.Product)) and len(x.limits) == 1:
        var, lo, hi = x.limits[0]
        if lo.is_Integer and hi.is_Integer and 0 <= int(hi) - int(lo) < _TERMS:
            terms = [x.function.xreplace({var: sp.Integer(k)}) for k in range(int(lo), int(hi) + 1)]
            return sp.Add(*terms) if isinstance(x, sp.Sum) else sp.Mul(*terms)
    return x.doit()
def _evaluate(expr: sp.Basic, subs: Mapping):
    """A ready expression (`_ready`) at a point: symbols substituted (never a bound variable), limits, sums and
    products carried out, evaluated at 30 digits. None where it has no finite real value there. Into a limit the
    point's floats go as the exact rationals they are (a limit of 0/0 at gamma = 0.5 is decided at gamma = 1/2; at
    a 30-digit float the cancellation is lost and SymPy answers oo)."""
    try:
        if subs and expr.has(sp.Limit):
            subs = {k: sp.Rational(v) if isinstance(v, sp.Float) else v for k, v in dict(subs).items()}
        subs = dict(subs or {})
        mats = {k: v for k, v in subs.items() if isinstance(k, sp.MatrixSymbol)}
        e = expr.xreplace(mats) if mats else expr
        scalars = {k: v for k, v in subs.items() if k not in mats}
        e = e.subs(scalars) if scalars else e
        if mats or getattr(e, "is_Matrix", False) or e.has(sp.MatrixExpr):
            e = _explicit(e)
        if e.free_symbols or e.atoms(sp.core.function.AppliedUndef):
            return None
        e = e.replace(lambda x: isinstance(x, (sp.Subs, sp.Derivative, sp.Limit, sp.Sum, sp.Product, _Optimum)),
                      _carry_out)
    except _Timeout:
        raise
    except Exception:  # noqa: BLE001 - SymPy cannot carry it out here: no value
        return None
    if isinstance(e, sp.MatrixBase):
        if e.shape == (1, 1):
            return _number(e[0, 0])           # a 1 x 1 result is a scalar (u^T W v)
        entries = [_number(x) for x in e]
        return None if any(v is None for v in entries) else _Arr(tuple(e.shape), tuple(entries))
    return _number(e)


def _bound_at(b: sp.Basic, point: Mapping):
    """A printed sum's bound at a numeric step's point (its values by name): an integer as it is; an expression of
    symbols (l, L - 1) its value where the point has every symbol and the value is an integer; else None (no value)."""
    if b.is_Integer:
        return int(b)
    syms = b.free_symbols
    if not syms or not all(isinstance(x, sp.Symbol) and point.get(x.name) is not None for x in syms):
        return None
    try:
        v = float(b.xreplace({x: sp.sympify(point[x.name]) for x in syms}))
    except (TypeError, ValueError):
        return None
    return int(v) if math.isfinite(v) and v.is_integer() else None


def _routine_value(x: Any):
    """A routine side's value at a point (a step with numeric sides): a number (`_number`), or, where the routine
    returns a vector or matrix of two or more finite real entries (a numpy array, nested lists), that matrix as an
    `_Arr` (a vector as a column), compared entrywise with a printed matrix side of the same shape (a printed matrix
    built of names the notation binds to matrices the points carry). None otherwise."""
    v = _number(x)
    if v is not None or isinstance(x, (sp.Basic, int, float)):
        return v
    try:
        arr = np.asarray(x)
        if arr.dtype == object or not np.isrealobj(arr) or arr.ndim not in (1, 2) or arr.size < 2:
            return None
        arr = np.asarray(arr, dtype=float)
    except (TypeError, ValueError):
        return None
    if not np.all(np.isfinite(arr)):
        return None
    arr = arr.reshape(-1, 1) if arr.ndim == 1 else arr
    return _Arr(tuple(arr.shape), tuple(mpmath.mpf(float(e)) for e in arr.ravel()))


_OPNORM = "\\|\\cdot\\|_{op}"          # sources._matrix_meaning: the largest singular value of a matrix


def _explicit(e: sp.Basic) -> sp.Basic:
    """A matrix expression whose matrix symbols are replaced by explicit matrices, carried out: products, sums,
    transposes and traces done, an operator norm (`_OPNORM`) its largest singular value (mpmath, 30 digits)."""
    def opnorm(f):
        m = sp.ImmutableMatrix(f.args[0].doit())
        with mpmath.workdps(_DPS):
            sv = mpmath.svd_r(mpmath.matrix([[mpmath.mpf(str(sp.N(x, _DPS))) for x in row]
                                             for row in m.tolist()]), compute_uv=False)
            return sp.Float(str(max(abs(x) for x in sv)), _DPS)

    e = e.replace(lambda x: isinstance(x, sp.core.function.AppliedUndef) and x.func.__name__ == _OPNORM
                  and not x.free_symbols, opnorm)
    e = e.doit()
    if isinstance(e, sp.MatrixExpr) and not isinstance(e, sp.MatrixBase):
        e = e.as_explicit()
    return e


@dataclass(frozen=True)
class _Arr:
    """A matrix value at a point: its shape and entries (mpmath numbers), compared entrywise."""

    shape: tuple
    entries: tuple

    def scale(self):
        return max(abs(x) for x in self.entries)


def _arrays(a, b):
    """(a, b) as arrays of one shape, or None where either is a scalar and the other a matrix, or the shapes differ."""
    if not (isinstance(a, _Arr) and isinstance(b, _Arr)) or a.shape != b.shape:
        return None
    return a, b


def _close(a, b, rtol: float, tol: float = 0.0) -> bool:
    if isinstance(a, _Arr) or isinstance(b, _Arr):
        ab = _arrays(a, b)
        if ab is None:
            return False
        bound = tol + rtol * max(a.scale(), b.scale()) + 1e-25
        return all(abs(x - y) <= bound for x, y in zip(a.entries, b.entries))
    return close(a, b, rtol, atol=tol + 1e-25)  # the one closeness rule (theorylab._shared), at a and b's precision


def _holds(a, b, op: str, rtol: float, tol: float = 0.0) -> bool:
    if op == "==":
        return _close(a, b, rtol, tol)
    if isinstance(a, _Arr) or isinstance(b, _Arr):
        return False                          # an order between matrices is not compared
    slack = (b - a) if op in ("<=", "<") else (a - b)
    return slack >= -(tol + rtol * max(abs(a), abs(b)) + 1e-25)


def _fails(a, b, op: str) -> bool:
    """The relation misses by more than DECISIVE relative (a clear failure, never rounding); matrices of one shape
    fail = where an entry misses by more than DECISIVE relative to the largest entry; a matrix never fails against a
    scalar or a matrix of another shape (they are not the same kind: no comparison)."""
    if isinstance(a, _Arr) or isinstance(b, _Arr):
        ab = _arrays(a, b)
        if ab is None or op != "==":
            return False
        scale = DECISIVE * max(1, a.scale(), b.scale())
        return any(abs(x - y) > scale for x, y in zip(a.entries, b.entries))
    scale = DECISIVE * max(1, abs(a), abs(b))
    if op == "==":
        return abs(a - b) > scale
    slack = (b - a) if op in ("<=", "<") else (a - b)
    return slack < -scale


def _range(sym: sp.Symbol, domain: Mapping) -> tuple[float, float]:
    """Where a symbol is sampled: the step's domain (unbounded ends clipped 10 units out), else by its
    assumptions: positive (0.05, 3), nonnegative (0, 3), negative (-3, -0.05), real (-3, 3)."""
    if sym in domain:
        lo, hi = domain[sym]
        lo = None if lo is None or (isinstance(lo, (int, float, sp.Basic)) and not math.isfinite(float(lo))) \
            else float(lo)
        hi = None if hi is None or (isinstance(hi, (int, float, sp.Basic)) and not math.isfinite(float(hi))) \
            else float(hi)
        if lo is None and hi is None:
            return (-10.0, 10.0)
        if lo is None:
            return (hi - 10.0, hi)
        if hi is None:
            return (lo, lo + (10.0 if lo <= 0 else 10.0 * max(1.0, lo)))
        return (lo, hi)
    if sym.is_positive:
        return (0.05, 3.0)
    if sym.is_nonnegative:
        return (0.0, 3.0)
    if sym.is_negative:
        return (-3.0, -0.05)
    return (-3.0, 3.0)


def _sample(syms: Sequence[sp.Symbol], domain: Mapping, rng: random.Random, n: int) -> list[dict]:
    """n random points inside the symbols' ranges (ends excluded), as exact rationals (3 decimals) or integers."""
    out = []
    for _ in range(n):
        pt = {}
        for s in syms:
            lo, hi = _range(s, domain)
            if s.is_integer and s not in domain:
                # an integer with no stated domain (a sample size n): 1..13 where positive, not 1..2 (the real
                # default (0.05, 3) would leave only the values where a printed n - 2 or n - 1 vanishes)
                lo, hi = (0.5, 13.5) if s.is_positive else (-0.5, 12.5) if s.is_nonnegative else (-6.5, 6.5)
            if s.is_integer:
                a, b = math.ceil(lo + 1e-9), math.floor(hi - 1e-9)
                a, b = (a, b) if a <= b else (math.ceil(lo), math.floor(hi))
                b = min(b, a + 12)
                pt[s] = sp.Integer(rng.randint(a, b)) if a <= b else sp.Integer(a)
            else:
                v = lo + (hi - lo) * rng.uniform(0.03, 0.97)
                q = sp.Rational(round(v * 1000), 1000)
                pt[s] = q if q != 0 else sp.Rational(1, 1000)
        out.append(pt)
    return out


def _stand_in(name: str, rng: random.Random):
    """A smooth stand-in for an undefined function (the same for the step and the print): a random cubic in the sum
    of its arguments."""
    x = sp.Dummy("x")
    coeffs = [sp.Rational(rng.randint(-9, 9) or 1, 7) for _ in range(4)]
    body = sum(c * x ** k for k, c in enumerate(coeffs))
    return lambda *args: body.subs(x, sp.Add(*args))


def _scalar(v: Any):
    """A point's value as a SymPy number, or None (an array, a matrix)."""
    if isinstance(v, sp.Basic):
        return v if v.is_number else None
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return sp.Integer(v)
    if isinstance(v, float):
        return sp.Float(v, _DPS) if math.isfinite(v) else None
    try:
        if isinstance(v, np.generic) and np.ndim(v) == 0:
            return _scalar(v.item())
        if isinstance(v, mpmath.mpf):
            return sp.Float(str(v), _DPS)
    except (TypeError, ValueError):
        pass
    return None


def _array(v: Any) -> tuple | None:
    """A point's vector or matrix (a tuple, list or numpy array of finite numbers) as an ImmutableMatrix-ready nested
    tuple with a `shape` (a vector is a column), or None."""
    try:
        arr = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        return None
    if arr.ndim not in (1, 2) or arr.size == 0 or not np.all(np.isfinite(arr)):
        return None
    arr = arr.reshape(-1, 1) if arr.ndim == 1 else arr
    return _Entries(tuple(tuple(sp.Float(float(x), _DPS) for x in row) for row in arr))


class _Entries(tuple):
    """Rows of a point's array; iterating gives its entries row by row (a vector's in order)."""

    @property
    def shape(self) -> tuple:
        return (len(self), len(self[0]))

    def __iter__(self):
        return (x for row in tuple.__iter__(self) for x in row)

    def matrix(self) -> sp.ImmutableMatrix:
        return sp.ImmutableMatrix([list(row) for row in tuple.__iter__(self)])
