"""Unification by name: a printed symbol is the step's symbol of that name (aliases, underscores),
and the step's symbols, matrices, functions and sampling domain read from its sides."""
from __future__ import annotations

from typing import Any

import sympy as sp


# -- unification: the print's symbols are the step's, by name --------------------------------------------------------

_ALIASES = {"lambda": ("lam", "lmbda", "lambda_"), "epsilon": ("eps",), "varepsilon": ("eps", "epsilon"),
            "gamma": ("g",), "theta": ("th",), "sigma": ("s",), "varphi": ("phi",), "vartheta": ("theta",)}


def _normal(name: str) -> str:
    r"""A name as both sides spell it: no backslashes, braces or spaces ("\gamma" -> "gamma", "w_{0}^{(1)}" ->
    "w_0^(1)")."""
    return name.replace("\\", "").replace("{", "").replace("}", "").replace(" ", "")


def _names(name: str) -> list[str]:
    """The names a printed symbol may have among a step's: itself, its aliases (lambda: lam), without underscores
    (m_0: m0)."""
    n = _normal(name)
    return [n, *_ALIASES.get(n, ()), n.replace("_", "")]


def _side(x: Any) -> Any:
    """A step's side as SymPy keeps it (a Matrix as an ImmutableMatrix, a Basic); a routine as it is."""
    return sp.ImmutableMatrix(x) if isinstance(x, sp.MatrixBase) else x


def _step_matrices(step) -> dict[str, sp.MatrixSymbol]:
    """The matrix symbols of a step's SymPy sides with numeric shapes (sampled with random entries), by name."""
    out: dict[str, sp.MatrixSymbol] = {}
    for side in (step.lhs, step.rhs):
        side = _side(side)
        if isinstance(side, sp.Basic):
            for m in side.atoms(sp.MatrixSymbol):
                if all(getattr(d, "is_Integer", False) or isinstance(d, int) for d in m.shape):
                    out.setdefault(_normal(str(m.name)), m)
    return out


def _step_symbols(step) -> dict[str, sp.Symbol]:
    """The symbols of a step's SymPy sides and domain, by normalized name."""
    out: dict[str, sp.Symbol] = {}
    for side in (step.lhs, step.rhs):
        side = _side(side)
        if isinstance(side, sp.Basic):
            for s in side.free_symbols:
                if isinstance(s, sp.Symbol):
                    out.setdefault(_normal(s.name), s)
    for s in step.domain:
        if isinstance(s, sp.Symbol):
            out.setdefault(_normal(s.name), s)
    for k, s in list(out.items()):
        out.setdefault(k.replace("_", ""), s)
    return out


def _domain(step) -> dict:
    """Where a step's symbols are sampled: its domain narrowed by its conditions (gamma < 1), as the engine searches."""
    try:
        return dict(step.search_domain)
    except AttributeError:
        return dict(step.domain)


def _functions(expr: sp.Basic) -> dict[str, Any]:
    return {_normal(f.func.__name__): f.func for f in expr.atoms(sp.core.function.AppliedUndef)}
