"""The Entry record: one catalogue result, from its SymPy closed form to kernels, LaTeX and tests.

Nothing about a formula is typed twice: the NumPy, torch and mpmath kernels, the LaTeX and the
contract tests are all generated from the fields of an Entry.
"""
from __future__ import annotations

import functools
import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import sympy as sp
from mpmath.libmp import prec_to_dps
from sympy.core.function import ArgumentIndexError
from sympy.printing.latex import LatexPrinter

from .._shared import SUBNORMAL_FLOOR
from .._numerics import kernels
from .._records.compat import deprecated
from .._records.params import DomainError, Param
from .derivation import Outcome, Step

__all__ = ["Entry", "Source", "Constraint", "EntryFunction", "function"]

ERROR_SCALES = ("element", "largest")  # what an entry's rtol is relative to (Entry.error_scale)


@dataclass(frozen=True)
class Source:
    """Where an entry comes from: the paper (a citation key or the file it was transcribed from) and the place in it."""

    paper: str  # the paper: a citation key or its file name
    where: str  # "eq (23)", "Theorem 3.7, eqs (101)-(117)"

    @property
    def seed(self) -> str:
        """Deprecated: the field's former name (`seed` now means only a random seed); read `paper`."""
        warnings.warn("Source.seed is deprecated: read Source.paper", DeprecationWarning, stacklevel=2)
        return self.paper

    def __str__(self) -> str:
        return f"{self.paper}, {self.where}"


@dataclass(frozen=True)
class Constraint:
    """A condition tying several parameters together: `check(values)` returns None or the error text."""

    check: Callable[[Mapping[str, Any]], str | None]
    text: str  # the condition in words, for documentation


@dataclass(frozen=True, eq=False, kw_only=True)
class Entry:
    """One result of the catalogue.

    formula      the closed form exactly as the seed writes it (elementwise for vector parameters);
    stable_form  an equal form accurate in float64, from which the kernels are generated (its equality
                 with `formula` is a checked derivation step);
    reduce       "sum": the value is the sum over the last axis of the elementwise values;
    compute      a numeric routine used instead of the kernel (optimization-defined entries);
    reference    an independent high-precision evaluation (default: `formula` in mpmath).
    """

    id: str
    title: str
    source: Source
    doc: str
    params: tuple[Param, ...]
    lhs: str = ""                       # LaTeX of the left-hand side, e.g. "q(z)"
    formula: sp.Expr | None = None
    stable_form: sp.Expr | None = None
    reduce: str | None = None
    compute: Callable[..., Any] | None = field(default=None, repr=False)
    reference: Callable[..., Any] | None = field(default=None, repr=False)
    constraints: tuple[Constraint, ...] = ()
    conditions: tuple[str, ...] = ()    # LaTeX conditions shown with the formula
    # what the LaTeX shows instead of `formula`: the paper's own form as a SymPy expression (built with
    # evaluate=False / UnevaluatedExpr so SymPy keeps the paper's terms; checked equal to the formula by
    # `display_step()`), or a LaTeX string (a definition by minimization, shown as written and not checked)
    display: str | sp.Expr | None = None
    # SymPy `latex()` settings for this entry (order="none", inv_trig_style="full", symbol_names={"r": r"\|\beta\|"},
    # mul_symbol, ...), applied over the paper's `latex["printer"]` settings
    latex_settings: Mapping[str, Any] = field(default_factory=dict)
    value_doc: str = "a float"
    dims: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    strategy_fn: Callable[[], Any] | None = field(default=None, repr=False)
    examples: tuple[Mapping[str, Any], ...] = ()
    switches: Mapping[str, tuple[float, ...]] = field(default_factory=dict)  # parameter -> method switch points
    rtol: float = 1e-10                 # contract: relative error against the reference
    reference_rtol_note: str = ""
    # what rtol is relative to: "element" (each element to its own reference: the default, the one closeness rule) or
    # "largest" (each element to the largest |reference| element: a solver's float64 error in every component scales
    # with the whole solution, cond * eps * ||beta||, so a component that is exactly 0 comes back as ~1e-17)
    error_scale: str = "element"

    def __post_init__(self):
        """Declaration-time validation: each argument of the right type (a one-line TypeError naming it otherwise);
        a formula may use only the declared parameters' symbols."""
        self._check_types()
        declared = {p.symbol for p in self.params if p.kind != "expression"}
        if self.display is not None and not isinstance(self.display, (str, sp.Basic)):
            raise ValueError(f"{self.id}: display must be a SymPy expression (the paper's form, checked equal to the "
                             f"formula) or a LaTeX string; got {type(self.display).__name__}")
        if self.latex_settings:
            _check_latex_settings(self.id, self.latex_settings)
        for field_name in ("formula", "stable_form", "display"):
            expr = getattr(self, field_name)
            if expr is None or isinstance(expr, str):
                continue
            extra = sorted(s.name for s in expr.free_symbols - declared)
            if extra:
                names = {p.name: p.symbol for p in self.params}
                clash = [n for n in extra if n in names]  # same name, other assumptions: a different symbol
                why = (" (a parameter of that name exists, but its symbol has other assumptions: "
                       f"{', '.join(k for k, v in self.param(clash[0]).assumptions.items() if v)}, from its domain; "
                       "use the parameter's .symbol)" if clash else "")
                raise ValueError(f"{self.id}: the {field_name} uses {', '.join(extra)}, which is not a declared "
                                 f"parameter (declared: {', '.join(self.param_names) or 'none'}){why}")

    def _check_types(self) -> None:
        def name_of(x):
            return f"the {type(x).__name__} {x!r}" if len(repr(x)) <= 60 else f"a {type(x).__name__}"

        where = f"Entry(id={self.id!r})" if isinstance(self.id, str) else "Entry"
        if not isinstance(self.id, str) or not re.fullmatch(r"[a-z0-9_-]+\.[A-Za-z0-9_]+", self.id):
            raise TypeError(f"{where}: id must be 'family.name' (lowercase family, a dot, the entry's name); got "
                            f"{name_of(self.id)}")
        for arg in ("title", "doc", "lhs", "value_doc", "reference_rtol_note"):
            if not isinstance(getattr(self, arg), str):
                raise TypeError(f"{where}: {arg} must be a string; got {name_of(getattr(self, arg))}")
        if not isinstance(self.source, Source):
            raise TypeError(f"{where}: source must be a Source(paper, where), e.g. Source('hmrt2022', 'Theorem 1'); "
                            f"got {name_of(self.source)}")
        if isinstance(self.params, Param) or not isinstance(self.params, (tuple, list)):
            raise TypeError(f"{where}: params must be a tuple of parameters (scalar(...), vector(...), ...); got "
                            f"{name_of(self.params)}")
        for i, p in enumerate(self.params):
            if not isinstance(p, Param):
                raise TypeError(f"{where}: params[{i}] must be a parameter built by scalar, integer, vector, matrix or "
                                f"expression; got {name_of(p)}")
        names = [p.name for p in self.params]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"{where}: params declares {', '.join(dup)} twice")
        object.__setattr__(self, "params", tuple(self.params))
        for arg in ("formula", "stable_form"):
            v = getattr(self, arg)
            if v is not None and not isinstance(v, sp.Expr):
                raise TypeError(f"{where}: {arg} must be a SymPy expression (built from the parameters' .symbol) or "
                                f"None; got {name_of(v)}")
        for arg in ("compute", "reference", "strategy_fn"):
            v = getattr(self, arg)
            if v is not None and not callable(v):
                raise TypeError(f"{where}: {arg} must be a callable or None; got {name_of(v)}")
        if self.reduce not in (None, "sum"):
            raise ValueError(f"{where}: reduce must be None or 'sum'; got {self.reduce!r}")
        for arg, kind in (("constraints", Constraint), ("conditions", str)):
            v = getattr(self, arg)
            if isinstance(v, (str, kind)) or not isinstance(v, (tuple, list)) or not all(isinstance(x, kind) for x in v):
                raise TypeError(f"{where}: {arg} must be a tuple of {kind.__name__} records; got {name_of(v)}")
            object.__setattr__(self, arg, tuple(v))
        if isinstance(self.examples, Mapping) or not isinstance(self.examples, (tuple, list)) or not all(
                isinstance(x, Mapping) for x in self.examples):
            raise TypeError(f"{where}: examples must be a tuple of dicts of keyword arguments ({{'gamma': 0.5}},); got "
                            f"{name_of(self.examples)}")
        object.__setattr__(self, "examples", tuple(self.examples))
        for arg in ("latex_settings", "dims", "switches"):
            if not isinstance(getattr(self, arg), Mapping):
                raise TypeError(f"{where}: {arg} must be a dict; got {name_of(getattr(self, arg))}")
        if isinstance(self.rtol, bool) or not isinstance(self.rtol, (int, float)) or not self.rtol > 0:
            raise TypeError(f"{where}: rtol must be a positive number (the contract's relative error bound); got "
                            f"{name_of(self.rtol)}")
        if self.error_scale not in ERROR_SCALES:
            raise ValueError(f"{where}: error_scale must be one of {', '.join(ERROR_SCALES)} (what rtol is relative "
                             f"to); got error_scale={self.error_scale!r}")
        if self.error_scale == "largest" and not self.reference_rtol_note:
            raise ValueError(f"{where}: error_scale='largest' needs reference_rtol_note saying why the error scales "
                             "with the largest element (its error bound)")

    def atol_for(self, reference: Any) -> float:
        """The absolute part of the contract's comparison at this reference: the subnormal floor, or (error_scale
        "largest") rtol times the largest finite |reference| element, so each element is held to rtol ||ref||_inf."""
        if self.error_scale == "element":
            return SUBNORMAL_FLOOR
        try:
            r = np.abs(np.asarray(reference, dtype=float))
        except (TypeError, ValueError):
            return SUBNORMAL_FLOOR
        r = r[np.isfinite(r)]
        return max(SUBNORMAL_FLOOR, float(self.rtol * r.max())) if r.size else SUBNORMAL_FLOOR

    # -- parameters ------------------------------------------------------------------------------
    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise DomainError(f"unknown parameter {name!r} for {self.id}; its parameters are "
                          f"{', '.join(self.param_names) or 'none'}")

    @property
    def symbols(self) -> dict[str, sp.Symbol]:
        return {p.name: p.symbol for p in self.params if p.kind != "expression"}

    @functools.cached_property
    def kernel_params(self) -> tuple[Param, ...]:
        """Parameters that are arguments of the kernels, in declaration order."""
        expr = self.stable_form if self.stable_form is not None else self.formula
        if expr is None:
            return ()
        free = expr.free_symbols
        return tuple(p for p in self.params if p.kind != "expression" and p.symbol in free) or tuple(
            p for p in self.params if p.kind != "expression")

    def as_function(self, name: str | None = None, *, of: str | None = None, tex: str | None = None,
                    derivatives: Mapping[int, sp.Expr] | None = None) -> "EntryFunction":
        r"""This entry as a named function for other formulas: `M = ENTRY.as_function("m", of="z")`, then `M(-lam)` is
        m(-\lambda) (see `EntryFunction`). `of` names the argument (the others are implicit; without it an entry of
        several scalar parameters takes its first, with an AuthoringDeprecationWarning: name it), `tex` its LaTeX name (default: what `name` prints; `name` defaults to the entry ID's last part),
        `derivatives` the stable forms of its derivatives for the kernels. The same call returns the same function."""
        if self.formula is None:
            raise TypeError(f"{self.id}: an entry without a closed form (formula) cannot be used as a function")
        name = name or self.id.split(".", 1)[1]
        arg = self.param(of) if of is not None else next((p for p in self.params if p.kind in ("scalar", "integer")),
                                                          None)
        if arg is None:
            raise TypeError(f"{self.id}: a function's argument must be a scalar parameter; it has none")
        scalars = [p.name for p in self.params if p.kind in ("scalar", "integer")]
        if of is None and len(scalars) > 1:  # u_f(t) silently meant u_f(s=t): the argument must be named (API 3)
            deprecated(f"{self.id}.as_function({name!r}) (its argument is then the first parameter, {arg.name})",
                       f"as_function({name!r}, of=NAME) with NAME one of {', '.join(scalars)}", since=3)
        key = (name, arg.name, tex, tuple(sorted((derivatives or {}).items(), key=lambda kv: kv[0])))
        cache = self.__dict__.setdefault("_functions", {})
        if key not in cache:
            rest = [p for p in self.params if p is not arg and p.kind != "expression"]
            cache[key] = EntryFunction(name, arg, self.formula, self.stable_form, params=rest, tex=tex,
                                       derivatives=derivatives, entry=self.id)
        return cache[key]

    # -- validation ------------------------------------------------------------------------------
    def validate(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """Check names, domains, shapes and constraints; return the converted values."""
        for name in kwargs:
            self.param(name)
        values: dict[str, Any] = {}
        dims: dict[str, tuple[int, str]] = {}
        for p in self.params:
            if p.name not in kwargs:
                if not p.has_default:
                    raise DomainError(f"{p.name} is required: {p.domain}")
                values[p.name] = p.default
                continue
            value = p.validate(kwargs[p.name], batch=not p.shape)
            if p.shape:
                for dim, size in zip(p.shape, np.shape(value)):
                    if dim in dims and dims[dim][0] != size:
                        other = dims[dim][1]
                        raise DomainError(f"{p.name} must have {dim} = {dims[dim][0]} (as {other} has); "
                                          f"got {p.name} of shape {np.shape(value)}")
                    dims.setdefault(dim, (size, p.name))
            values[p.name] = value
        self._check_broadcast(values)
        for c in self.constraints:
            problem = c.check(values)
            if problem:
                raise DomainError(problem)
        return values

    def _check_broadcast(self, values: Mapping[str, Any]) -> None:
        """Arrays given for scalar parameters must broadcast together (and, for a kernel, with the vectors and
        matrices it evaluates elementwise): a DomainError naming the parameters and their shapes otherwise."""
        batch = [p for p in self.params if p.kind in ("scalar", "integer") and np.ndim(values.get(p.name)) > 0]
        if not batch:
            return
        arrays = [p for p in self.params if p.kind in ("vector", "matrix")] if self.compute is None else []
        chosen = [p for p in self.params if p in batch or p in arrays]
        shapes = [np.shape(values[p.name]) for p in chosen]
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            shown = ", ".join(f"{p.name} of shape {sh}" for p, sh in zip(chosen, shapes))
            raise DomainError(f"{', '.join(p.name for p in chosen)} must have shapes that broadcast together "
                              f"(arrays of one shape, or of length 1); got {shown}") from None

    # -- evaluation ------------------------------------------------------------------------------
    def __call__(self, **kwargs: Any) -> Any:
        """Validate the parameters and return the value (float, ndarray or dict)."""
        return self.evaluate(self.validate(kwargs))

    def evaluate(self, values: Mapping[str, Any]) -> Any:
        """Value for already validated parameters."""
        # overflow inside a routine is not a warning to the user: a non-finite result is a DomainError below
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            if self.compute is not None:
                out = self.compute(**values)
            else:
                out = self.numpy(*(values[p.name] for p in self.kernel_params))
                if self.reduce == "sum":
                    out = np.sum(out, axis=-1)
        return _finalize(self, out, values)

    def reference_value(self, **kwargs: Any) -> Any:
        """High-precision reference (mpmath at adaptive precision), or None where the entry has none."""
        values = self.validate(kwargs)
        if self.reference is not None:
            return self.reference(**values)
        if self.formula is None or self.compute is not None:
            return None
        try:
            out = kernels.mp_reference_array(self.mpmath, [values[p.name] for p in self.kernel_params])
        except ValueError as exc:  # a complex closed form: name the entry, its point and what to do, in one line
            point = ", ".join(f"{k}={values[k]!r}" for k in values)
            raise DomainError(f"{self.id}: {str(exc).split(': the declared')[0]} at {point}; restrict the parameters' "
                              "domains (low=, high=) or add a Constraint where the paper's formula is real") from None
        if self.reduce == "sum":
            out = np.sum(out, axis=-1)
        return float(out) if np.ndim(out) == 0 else out

    @functools.cached_property
    def _kernel_expr(self) -> sp.Expr:
        expr = self.stable_form if self.stable_form is not None else self.formula
        if expr is None:
            raise TypeError(f"{self.id} is computed by a numeric routine and has no kernel")
        return expr

    @property
    def numpy(self) -> Callable[..., np.ndarray]:
        """Vectorized NumPy kernel of the stable form (arguments: `kernel_params`, broadcast)."""
        return kernels.build("numpy", self._kernel_expr, tuple(p.symbol for p in self.kernel_params))

    @property
    def torch(self) -> Callable:
        """torch kernel of the stable form: tensors in, tensors out, differentiable, any device."""
        return kernels.build("torch", self._kernel_expr, tuple(p.symbol for p in self.kernel_params))

    @property
    def mpmath(self) -> "kernels.AdaptiveMpmath":
        """Scalar mpmath kernel of the formula as the seed writes it, at adaptive precision: `entry.mpmath(*values)`
        (arguments: `kernel_params`) raises its working precision until the current mpmath precision's digits (15
        by default; more inside `mpmath.workdps(50)`) are stable, so a closed form that cancels still gives correct
        digits; `entry.mpmath.raw` is the kernel at the current precision."""
        if self.formula is None:
            raise TypeError(f"{self.id} has no closed form")
        return _adaptive_kernel(self.formula, tuple(p.symbol for p in self.kernel_params))

    # -- display ---------------------------------------------------------------------------------
    def latex(self, which: str = "formula", settings: Mapping[str, Any] | None = None) -> str:
        """LaTeX of the closed form ("formula": the paper's display form where one is given), of the
        expression in full ("full"), or of the stable form ("stable").

        Printed with SymPy's `latex` under `settings` (the paper's printer settings, from its `latex["printer"]`;
        found in the registry when not given) and then this entry's own `latex_settings`."""
        opts = self.printer_settings(settings)
        if self.display is not None and which == "formula":
            # a display is built by hand in the paper's order (evaluate=False), so it prints in that order
            body = self.display if isinstance(self.display, str) else _latex(self.display, {"order": "none", **opts})
        else:
            expr = self.stable_form if which == "stable" and self.stable_form is not None else self.formula
            if expr is None:
                return self.display if isinstance(self.display, str) else ""
            body = _latex(expr, opts)
        if self.reduce == "sum" and not (isinstance(self.display, str) and which == "formula"):
            dim = self.kernel_params[0].shape[0] if self.kernel_params[0].shape else "D"
            body = rf"\sum_{{d=1}}^{{{dim}}} \left({body}\right)"
        return f"{self.lhs} = {body}" if self.lhs else body

    def printer_settings(self, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The SymPy `latex()` settings this entry prints with: its paper's, then its own (symbol names by name)."""
        if settings is None:
            settings = _paper_printer(self.id)
        merged = {**dict(settings or {}), **dict(self.latex_settings)}
        names = {**dict((settings or {}).get("symbol_names", {})), **dict(self.latex_settings.get("symbol_names", {}))}
        if names:
            merged["symbol_names"] = names
        return merged

    def check_display(self):
        """The verdict on 'the displayed form equals the formula' (an Outcome), or None when the display is a LaTeX
        string or absent. A display that is the formula's own expression with its terms in another order is
        proved by construction; any other is decided by the derivation engine (`display_step()`)."""
        if not isinstance(self.display, sp.Basic) or self.formula is None:
            return None
        if self.display == self.formula:
            return Outcome(True, "the formula's own terms, in the paper's order", strength="proved")
        return self.display_step().check()

    def display_step(self):
        """The step 'the displayed form equals the formula' (None when there is no SymPy display): `theorylab
        check`, the LaTeX document and the contract decide it like any other step."""
        if not isinstance(self.display, sp.Basic) or self.formula is None or self.display == self.formula:
            return None
        return Step(f"{self.id}: the displayed form equals the formula", lhs=self.display, rhs=self.formula,
                    why="the LaTeX shows the paper's own form; it must be the same function")

    def unicode(self) -> str:
        if self.formula is None:
            return self.display if isinstance(self.display, str) else ""
        text = sp.pretty(self.formula, use_unicode=True)
        return ("Σ_d of:\n" + text) if self.reduce == "sum" else text

    def _repr_latex_(self) -> str:
        return f"$${self.latex()}$$"

    def __repr__(self) -> str:
        return f"<Entry {self.id}: {self.title} ({self.source})>"

    # -- generation for tests --------------------------------------------------------------------
    def strategy(self):
        """Hypothesis strategy of valid keyword arguments over the whole domain."""
        from hypothesis import strategies as st  # lazy: hypothesis costs ~0.7 s; only the contract tests use it

        if self.strategy_fn is not None:
            return self.strategy_fn()
        names = sorted({d for p in self.params for d in p.shape})

        @st.composite
        def draw(draw_):
            dims = {d: draw_(st.integers(*self.dims.get(d, (1, 4)))) for d in names}
            return {p.name: draw_(p.strategy(dims)) for p in self.params}

        def ok(values):
            try:
                self.validate(values)
                return True
            except DomainError:
                return False

        return draw().filter(ok)


@functools.lru_cache(maxsize=None)
def _adaptive_kernel(expr: sp.Expr, args: tuple) -> "kernels.AdaptiveMpmath":
    return kernels.AdaptiveMpmath(kernels.build("mpmath", expr, args), expr)


_LATEX_KEYS = None


def _check_latex_settings(where: str, settings: Mapping[str, Any]) -> None:
    """Refuse, at declaration, a printer setting SymPy does not know (a typo would otherwise be silently ignored)."""
    global _LATEX_KEYS
    if _LATEX_KEYS is None:
        _LATEX_KEYS = frozenset(LatexPrinter._default_settings)
    bad = sorted(set(settings) - _LATEX_KEYS)
    if bad:
        raise ValueError(f"{where}: unknown LaTeX printer setting {', '.join(bad)}; SymPy's latex() takes "
                         f"{', '.join(sorted(_LATEX_KEYS))}")


def _latex(expr: Any, settings: Mapping[str, Any]) -> str:
    """sp.latex with symbol_names given by symbol name (or by symbol), matched to the symbols of expr."""
    opts = dict(settings)
    names = opts.pop("symbol_names", None)
    if names:
        atoms = getattr(expr, "free_symbols", set()) | {a for a in getattr(expr, "atoms", lambda *_: set())(sp.Symbol)}
        opts["symbol_names"] = {s: names[key] for s in atoms for key in (s, s.name) if key in names}
    return sp.latex(expr, **opts)


# The registry's lookup of a paper's printer settings (entry ID -> settings), handed down by the registry when it
# loads (theorylab._pipeline.catalogue fills it): an entry never imports the registry, which sits above it.
PAPER_PRINTER: list[Callable[[str], Mapping[str, Any]]] = []


def _paper_printer(entry_id: str) -> Mapping[str, Any]:
    """The printer settings of the registered paper that holds this entry's family ({} for an unregistered one)."""
    try:
        return PAPER_PRINTER[0](entry_id) if PAPER_PRINTER else {}
    except Exception:  # noqa: BLE001 - an entry being written in a notebook belongs to no registered paper yet
        return {}


def _finite(x: Any) -> bool:
    if isinstance(x, dict):
        return all(_finite(v) for v in x.values())
    if x is None:
        return True
    if isinstance(x, (list, tuple)):
        return all(_finite(v) for v in x)
    return bool(np.all(np.isfinite(np.asarray(x, dtype=float))))


def _finalize(entry: Entry, out: Any, values: Mapping[str, Any]) -> Any:
    if not _finite(out):
        shown = ", ".join(f"{k}={v if np.ndim(v) == 0 else 'array'}" for k, v in values.items())
        raise DomainError(f"{entry.id} is not representable in float64 at {shown} "
                          "(the value overflows or the point is singular)")
    if isinstance(out, np.ndarray) and out.ndim == 0:
        return float(out)
    if isinstance(out, (np.floating, np.integer)):
        return float(out)
    return out


# -- named functions: an entry (or a helper) used as m(x) in other formulas --------------------------------------
class _Applied(sp.Function):
    """An application m(x, ...) of an EntryFunction (a class per function and derivative order, made by it)."""

    _tl: "EntryFunction"

    @classmethod
    def eval(cls, *args):
        return None  # stays m(x): the paper's own form, in LaTeX, `show` and derivations

    def fdiff(self, argindex=1):
        if argindex != 1:
            raise ArgumentIndexError(self, argindex)
        return self._tl.derivative()._cls(*self.args)

    def doit(self, **hints):
        """The definition (the paper's formula) at these arguments: what the derivation engine proves with."""
        args = [a.doit(**hints) if isinstance(a, sp.Basic) else a for a in self.args] if hints.get("deep", True) \
            else list(self.args)
        return self._tl.definition(*args)

    def _eval_evalf(self, prec):
        if not all(a.is_number for a in self.args):
            return None
        return self.doit(deep=False).evalf(n=prec_to_dps(prec))

    def _eval_is_extended_real(self):
        return True if all(a.is_extended_real for a in self.args) and self._tl.real else None

    def _tl_kernel(self, kind: str):
        return self._tl.kernel(kind)

    # printing: the shown arguments only (m(-lambda); the implicit ones, such as gamma, are the paper's notation)
    def _shown(self):
        return self.args[:self._tl.shown]

    def _latex(self, printer, exp=None):
        args = [re.sub(r"^- ", "-", printer._print(a)) for a in self._shown()]
        body = ", ".join(args)
        paren = (r"\left(", r"\right)") if any(r"\frac" in a for a in args) else ("(", ")")
        tex = self._tl.latex_name
        if exp is not None:
            if self._tl.order:
                return rf"\left({tex}{paren[0]}{body}{paren[1]}\right)^{{{exp}}}"
            return f"{tex}^{{{exp}}}{paren[0]}{body}{paren[1]}"
        return f"{tex}{paren[0]}{body}{paren[1]}"

    def _pretty(self, printer, *args, **kwargs):
        return printer._print(sp.Function(self._tl.display_name)(*self._shown()))

    def _sympystr(self, printer, *args, **kwargs):
        return f"{self._tl.display_name}({', '.join(printer._print(a) for a in self._shown())})"

    def _sympyrepr(self, printer, *args, **kwargs):
        # the definition is part of the representation: a step's cached verdict is keyed by it
        return (f"EntryFunction({self._tl.name!r}, order={self._tl.order}, definition="
                f"{printer._print(self._tl.expression(stable=False))}, stable={printer._print(self._tl.expression())})"
                f"({', '.join(printer._print(a) for a in self.args)})")


def _as_symbol(x: Any, what: str) -> sp.Symbol:
    if isinstance(x, Param):
        if x.kind not in ("scalar", "integer"):
            raise TypeError(f"{what} must be a scalar or integer parameter; got the {x.kind} parameter {x.name!r}")
        return x.symbol
    if isinstance(x, sp.Symbol):
        return x
    raise TypeError(f"{what} must be a Param or a SymPy Symbol; got {type(x).__name__} {x!r}")


_NAMES: dict[str, int] = {}


class EntryFunction:
    r"""A named function for formulas: an entry (`Entry.as_function()`) or a helper (`function(...)`) that other
    entries' formulas, stable forms, displays and derivation steps use as m(x).

    `M = ENTRY_M.as_function()` then `M(-lam)` is the SymPy expression m(-lambda): it prints `m(-\lambda)` in
    LaTeX and `m(-λ)` in `show`; `sp.diff(M(-lam), lam)` is -m'(-lambda) (printed `m'(-\lambda)`), and
    `M.derivative()` (`M.derivative(2)`) is m' (m'') to write directly. The function's other parameters (gamma for
    m(z; gamma)) are implicit arguments: `M(-lam)` passes the symbol gamma itself, `M(-lam, gamma=g2)` another
    expression; they are not printed (the paper's notation).

    Kernels are composed: the NumPy and torch kernels of a formula using m call m's own kernel (its stable form;
    for the k-th derivative, `derivatives[k]` when given, else the k-th derivative of the stable form), the mpmath
    kernel calls m's formula. The derivation engine sees the definition: `m(x).doit()` is the formula at x, and a
    numeric test evaluates it there.

    Arguments (of `function`):
        name: the function's name, as printed in `show` ("m").
        of: the argument(s): a Param or Symbol (or a tuple of them) standing for it in `formula`.
        formula: the definition in the symbols of `of` and `params`.
        stable_form: an equal form accurate in float64, for the kernels (default: the formula).
        params: implicit parameters (Params or Symbols), passed by name.
        tex: its LaTeX name (default: what `name` prints as a symbol, "m", "\mu").
        derivatives: {k: stable form of the k-th derivative in the argument}, for the kernels; a callable
            `lambda m: ...` receives the function, for a form written with it (m'(z) = m(z)(1 + gamma m(z))/s). Its
            equality with the derivative of the formula is checked
            wherever a formula using m' is checked against its stable form (the contract).
        real: the function is real at real arguments (default True).
    """

    def __init__(self, name: str, of: Any, formula: sp.Expr, stable_form: sp.Expr | None = None, *,
                 params: Sequence[Any] = (), tex: str | None = None, derivatives: Mapping[int, sp.Expr] | None = None,
                 real: bool = True, order: int = 0, base: "EntryFunction | None" = None, entry: str = ""):
        if not isinstance(name, str) or not name:
            raise TypeError(f"function: name must be a non-empty string; got {type(name).__name__} {name!r}")
        where = f"function {name!r}"
        args = tuple(of) if isinstance(of, (tuple, list)) else (of,)
        if not args:
            raise TypeError(f"{where}: of must name the argument (a Param or Symbol)")
        self.args_symbols = tuple(_as_symbol(a, f"{where}: of") for a in args)
        self.implicit = tuple(_as_symbol(p, f"{where}: params") for p in params)
        if not isinstance(formula, sp.Expr):
            raise TypeError(f"{where}: formula must be a SymPy expression; got {type(formula).__name__}")
        if stable_form is not None and not isinstance(stable_form, sp.Expr):
            raise TypeError(f"{where}: stable_form must be a SymPy expression or None; got {type(stable_form).__name__}")
        if tex is not None and not isinstance(tex, str):
            raise TypeError(f"{where}: tex must be a string (its LaTeX name) or None; got {type(tex).__name__}")
        derivatives = dict(derivatives or {})
        if not all(isinstance(k, int) and k >= 1 and (isinstance(v, sp.Expr) or callable(v))
                   for k, v in derivatives.items()):
            raise TypeError(f"{where}: derivatives must map orders 1, 2, ... to SymPy expressions (or to callables "
                            f"taking the function, for a form written with it); got {derivatives!r}")
        known = set(self.symbols)
        for what, expr in (("formula", formula), ("stable_form", stable_form)):
            extra = sorted(s.name for s in (expr.free_symbols if expr is not None else set()) - known)
            if extra:
                raise ValueError(f"{where}: the {what} uses {', '.join(extra)}, which is neither its argument nor one "
                                 f"of its params ({', '.join(s.name for s in self.symbols)})")
        self.name, self.formula, self.stable_form = name, formula, stable_form
        self.tex = tex if tex is not None else sp.latex(sp.Symbol(name))
        self.derivatives, self.real, self.order, self.entry = derivatives, real, order, entry
        self.base = base or self
        self._orders: dict[int, EntryFunction] = {0: self} if base is None else base._orders
        ident = re.sub(r"\W", "_", name)
        if base is None:
            n = _NAMES.get(ident, 0)
            _NAMES[ident] = n + 1
            self._ident = f"tl_{ident}" + (f"_{n}" if n else "")
        else:
            self._ident = base._ident
        self._cls = type(f"{self._ident}_d{order}" if order else self._ident, (_Applied,),
                         {"_tl": self, "nargs": len(self.symbols), "__module__": __name__})

    # -- identity and printing -------------------------------------------------------------------------
    @property
    def symbols(self) -> tuple[sp.Symbol, ...]:
        """The argument(s), then the implicit parameters: the order of the applied function's arguments."""
        return self.args_symbols + self.implicit

    @property
    def shown(self) -> int:
        return len(self.args_symbols)

    @property
    def display_name(self) -> str:
        return self.base.name + ("'" * self.order if self.order <= 3 else f"^({self.order})")

    @property
    def latex_name(self) -> str:
        return self.base.tex + ("'" * self.order if self.order <= 3 else f"^{{({self.order})}}")

    def __repr__(self) -> str:
        return f"<EntryFunction {self.display_name}({', '.join(s.name for s in self.args_symbols)})" + (
            f" of {self.entry}" if self.entry else "") + ">"

    # -- use in formulas -------------------------------------------------------------------------------
    def __call__(self, *args: Any, **implicit: Any) -> sp.Expr:
        """The application m(x): a SymPy expression (implicit parameters by name, default their own symbols)."""
        if len(args) != self.shown:
            raise TypeError(f"{self.display_name} takes {self.shown} argument(s) "
                            f"({', '.join(s.name for s in self.args_symbols)}); got {len(args)}")
        names = {s.name: s for s in self.implicit}
        unknown = sorted(set(implicit) - set(names))
        if unknown:
            raise TypeError(f"{self.display_name}: unknown parameter(s) {', '.join(unknown)}; its implicit "
                            f"parameters are {', '.join(names) or 'none'}")
        rest = [sp.sympify(implicit[s.name]) if s.name in implicit else s for s in self.implicit]
        clash = [a for a in args if isinstance(a, sp.Symbol) and a in self.implicit and a.name not in implicit]
        if clash:  # m(t) with t one of m's implicit parameters: almost surely meant m's argument to be t
            raise TypeError(f"{self.display_name}({clash[0].name}): {clash[0].name} is an implicit parameter of "
                            f"{self.display_name}, whose argument is {self.args_symbols[0].name}; to call it at "
                            f"{clash[0].name}, make {clash[0].name} the argument: as_function(..., of="
                            f"{clash[0].name!r})")
        return self._cls(*(sp.sympify(a) for a in args), *rest)

    def derivative(self, order: int = 1) -> "EntryFunction":
        """The `order`-th derivative in the (first) argument, as a named function (m', m'', ...)."""
        if not isinstance(order, int) or order < 0:
            raise TypeError(f"{self.display_name}: the derivative's order must be an integer >= 0; got {order!r}")
        k = self.order + order
        if self.shown != 1 and k:
            raise TypeError(f"{self.display_name}: derivatives are defined for functions of one argument")
        if k not in self._orders:
            b = self.base
            self._orders[k] = EntryFunction(b.name, b.args_symbols, b.formula, b.stable_form, params=b.implicit,
                                            tex=b.tex, derivatives=b.derivatives, real=b.real, order=k, base=b,
                                            entry=b.entry)
        return self._orders[k]

    def expression(self, stable: bool = True) -> sp.Expr:
        """The expression of this function (of this derivative order) in its symbols: the stable one for the
        kernels (`derivatives[k]` where given), else the paper's formula."""
        b = self.base
        if stable and self.order in b.derivatives:
            form = b.derivatives[self.order]
            if not isinstance(form, sp.Expr):  # written with the function itself: built on first use
                form = b.derivatives[self.order] = sp.sympify(form(b))
                extra = sorted(x.name for x in form.free_symbols - set(b.symbols))
                if extra:
                    raise ValueError(f"function {b.name!r}: derivatives[{self.order}] uses {', '.join(extra)}, which "
                                     f"is neither its argument nor one of its params")
            return form
        expr = (b.stable_form if stable and b.stable_form is not None else b.formula)
        return sp.diff(expr, b.args_symbols[0], self.order) if self.order else expr

    def definition(self, *args: Any) -> sp.Expr:
        """The paper's formula at these arguments (all of them: the argument(s), then the implicit parameters)."""
        expr = self.expression(stable=False)
        return expr.xreplace(dict(zip(self.symbols, (sp.sympify(a) for a in args))))

    def kernel(self, kind: str) -> Callable:
        """This function's own kernel of `kind` (numpy, torch: the stable expression; mpmath: the formula), taking
        the arguments in the order of `symbols`."""
        return kernels.build(kind, self.expression(stable=kind != "mpmath"), self.symbols)


def function(name: str, of: Any, formula: sp.Expr, stable_form: sp.Expr | None = None, *, params: Sequence[Any] = (),
             tex: str | None = None, derivatives: Mapping[int, sp.Expr] | None = None,
             real: bool = True) -> EntryFunction:
    r"""A named helper function for formulas, derivations and LaTeX (see `EntryFunction`): `m = function("m", Z_PARAM,
    formula, stable_form, params=(GAMMA,))`, then `m(-lam)` in another entry's formula prints `m(-\lambda)`."""
    return EntryFunction(name, of, formula, stable_form, params=params, tex=tex, derivatives=derivatives, real=real)
