"""Comparing a step with the print, part two: binding printed names to the step: arrays and functions
of a point put in, names the step binds or the print defines, a side's value at a point."""
from __future__ import annotations

from typing import Mapping

import sympy as sp

from .names import _names, _normal
from .values import _OPNORM, _bound_at, _evaluate, _ready, _routine_value
from .links import _tex


class _Binding:
    """`_Comparer`'s binding of printed names to what the step computes: the step's sides and the print's
    at a point (`ready`, `side_value`, `bind`), which printed names have a value, and names the print defines."""

    # -- values ------------------------------------------------------------------------------------------------------

    def ready(self, e) -> sp.Basic:
        e = sp.sympify(e)
        if id(e) not in self.memo:
            self.memo[id(e)] = (e, _ready(e, self.stands))
        return self.memo[id(e)][1]

    def side_value(self, side, pt, index: int = 0):
        if callable(side) and not isinstance(side, sp.Basic):
            args = dict(self.raw_points[index]) if index < len(self.raw_points) else {}
            args.update({k: (float(v) if isinstance(v, sp.Float) else int(v) if isinstance(v, sp.Integer) else v)
                         for k, v in pt.items()})
            return _routine_value(side(**args))
        e = self.ready(side)
        if self.numeric:
            return _evaluate(e, {s: pt[s.name] for s in e.free_symbols if isinstance(s, sp.Symbol) and s.name in pt})
        return _evaluate(e, pt)

    def has_value(self, s) -> bool:
        """Whether a printed symbol has a value at the points: a symbol of the step's, or a matrix symbol the step
        has (the same object: the notation binds the printed name to it), or one its points carry as an array."""
        if isinstance(s, sp.MatrixSymbol):
            return self.mats.get(_normal(str(s.name))) == s or (
                bool(self.arrays) and self._array_of(s, self.arrays[0]) is not None)
        return isinstance(s, sp.Symbol) and any(k in self.known for k in _names(s.name))

    @staticmethod
    def _array_of(s, arrays: Mapping):
        """The array a point carries under a printed name (a matrix symbol of that shape, an indexed base), or
        None."""
        name = s.name if isinstance(s, sp.MatrixSymbol) else getattr(getattr(s, "label", s), "name", None)
        hit = next((arrays[n] for n in _names(str(name)) if n in arrays), None) if name is not None else None
        if hit is None or (isinstance(s, sp.MatrixSymbol) and tuple(s.shape) != hit.shape):
            return None
        return hit

    def bind(self, e: sp.Basic, k: int) -> sp.Basic:
        """A printed side with the arrays of point k put in (a step with numeric sides whose points carry vectors or
        matrices): a matrix symbol of the same name and shape is the point's matrix; an indexed base of the same name
        (beta_j) is the point's vector, its entries numbered from 1: a sum over j of an expression of beta_j runs
        over entries lo..hi of the printed bounds, an upper bound that is one symbol the last entry (sum_{j=1}^{P}
        f(beta_j) at beta = (b1, b2) is f(b1) + f(b2); sum_{j=2}^{P} is f(b2)); a bound that is an expression of
        symbols (sum_{k=l}^{L-1}) the point's value of it (`_bound_at`), none where the point lacks a symbol of it or
        where an enclosing sum binds it (sum_i sum_{j=1}^{i}); beta_k with a number k is entry k, and so is beta_l
        with a free index l the point carries as the integer k (an index a sum binds is the sum's)."""
        if not self.numeric:
            return e
        e = self.bind_functions(e, k)
        if k >= len(self.arrays) or not self.arrays[k]:
            return e
        here = self.pts[k] if k < len(getattr(self, "pts", ())) else {}       # the point's scalars by name
        bound = {lim[0] for x in e.atoms(sp.Sum, sp.Product) for lim in x.limits}
        arrays = self.arrays[k]
        mats = {m: self._array_of(m, arrays).matrix() for m in e.atoms(sp.MatrixSymbol)
                if self._array_of(m, arrays) is not None}
        if mats:
            e = e.xreplace(mats)
        bases = {b: self._array_of(b, arrays) for b in e.atoms(sp.IndexedBase)}
        bases = {b: v for b, v in bases.items() if v is not None}
        if not bases:
            return e

        def entry(b, i, first):
            if isinstance(i, tuple):                 # b_{ij} with a matrix b: row i, column j (numbered from 1)
                rows = tuple(tuple.__iter__(bases[b]))
                r, c = i[0] - first, i[1] - first
                return rows[r][c] if 0 <= r < len(rows) and 0 <= c < len(rows[0]) else None
            flat = list(bases[b])
            return flat[i - first] if 0 <= i - first < len(flat) else None

        def number(i):
            """An index as a number: an integer, or a free symbol the point gives an integer value, else None."""
            if i.is_Integer:
                return int(i)
            v = here.get(i.name) if isinstance(i, sp.Symbol) and i not in bound else None
            return int(v) if v is not None and float(v).is_integer() else None

        def index_of(ix):
            """An indexed entry's index: a number, or a pair of numbers for a matrix's entry, else None."""
            nums = [number(i) for i in ix.indices]
            if len(nums) in (1, 2) and all(n is not None for n in nums):
                return nums[0] if len(nums) == 1 else tuple(nums)
            return None

        def over(x: sp.Sum):
            if len(x.limits) > 1 and all(len(lim) == 3 for lim in x.limits):
                # sum_i sum_j f (SymPy keeps nested sums as one with two limits): the inner sum first, then the outer
                inner = over(sp.Sum(x.function, x.limits[0]))
                return x if isinstance(inner, sp.Sum) else over(sp.Sum(inner, *x.limits[1:]))
            if len(x.limits) != 1 or len(x.limits[0]) != 3:
                return x
            j, lo, hi = x.limits[0]
            used = [i for i in x.function.atoms(sp.Indexed) if i.base in bases and i.indices == (j,)]
            pair = [i for i in x.function.atoms(sp.Indexed) if i.base in bases and len(i.indices) == 2
                    and j in i.indices]               # a matrix's entry b_{ij} summed over one of its indices
            first = _bound_at(lo, here) if not (lo.free_symbols & bound) else None
            if not (used or pair) or first is None:
                return x
            n = len(list(bases[used[0].base])) if used else bases[pair[0].base].shape[pair[0].indices.index(j)]
            if hi.is_Integer:
                top = int(hi)
            elif not isinstance(hi, sp.Symbol):
                # sum_{k=l}^{L-1}: an expression of symbols is its value where the point has each of them
                top = _bound_at(hi, here) if not (hi.free_symbols & bound) else None
                if top is None:
                    return x
            elif hi in bound:
                return x                          # sum_{j=1}^{i} inside a sum over i: not the vector's length
            elif isinstance(hi, sp.Symbol):
                # sum_{j=a}^{P}: P is the point's P where it has one (a printed sum_{l=1}^{d} over a vector of L
                # entries reads entries 1..d, and none past the vector's end), else the vector's length
                at = here.get(hi.name)
                if at is not None and not float(at).is_integer():
                    return x
                top = int(at) if at is not None else n
            terms = []
            for i in range(first, top + 1):
                t = x.function.xreplace({j: sp.Integer(i)})
                rep = {ix: entry(ix.base, index_of(ix), 1) for ix in t.atoms(sp.Indexed) if ix.base in bases
                       and sp.Integer(i) in ix.indices and index_of(ix) is not None}
                if any(v is None for v in rep.values()):
                    return x
                terms.append(t.xreplace(rep))
            return sp.Add(*terms)

        e = e.replace(lambda x: isinstance(x, sp.Sum), over)
        rep = {ix: entry(ix.base, index_of(ix), 1) for ix in e.atoms(sp.Indexed) if ix.base in bases
               and index_of(ix) is not None}
        return e.xreplace({a: b for a, b in rep.items() if b is not None})

    def function_at(self, name: str, k: int):
        """The function a numeric step's point k gives a printed function name (names unify as symbols do), or None."""
        funcs = self.functions[k] if k < len(self.functions) else {}
        return next((funcs[n] for n in _names(name) if n in funcs), None)

    def bind_functions(self, e: sp.Basic, k: int) -> sp.Basic:
        """A printed side with the functions of point k put in (`_point_functions`): f(a) of a printed f of a
        function's name is its expression at a."""
        rep = {}
        for f in e.atoms(sp.core.function.AppliedUndef):
            fn = self.function_at(f.func.__name__, k)
            if fn is not None and len(f.args) == 1:
                rep[f] = fn[1].xreplace({fn[0]: f.args[0]})
        return e.xreplace(rep) if rep else e

    def has_meaning(self, f) -> bool:
        return (_normal(f.func.__name__) in self.stands or f.func.__name__ == _OPNORM
                or (len(f.args) == 1 and self.function_at(f.func.__name__, 0) is not None))

    def foreign_names(self) -> list[str]:
        return sorted({_tex(s) for n in self.nodes for s in n.free_symbols if not self.has_value(s)}
                      | {f.func.__name__ for n in self.nodes for f in n.atoms(sp.core.function.AppliedUndef)
                         if not self.has_meaning(f)})

    def possible(self, n) -> bool:
        """Whether every symbol and function of a printed side has a value at the points (at the first point, its
        arrays put in)."""
        n = self.bind(n, 0)
        return (all(self.has_value(s) for s in n.free_symbols)
                and all(self.has_meaning(f) for f in n.atoms(sp.core.function.AppliedUndef)))

    def _bind_defined_names(self) -> None:
        """A printed `t = F` whose left side is one bare symbol the step does not have, and whose F has exactly the
        step's symbols, against a step of SymPy sides stating an equality: t is the name the print gives to what the
        step computes (the step declares it states this display), so t takes the step's value at each point and F is
        compared with it, decisively (issue #35's probe: `t = \\tau/s` printed, `X = \\tau/(2s)` stated). A name
        with arguments, or F with other symbols, is left to `Step.binds`."""
        if self.step.relation != "==":
            return
        if self.numeric:                      # the symbols a numeric step's points give values to
            mine = {s for n in self.nodes for s in n.free_symbols if isinstance(s, sp.Symbol) and self.has_value(s)}
        else:
            mine = {s for side in (self.step.lhs, self.step.rhs) for s in sp.sympify(side).free_symbols
                    if isinstance(s, sp.Symbol)}
        if not mine:
            return
        found: set[int] = set()
        for a, b, op in self.edges:
            for k, m in ((a, b), (b, a)):
                n = self.nodes[k]
                if op != "==" or k in self.bound or not isinstance(n, sp.Symbol) or self.has_value(n):
                    continue
                if sum(k in e[:2] for e in self.edges) != 1:
                    continue                  # a name in a chain: which link defines it, the print does not say
                fm = self.nodes[m].free_symbols
                if (fm <= mine if self.numeric else fm == mine) and fm and self.possible(self.nodes[m]):
                    found.add(k)
        if len(found) == 1:                   # m = ..., theta = ...: which one the step states, the print does not say
            k = found.pop()
            self.bound[k] = 0
            self.implied.add(k)
