"""The printed relations as a graph: nodes (sides) and links, their compositions and paths, link keys,
which sides are names or trivial, and the LaTeX and number formats the verdicts show."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import sympy as sp

from .._shared import fmt
from .._sources.sources import ParseFailure
from .thresholds import RELATION_TEX, _SYMMETRIC
from .names import _normal
from .values import _Arr


# -- the printed relations as a graph: links and their compositions --------------------------------------------------

_FLIP = {">=": "<=", ">": "<", "<=": ">=", "<": ">", "==": "=="}


def _graph(relations: Sequence) -> tuple[list, list[tuple[int, int, str]]]:
    """Nodes (the printed sides, once each) and edges (i, j, op), op in ==, <=, <, approx, propto (a >= b is b <= a);
    a chain a = b <= c shares its middle node, so paths compose it."""
    nodes: list = []
    edges: list[tuple[int, int, str]] = []

    def node(e) -> int:
        for k, n in enumerate(nodes):
            if n == e:
                return k
        nodes.append(e)
        return len(nodes) - 1

    for r in relations:
        if not isinstance(r, sp.core.relational.Relational) or r.rel_op == "!=":
            continue
        a, b, op = node(r.lhs), node(r.rhs), r.rel_op
        if op in (">=", ">"):
            a, b, op = b, a, _FLIP[op]
        edges.append((a, b, op))
    return nodes, edges


def _compose(a: str, b: str) -> str | None:
    """The relation a chain x a y b z states between x and z: = keeps the other; two approximations (or two
    proportionalities) compose to one; an approximation or proportionality with an order, or with each other,
    composes to nothing (None: no printed relation between x and z)."""
    if a == "==":
        return b
    if b == "==":
        return a
    if a == b and a in ("approx", "propto"):
        return a
    if a in ("approx", "propto") or b in ("approx", "propto"):
        return None
    return "<" if "<" in (a, b) else "<="


def _paths(edges: Sequence[tuple[int, int, str]]) -> set[tuple[int, int, str]]:
    """Every (i, j, op) such that the printed relations state nodes[i] op nodes[j], alone or composed (i != j):
    ==, approx and propto edges both ways, <= and < edges forwards."""
    adj: dict[int, list[tuple[int, str]]] = {}
    for a, b, op in edges:
        adj.setdefault(a, []).append((b, op))
        if op in _SYMMETRIC:
            adj.setdefault(b, []).append((a, op))
    out = set()
    for start in list(adj):
        seen = set()
        todo = [(start, None)]
        while todo:
            k, op = todo.pop()
            for nxt, e in adj.get(k, ()):
                comp = e if op is None else _compose(op, e)
                if comp is None or (nxt, comp) in seen:
                    continue
                seen.add((nxt, comp))
                if nxt != start:
                    out.add((start, nxt, comp))
                todo.append((nxt, comp))
    return out


def _path_links(edges: Sequence[tuple[int, int, str]], i: int, j: int, op: str) -> tuple[int, ...]:
    """The indexes of the printed links (edges) along one path that states nodes[i] op nodes[j] (`_paths`), fewest
    first; () where none does."""
    adj: dict[int, list[tuple[int, str, int]]] = {}
    for k, (a, b, e) in enumerate(edges):
        adj.setdefault(a, []).append((b, e, k))
        if e in _SYMMETRIC:
            adj.setdefault(b, []).append((a, e, k))
    todo = [(i, None, ())]
    seen = set()
    while todo:
        nxt_todo = []
        for node, comp, used in todo:
            for nxt, e, k in adj.get(node, ()):
                if k in used:
                    continue
                c = e if comp is None else _compose(comp, e)
                if c is None:
                    continue
                path = used + (k,)
                if nxt == j and c == op:
                    return path
                if (nxt, c) not in seen:
                    seen.add((nxt, c))
                    nxt_todo.append((nxt, c, path))
        todo = nxt_todo
    return ()


def _collected(e: sp.Basic) -> sp.Basic:
    """A matrix side with its products carried out (explicit matrices) or its scalar factors collected
    (MatrixSymbols); any other side as it is."""
    if isinstance(e, (sp.MatrixExpr, sp.MatrixBase)) or (isinstance(e, sp.Basic) and e.has(sp.MatrixExpr)):
        try:
            return e.doit()
        except Exception:  # noqa: BLE001 - SymPy cannot carry it out: the side as it is
            return e
    return e


def _link_key(a: sp.Basic, op: str, b: sp.Basic) -> str:
    """A printed link as text that does not depend on the symbols' assumptions, on its orientation (a = b is
    b = a) or on how its matrix products were built: a parse and its shipped copy can hold (s - 1) * c * M and
    c * (s - 1) * M, so the scalars of a matrix side are collected first (a cached comparison's links would miss the
    label's otherwise: adaptive-tangent (8) read "partly compared" after another test's parse)."""
    x, y = sp.sstr(_collected(a)), sp.sstr(_collected(b))
    if op in _SYMMETRIC and y < x:
        x, y = y, x
    return f"{x} {op} {y}"


def _expectation(e: sp.Basic) -> bool:
    r"""Whether a printed factor is an expectation operator as parsed (\mathbb{E}_{X,\epsilon}, E_z)."""
    if isinstance(e, sp.Indexed):                        # \mathbb{E}_{X,\epsilon} read as E indexed by X, epsilon
        e = e.base.label
    name = _normal(getattr(e, "name", "")) if isinstance(e, sp.Symbol) else ""
    return name.startswith(("mathbbE", "E_")) or name in ("E", "mathbbE")


def _atomic(e: sp.Basic) -> bool:
    """Whether a printed side is a name (what a step may compute under a name the step does not have): a symbol, an
    indexed symbol, an undefined function of names (q(z), f_w(x), a norm of a gradient), a Derivative, Subs or Limit
    of a name, or an expectation of a name (E_D R, parsed as the product of the operator and the name). Never a
    compound expression (a sum, a product of names, a power, a known function of something) and never a function
    applied to a compound argument (p(p - 1) and alpha(...) read as applications)."""
    if isinstance(e, (sp.Symbol, sp.Indexed, sp.IndexedBase, sp.MatrixSymbol)):
        return True
    if isinstance(e, sp.core.function.AppliedUndef):
        return all(_atomic(a) or a.is_number for a in e.args)
    if isinstance(e, (sp.Derivative, sp.Subs, sp.Limit)):
        return _atomic(e.args[0])
    if isinstance(e, sp.Pow) and isinstance(e.base, sp.Symbol) and isinstance(e.exp, sp.Symbol):
        return True                                      # a superscript label read as a power (R_lt^lambda)
    if isinstance(e, sp.Mul) and len(e.args) == 2 and any(_expectation(f) for f in e.args):
        return all(_atomic(f) for f in e.args)
    return False


def _trivial(e: sp.Basic) -> bool:
    """Whether a printed side is a constant or a single symbol with a constant factor (0, 2, 4v): agreeing with it
    alone says little about the printed relation."""
    if e.is_number or isinstance(e, sp.Symbol):
        return True
    if isinstance(e, sp.Mul):
        syms = [f for f in e.args if not f.is_number]
        return len(syms) == 1 and isinstance(syms[0], sp.Symbol)
    return False


def _substantive(nodes: Sequence, edge: tuple[int, int, str]) -> bool:
    """Whether a printed link carries printed mathematics: not a name or a constant on both sides (W_t = W_0)."""
    a, b, _ = edge
    return not all(_atomic(nodes[k]) or _trivial(nodes[k]) for k in (a, b))


def _tex(x: Any) -> str:
    try:
        return sp.latex(x)
    except Exception:  # noqa: BLE001 - a name SymPy's printer cannot print: its string form
        return sp.sstr(x)


def relations_latex(relations: Any) -> str:
    """The parsed relations as LaTeX, ';'-separated (a ParseFailure as its one line)."""
    if isinstance(relations, ParseFailure) or relations is None:
        return str(relations or "")
    return "; ".join(f"{_tex(r.lhs)} {RELATION_TEX[r.rel_op]} {_tex(r.rhs)}"
                     if isinstance(r, sp.core.relational.Relational) else _tex(r) for r in relations)


def _fmt(v) -> str:
    if isinstance(v, _Arr):
        return f"{v.shape[0]}x{v.shape[1]} [" + ", ".join(_fmt(x) for x in v.entries[:4]) + (
            ", …]" if len(v.entries) > 4 else "]")
    if isinstance(v, sp.MatrixBase):
        return f"{v.shape[0]}x{v.shape[1]} matrix"
    try:
        v = float(v)                     # a SymPy or mpmath number, as a float
    except (TypeError, ValueError):
        pass
    return fmt(v, 10)


def _fmt_point(pt: Mapping) -> str:
    return ", ".join(f"{getattr(k, 'name', k)}={_fmt(v)}" for k, v in pt.items())


def _short(text: str, n: int = 150) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 1] + "…"
