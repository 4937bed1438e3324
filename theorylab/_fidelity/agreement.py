"""Comparing a step with the print, part three: values and agreement: the printed and the step's sides
at the points, which printed sides are the step's (equal, proportional), and what a match covers."""
from __future__ import annotations

from typing import Sequence

import sympy as sp

from .thresholds import RELATION_TEX
from .names import _names
from .values import _Arr, _Timeout, _close, _evaluate, _fails, _holds, _scalar
from .links import _fmt, _path_links, _short, _substantive, _tex, _trivial
from .comparison import Comparison
from .points import _group_key


class _Agreement:
    """`_Comparer`'s values and agreement: `_values` evaluates every side at the points; `matches`,
    `proportionals`, `between`, `broken`, `found`, `cases` say which printed sides and links are the step's."""

    def _values(self) -> Comparison | None:
        nodes, step = self.nodes, self.step
        can = [self.possible(n) for n in nodes]
        self.node_vals: list[list] = [[] for _ in nodes]
        self.step_vals: list[tuple] = []
        self.inner_vals: list[tuple] = []
        self.used: list = []
        # a side with an infinite bound (int_0^oo) that reaches no value at its first two points (a divergent integral
        # exhausts the precision, seconds each time) is given up
        unbounded, missed = [n.has(sp.oo, -sp.oo) for n in nodes], [0] * len(nodes)
        for index, pt in enumerate(self.pts):
            subs = self.point_subs(pt)
            nv = [_evaluate(self.ready(self.bind(n, index)), subs) if ok else None for n, ok in zip(nodes, can)]
            for k, v in enumerate(nv):
                if can[k] and unbounded[k] and v is None and not any(x is not None for x in self.node_vals[k]):
                    missed[k] += 1
                    can[k] = missed[k] < 2
            if self.numeric and all(v is None for v in nv) and not self.bound:
                continue                      # no printed side is evaluable here: the routine is not called
            try:
                sv = (self.side_value(step.lhs, pt, index), self.side_value(step.rhs, pt, index))
            except _Timeout:
                raise
            except Exception:  # noqa: BLE001 - a side that cannot be evaluated here gives no value
                sv = (None, None)
            for k, side in self.bound.items():
                nv[k] = sv[side]              # a printed name the step binds to its side: that side's value
            for k, v in enumerate(nv):
                self.node_vals[k].append(v)
            self.step_vals.append(sv)
            self.inner_vals.append(tuple(_evaluate(self.ready(self.inner[k]), pt) if k in self.inner else None
                                         for k in (0, 1)))
            self.used.append(pt)
        self.groups = [_group_key(pt, self.fixed) for pt in self.used]
        self.evaluable = [k for k in range(len(nodes)) if any(v is not None for v in self.node_vals[k])]
        if not self.evaluable:
            return Comparison(**self.base, verdict="not compared",
                              how="the printed sides have no finite real value at the sampled points (symbols of the "
                                  "print not in the step: " + (", ".join(self.foreign_names())[:160] or "none") + ")")
        if not any(a is not None or b is not None for a, b in self.step_vals):
            return Comparison(**self.base, verdict="not compared",
                              how="the step's sides have no finite real value at the sampled points")
        return None

    # -- which printed sides are the step's --------------------------------------------------------------------------

    def agree(self, k: int, values: Sequence, approx: bool = False) -> bool:
        rtol, tol = self.approx_tol if approx else (self.rtol, self.tol)
        both = [(a, b) for a, b in zip(values, self.node_vals[k]) if a is not None and b is not None]
        # as many points as the step was compared at (up to 3), counted among its points, not only among those where
        # some printed side had a value: a match never rests on one point of two
        need = min(3, max(len(values), len(self.pts)))
        return bool(both) and len(both) >= need and all(_close(a, b, rtol, tol) for a, b in both)

    def matches(self, side: int, rows: Sequence[tuple] | None = None, approx: bool = False) -> set[int]:
        """The printed sides whose values are the step's side's (`approx`: at the step's stated tolerance)."""
        rows = self.step_vals if rows is None else rows
        return {k for k in self.evaluable if self.agree(k, [sv[side] for sv in rows], approx)}

    def contradicts(self, k: int) -> bool:
        """Whether printed side k has, at some point, a value equal to neither of the step's sides there (both
        given): a side of an equality chain the step's relation composes through that is not the step's value."""
        for v, sv in zip(self.node_vals[k], self.step_vals):
            sides = [s for s in sv if s is not None]
            if v is not None and sides and not any(_close(v, s, self.rtol, self.tol) for s in sides):
                return True
        return False

    def proportional_to(self, k: int, values: Sequence) -> bool:
        """Whether printed side k is a constant times the step's side (`values`) in the proportionality's variables:
        within each group of points (the same held-fixed values) their ratio is one number; some group has two
        points where the step's side varies (a side constant there compares nothing), and three points agree."""
        by: dict[tuple, list] = {}
        for g, a, v in zip(self.groups, values, self.node_vals[k]):
            if a is None or v is None:
                continue
            if isinstance(a, _Arr) or isinstance(v, _Arr):
                return False                  # a proportionality of matrices is not compared
            if (a == 0) != (v == 0):
                return False
            if a != 0:
                by.setdefault(g, []).append((a, v))
        n = sum(len(r) for r in by.values())
        varied = False
        for rows in by.values():
            a0, v0 = rows[0]
            for a, v in rows[1:]:
                if not _close(v / a, v0 / a0, self.rtol):
                    return False
                varied = varied or _fails(a, a0, "==")
        return varied and n >= min(3, len(values))

    def proportionals(self, side: int, rows: Sequence[tuple] | None = None) -> set[int]:
        """The printed sides that are a constant times the step's side: the sides equal to it (the constant 1) and
        those `proportional_to` it."""
        if not self.proportional:
            return set()
        rows = self.step_vals if rows is None else rows
        return self.matches(side, rows) | {k for k in self.evaluable
                                           if self.proportional_to(k, [sv[side] for sv in rows])}

    def own_value(self, k: int) -> bool:
        """A printed side whose every symbol (one or more, up to constants and bound variables) has its value from
        the step's own points (`state_values`: the print's atoms valued from the same state as the step's side, as
        -sum_l gradF_l^2 with each gradF_l supplied): only the printed arithmetic around those atoms would be
        compared, never what the atoms stand for."""
        e, bound = self.nodes[k], set()
        for x in e.atoms(sp.Sum, sp.Product):
            bound |= {lim[0] for lim in x.limits}       # a sum's index and its range are not what it adds up
        e = e.replace(lambda x: isinstance(x, (sp.Sum, sp.Product)), lambda x: x.function)
        fs = {x for x in e.free_symbols | {b.label for b in e.atoms(sp.IndexedBase)} if isinstance(x, sp.Symbol)}
        fs -= bound | {i for ix in e.atoms(sp.Indexed) for i in ix.indices if isinstance(i, sp.Symbol)}
        return (self.numeric and bool(fs)
                and all(set(_names(x.name)) & self.supplied for x in fs))

    def circular(self, i: int, j: int) -> bool:
        """nodes[i] rel nodes[j] compares nothing printed: both sides made of the step's own values (`own_value`), or
        one of them and the other a constant or one symbol ((48): lim (u^T v)^2 = 1 with (u^T v) the point's)."""
        a, b = self.own_value(i), self.own_value(j)
        return (a and b) or (a and _trivial(self.nodes[j])) or (b and _trivial(self.nodes[i]))

    def between(self, i: int, j: int, pop: str) -> set[int]:
        """The printed sides strictly inside the chain of links that states nodes[i] pop nodes[j] (`_path_links`): a
        name's match through them holds only where each of them agrees with the step's at its points (one with no
        value there, or another value, would be credited uncompared: a slip planted in it would still 'match')."""
        return {n for k in _path_links(self.edges, i, j, pop) for n in self.edges[k][:2]} - {i, j}

    def broken(self, i: int, j: int, pop: str) -> str:
        """A printed link along the chain that states nodes[i] pop nodes[j] (`_path_links`) whose two sides have values
        at the points and miss it at a point where the step's relation holds (a = b where a != b): the chain is not
        what the step states there, so no match composes through it (its links would be credited as compared); ''
        where none does. (Where the step's relation fails, a step that states the print (an erratum) keeps its
        match.)"""
        path = _path_links(self.edges, i, j, pop)
        if len(path) < 2:
            return ""                           # one link: the step's relation itself, which the match compares
        for k in path:
            a, b, op = self.edges[k]
            if op not in ("==", "<=", "<", "approx"):
                continue
            tol = self.approx_tol if op == "approx" else (self.rtol, self.tol)
            for n, (x, y) in enumerate(zip(self.node_vals[a], self.node_vals[b])):
                if x is not None and y is not None and self._step_holds(n) \
                        and not _holds(x, y, "==" if op == "approx" else op, *tol):
                    return f"{_tex(self.nodes[a])} {RELATION_TEX[op]} {_tex(self.nodes[b])}"
        return ""

    def found(self, i: int, j: int, pop: str) -> dict:
        """The links a match of nodes[i] pop nodes[j] compares, and those of them that carry printed mathematics."""
        keys = tuple(self.base.get("all_links", ()))
        path = _path_links(self.edges, i, j, pop)
        return dict(links=tuple(keys[k] for k in path if k < len(keys)),
                    substantive=tuple(keys[k] for k in path if k < len(keys) and _substantive(self.nodes,
                                                                                              self.edges[k])))

    def reading(self, pop: str) -> str:
        """How a printed relation other than the step's is read."""
        if pop == "approx":
            return " (\\approx read as = at the step's tolerance)"
        if pop == "propto":
            return (" (\\propto: each printed side a constant times the step's" + (
                ", the constant may depend on " + ", ".join(getattr(s, "name", str(s)) for s in self.fixed)
                if self.fixed else "") + ")")
        return ""

    def relations_stated(self) -> tuple[str, ...]:
        """The printed relations the step's relation is compared with: its own, and for = also \\approx and
        \\propto."""
        return (self.sop, "approx", "propto") if self.sop == "==" else (self.sop,)

    def degenerate(self, k: int) -> str:
        """A printed symbol of side k that a numeric step's points (those compared) set to 0, 1 or -1 only, as
        "alpha = 1" ('' where none): at such values alpha^2 and alpha^3, or 2 alpha and 2, agree, so a slip in its
        power or factor would still match (features-are-fate (45), (84) at their one point with alpha = 1)."""
        if not self.numeric:
            return ""
        e = self.nodes[k]
        # a symbol that is a sum's bound or an index (sum_{k=l}, W_l) at 1 is a place, not a factor
        places = {s for x in e.atoms(sp.Sum, sp.Product) for lim in x.limits for b in lim[1:]
                  for s in b.free_symbols} | {s for ix in e.atoms(sp.Indexed) for i in ix.indices
                                              for s in i.free_symbols}
        for x in sorted(e.free_symbols - places, key=lambda x: x.name):
            if not isinstance(x, sp.Symbol):
                continue
            vals = {self.point_subs(pt).get(x) for pt in self.used}
            vals.discard(None)
            if vals and all(abs(float(v)) in (0.0, 1.0) for v in vals if _scalar(v) is not None) \
                    and all(_scalar(v) is not None for v in vals):      # (Float(1.0) == 1 is False in SymPy)
                return f"{_tex(x)} = " + ", ".join(sorted(_fmt(v) for v in vals))
        return ""

    def cases(self, *ks: int) -> tuple:
        """The case distinctions of matched printed sides (outermost Piecewise only) and which of their branches
        the points reached: "key#n#i,j" (key: the case distinction as text, n its branches with a value, i, j those
        some compared point falls in). A branch no point reaches is not compared: a slip there would still match
        (features-are-fate (14) at points with gamma > 1 only); `_label_status` asks the matching steps together to
        reach every branch. A condition that has no truth value at a point leaves the distinction out."""
        out = []
        for k in ks:
            outer = [pw for pw in sp.preorder_traversal(self.nodes[k]) if isinstance(pw, sp.Piecewise)]
            # a case distinction inside another: its outer one is what is reached
            outer = [pw for pw in dict.fromkeys(outer) if not any(q is not pw and q.has(pw) for q in outer)]
            for place, pw in enumerate(outer):
                branches = [n for n, (e, _) in enumerate(pw.args) if e is not sp.nan]
                reached: set[int] = set()
                try:
                    for index, pt in enumerate(self.used):
                        subs = self.point_subs(pt) if self.numeric else pt
                        for n, (e, c) in enumerate(pw.args):
                            t = c.subs(subs) if isinstance(c, sp.Basic) else c
                            if t not in (sp.true, sp.false, True, False):
                                raise TypeError("no truth value")
                            if bool(t):
                                reached.add(n)
                                break
                except (TypeError, ValueError, AttributeError):
                    continue
                # keyed by its place in the print (side k, its place there): the steps' own symbols rename it
                out.append(f"{k}.{place}|{_short(sp.sstr(pw), 80)}#{len(branches)}#"
                           + ",".join(str(n) for n in sorted(reached) if n in branches))
        return tuple(dict.fromkeys(out))
