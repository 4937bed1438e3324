"""Comparing one citing step with a label's printed relations (`compare_step`): the relation it is
decided as, the names it binds, the cached comparison, the CPU budget and the printed cases."""
from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

import sympy as sp

from .._shared import with_timeout, write_json
from .._sources.sources import NotationMap, ParseFailure
from .thresholds import COMPARE_CACHE_VERSION, POINTS
from .parses import PARSES, _code_of, _freeze
from .names import _domain, _names, _normal
from .values import _Timeout, _scalar
from .links import _FLIP, _graph, _link_key, relations_latex
from .comparison import Comparison, _fidelity_text, _stated
from .comparer import _Comparer


def _comparison_key(label: str, relations: Any, step, derivation: str, points: int,
                    misprinted: Sequence = (), bound: Sequence = ()) -> str | None:
    """A content hash of a comparison of a step made of SymPy expressions (None for numeric sides: their routines'
    code is not part of the key): the printed relations, the step's sides, relation, stated tolerance, domain and
    fidelity, the sample size, and the code of the comparison's modules (`_own_code`)."""
    if step.numeric or relations is None or isinstance(relations, ParseFailure):
        return None
    try:
        parts = [COMPARE_CACHE_VERSION, _own_code(), sp.__version__, label, derivation, step.label, _fidelity_text(step),
                 sp.srepr(sp.sympify(step.lhs)), sp.srepr(sp.sympify(step.rhs)), step.relation,
                 repr((step.tol, step.rtol)),
                 repr(sorted((sp.srepr(k), repr(v)) for k, v in _domain(step).items())), str(points),
                 repr([(x[0], sp.srepr(x[1]), sp.srepr(x[2])) if x[0] != "expr" else (x[0], sp.srepr(x[1]))
                       for x in _freeze(relations)]), repr(sorted(sp.srepr(m) for m in misprinted)),
                 repr([(sp.srepr(e), v if isinstance(v, str) else sp.srepr(sp.sympify(v))) for e, v in bound])]
    except Exception:  # noqa: BLE001 - a side SymPy cannot write down: not cached
        return None
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def _own_code() -> str:
    """The code of every module of the comparison (this package's, as the one module fidelity.py was before the
    split): a change to any of them is a new key."""
    return " ".join(_code_of(str(f)) for f in sorted(Path(__file__).parent.glob("*.py")))


def _cached_comparison(key: str | None) -> Comparison | None:
    if key is None or not PARSES.on:
        return None

    try:
        with open(os.path.join(PARSES.dir, "compared", key[:2], key + ".json")) as fh:
            row = json.load(fh)
        return Comparison(**{k: tuple(v) if isinstance(v, list) else v for k, v in row.items()})
    except (OSError, ValueError, TypeError):
        return None


def _store_comparison(key: str | None, c: Comparison) -> None:
    if key is None or not PARSES.on:
        return
    try:
        write_json(os.path.join(PARSES.dir, "compared", key[:2], key + ".json"),
                   {k: getattr(c, k) for k in c.__dataclass_fields__}, indent=None)
    except (OSError, TypeError, ValueError):
        pass                                                 # the cache is a convenience


def _bindings(step, notation: NotationMap | None) -> tuple:
    """(printed expression, "lhs" | "rhs" | SymPy expression) for each printed name a step binds (`Step.binds`:
    printed LaTeX -> what the step computes), the name parsed as the print is (with the paper's notation). A name that
    does not parse to one expression is a ValueError naming it."""
    out = []
    for key, value in dict(getattr(step, "binds", None) or {}).items():
        parsed = PARSES.parse(str(key), notation)
        if isinstance(parsed, ParseFailure) or len(parsed) != 1 or isinstance(parsed[0], sp.core.relational.Relational):
            raise ValueError(f"binds: the printed name {key!r} does not parse to one expression ({parsed})")
        out.append((parsed[0], value))
    return tuple(out)


class _Decided:
    """A step read as the plain relation its relation kind is decided as (lhs ∝ rhs with constant c: lhs = c rhs):
    every other attribute is the step's own."""

    def __init__(self, step, lhs, relation, rhs):
        self._step, self.lhs, self.relation, self.rhs = step, lhs, relation, rhs

    def __getattr__(self, name):
        return getattr(self._step, name)


def _as_decided(step):
    """The step as `_Decided` where its relation is ∝ (the constant brought into the right side), else None."""
    if type(step.relation).__name__ != "Proportional" or step.numeric:
        return None
    lhs, rel, rhs = step.relation.decided_as(step.lhs, step.rhs)
    return _Decided(step, lhs, rel, rhs)


def compare_step(label: str, relations: Any, step, *, derivation: str = "", points: int = POINTS,
                 budget_s: float = 10.0, misprinted: Sequence = (), notation: NotationMap | None = None) -> Comparison:
    """Compare a step with the relations printed at `label` (a tuple from sources.parse_display, a ParseFailure, or
    None for a numbered statement). A comparison of a step made of SymPy expressions is cached on disk beside the
    parses (keyed by its content and the comparison's code), one that ran out of its budget too (it would again).
    The names the step binds (`Step.binds`: printed LaTeX -> "lhs", "rhs" or a SymPy expression) are parsed with
    `notation` (the paper's). A step stating lhs ∝ rhs with its constant c is compared as lhs = c rhs (the
    relation it is decided as): a printed `\\propto` between its sides then holds by its constant ratio."""
    if getattr(step.relation, "symbol", step.relation) not in _FLIP:
        plain = _as_decided(step)
        if plain is None:
            return Comparison(label=label, derivation=derivation, step=step.label, fidelity=_fidelity_text(step),
                              verdict="not compared", how=f"the step states {type(step.relation).__name__}, which "
                              "the comparison with the print does not read yet", stated=_stated(step))
        step = plain
    try:
        bound = _bindings(step, notation)
    except ValueError as exc:
        return Comparison(label=label, derivation=derivation, step=step.label, fidelity=_fidelity_text(step),
                          verdict="not compared", how=str(exc)[:200], stated=_stated(step))
    key = _comparison_key(label, relations, step, derivation, points, misprinted, bound)
    hit = _cached_comparison(key)
    if hit is not None:
        return hit
    try:
        out = _compare_step(label, relations, step, derivation=derivation, points=points, budget_s=budget_s,
                            misprinted=misprinted, bound=bound)
    except Exception as exc:  # noqa: BLE001 - a comparison that crashes is reported, never a crash of check
        return Comparison(label=label, derivation=derivation, step=step.label, fidelity=_fidelity_text(step),
                          verdict="not compared", how=f"the comparison failed: {type(exc).__name__}: {exc}"[:200],
                          printed=relations_latex(relations) if not isinstance(relations, ParseFailure) else "",
                          stated=_stated(step))
    _store_comparison(key, out)
    return out


def _compare_step(label: str, relations: Any, step, *, derivation: str, points: int, budget_s: float,
                  misprinted: Sequence = (), bound: Sequence = ()) -> Comparison:
    base = dict(label=label, derivation=derivation, step=step.label, fidelity=_fidelity_text(step),
                stated=_stated(step))
    if relations is None:
        return Comparison(**base, verdict="not compared", how="a numbered statement (prose): never parsed")
    if isinstance(relations, ParseFailure):
        return Comparison(**base, verdict="not parsed", how=str(relations), printed="")
    printed = relations_latex(relations)
    base["printed"] = printed
    nodes, edges = _graph(relations)
    if not edges:
        return Comparison(**base, verdict="not compared", how="the display states no relation (an expression only)")
    base["all_links"] = tuple(_link_key(nodes[a], op, nodes[b]) for a, b, op in edges)
    try:
        # CPU time, not wall time: a loaded machine must not turn a comparison into "took too long" (it did: a
        # clean-clone test run under load saw adaptive-tangent (8) partly compared, matched when idle)
        return with_timeout(lambda: _compare_cases(base, nodes, edges, step, points, misprinted, bound), budget_s,
                            clock="cpu", error=_Timeout)
    except _Timeout:
        return Comparison(**base, verdict="not compared", how=f"evaluating the sides took over {budget_s:g} s")


def _compare_cases(base: dict, nodes: list, edges: list, step, points: int, misprinted: Sequence = (),
                   bound: Sequence = ()) -> Comparison:
    """_compare; for a step with numeric sides that differs at its first search points, which carry a parameter the
    print does not have (k = 2 for I_1, 1 for I_2 of one step citing both), also at its first two points of each other
    value of that parameter (at most three values among its first eight points): it may cover the printed case
    there."""
    first = _compare(base, nodes, edges, step, points, misprinted=misprinted, bound=bound)
    if not first.verdict.startswith("differs") or not step.numeric or (step.erratum is not None and step.erratum.at is not None):
        return first

    try:
        # the points themselves: a copy by dict() would drop what a point declares beside its values (state_values,
        # function_of), and with it the circular rule and the point's functions
        raw = list(itertools.islice(step.search(), 8))
    except Exception:  # noqa: BLE001 - no further points: the first comparison stands
        return first
    printed = {k for n in nodes for s in n.free_symbols if isinstance(s, sp.Symbol) for k in _names(s.name)}
    extra = sorted({getattr(k, "name", str(k)) for p in raw for k, v in p.items()
                    if _scalar(v) is not None and not {_normal(getattr(k, "name", str(k))),
                                                       _normal(getattr(k, "name", str(k))).replace("_", "")} & printed})
    if not extra:
        return first
    groups: dict[tuple, list] = {}
    for p in raw:
        by = {getattr(k, "name", str(k)): v for k, v in p.items()}
        groups.setdefault(tuple(by.get(k) for k in extra), []).append(p)
    if not 2 <= len(groups) <= 3:
        return first
    for key, pts in groups.items():
        if len(pts) < 2 or pts[:2] == raw[:2]:
            continue
        c = _compare(base, nodes, edges, step, points, raw=pts[:2], misprinted=misprinted, bound=bound)
        if c.verdict == "matches":
            case = ", ".join(f"{k} = {v}" for k, v in zip(extra, key))
            return replace(c, how=f"{c.how}; at its points with {case} (the step covers more than this printed case; "
                                  f"at its first points it differs)")
    return first


def _compare(base: dict, nodes: list, edges: list, step, points: int, raw: list | None = None,
             misprinted: Sequence = (), bound: Sequence = ()) -> Comparison:
    """One step against the printed graph (nodes, edges): `_Comparer` in its named parts. misprinted: printed sides an
    erratum of the paper says are misprinted (never a name the step computes)."""
    return _Comparer(base, nodes, edges, step, points, raw, misprinted, bound).run()
