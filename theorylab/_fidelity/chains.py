"""Printed chains across displays: a continuation display ("= c" after "a = b") parsed with the
displays before it, and the sides an erratum says are misprinted, skipped in a chain."""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, Sequence

import sympy as sp

from .._sources import sources
from .._sources.sources import NotationMap, ParseFailure, Printed
from .thresholds import _SYMMETRIC
from .parses import PARSES
from .links import _FLIP, _compose, _graph


_OPENS_WITH_RELATION = re.compile(r"\s*(?:=|\\le(?![A-Za-z])|\\ge(?![A-Za-z])|\\leq|\\geq|\\approx|\\propto|<|>|&|[+\-])")


def _chain_text(p: Printed, items: Sequence[Printed]) -> tuple[str, str] | None:
    """The LaTeX of the printed chain a continuation display belongs to ("= c" after "a = b", "- d" after
    "a = b + c"): (the displays before it and its own, joined; the lead of the first), or None where the display opens
    no continuation."""
    if not p.lead or not _OPENS_WITH_RELATION.match(p.text):
        return None
    by_text = {" ".join(q.text.split()): q for q in items if q.kind == "display" and q.text}
    chain, lead = p.text, p.lead
    for _ in range(8):
        if not lead or not _OPENS_WITH_RELATION.match(chain):
            break
        chain = lead + " " + chain
        prev = by_text.get(" ".join(lead.split()))
        lead = prev.lead if prev is not None else ""
    return chain, lead


def _chain(p: Printed, items: Sequence[Printed], notation: NotationMap | None):
    """The printed chain a continuation display belongs to (`_chain_text`) parsed as one (so a = b = c composes to
    a = c); None where the display opens no continuation or the chain does not parse."""
    found = _chain_text(p, items)
    if found is None:
        return None
    out = PARSES.parse(found[0], notation, lead=found[1])
    return None if isinstance(out, ParseFailure) else out


_LABEL_REF = re.compile(r"\((\d+[a-z]?)\)")


def _misprinted_labels(derivations: Iterable) -> dict[str, str]:
    """label -> erratum key: the displays the errata of the derivations' steps say are misprinted: a typo (severity
    "typo": the printed text is not what the paper means; a wrong value or a false statement is the paper's claim, and
    its chain is the paper's), at the labels its `where` names ("eq (29)"; where it names none, the labels its step
    cites). A withdrawn erratum names none."""
    out: dict[str, str] = {}
    for d in derivations:
        for s in d.steps:
            e = getattr(s, "erratum", None)
            if e is None or getattr(e, "withdrawn", "") or getattr(e, "severity", "") != "typo":
                continue
            for label in [f"({m})" for m in _LABEL_REF.findall(e.where or "")] or list(s.cites):
                out.setdefault(label, e.key)
    return out


def _misprinted_sides(q: Printed, items: Sequence[Printed] = ()) -> tuple:
    """The printed sides a misprinted continuation display ("= b" after "a = ...", (29)) states: the sides of its
    own relations but the left side it takes from the display before it, and but any side another display prints too.
    A display that prints both sides of its relation (a = b) names none: the erratum does not say which side is
    misprinted."""
    rel = q.relations
    lead = _lead_side(q)
    if lead is None:
        return ()
    elsewhere = {n for o in items if o is not q and o.kind == "display" and o.relations
                 and not isinstance(o.relations, ParseFailure) for n in _graph(o.relations)[0] if n != _lead_side(o)}
    return tuple(n for n in _graph(rel)[0] if (lead is None or n != lead) and n not in elsewhere)


def _lead_side(q: Printed):
    """The left side a continuation display ("= b" after "a = ...") takes from the display before it, or None."""
    rel = q.relations
    if isinstance(rel, ParseFailure) or not rel or not isinstance(rel[0], sp.core.relational.Relational):
        return None
    return rel[0].lhs if q.lead and _OPENS_WITH_RELATION.match(q.text) else None


def _skip_misprinted(relations: Any, misprinted: Mapping[str, tuple]) -> tuple[Any, list[str]]:
    """A printed chain with the sides of misprinted displays (erratum key -> sides) skipped: each relation through a
    misprinted side b (a = b, b <= c) is replaced by the composition a <= c, so the chain composes around the misprint
    and its links are never compared; (relations, the erratum keys skipped)."""
    if isinstance(relations, ParseFailure) or not relations or not misprinted:
        return relations, []
    rels = list(relations)
    skipped = []
    for key, sides in misprinted.items():
        for b in sides:
            touching = [r for r in rels if isinstance(r, sp.core.relational.Relational) and b in (r.lhs, r.rhs)]
            if not touching:
                continue
            skipped.append(key)
            into, out_of = [], []                 # (a, op): a op b;  (c, op): b op c
            for r in touching:
                op = r.rel_op
                lhs, rhs = (r.rhs, r.lhs) if op in (">=", ">") else (r.lhs, r.rhs)
                op = _FLIP.get(op, op) if op in (">=", ">") else op
                if rhs == b:
                    into.append((lhs, op))
                    if op in _SYMMETRIC:
                        out_of.append((lhs, op))
                if lhs == b:
                    out_of.append((rhs, op))
                    if op in _SYMMETRIC:
                        into.append((rhs, op))
            rels = [r for r in rels if r not in touching]
            for a, op1 in into:
                for c, op2 in out_of:
                    op = _compose(op1, op2)
                    if op is not None and a != c and a != b and c != b:
                        new = sources.relation(a, c, op)
                        if not any(isinstance(r, sp.core.relational.Relational) and r.rel_op == op and
                                   {r.lhs, r.rhs} == {a, c} for r in rels):
                            rels.append(new)
    return tuple(rels), list(dict.fromkeys(skipped))
