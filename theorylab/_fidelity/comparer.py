"""One step against the printed relations of one label: `_Comparer`, composed of its parts (points,
binding, agreement, decisions); `run` applies them in order and returns one Comparison."""
from __future__ import annotations

import random
from typing import Any, Sequence

import sympy as sp

from .thresholds import RTOL
from .names import _functions, _side
from .optimum import _optima
from .values import _stand_in
from .links import _FLIP, _paths
from .comparison import Comparison, _seed
from .points import _Points
from .binding import _Binding
from .agreement import _Agreement
from .decisions import _Decisions


class _Comparer(_Points, _Binding, _Agreement, _Decisions):
    """A step against the printed relations of one label, in named parts:
      `_symbolic_points` / `_numeric_points`  unify the print's symbols with the step's (by name) and choose the
          points: random points of the step's domain, or the step's own first search points;
      `_values`        the printed sides and the step's sides at those points;
      `_full_match`    the step states a printed relation or a composition of them;
      `_name_match`    one printed side is the step's, the other an atomic name the step computes;
      `_difference`    else: decisive or not (`_decisive`).
    Printed relations: =, <=, < as stated; a \\approx b is read as a = b at the step's tolerance (its stated `tol` and
    `rtol`, else RTOL), and a mismatch of it is decisive only beyond a tolerance the step states; a \\propto b holds
    where a/b does not vary over the points in the variables the proportionality is about: every sampled symbol
    except those held fixed, the step's integer symbols (a dimension n: (128)'s ignored coefficient
    S_{n-1}/(2 pi)^{n/2} depends on n) and any its domain pins to one value; the ratio is compared among the points
    that share the held-fixed values (the points are drawn in such groups), and a side that does not vary there
    compares nothing."""

    def __init__(self, base: dict, nodes: list, edges: list, step, points: int, raw: list | None,
                 misprinted: Sequence = (), bound: Sequence = ()):
        self.base, self.edges, self.step, self.points, self.raw = base, edges, step, points, raw
        # printed names the step binds (`Step.binds`): a whole printed side bound to "lhs"/"rhs" takes the values of
        # that side of the step at each point; a name bound to an expression is replaced by it wherever it occurs
        self.bound: dict[int, int] = {}
        self.bound_names = tuple(bound)
        rep = {e: sp.sympify(v) for e, v in bound if not isinstance(v, str)}
        for e, v in bound:
            if isinstance(v, str):
                self.bound.update({k: (0 if v == "lhs" else 1) for k, n in enumerate(nodes) if n == e})
        nodes = [n.xreplace(rep) if rep and k not in self.bound else n for k, n in enumerate(nodes)]
        self.rng = random.Random(_seed(base["label"], base["derivation"], base["step"]))
        self.numeric = step.numeric
        self.supplied: set[str] = set()      # names whose values the step's own points supply (`state_values`)
        fnames: dict[str, Any] = {}
        for side in (step.lhs, step.rhs):
            if isinstance(_side(side), sp.Basic):
                fnames.update(_functions(_side(side)))
        self.stands = {n: _stand_in(n, self.rng) for n in sorted(fnames)}
        self.mats: dict[str, sp.MatrixSymbol] = {}     # the step's matrix symbols (random entries at each point)
        self.arrays: list[dict] = []
        self.raw_points: list[dict] = []    # a numeric step's points as its routines take them (arrays, strings)
        self.nodes = [_optima(n) for n in nodes]     # a printed optimum over one real variable is a value
        self.misprinted = {k for k, n in enumerate(nodes) if any(n == m for m in misprinted)}
        self.functions: list[dict] = []     # per point of a numeric step: its functions by name (`_point_functions`)
        self.printed_syms = set().union(*[n.free_symbols for n in self.nodes])
        # a side Subs(E, x, v) is also compared before its substitution: E with x sampled like the step's own symbols
        # (the print's p(u) = E(u, m0, rho) is the step's E before m0, rho are put in)
        self.inner = {k: side.expr for k, side in enumerate((step.lhs, step.rhs)) if isinstance(side, sp.Subs)} \
            if not self.numeric else {}
        self.proportional = any(op == "propto" for _, _, op in edges)
        self.fixed: list = []                # what a proportionality holds fixed (its constant may depend on them)
        self.memo: dict[int, tuple] = {}
        self.rejected: list[str] = []
        self.defined = None                  # a symbol the step defines (`_define`)
        self.implied: set[int] = set()       # printed names bound by `_bind_defined_names`
        # the tolerance a printed \approx is read at: the step's stated one (tol + rtol relative), else RTOL
        self.approx_tol = (max(RTOL, float(step.rtol or 0)), float(step.tol or 0))

    # -- the whole -----------------------------------------------------------------------------------------------------

    def run(self) -> Comparison:
        if any(isinstance(x, sp.MatrixBase) and x.shape != (1, 1) for x in (self.step.lhs, self.step.rhs)) \
                and not any(getattr(n, "is_Matrix", False) for n in self.nodes):
            return Comparison(**self.base, verdict="not compared",
                              how="the step's sides are matrices (the print's are scalar expressions: a notation map "
                                  "may bind the printed names to matrices)")
        failed = self._numeric_points() if self.numeric else self._symbolic_points()
        if failed is not None:
            return failed
        self._bind_defined_names()
        if not self.bound and not any(self.possible(n) for n in self.nodes):   # decided before any side is evaluated
            return Comparison(**self.base, verdict="not compared",
                              how="symbols of the print not in the step: "
                                  + (", ".join(self.foreign_names())[:160] or "none"))
        failed = self._values()
        if failed is not None:
            return failed
        op = self.step.relation
        self.small, self.big, self.sop = (0, 1, op) if op in ("==", "<=", "<") else (1, 0, _FLIP[op])
        self.m_small, self.m_big = self.matches(self.small), self.matches(self.big)
        self.p_small, self.p_big = self.proportionals(self.small), self.proportionals(self.big)
        self.a_small, self.a_big = self.matches(self.small, approx=True), self.matches(self.big, approx=True)
        self.paths = _paths(self.edges)
        self.foreign = [k for k in range(len(self.nodes)) if k not in self.evaluable]
        return self._anchored() or self._full_match() or self._name_match() or self._difference()
