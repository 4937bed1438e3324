"""Comparing a step with the print, part four: the decisions: a full match, a name match, an anchored
difference, or a difference (decisive or not), with the witnesses that decide them."""
from __future__ import annotations

import sympy as sp

from .._shared import with_timeout
from .thresholds import MARGIN, RELATION_TEX, _SYMMETRIC
from .names import _normal, _step_symbols
from .values import _Arr, _Timeout, _close, _fails, _holds
from .links import _atomic, _fmt, _fmt_point, _tex, _trivial
from .comparison import Comparison


class _Decisions:
    """`_Comparer`'s verdicts, tried in order by `run`: `_anchored`, `_full_match`, `_name_match`, else
    `_difference` (decisive by `_decisive` and its witnesses)."""

    # -- verdicts ----------------------------------------------------------------------------------------------------

    def _full_match(self) -> Comparison | None:
        nodes, small = self.nodes, self.small
        sets = {"propto": (self.p_small, self.p_big), "approx": (self.a_small, self.a_big)}
        full = [(i, j, pop) for i, j, pop in sorted(self.paths) if pop in self.relations_stated()
                and i in sets.get(pop, (self.m_small, self.m_big))[0] and j in sets.get(pop, (self.m_small,
                                                                                            self.m_big))[1]]
        for t in [t for t in full if self.broken(*t)]:
            full.remove(t)
            self.rejected.append(f"not compared (a printed link of the chain fails at the step's points): "
                                 f"{self.broken(*t)}")
        # a composition a = b = c whose middle side b has a value at the points, another than the step's, composes
        # through a printed link that fails there (a slip in b): never the step's relation
        wrong = {(i, j, pop): sorted(m for m in self.between(i, j, pop) if self.contradicts(m)) if pop == "==" else []
                 for i, j, pop in full}
        for (i, j, pop), bad in wrong.items():
            if bad:
                self.rejected.append(f"not compared (a printed side between them is not the step's): the chain from "
                                     f"{_tex(nodes[i])} to {_tex(nodes[j])} passes through "
                                     + ", ".join(_tex(nodes[m]) for m in bad)
                                     + ", whose value at the step's points is another one")
        full = [t for t in full if not wrong[t]]
        if not full:
            return None
        # equal values cannot tell a link from the composed chain (a = b = c: all three are one function); the sides
        # that are the step's own expressions can
        scored = [(not self.circular(i, j), _identical(self.step, nodes[i], nodes[j], small),
                   (i, j, pop) in self.edges or (j, i, pop) in self.edges, i, j, pop) for i, j, pop in full]
        best = max(scored, key=lambda t: (t[0], t[1], t[2]))
        fresh, same, link, i, j, pop = best
        if (i in self.implied and _trivial(nodes[j])) or (j in self.implied and _trivial(nodes[i])):
            self.rejected.append(f"not compared (only a trivial side agrees): the printed side "
                                 f"{_tex(nodes[j] if i in self.implied else nodes[i])} is a constant or one symbol, "
                                 f"and the name it defines is the step's by reading only")
            return None
        flat = self.degenerate(i) or self.degenerate(j)
        if flat:
            self.rejected.append(f"not compared (the step's points put {flat} only: a power or a factor of it would "
                                 f"not show; a point with another value would)")
            return None
        if not fresh:
            self.rejected.append(f"circular: the printed side is the step's own value ({_tex(nodes[i])} "
                                 f"{RELATION_TEX[pop]} {_tex(nodes[j])}: each side is made of symbols whose values "
                                 f"the step's points supply from the state the step computes its sides from)")
            return None
        how = (f"the step states {_tex(nodes[i])} {RELATION_TEX[pop]} {_tex(nodes[j])}"
               + (" (a printed relation)" if link else " (the printed chain composed)") + self.reading(pop)
               + (": symbolically identical sides" if same[1] == 2 and not self.numeric and pop == "==" else
                  ": numerically")
               + f"; {self.how_points}")
        # the printed links of every match as good as the best one (a chain a = b = c of equal values and a step with
        # those values compares each link: a misprint in any of them would change a value)
        ties = [self.found(*t[3:]) for t in scored if t[:3] == best[:3]]
        return Comparison(**self.base, verdict="matches", how=how, cases=self.cases(i, j),
                          links=tuple(dict.fromkeys(k for f in ties for k in f["links"])),
                          substantive=tuple(dict.fromkeys(k for f in ties for k in f["substantive"])))

    def _name_match(self) -> Comparison | None:
        """A printed side against the step's (or, second, a Subs side's expression before its substitution), the
        other printed side a name: atomic (a symbol, an undefined function of symbols, a derivative of one), never a
        compound expression; the compared side neither a constant or one symbol (0, 4v) nor the step's own value."""
        nodes, small, big, sop = self.nodes, self.small, self.big, self.sop
        inner_sets = None
        for sub in (None, self.inner):
            if sub is not None and not sub:
                break
            if sub is None:
                sets = {"==": (self.m_small, self.m_big), "propto": (self.p_small, self.p_big),
                        "approx": (self.a_small, self.a_big)}
            else:
                iv = self.inner_vals
                inner_sets = inner_sets or {
                    "==": (self.matches(small, iv), self.matches(big, iv)),
                    "propto": (self.proportionals(small, iv), self.proportionals(big, iv)),
                    "approx": (self.matches(small, iv, True), self.matches(big, iv, True))}
                sets = inner_sets
            for i, j, pop in sorted(self.paths):
                if pop not in self.relations_stated():
                    continue
                ms, mb = sets.get(pop, sets["=="])
                if i in self.foreign and j in (ms | mb if pop in _SYMMETRIC else mb):
                    side_tex, name_tex, k = nodes[j], nodes[i], j
                elif j in self.foreign and i in ms:
                    side_tex, name_tex, k = nodes[i], nodes[j], i
                else:
                    continue
                between = self.between(i, j, pop) - (ms | mb)
                if between:
                    self.rejected.append(f"not compared (a printed side between them is not the step's): the "
                                         f"printed side {_tex(side_tex)} agrees with the step's, but the chain from "
                                         f"{_tex(name_tex)} to it passes through "
                                         + ", ".join(_tex(nodes[m]) for m in sorted(between))
                                         + ", which has no value at the step's points or another one")
                    continue
                if self.broken(i, j, pop):
                    self.rejected.append(f"not compared (a printed link of the chain fails at the step's points): "
                                         f"{self.broken(i, j, pop)}, on the way from {_tex(name_tex)} to "
                                         f"{_tex(side_tex)}")
                    continue
                flat = self.degenerate(k)
                if flat:
                    self.rejected.append(f"not compared (the step's points put {flat} only: a power or a factor of "
                                         f"it would not show; a point with another value would)")
                    continue
                if self.own_value(k):
                    self.rejected.append(f"circular: the printed side is the step's own value ({_tex(side_tex)} is "
                                         f"made of symbols whose values the step's points supply; the other printed "
                                         f"side, "
                                         f"{_tex(name_tex)}, is not compared)")
                    continue
                if _trivial(side_tex):
                    self.rejected.append(f"not compared (only a trivial side agrees): the printed side "
                                         f"{_tex(side_tex)} is a constant or one symbol, and the other printed side, "
                                         f"{_tex(name_tex)}, is not compared")
                    continue
                if (i if k == j else j) in self.misprinted:
                    self.rejected.append(f"not compared (a misprinted side is not a name the step computes): the "
                                         f"printed side {_tex(side_tex)} agrees with the step's, but the other printed "
                                         f"side, {_tex(name_tex)}, is one an erratum of the paper says is misprinted")
                    continue
                if not _atomic(name_tex):
                    self.rejected.append(f"not compared (not a name the step computes): the printed side "
                                         f"{_tex(side_tex)} agrees with the step's, but the other printed side, "
                                         f"{_tex(name_tex)}, is an expression with symbols the step does not have, "
                                         f"not a name")
                    continue
                before = ""
                if sub is not None:
                    side = small if k in ms else big
                    subs = (self.step.lhs, self.step.rhs)[side]
                    before = (" before its substitution " + ", ".join(f"{_tex(x)} = {_tex(v)}" for x, v in
                                                                      zip(subs.variables, subs.point)))
                agrees = "a constant times the step's" if pop == "propto" else "the step's"
                return Comparison(**self.base, verdict="matches", cases=self.cases(k),
                                  how=f"the printed side {_tex(side_tex)} is {agrees}{before}{self.reading(pop)}; the "
                                      f"other printed side, {_tex(name_tex)}, names what the step computes (symbols "
                                      f"the step does not have); {self.how_points}", **self.found(i, j, pop))
        return None

    def _anchored(self) -> Comparison | None:
        """A decisive difference read from the print itself: a printed side that is the step's (it agrees with one
        of the step's sides at every point, and is more than a constant or one symbol, or is a name the step binds:
        the anchor), a printed path from it, stating the step's relation, to another printed side that has values at
        the points, and a point where the step's relation holds while that other side is decisively not the step's
        other side (beyond DECISIVE relative and beyond MARGIN times the step's stated tolerance). The print then
        says something else than the step about what the step computes: a slip in a coefficient, an exponent, a sign
        or a bound of that side shows here, where it used to demote the label to "not compared" (a name linked to
        the step's side took over, a broken chain was not credited). None where no printed path has such ends."""
        nodes = self.nodes
        sets = {self.small: self.m_small, self.big: self.m_big}
        # symbols a side Subs(E, x, v) of the step puts values in: a printed side in x is E's before the
        # substitution, sampled freely, never the step's side
        substituted = {x for side in (self.step.lhs, self.step.rhs) if isinstance(side, sp.Subs)
                       for x in side.variables} if not self.numeric else set()
        for i, j, pop in sorted(self.paths):
            if pop != self.sop:
                continue
            if pop != "==" and not any((a, b) == (i, j) for a, b, _ in self.edges):
                continue                      # an order composed along a chain (a <= b <= c) says a <= c, not c
            for a, b, a_side, b_side in ((i, j, self.small, self.big), (j, i, self.big, self.small)):
                if a not in sets[a_side] or b in sets[b_side] or b not in self.evaluable or b in self.bound:
                    continue
                if (pop == "==" and nodes[b].is_number) or nodes[b].free_symbols & substituted:
                    continue                  # x = 0: an equation to solve, not the value of x
                if a in self.misprinted or b in self.misprinted or self.own_value(a):
                    continue
                if a not in self.bound and _trivial(nodes[a]):
                    continue
                for n, (sv, pt) in enumerate(zip(self.step_vals, self.used)):
                    y, other = self.node_vals[b][n], sv[b_side]
                    if y is None or other is None or not self._step_holds(n):
                        continue
                    if not (_fails(y, other, "==") and not _close(y, other, MARGIN * self.rtol, MARGIN * self.tol)):
                        continue
                    names = ("left", "right")
                    bound = (" (the name the print defines, F having exactly the step's symbols)" if a in self.implied
                             else " (a name the step binds to it)" if a in self.bound else "")
                    how = (f"the printed side {_tex(nodes[a])} is the step's {names[a_side]} side{bound}, and the print "
                           f"states {_tex(nodes[i])} {RELATION_TEX[pop]} {_tex(nodes[j])}; at {_fmt_point(pt)} the "
                           f"step's relation holds ({_fmt(sv[self.small])} {self.sop} {_fmt(sv[self.big])}) while the "
                           f"printed {_tex(nodes[b])} is {_fmt(y)}, not the step's {names[b_side]} side "
                           f"{_fmt(other)}: decisively; {self.how_points}")
                    return Comparison(**self.base, verdict="differs", how=how, decisive=True)
        return None

    def _difference(self) -> Comparison:
        sides = [e for e, v in self.bound_names if v in ("lhs", "rhs")]
        if sides and not self.bound:
            # the step binds a printed name to its side and the print names none of them: the display is not the
            # relation the step states (a display replaced by another, true or not, is no longer "as printed")
            how = ("the step binds " + ", ".join(_tex(e) for e in sides) + " (Step.binds) to its side and the print "
                   "has none of them: the print does not state what the step computes; decisively; "
                   + self.how_points)
            return Comparison(**self.base, verdict="differs", how=how, decisive=True)
        decisive, why = self._decisive()
        if decisive:
            how = (f"the step's relation is not a printed relation nor a composition of them; decisively: {why}; "
                   f"{self.how_points}")
            return Comparison(**self.base, verdict="differs", how=how, decisive=True)
        if self.rejected:
            return Comparison(**self.base, verdict="not compared", how=f"{self.rejected[0]}; {self.how_points}")
        names = [_tex(self.nodes[k]) for k in self.foreign if _atomic(self.nodes[k])]
        hint = (f"; to decide, bind the printed {', '.join(names[:3])} to what the step computes (Step.binds)"
                if names else "")
        how = ("differs, not decisive: the step states another relation than the print (not a printed relation nor a "
               "composition of them" + (f"; {why}" if why else "") + hint + "); not counted as machine-compared; "
               + self.how_points)
        return Comparison(**self.base, verdict="differs, not decisive", how=how)

    def _decisive(self) -> tuple[bool, str]:
        """Whether every comparable printed relation (same symbols as the step, both sides evaluable; an equation with
        a number on one side is an equation to solve, never an identity, so it is not comparable) fails at a sampled
        point where the step's relation holds, or holds where the step's fails; a \\approx fails only beyond a
        tolerance the step states (none stated: never decisive); a \\propto fails where its ratio varies between two
        points of one group at both of which the step's relation holds. Returns (decisive, why)."""
        step, nodes = self.step, self.nodes
        if self.numeric:
            return False, "a step with numeric sides is compared by value only"
        mine = {_normal(s.name) for s in _step_symbols(step).values()
                if any(s in sp.sympify(x).free_symbols for x in (step.lhs, step.rhs))} | set(self.mats)
        cands = []
        for i, j, pop in self.paths:
            if i not in self.evaluable or j not in self.evaluable:
                continue
            syms = nodes[i].free_symbols | nodes[j].free_symbols
            if {_normal(getattr(s, "name", str(s))) for s in syms} != mine:
                continue
            if pop in _SYMMETRIC and (bool(nodes[i].free_symbols) != bool(nodes[j].free_symbols)):
                continue
            cands.append((i, j, pop))
        if not cands:
            return False, "no printed relation has exactly the step's symbols"
        stated = step.tol > 0 or step.rtol > 0
        witness = None
        for i, j, pop in cands:
            if pop == "approx" and not stated:
                return False, "a printed \\approx is decisive only beyond a tolerance the step states; it states none"
            found = self._propto_witness(i, j) if pop == "propto" else self._witness(i, j, pop)
            if found is None:
                return False, ""
            witness = witness or found
        pt, why = witness
        return True, f"at {_fmt_point(pt)}, {why}"

    def _step_holds(self, k: int) -> bool | None:
        a, b = self.step_vals[k][self.small], self.step_vals[k][self.big]
        return None if a is None or b is None else _holds(a, b, self.sop, self.rtol, self.tol)

    def _witness(self, i: int, j: int, pop: str):
        """A point where printed nodes[i] pop nodes[j] (=, <=, <, \\approx) fails decisively and the step's relation
        holds, or the other way round: (point, why), or None."""
        op = "==" if pop == "approx" else pop
        for k, (sv, pt) in enumerate(zip(self.step_vals, self.used)):
            a, b, x, y = sv[self.small], sv[self.big], self.node_vals[i][k], self.node_vals[j][k]
            if None in (a, b, x, y):
                continue
            step_holds, print_holds = _holds(a, b, self.sop, self.rtol, self.tol), _holds(x, y, op, self.rtol,
                                                                                           self.tol)
            print_fails = _fails(x, y, op) and (pop != "approx" or not _holds(x, y, op, *self.approx_tol))
            if (step_holds and print_fails) or (print_holds and _fails(a, b, self.sop)):
                which = ("the step's relation holds there and the print's fails" if step_holds
                         else "the print's relation holds there and the step's fails")
                return pt, (f"{which} (the step: {_fmt(a)} {self.sop} {_fmt(b)}; the print: {_tex(self.nodes[i])} = "
                            f"{_fmt(x)} {RELATION_TEX[pop]} {_tex(self.nodes[j])} = {_fmt(y)})")
        return None

    def _propto_witness(self, i: int, j: int):
        """Two points of one group (the same held-fixed values) where the step's relation holds and the printed ratio
        nodes[i]/nodes[j] differs decisively: (point, why), or None."""
        first: dict[tuple, tuple] = {}
        for k, (g, pt) in enumerate(zip(self.groups, self.used)):
            x, y = self.node_vals[i][k], self.node_vals[j][k]
            if x is None or y is None or isinstance(x, _Arr) or isinstance(y, _Arr) or y == 0 \
                    or not self._step_holds(k):
                continue
            r = x / y
            if g not in first:
                first[g] = (pt, r)
                continue
            pt0, r0 = first[g]
            if _fails(r, r0, "=="):
                return pt, (f"the step's relation holds there and at {_fmt_point(pt0)}, and the print's ratio "
                            f"{_tex(self.nodes[i])} / {_tex(self.nodes[j])} is {_fmt(r)} there, {_fmt(r0)} at the "
                            f"other: not a constant")
        return None


def _identical(step, a, b, small: int) -> tuple[int, int]:
    """How many of the step's sides (0, 1, 2) are the printed nodes a, b as expressions, and how many expand to them
    (small: the index of the step's side that a stands for)."""
    if step.numeric:
        return (0, 0)
    sides = (step.lhs, step.rhs) if small == 0 else (step.rhs, step.lhs)

    def same():
        return (sum(sp.sympify(s) == n for s, n in zip(sides, (a, b))),
                sum(sp.expand(sp.sympify(s) - n) == 0 for s, n in zip(sides, (a, b))))
    try:
        return with_timeout(same, 2.0, clock="cpu", error=_Timeout)
    except (_Timeout, Exception):  # noqa: BLE001 - expansion failed: the numeric comparison stands
        return (0, 0)
