"""Parameter kinds (scalar, integer, vector, matrix, expression in z) and their domains.

Every parameter validates its own input and raises `DomainError` with one line naming the parameter
and what it must be; every parameter also yields a Hypothesis strategy for its domain and bad inputs.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import keyword
import math
import numbers
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
import sympy as sp

__all__ = ["DomainError", "Param", "ParamSymbol", "scalar", "integer", "vector", "matrix", "expression", "Z",
           "generic_values", "SMALLEST_NORMAL"]

Z = sp.Symbol("z", real=True)
class _Required:
    def __repr__(self) -> str:
        return "<required>"


_MISSING = _Required()
SMALLEST_NORMAL = 2.2250738585072014e-308  # the smallest positive normal float64


class ParamSymbol(sp.Symbol):
    """A parameter's SymPy symbol when the parameter declares `tex=`: named (and shown by `show`, `str` and the
    numeric search) by the parameter's name, printed in LaTeX as its `tex`. `tex` changes printing only.

    A printer's `symbol_names` setting (the paper's or the entry's) still wins over `tex`."""

    __slots__ = ("tex",)

    def __new__(cls, name: str, tex: str, **assumptions: Any):
        cls._sanitize(assumptions, cls)
        return ParamSymbol._cached(cls, name, tex, **assumptions)

    @staticmethod
    @sp.cacheit
    def _cached(cls, name, tex, **assumptions):
        obj = sp.Symbol.__xnew__(cls, name, **assumptions)
        obj.tex = tex
        return obj

    def __getnewargs_ex__(self):
        return ((self.name, self.tex), self._assumptions_orig)

    def _hashable_content(self):
        return (self.name, self.tex) + self._assumptions0

    def _latex(self, printer, *args, **kwargs):
        names = printer._settings.get("symbol_names") or {}
        if self in names:
            return names[self]
        # the tex read as a SymPy symbol name ("beta_d" -> \beta_{d}, "\gamma" -> \gamma), as it always printed
        return printer._print(sp.Symbol(self.tex))

    def _pretty(self, printer, *args, **kwargs):
        # `show`: the tex in Unicode where it is a plain (Greek) name with an index ("\lambda" -> λ, "m_0" -> m₀),
        # else the name; never LaTeX source
        plain = re.fullmatch(r"\\?([A-Za-z]+)(_\{?(\w+)\}?)?", self.tex)
        name = f"{plain.group(1)}_{plain.group(3)}" if plain and plain.group(3) else plain.group(1) if plain else self.name
        return printer._print(sp.Symbol(name))


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


_KINDS = ("scalar", "integer", "vector", "matrix", "expression")


# exponents of the joint-neighbourhood ladders (Param.approaches); 0 marks the last rung: the smallest normal float
# (absolute), the neighbouring float (relative)
_ABS_LADDER = (2, 5, 10, 20, 30, 50, 100, 200, 300, 0)
_REL_LADDER = (2, 4, 6, 8, 10, 12, 14, 15, 0)
_BIG_LADDER = (6, 10, 20, 50, 100, 150, 200, 300)


def _typed(value: Any) -> str:
    """`the str 'paper.pdf'`: a value with its type, for one-line type errors."""
    return f"the {type(value).__name__} {_fmt(value)}" if value is not None else "None"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


@functools.lru_cache(maxsize=None)
def _symbol(name: str, tex: str | None, assumptions: tuple) -> sp.Symbol:
    kw = dict(assumptions)
    if tex is None or tex == name or sp.latex(sp.Symbol(tex)) == sp.latex(sp.Symbol(name)):
        return sp.Symbol(name, **kw)
    return ParamSymbol(name, tex, **kw)


_GENERIC: contextvars.ContextVar[bool] = contextvars.ContextVar("theorylab_generic_values", default=False)


@contextlib.contextmanager
def generic_values():
    """Within this block, default strategies draw generic values only (`Param.generic_values`: moderate magnitudes
    inside the bounds, away from edges, excluded points and extreme magnitudes; the first draw is the most generic):
    for tests that need a generic point, such as a gradient that is finite at a generic point but may be infinite at
    a bound. A parameter's own `strategy_fn` is used as it is."""
    token = _GENERIC.set(True)
    try:
        yield
    finally:
        _GENERIC.reset(token)


@dataclass(frozen=True, kw_only=True)
class Param:
    r"""One parameter of an entry: its kind, shape rule, domain and SymPy symbol.

    Arguments (build one with `scalar`, `integer`, `vector`, `matrix` or `expression`):
        name: the keyword the entry takes; spell out the paper's symbol (`gamma`, `theta`).
        doc: what it is, in the paper's words.
        shape: dimension names, ("D",) or ("n", "D"), shared between the parameters of one entry (sizes must agree).
        low, high, low_open, high_open: bounds, elementwise; open bounds exclude the bound itself.
        exclude: singular points inside the bounds (bad input: a DomainError, never inf); `exclude_why` says why.
        default: a value used when the parameter is not given.
        tex: how its symbol prints in LaTeX, when that differs from what `name` prints (`tex="m_0"`, `tex=r"\|\beta\|"`;
            read as a SymPy symbol name, so "beta_d" prints \beta_{d}); printing only: the symbol keeps `name`, and
            `show`, `str` and the numeric search see the name.
        strategy_fn: `strategy_fn(dims) -> hypothesis strategy` drawing valid values, where `dims` maps the shape's
            dimension names to the sizes drawn for this example (a vector parameter must draw arrays of shape
            `(dims["D"],)`). Without it, `strategy` builds one from the domain that puts mass where float64
            formulas break: at the bounds and just inside them, within relative distances 1e-15..1e-3 of each
            excluded point, and at tiny and huge magnitudes (up to the bounds), besides the bulk of the domain.
        examples: hard values of this parameter (documentation; entries pin whole examples in `Entry.examples`).
    The SymPy symbol (`.symbol`) carries the assumptions the declared domain implies (`assumptions`): real always;
    integer for `integer`; positive where low > 0 or low = 0 is open, nonnegative where low = 0; negative or
    nonpositive likewise from `high`; nonzero where 0 is excluded. SymPy uses them to simplify (sqrt(x**2) is x
    for a positive x) and the derivation engine to choose its default search box.

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

    def __post_init__(self):
        """Declaration-time checks: a wrong type is a one-line TypeError naming the argument."""
        if not isinstance(self.name, str) or not self.name.isidentifier() or keyword.iskeyword(self.name):
            raise TypeError(f"a parameter's name must be a Python identifier (the keyword the entry takes: 'gamma', "
                            f"'lam'); got {_typed(self.name)}")
        where = f"{self.kind}({self.name!r})"
        if self.kind not in _KINDS:
            raise ValueError(f"{where}: kind must be one of {', '.join(_KINDS)}; got {self.kind!r}")
        if not isinstance(self.doc, str):
            raise TypeError(f"{where}: doc must be a string (what the parameter is, in the paper's words); got "
                            f"{_typed(self.doc)}")
        if isinstance(self.shape, str) or not isinstance(self.shape, (tuple, list)) or not all(
                isinstance(d, str) and d for d in self.shape):
            raise TypeError(f"{where}: the shape must be dimension names, strings shared between the parameters of an "
                            f"entry (vector('x', 'D'), matrix('X', 'n', 'D')); got {_typed(self.shape)}")
        object.__setattr__(self, "shape", tuple(self.shape))
        for arg in ("low", "high"):
            v = getattr(self, arg)
            if v is not None and (not isinstance(v, numbers.Real) or isinstance(v, bool) or not math.isfinite(v)):
                raise TypeError(f"{where}: {arg} must be a finite real number or None (no bound); got {_typed(v)}")
        for arg in ("low_open", "high_open"):
            if not isinstance(getattr(self, arg), (bool, np.bool_)):
                raise TypeError(f"{where}: {arg} must be True or False; got {_typed(getattr(self, arg))}")
        if isinstance(self.exclude, numbers.Real) or not isinstance(self.exclude, (tuple, list)) or not all(
                isinstance(x, numbers.Real) and not isinstance(x, bool) for x in self.exclude):
            raise TypeError(f"{where}: exclude must be a tuple of numbers (exclude=(1.0,)); got {_typed(self.exclude)}")
        object.__setattr__(self, "exclude", tuple(self.exclude))
        for arg in ("exclude_why",):
            if not isinstance(getattr(self, arg), str):
                raise TypeError(f"{where}: {arg} must be a string; got {_typed(getattr(self, arg))}")
        if self.tex is not None and not isinstance(self.tex, str):
            raise TypeError(f"{where}: tex must be a string (its LaTeX) or None; got {_typed(self.tex)}")
        if self.strategy_fn is not None and not callable(self.strategy_fn):
            raise TypeError(f"{where}: strategy_fn must be a callable strategy_fn(dims) -> a Hypothesis strategy; got "
                            f"{_typed(self.strategy_fn)}")
        if not isinstance(self.examples, (tuple, list)):
            raise TypeError(f"{where}: examples must be a tuple of values; got {_typed(self.examples)}")
        object.__setattr__(self, "examples", tuple(self.examples))
        allowed = {"vector": (0, 1), "matrix": (0, 2)}.get(self.kind, (0,))
        if len(self.shape) not in allowed:
            raise ValueError(f"{where}: a {self.kind} has {max(allowed)} dimension name(s); got shape={self.shape}")
        lo, hi = self.low, self.high
        if lo is not None and hi is not None and (lo > hi or lo == hi and (self.low_open or self.high_open)):
            raise ValueError(f"{where}: the domain is empty (low={_num(lo)}{' open' if self.low_open else ''}, "
                             f"high={_num(hi)}{' open' if self.high_open else ''})")

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
    def assumptions(self) -> dict[str, bool]:
        """The SymPy assumptions of this parameter's symbol, implied by its declared domain (elementwise for vectors
        and matrices): real; integer; positive or nonnegative from `low`; negative or nonpositive from `high`;
        nonzero where 0 is excluded (or outside the bounds)."""
        out: dict[str, bool] = {"real": True}
        if self.kind == "integer":
            out["integer"] = True
        lo, hi = self.low, self.high
        if lo is not None and (lo > 0 or (lo == 0 and self.low_open)):
            out["positive"] = True
        elif lo is not None and lo == 0:
            out["nonnegative"] = True
        if hi is not None and (hi < 0 or (hi == 0 and self.high_open)):
            out["negative"] = True
        elif hi is not None and hi == 0:
            out["nonpositive"] = True
        if "positive" not in out and "negative" not in out and 0 in self.exclude:
            out["nonzero"] = True
        return out

    @property
    def symbol(self) -> sp.Symbol:
        """The SymPy symbol standing for this parameter (an element of it, for vectors), named `name`, with the
        domain's `assumptions`; with `tex`, a `ParamSymbol` that prints as the tex in LaTeX."""
        return _symbol(self.name, self.tex, tuple(sorted(self.assumptions.items())))

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
        # lazy: hypothesis costs ~0.7 s of start-up; only the contract tests draw from it
        from hypothesis import strategies as st
        from hypothesis.extra import numpy as hnp

        if self.strategy_fn is not None:
            return self.strategy_fn(dims)
        if self.kind == "expression":
            raise NotImplementedError(f"{self.name}: expression parameters need a strategy_fn")
        if _GENERIC.get():
            elems = st.sampled_from(self.generic_values())
            if self.kind in ("scalar", "integer"):
                return elems.map(int) if self.kind == "integer" else elems
            return hnp.arrays(np.float64, tuple(dims[d] for d in self.shape), elements=elems)
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
        # lazy: hypothesis costs ~0.7 s of start-up; only the contract tests draw from it
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

    def generic_values(self) -> list[float]:
        """Values in the bulk of this (real) parameter's domain, first the most generic: moderate magnitudes (0.7,
        1.3, ...), inside the bounds, at least 1% (relative) away from the bounds and excluded points. What
        `generic_values()` draws from: a generic point lies inside every branch's domain of a formula."""
        lo, hi = self.low, self.high
        base = (0.7, 1.3, 0.45, 2.1, 0.23, 3.7, 1.7, 0.61, 5.9, 8.3)
        cands: list[float] = [*base, *(-x for x in base)]
        if self.kind == "integer":
            cands = [3.0, 5.0, 7.0, 12.0, 2.0, 4.0, -3.0, -5.0]
        if lo is not None and hi is not None:
            cands += [lo + f * (hi - lo) for f in (0.37, 0.61, 0.23, 0.83, 0.47, 0.71)]
        for b, sign in ((lo, 1.0), (hi, -1.0)):
            if b is not None:
                cands += [b + sign * max(1.0, abs(b)) * f for f in (0.3, 0.7, 1.3, 2.9)]
        if self.kind == "integer":
            cands = [float(round(x)) for x in cands] + [float(x) for x in (3, 5, 7, 12, 2, 4, 1, 0, -1, -3)]
            if lo is not None:
                cands += [float(math.floor(lo) + k) for k in (3, 5, 7, 12)]
        anchors = [float(a) for a in (lo, hi, *self.exclude) if a is not None]

        def far(x: float) -> bool:
            return all(abs(x - a) > 0.01 * max(abs(a), 1.0) or (self.kind == "integer" and x != a and a not in
                                                                  self.exclude) for a in anchors)

        out: list[float] = []
        for x in cands:
            if self._inside(x) and far(x) and x not in out:
                out.append(x)
        moderate = [x for x in out if x == 0 or 1e-3 <= abs(x) <= 1e3]
        if len(moderate) >= 3:  # a wide domain: its moderate values only (7e11 is no generic value of (0, 1e12])
            return moderate
        out.sort(key=lambda x: abs(math.log10(abs(x))) if x else 0.0)
        return out or [x for x in cands if self._inside(x)][:1]

    def approaches(self, levels: int = 3) -> list[tuple[str, list[float]]]:
        """The special points of this real parameter with values approaching each, far to near (`levels` values;
        the last the nearest float64 can hold): each excluded point from either side (relative distance 1e-2 down
        to one ulp; down to the smallest normal float for 0), each bound from inside (the bound itself last when
        closed), 0 where it lies inside the domain, and magnitudes up to 1e300 where a side is unbounded.

        Returns [(label, values)], e.g. [("gamma -> 1-", [0.99, 0.9999999, 0.9999999999999999]), ...]; the accuracy
        map and the contract tests combine them across parameters (joint neighbourhoods)."""
        if self.kind not in ("scalar", "integer"):
            return []
        levels = max(2, int(levels))
        out: list[tuple[str, list[float]]] = []

        def ladder(steps: Sequence[float]) -> list[float]:
            """`levels` exponents of a ladder, its first and last included, evenly in between."""
            idx = sorted({int(round(i)) for i in np.linspace(0, len(steps) - 1, levels)})
            return [steps[i] for i in idx]

        def toward(x0: float, sign: float, closed: bool) -> list[float]:
            if self.kind == "integer":
                vals = [x0 + sign * k for k in range(levels, 0, -1)] + ([x0] if closed else [])
                return [float(v) for v in vals]
            if x0 == 0:  # absolute: 1e-2 down to the smallest normal float
                vals = [sign * (10.0 ** -e if e else SMALLEST_NORMAL) for e in ladder(_ABS_LADDER)]
            else:  # relative: 1e-2 down to 1e-15, then the neighbouring float
                vals = [x0 + sign * abs(x0) * 10.0 ** -e if e else float(np.nextafter(x0, sign * math.inf))
                        for e in ladder(_REL_LADDER)]
            return [float(v) for v in vals] + ([float(x0)] if closed else [])

        def add(label: str, vals: list[float]) -> None:
            keep = []
            for v in vals:
                if self._inside(v) if self.kind != "integer" else self._inside_int(v):
                    if v not in keep:
                        keep.append(v)
            if keep:
                out.append((label, keep))

        for x0 in self.exclude:
            add(f"{self.name} -> {_num(x0)}-", toward(float(x0), -1.0, False))
            add(f"{self.name} -> {_num(x0)}+", toward(float(x0), 1.0, False))
        if self.low is not None:
            add(f"{self.name} -> {_num(self.low)}+", toward(float(self.low), 1.0, not self.low_open))
        if self.high is not None:
            add(f"{self.name} -> {_num(self.high)}-", toward(float(self.high), -1.0, not self.high_open))
        inside_zero = ((self.low is None or self.low < 0) and (self.high is None or self.high > 0)
                       and 0 not in self.exclude)
        if inside_zero:
            add(f"{self.name} -> 0+", toward(0.0, 1.0, True))
            add(f"{self.name} -> 0-", toward(0.0, -1.0, False))
        for bound, sign, label in ((self.high, 1.0, "+inf"), (self.low, -1.0, "-inf")):
            if bound is None:
                vals = [sign * 10.0 ** e for e in ladder(_BIG_LADDER if self.kind != "integer" else (6, 9, 12, 15))]
                add(f"{self.name} -> {label}", [float(round(v)) if self.kind == "integer" else v for v in vals])
        return out

    def _inside_int(self, x: float) -> bool:
        try:
            self.validate(x)
            return True
        except DomainError:
            return False

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


_DOMAIN_ARGS = r"""
        low, high: bounds (elementwise for arrays), a finite number or None (unbounded on that side).
        low_open, high_open: True excludes the bound itself (low=0, low_open=True is (0, ...)).
        exclude: a tuple of singular points inside the bounds, refused with a DomainError (never inf or NaN);
            `exclude_why` says why, in the error message.
        default: the value used when the parameter is not given (a parameter without one is required).
        tex: its LaTeX, when it differs from what `name` prints ("m_0", r"\|\beta\|"); printing only.
        strategy_fn: `strategy_fn(dims) -> a Hypothesis strategy` of valid values, replacing the default one (which
            draws the bulk, the bounds and just inside them, 1e-15..1e-3 (relative) from each excluded point, and
            magnitudes from the smallest normal float up to the bounds).
        examples: hard values (documentation; an entry pins whole points in `Entry.examples`).

    The symbol (`.symbol`) is named `name` and carries the assumptions the domain implies: real; integer for
    `integer`; positive (low > 0, or low = 0 open) or nonnegative (low = 0); negative or nonpositive from `high`;
    nonzero when 0 is excluded. Returns a `Param`; a wrong type is a one-line TypeError naming the argument."""


def scalar(name: str, doc: str = "", *, low: float | None = None, high: float | None = None, low_open: bool = False,
           high_open: bool = False, exclude: tuple[float, ...] = (), exclude_why: str = "", default: Any = _MISSING,
           tex: str | None = None, strategy_fn: Callable[..., Any] | None = None,
           examples: tuple[Any, ...] = ()) -> Param:
    return Param(name=name, kind="scalar", doc=doc, low=low, high=high, low_open=low_open, high_open=high_open,
                 exclude=exclude, exclude_why=exclude_why, default=default, tex=tex, strategy_fn=strategy_fn, examples=examples)


scalar.__doc__ = ("""A real parameter: `scalar("gamma", "aspect ratio d/n", low=0, low_open=True, exclude=(1,))`.

    Arguments:
        name: the keyword the entry takes (`entry(gamma=0.5)`); spell out the paper's symbol.
        doc: what it is, in the paper's words.""" + _DOMAIN_ARGS + """

    Scalars given as arrays broadcast (one point per element); shapes that do not broadcast are a DomainError
    naming the parameters and their shapes.
    """)


def integer(name: str, doc: str = "", *, low: float | None = None, high: float | None = None, low_open: bool = False,
            high_open: bool = False, exclude: tuple[float, ...] = (), exclude_why: str = "", default: Any = _MISSING,
            tex: str | None = None, strategy_fn: Callable[..., Any] | None = None,
            examples: tuple[Any, ...] = ()) -> Param:
    return Param(name=name, kind="integer", doc=doc, low=low, high=high, low_open=low_open, high_open=high_open,
                 exclude=exclude, exclude_why=exclude_why, default=default, tex=tex, strategy_fn=strategy_fn, examples=examples)


integer.__doc__ = ("""An integer parameter: `integer("n", "number of samples", low=1, high=10**9)`; a float with an integer value
    (3.0) is accepted, 3.5 is a DomainError.

    Arguments:
        name: the keyword the entry takes.
        doc: what it is, in the paper's words.""" + _DOMAIN_ARGS + """
    """)


def vector(name: str, dim: str, doc: str = "", *, low: float | None = None, high: float | None = None,
           low_open: bool = False, high_open: bool = False, exclude: tuple[float, ...] = (), exclude_why: str = "",
           default: Any = _MISSING, tex: str | None = None, strategy_fn: Callable[..., Any] | None = None,
           examples: tuple[Any, ...] = ()) -> Param:
    return Param(name=name, kind="vector", doc=doc, shape=(dim,), low=low, high=high, low_open=low_open,
                 high_open=high_open, exclude=exclude, exclude_why=exclude_why, default=default, tex=tex, strategy_fn=strategy_fn,
                 examples=examples)


vector.__doc__ = ("""A vector of reals: `vector("beta", "D", "the predictor")`; its length is the dimension `dim`, a name shared
    between the parameters of an entry (all vectors of dimension "D" must have the same length: a DomainError
    naming both otherwise). Its symbol stands for one element (formulas are elementwise; `Entry(reduce="sum")`).

    Arguments:
        name: the keyword the entry takes.
        dim: the dimension's name ("D", "n").
        doc: what it is, in the paper's words.""" + _DOMAIN_ARGS + """
    """)


def matrix(name: str, rows: str, cols: str, doc: str = "", *, low: float | None = None, high: float | None = None,
           low_open: bool = False, high_open: bool = False, exclude: tuple[float, ...] = (), exclude_why: str = "",
           default: Any = _MISSING, tex: str | None = None, strategy_fn: Callable[..., Any] | None = None,
           examples: tuple[Any, ...] = ()) -> Param:
    return Param(name=name, kind="matrix", doc=doc, shape=(rows, cols), low=low, high=high, low_open=low_open,
                 high_open=high_open, exclude=exclude, exclude_why=exclude_why, default=default, tex=tex, strategy_fn=strategy_fn,
                 examples=examples)


matrix.__doc__ = ("""A matrix of reals: `matrix("X", "n", "D", "inputs, one row per sample")`; `rows` and `cols` are dimension
    names shared with the entry's other parameters (see `vector`).

    Arguments:
        name: the keyword the entry takes.
        rows, cols: the dimensions' names.
        doc: what it is, in the paper's words.""" + _DOMAIN_ARGS + """
    """)


def expression(name: str, doc: str = "", *, default: Any = _MISSING, strategy_fn: Callable[..., Any] | None = None,
               examples: tuple[Any, ...] = ()) -> Param:
    """A SymPy expression in z (`Z`), given as an expression or a string ("z**2 - 1"): `expression("omega", "the
    potential")`. A string that does not parse, or that uses another symbol, is a DomainError. The default strategy
    cannot draw expressions: pass `strategy_fn(dims)`.

    Arguments:
        name: the keyword the entry takes.
        doc: what it is, in the paper's words.
        default, strategy_fn, examples: as for `scalar`.
    """
    return Param(name=name, kind="expression", doc=doc, default=default, strategy_fn=strategy_fn, examples=examples)
