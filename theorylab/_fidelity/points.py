"""Comparing a step with the print, part one: the points. The print's symbols unified with the step's,
random points of its domain or its own search points (with their arrays and functions)."""
from __future__ import annotations

import itertools
from typing import Mapping, Sequence

import mpmath
import sympy as sp

from .thresholds import QUAD_POINTS, RTOL, _DPS
from .names import _domain, _names, _normal, _step_matrices, _step_symbols
from .values import _Arr, _array, _evaluate, _sample, _scalar
from .comparison import Comparison


def _group_key(pt: Mapping, fixed: Sequence) -> tuple:
    return tuple(pt.get(k) for k in fixed)


def _point_functions(p) -> dict:
    """The functions a numeric step's search point carries: a point (a dict) may declare `function_of` = {name:
    variable}: its value under `name` is a function of `variable`, written as the text of a SymPy expression in it
    ("(z-1)**2" with variable "z") or as that expression. By normalized name (`_names`): (variable Symbol,
    expression); a value that is not an expression in that variable alone is left out (it has no meaning here)."""
    out: dict = {}
    for name, var in dict(getattr(p, "function_of", None) or {}).items():
        x = var if isinstance(var, sp.Symbol) else sp.Symbol(str(var))
        value = p.get(name) if hasattr(p, "get") else None
        try:
            e = sp.sympify(value, locals={x.name: x}) if isinstance(value, str) else value
        except (sp.SympifyError, SyntaxError, TypeError, ValueError, AttributeError):
            continue
        if isinstance(e, sp.Expr) and e.free_symbols <= {x}:
            for n in _names(str(name)):
                out.setdefault(n, (x, e))
    return out


class _Points:
    """`_Comparer`'s points: unify the print's symbols with the step's and choose where both are
    evaluated (`_symbolic_points`, `_numeric_points`; `_define` for a step defining one symbol)."""

    # -- points ------------------------------------------------------------------------------------------------------

    def _symbolic_points(self) -> Comparison | None:
        step = self.step
        mine = _step_symbols(step)
        for e in self.inner.values():
            for x in e.free_symbols:
                if isinstance(x, sp.Symbol):
                    mine.setdefault(_normal(x.name), x)
                    mine.setdefault(_normal(x.name).replace("_", ""), x)
        rename = {}
        for s in self.printed_syms:
            if isinstance(s, sp.Symbol) and not isinstance(s, sp.Dummy):
                hit = next((mine[n] for n in _names(s.name) if n in mine), None)
                if hit is not None:
                    rename[s] = hit
        self.nodes = [n.xreplace(rename) for n in self.nodes]
        self.syms = sorted(set(mine.values()), key=lambda s: s.name)
        self.mats = _step_matrices(step)
        points = self.points
        if any(_quadrature(n) for n in self.nodes):
            # numeric integrals: fewer points, so that the comparison ends within its budget (two still have to
            # agree at three points at least, and one point where they do not is a difference)
            points = min(points, QUAD_POINTS)
        domain = _domain(step)
        if self.proportional:
            self.fixed = [s for s in self.syms if s.is_integer or (s in domain and domain[s][0] is not None
                                                                   and domain[s][0] == domain[s][1])]
        if self.fixed:
            # groups of points sharing the held-fixed values: three values of them, the others drawn in each
            free = [s for s in self.syms if s not in self.fixed]
            size = max(2, points // 3)
            self.pts = [{**head, **rest} for head in _sample(self.fixed, domain, self.rng, 3)
                        for rest in _sample(free, domain, self.rng, size)]
            points = len(self.pts)
        else:
            self.pts = _sample(self.syms, domain, self.rng, points)
        for pt in self.pts:                  # the step's matrix symbols: random entries, as exact rationals
            for m in self.mats.values():
                pt[m] = sp.ImmutableMatrix(*m.shape, [sp.Rational(self.rng.randint(-3000, 3000), 1000)
                                                      for _ in range(int(m.shape[0]) * int(m.shape[1]))])
        self._define()
        self.tol, self.rtol = 0.0, RTOL
        self.how_points = f"{points} random points of the step's domain, 30 digits, relative tolerance {RTOL:g}"
        if self.fixed:
            self.how_points += (" (in groups with the same " + ", ".join(s.name for s in self.fixed)
                                + ": the proportionality's constant may depend on them)")
        self.known = {_normal(s.name) for s in self.syms}
        self.known |= {k.replace("_", "") for k in self.known}
        return None

    def _define(self) -> None:
        """A step `x = E` (x one symbol not in E) whose print has x as a whole side reads x as a name the print
        defines: at each point x takes E's value instead of a random one, so the print's `x = F` compares F with E
        (decisively, where they differ) rather than two equations to solve at random points (issue #35's probe:
        `t = \\tau/s` printed, `t = \\tau/(2s)` stated)."""
        step = self.step
        if step.relation != "==":
            return
        for x, other in ((step.lhs, step.rhs), (step.rhs, step.lhs)):
            if not (isinstance(x, sp.Symbol) and isinstance(other, sp.Basic)) or x in other.free_symbols:
                continue
            if not any(n == x for n in self.nodes):
                continue
            e = self.ready(other)
            for pt in self.pts:
                v = _evaluate(e, pt)
                if v is None or isinstance(v, _Arr):
                    pt.pop(x, None)
                else:
                    pt[x] = sp.Float(mpmath.nstr(v, _DPS), _DPS)
            self.defined = x
            return

    def _numeric_points(self) -> Comparison | None:
        step, raw = self.step, self.raw
        override = raw
        try:
            if raw is not None:
                pass
            elif step.erratum is not None and step.erratum.at is not None:
                self.supplied.update(n for name in getattr(step.erratum.at, "state_values", ()) or ()
                                     for n in _names(str(name)))
                raw = [dict(step.erratum.at)]
            else:
                raw = list(itertools.islice(step.search(), 2))
        except Exception as exc:  # noqa: BLE001 - no points: nothing to compare at
            return Comparison(**self.base, verdict="not compared",
                              how=f"the step's search failed: {type(exc).__name__}")
        pts = []
        self.arrays: list[dict] = []         # per point: its vectors and matrices (tuples, arrays) by name
        for p in raw:
            for name in getattr(p, "state_values", ()) or ():
                self.supplied.update(_names(str(name)))
            pt, arr = {}, {}
            for k, v in p.items():
                x = _scalar(v)
                if x is not None:
                    pt[getattr(k, "name", str(k))] = x
                else:
                    m = _array(v)
                    if m is not None:
                        arr[_normal(getattr(k, "name", str(k)))] = m
            pts.append(pt)
            self.arrays.append(arr)
            self.raw_points.append({getattr(k, "name", str(k)): v for k, v in p.items()})
            self.functions.append(_point_functions(p))
        self.pts = pts
        if self.proportional:
            self.fixed = sorted({k for pt in pts for k, v in pt.items() if isinstance(v, sp.Integer)})
        self.tol, self.rtol = float(step.tol), max(RTOL, float(step.rtol))
        self.how_points = (f"the step's {'first ' if override is None else ''}{len(pts)} search point(s), tolerance "
                           f"{self.tol:g} + {self.rtol:g} relative"
                           + (f" ({step.tol_source})" if step.tol_source else ""))
        self.known = {_normal(k) for pt in pts for k in pt}
        self.known |= {k.replace("_", "") for k in self.known}
        return None

    def point_subs(self, pt: Mapping) -> dict:
        if not self.numeric:
            return pt
        by = {}
        for k, v in pt.items():
            by.setdefault(_normal(k), v)
        for k, v in list(by.items()):
            by.setdefault(k.replace("_", ""), v)
        out = {}
        for s in self.printed_syms:
            if isinstance(s, sp.Symbol):
                hit = next((by[n] for n in _names(s.name) if n in by), None)
                if hit is not None:
                    out[s] = hit
        return out


def _quadrature(expr: sp.Basic) -> bool:
    """Whether an expression has an integral that `_ready` leaves to quadrature (one not polynomial in its
    variables)."""
    return any(not all(i.function.is_polynomial(lim[0]) for lim in i.limits) for i in expr.atoms(sp.Integral))
