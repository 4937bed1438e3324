"""The Entry record: one catalogue result, from its SymPy closed form to kernels, LaTeX and tests.

Nothing about a formula is typed twice: the NumPy, torch and mpmath kernels, the LaTeX and the
contract tests are all generated from the fields of an Entry.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import sympy as sp

from . import kernels
from .derivation import Derivation
from .params import DomainError, Param

__all__ = ["Entry", "Source", "Constraint"]


@dataclass(frozen=True)
class Source:
    """Where an entry comes from: the paper (a citation key or the file it was transcribed from) and the place in it."""

    seed: str   # the paper: a citation key or its file name (the field keeps its first name for old records)
    where: str  # "eq (23)", "Theorem 3.7, eqs (101)-(117)"

    @property
    def paper(self) -> str:
        return self.seed

    def __str__(self) -> str:
        return f"{self.seed}, {self.where}"


@dataclass(frozen=True)
class Constraint:
    """A condition tying several parameters together: `check(values)` returns None or the error text."""

    check: Callable[[Mapping[str, Any]], str | None]
    text: str  # the condition in words, for documentation


@dataclass(frozen=True, eq=False)
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
    derivation: Derivation | None = None
    dims: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    strategy_fn: Callable[[], Any] | None = field(default=None, repr=False)
    examples: tuple[Mapping[str, Any], ...] = ()
    switches: Mapping[str, tuple[float, ...]] = field(default_factory=dict)  # parameter -> method switch points
    rtol: float = 1e-10                 # contract: relative error against the reference
    reference_rtol_note: str = ""

    def __post_init__(self):
        """Declaration-time validation: a formula may use only the declared parameters' symbols."""
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
                why = (" (a parameter of that name exists, but its symbol has other assumptions: use "
                       f"the parameter's .symbol)" if clash else "")
                raise ValueError(f"{self.id}: the {field_name} uses {', '.join(extra)}, which is not a declared "
                                 f"parameter (declared: {', '.join(self.param_names) or 'none'}){why}")

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
        for c in self.constraints:
            problem = c.check(values)
            if problem:
                raise DomainError(problem)
        return values

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
        out = kernels.mp_reference_array(self.mpmath, [values[p.name] for p in self.kernel_params])
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
    def mpmath(self) -> Callable:
        """Scalar mpmath kernel of the formula as the seed writes it (the reference)."""
        if self.formula is None:
            raise TypeError(f"{self.id} has no closed form")
        return kernels.build("mpmath", self.formula, tuple(p.symbol for p in self.kernel_params))

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
        from .derivation import Outcome

        if not isinstance(self.display, sp.Basic) or self.formula is None:
            return None
        if self.display == self.formula:
            return Outcome(True, "the formula's own terms, in the paper's order", strength="proved")
        return self.display_step().check()

    def display_step(self):
        """The step 'the displayed form equals the formula' (None when there is no SymPy display): `theorylab
        check`, the LaTeX document and the contract decide it like any other step."""
        from .derivation import Step

        if not isinstance(self.display, sp.Basic) or self.formula is None or self.display == self.formula:
            return None
        return Step(f"{self.id}: the displayed form equals the formula", self.display, self.formula,
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
        from hypothesis import strategies as st

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


_LATEX_KEYS = None


def _check_latex_settings(where: str, settings: Mapping[str, Any]) -> None:
    """Refuse, at declaration, a printer setting SymPy does not know (a typo would otherwise be silently ignored)."""
    global _LATEX_KEYS
    if _LATEX_KEYS is None:
        from sympy.printing.latex import LatexPrinter

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


def _paper_printer(entry_id: str) -> Mapping[str, Any]:
    """The printer settings of the registered paper that holds this entry's family ({} for an unregistered one)."""
    try:
        from . import catalogue

        return catalogue.paper_of(entry_id.split(".")[0]).latex.get("printer", {})
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
