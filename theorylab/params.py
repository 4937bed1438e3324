"""Parameter kinds (scalar, integer, vector, matrix, expression in z) and their domains.

Every parameter validates its own input and raises `DomainError` with one line naming the parameter
and what it must be; every parameter also yields a Hypothesis strategy for its domain and bad inputs.
"""
from __future__ import annotations

import contextlib
import contextvars
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import sympy as sp

__all__ = ["DomainError", "Param", "scalar", "integer", "vector", "matrix", "expression", "Z", "generic_values"]

Z = sp.Symbol("z", real=True)
_MISSING = object()


class DomainError(ValueError):
    """Bad input: the message names the parameter, what it must be, and what was given."""


def _fmt(value: Any) -> str:
    try:
        arr = np.asarray(value)
        if arr.dtype.kind in "fiu" and arr.size > 6:
            return f"array of shape {arr.shape}"
    except Exception:  # noqa: BLE001 - only formatting
        pass
    text = repr(value.tolist() if isinstance(value, np.ndarray) else value)
    return text if len(text) <= 80 else text[:77] + "..."


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


_GENERIC: contextvars.ContextVar[bool] = contextvars.ContextVar("theorylab_generic_values", default=False)


@contextlib.contextmanager
def generic_values():
    """Within this block, default strategies draw from the bulk of each domain only (no edges, excluded points or
    extreme magnitudes): for tests that need a generic point, such as a gradient that is finite at a generic point
    but may be infinite at a bound. A parameter's own `strategy_fn` is used as it is."""
    token = _GENERIC.set(True)
    try:
        yield
    finally:
        _GENERIC.reset(token)


@dataclass(frozen=True)
class Param:
    """One parameter of an entry: its kind, shape rule, domain and SymPy symbol.

    Arguments (build one with `scalar`, `integer`, `vector`, `matrix` or `expression`):
        name: the keyword the entry takes; spell out the paper's symbol (`gamma`, `theta`).
        doc: what it is, in the paper's words.
        shape: dimension names, ("D",) or ("n", "D"), shared between the parameters of one entry (sizes must agree).
        low, high, low_open, high_open: bounds, elementwise; open bounds exclude the bound itself.
        exclude: singular points inside the bounds (bad input: a DomainError, never inf); `exclude_why` says why.
        default: a value used when the parameter is not given.
        tex: the LaTeX (and SymPy) name of its symbol, when it differs from `name`.
        strategy_fn: `strategy_fn(dims) -> hypothesis strategy` drawing valid values, where `dims` maps the shape's
            dimension names to the sizes drawn for this example (a vector parameter must draw arrays of shape
            `(dims["D"],)`). Without it, `strategy` builds one from the domain that puts mass where float64
            formulas break: at the bounds and just inside them, within relative distances 1e-15..1e-3 of each
            excluded point, and at tiny and huge magnitudes (up to the bounds), besides the bulk of the domain.
        examples: hard values of this parameter (documentation; entries pin whole examples in `Entry.examples`).
    Example::

        gamma = scalar("gamma", "samples per dimension, n/d", low=0, low_open=True, exclude=(1,),
                       exclude_why="the risk diverges at the interpolation threshold")
        gamma.validate(0.5)   # 0.5
        gamma.validate(1.0)   # DomainError: gamma must not be 1 (the risk diverges ...); got gamma=1.0
    """

    name: str
    kind: str  # "scalar" | "integer" | "vector" | "matrix" | "expression"
    doc: str = ""
    shape: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    exclude: tuple[float, ...] = ()
    exclude_why: str = ""
    default: Any = _MISSING
    tex: str | None = None
    strategy_fn: Callable[..., Any] | None = field(default=None, compare=False)
    examples: tuple[Any, ...] = ()

    # -- description -------------------------------------------------------------------------
    @property
    def has_default(self) -> bool:
        return self.default is not _MISSING

    @property
    def domain(self) -> str:
        """Human-readable domain, e.g. 'a real number in (0, inf) other than 1'."""
        if self.kind == "expression":
            return "a SymPy expression in z"
        if self.kind == "vector":
            what = f"a vector of length {self.shape[0]} of real numbers" if self.shape else "a vector"
        elif self.kind == "matrix":
            what = f"a {self.shape[0]}x{self.shape[1]} matrix of real numbers" if self.shape else "a matrix"
        else:
            what = {"scalar": "a real number", "integer": "an integer"}[self.kind]
        bounds = self._bounds_text()
        if bounds:
            what += (" with entries " if self.kind in ("vector", "matrix") else " ") + bounds
        if self.exclude:
            what += " other than " + ", ".join(_num(x) for x in self.exclude)
        return what

    def _bounds_text(self) -> str:
        lo, hi = self.low, self.high
        if lo is None and hi is None:
            return ""
        if hi is None:
            return (">" if self.low_open else ">=") + " " + _num(lo)
        if lo is None:
            return ("<" if self.high_open else "<=") + " " + _num(hi)
        return f"in {'(' if self.low_open else '['}{_num(lo)}, {_num(hi)}{')' if self.high_open else ']'}"

    @property
    def symbol(self) -> sp.Symbol:
        """The SymPy symbol standing for this parameter (an element of it, for vectors)."""
        assumptions: dict[str, bool] = {"real": True}
        if self.kind == "integer":
            assumptions["integer"] = True
        if self.low is not None and self.high is None:
            if self.low > 0 or (self.low == 0 and self.low_open):
                assumptions["positive"] = True
            elif self.low == 0:
                assumptions["nonnegative"] = True
        return sp.Symbol(self.tex or self.name, **assumptions)

    # -- validation --------------------------------------------------------------------------
    def fail(self, given: Any, must: str | None = None) -> DomainError:
        return DomainError(f"{self.name} must be {must or self.domain}; got {self.name}={_fmt(given)}")

    def validate(self, value: Any, *, batch: bool = False) -> Any:
        """Return the value converted (float, ndarray or SymPy expression) or raise DomainError.

        With batch=True a scalar parameter may be an array (for vectorized evaluation).
        """
        if self.kind == "expression":
            return self._validate_expression(value)
        if isinstance(value, (str, bytes, bool, np.bool_)) or value is None or isinstance(value, dict):
            raise self.fail(value)
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise self.fail(value) from None
        want_ndim = {"scalar": 0, "integer": 0, "vector": 1, "matrix": 2}[self.kind]
        if arr.ndim != want_ndim and not (batch and want_ndim == 0):
            raise self.fail(value)
        if arr.size == 0:
            raise self.fail(value, self.domain + " (not empty)")
        if not np.all(np.isfinite(arr)):
            raise self.fail(value, self.domain + " (finite, not NaN or inf)")
        if self.kind == "integer" and not np.all(arr == np.round(arr)):
            raise self.fail(value)
        lo, hi = self.low, self.high
        if lo is not None and not np.all(arr > lo if self.low_open else arr >= lo):
            raise self.fail(value)
        if hi is not None and not np.all(arr < hi if self.high_open else arr <= hi):
            raise self.fail(value)
        for x in self.exclude:
            if np.any(arr == x):
                why = f" ({self.exclude_why})" if self.exclude_why else ""
                raise DomainError(f"{self.name} must not be {_num(x)}{why}; got {self.name}={_fmt(value)}")
        if arr.ndim == 0:
            return int(arr) if self.kind == "integer" else float(arr)
        return arr

    def _validate_expression(self, value: Any) -> sp.Expr:
        if isinstance(value, sp.Expr):
            expr = value
        elif isinstance(value, str):
            try:
                expr = sp.sympify(value, locals={"z": Z}, rational=False)
            except (sp.SympifyError, SyntaxError, TypeError, ValueError, AttributeError, TokenError_):
                raise self.fail(value) from None
        else:
            raise self.fail(value)
        if not isinstance(expr, sp.Expr):
            raise self.fail(value)
        expr = expr.xreplace({s: Z for s in expr.free_symbols if s.name == "z"})
        if expr.free_symbols - {Z}:
            names = ", ".join(sorted(s.name for s in expr.free_symbols - {Z}))
            raise self.fail(value, f"a SymPy expression in z alone (it also uses {names})")
        return expr

    # -- generation for tests ----------------------------------------------------------------
    def strategy(self, dims: dict[str, int]):
        """A Hypothesis strategy drawing valid values of this parameter."""
        from hypothesis import strategies as st
        from hypothesis.extra import numpy as hnp

        if self.strategy_fn is not None:
            return self.strategy_fn(dims)
        if self.kind == "expression":
            raise NotImplementedError(f"{self.name}: expression parameters need a strategy_fn")
        if self.kind == "integer":
            lo = int(math.floor(self.low)) + (1 if self.low_open else 0) if self.low is not None else -50
            hi = int(math.ceil(self.high)) - (1 if self.high_open else 0) if self.high is not None else lo + 200
            special = sorted({v for x in (lo, hi, *self.exclude) for v in (x - 2, x - 1, x, x + 1, x + 2)
                              if lo <= v <= hi and v not in self.exclude})
            elems = (st.one_of(st.integers(lo, hi), st.sampled_from(special)) if special and not _GENERIC.get()
                     else st.integers(lo, hi))
        else:
            bulk = st.floats(
                min_value=self.low if self.low is not None else -1e6,
                max_value=self.high if self.high is not None else 1e6,
                exclude_min=self.low_open, exclude_max=self.high_open,
                allow_nan=False, allow_infinity=False, allow_subnormal=False)
            elems = bulk if _GENERIC.get() else st.one_of(bulk, *self._hard_floats())
        if self.exclude:
            elems = elems.filter(lambda x: x not in self.exclude)
        if self.kind in ("scalar", "integer"):
            return elems
        shape = tuple(dims[d] for d in self.shape)
        return hnp.arrays(np.float64, shape, elements=elems)

    def _inside(self, x: float) -> bool:
        """x is a valid, normal value of this (real) parameter."""
        if not math.isfinite(x) or (x != 0 and abs(x) < 2.2250738585072014e-308) or x in self.exclude:
            return False
        if self.low is not None and not (x > self.low if self.low_open else x >= self.low):
            return False
        return self.high is None or (x < self.high if self.high_open else x <= self.high)

    def _hard_floats(self) -> list:
        """Strategies for the points where float64 formulas break: each bound and just inside it, each excluded
        point approached from either side (relative distance 10^-k, k in [3, 15]; absolute for 0, k in [3, 300]),
        a few ulps from those points, and magnitudes 10^e of either sign from 1e-300 up to the domain's bounds (up to
        1e6 where a side is unbounded, the bulk's range)."""
        from hypothesis import strategies as st

        def near(x: float, k_high: float):
            def at(k: float, sign: int, ulps: int) -> float:
                if ulps:
                    v = x
                    for _ in range(ulps):
                        v = float(np.nextafter(v, sign * math.inf))
                    return v
                return x + sign * (abs(x) if x != 0 else 1.0) * 10.0 ** (-k)
            return st.builds(at, st.floats(3, k_high), st.sampled_from((-1, 1)), st.sampled_from((0, 0, 0, 1, 2, 4)))

        anchors = [b for b in (self.low, self.high) if b is not None]
        points = [float(x) for x in (*anchors, *self.exclude)]
        out = []
        if points:
            out.append(st.one_of(*(near(x, 15.0 if x != 0 else 300.0) for x in points)).filter(self._inside))
        edges = [float(b) for b, open_ in ((self.low, self.low_open), (self.high, self.high_open))
                 if b is not None and not open_ and self._inside(float(b))]
        if edges:
            out.append(st.sampled_from(edges))
        # huge magnitudes up to a declared bound; an unbounded side keeps the bulk's range (1e6), as before
        bound = max((abs(float(b)) for b in (self.low, self.high) if b is not None), default=1e6)
        top = math.log10(max(bound, 1e6)) if self.low is not None and self.high is not None else 6.0
        magnitudes = st.builds(lambda sign, e: sign * 10.0 ** e, st.sampled_from((-1.0, 1.0)), st.floats(-300, top))
        out.append(magnitudes.filter(self._inside))
        return out

    def bad_values(self, good: Any) -> list[tuple[Any, str]]:
        """Inputs this parameter must reject, derived from a valid value `good`."""
        bad: list[tuple[Any, str]] = [("not-a-number", "a string")]
        if self.kind == "expression":
            return [("z +* 1", "unparsable"), ("z + q", "another symbol"), (3, "not an expression")]
        arr = np.array(good, dtype=float)
        for special, why in ((np.nan, "NaN"), (np.inf, "inf")):
            b = arr.copy()
            b.flat[0] = special
            bad.append((b if b.ndim else float(b), why))
        if self.kind in ("scalar", "integer"):
            bad.append(({"value": float(arr)}, "a mapping instead of a number"))
        else:
            bad.append((arr[..., :0] if arr.ndim == 1 else arr[:0], "empty"))
            bad.append((float(arr.flat[0]), "a scalar instead of an array"))
            bad.append((arr[None] if arr.ndim == 1 else arr[0], "wrong number of dimensions"))
        if self.kind == "integer":
            bad.append((float(arr.flat[0]) + 0.5, "not an integer"))
        for bound, open_, sign in ((self.low, self.low_open, -1), (self.high, self.high_open, 1)):
            if bound is None:
                continue
            outside = bound if open_ else bound + sign * max(1.0, abs(bound))
            b = arr.copy()
            b.flat[0] = outside
            bad.append((b if b.ndim else float(b), f"outside the bound {bound}"))
        for x in self.exclude:
            b = arr.copy()
            b.flat[0] = x
            bad.append((b if b.ndim else float(b), f"the excluded point {x}"))
        return bad


try:  # SymPy raises tokenize errors for some malformed strings
    from tokenize import TokenError as TokenError_
except ImportError:  # pragma: no cover
    TokenError_ = SyntaxError


def scalar(name: str, doc: str = "", **kw: Any) -> Param:
    return Param(name, "scalar", doc, **kw)


def integer(name: str, doc: str = "", **kw: Any) -> Param:
    return Param(name, "integer", doc, **kw)


def vector(name: str, dim: str, doc: str = "", **kw: Any) -> Param:
    return Param(name, "vector", doc, shape=(dim,), **kw)


def matrix(name: str, rows: str, cols: str, doc: str = "", **kw: Any) -> Param:
    return Param(name, "matrix", doc, shape=(rows, cols), **kw)


def expression(name: str, doc: str = "", **kw: Any) -> Param:
    return Param(name, "expression", doc, **kw)
