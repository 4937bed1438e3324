"""A label's status from its citing steps' comparisons (LABEL_STATUSES, `_label_status`): the rules a
match must meet (every as-printed step, own links only, cases reached, no whole rewrite)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import sympy as sp

from .._sources.sources import NotationMap, ParseFailure, Printed
from .links import _collected, _graph, _link_key, _short
from .comparison import Comparison
from .chains import _lead_side


LABEL_STATUSES = ("matches the print", "partly compared", "differs from the print", "differs, not decisive",
                  "rewritten whole", "not parsed", "not compared", "not cited")
COUNTED = ("matches the print", "partly compared", "differs from the print")   # machine-compared


@dataclass(frozen=True)
class LabelComparison:
    """A label's machine comparison: its status (LABEL_STATUSES), why, the printed text and parsed relations, and
    one Comparison per citing step."""

    label: str
    kind: str
    status: str
    reason: str
    printed: str = ""
    relations: str = ""
    comparisons: tuple[Comparison, ...] = ()

    @property
    def compared(self) -> bool:
        return self.status in COUNTED

    @property
    def parsed(self) -> bool:
        return self.kind == "display" and self.status != "not parsed" and not self.reason.startswith("not parsed")

    def to_json(self) -> dict:
        return {"label": self.label, "kind": self.kind, "status": self.status, "reason": self.reason,
                "compared": self.compared, "printed": self.printed, "relations": self.relations,
                "steps": [c.to_json() for c in self.comparisons]}


def _own_links(p: Printed, comps: Sequence[Comparison]) -> list[str]:
    """The printed links a label's comparison must cover: its own relations' links (a continuation display's own
    link, not the links of the displays before it in its chain). A continuation's own link as the printed chain
    reads it: the chain's link that ends at the display's own printed side (its left side is the display before it,
    parsed as part of the chain, so its key can differ from the display's parse alone). Never a link of another
    display: a link of its own that no comparison reads stays required (and uncovered)."""
    every = list(dict.fromkeys(k for c in comps for k in c.all_links))
    if isinstance(p.relations, ParseFailure) or not p.relations:
        return every
    nodes, edges = _graph(p.relations)
    own = list(dict.fromkeys(_link_key(nodes[a], op, nodes[b]) for a, b, op in edges))
    lead = _lead_side(p)
    out = []
    for key, (a, b, op) in zip(own, edges):
        if key in every:
            out.append(key)
            continue
        mine = [nodes[k] for k in (a, b) if lead is None or nodes[k] != lead]
        ends = {sp.sstr(_collected(n)) for n in mine}
        found = [k for k in every if any(k.startswith(e + " ") or k.endswith(" " + e) for e in ends)] \
            if lead is not None and len(mine) == 1 else []
        out.append(found[0] if len(found) == 1 else key)
    return list(dict.fromkeys(out))


_REL_TEX = re.compile(r"(?::=|\\coloneqq|\\triangleq|\\equiv|\\approx|\\propto|\\leq?(?![A-Za-z])|\\geq?(?![A-Za-z])|"
                      r"(?<![<>])=|<|>)")
_SEP_TEX = re.compile(r"\\q?quad(?![A-Za-z])|;|\\text\s*\{\s*and\s*\}|\\implies")
_NAME_TEX = re.compile(r"(?:\\(?:dot|ddot|tilde|hat|bar|mathcal|mathbb|boldsymbol|mathbf|bm|vec|widehat|widetilde|"
                       r"overline)\s*\{?\s*)*\\?[A-Za-z]+\s*\}*(?:\s*[_^]\s*(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}|"
                       r"[A-Za-z0-9]))*\s*(?:\([^()]*\))?")


def _top_pieces(text: str, rx: re.Pattern) -> list[str]:
    """text cut at the matches of rx outside braces, brackets and parentheses."""
    depth, at, out, last = 0, [], [], 0
    for ch in text:
        at.append(depth)
        depth += ch in "{([" 
        depth -= ch in "})]"
    for m in rx.finditer(text):
        if at[m.start()] == 0:
            out.append(text[last:m.start()])
            last = m.end()
    return out + [text[last:]]


def rewritten_whole(text: str, notation: NotationMap | None) -> str:
    """The printed side of a display that a rewrite of the notation map replaces whole, where that side carries
    printed mathematics (not one name, which a map may rename: R(w | w_0, gamma) -> R), as "side -> replacement";
    '' where none does. Such a side is never compared with the step: a slip in it stops the rewrite's key from
    matching, which only ever demotes the label, so the display has its own status ("rewritten whole", issue #35)."""
    if notation is None or not notation.rewrites:
        return ""
    compiled = notation.compiled()
    for statement in _top_pieces(text, _SEP_TEX):
        for side in _top_pieces(statement, _REL_TEX):
            side = side.replace("&", " ").replace("\\\\", " ").strip().rstrip(".,").strip()
            if not side or _NAME_TEX.fullmatch(side):
                continue
            cur = side
            for rx, rep in compiled:
                m = rx.fullmatch(cur.strip())
                if m:
                    return f"{_short(side, 60)} -> {_short(rep(m), 60)}"
                cur = rx.sub(rep, cur)
    return ""


def _label_status(p: Printed, comps: Sequence[Comparison], notation: NotationMap | None = None) -> tuple[str, str]:
    """A label's status from its citing steps' comparisons: "matches the print" where the matching steps together
    compare every printed link of the label; "partly compared" where they compare some, one of them carrying printed
    mathematics (a link name = name, W_t = W_0, does not count: "not compared"); "differs from the print" for a
    decisive difference; "differs, not decisive" where a step states another relation than the print but no sampled
    point tells them apart decisively (never counted as machine-compared); else "not compared" or "not parsed"."""
    if isinstance(p.relations, ParseFailure):
        return "not parsed", str(p.relations)
    if p.kind != "display":
        return "not compared", "a numbered statement (prose): never parsed"
    if not comps:
        return "not cited", "no step cites it"
    whole = rewritten_whole(p.text, notation)
    if whole:
        return "rewritten whole", (f"the notation map replaces a printed side whole ({whole}): that side is never "
                                   f"compared with a step, and a slip in it would only stop the rewrite applying; "
                                   f"not counted as machine-compared")
    drafts = [c for c in comps if c.fidelity == "draft"]
    comps = [c for c in comps if c.fidelity != "draft"]
    if not comps:
        return "not compared", (f"only drafts cite it (a draft is the print's own parse: it matches by construction, "
                                f"never evidence): {drafts[0].step!r}")
    printed = [c for c in comps if c.fidelity == "as printed"]
    # a label matches only when every citing "as printed" step matches its part: one that decisively differs makes
    # the label differ (a wrong case of a two-case display, each case a step), one that states another relation
    # keeps it from matching
    hit = next((c for c in printed if c.verdict == "differs"), None)
    if hit is not None:
        return "differs from the print", f"step {hit.step!r}: {hit.how}"
    off = next((c for c in printed if c.verdict == "differs, not decisive"), None)
    hits = [c for c in comps if c.verdict == "matches"]
    if off is not None and hits:
        return "differs, not decisive", (f"step {off.step!r}, declared as printed, states another relation than the "
                                         f"print (every citing 'as printed' step must match its part; step "
                                         f"{hits[0].step!r} matches): {off.how}")
    if hits:
        unreached = _unreached_cases(hits)
        if unreached:
            return "not compared", (f"a printed case no matching step's points reach (a slip there would still "
                                    f"match): {unreached}; step {hits[0].step!r}: {hits[0].how}")[:400]
        required = _own_links(p, comps)
        covered = [k for k in required if any(k in c.links for c in hits)]
        first = hits[0]
        if not required or len(covered) == len(required):
            return "matches the print", f"step {first.step!r}: {first.how}"
        meaty = [c for c in hits if any(k in c.substantive for k in c.links if k in required)]
        missing = "; ".join(k for k in required if k not in covered)
        part = f"{len(covered)} of {len(required)} links"
        if meaty:
            return "partly compared", (f"partly compared ({part}): step {meaty[0].step!r}: {meaty[0].how}; not "
                                       f"compared: {missing}")
        return "not compared", (f"partly compared ({part}), only links between names or constants: step "
                                f"{first.step!r}: {first.how}; not compared: {missing}")[:400]
    hit = next((c for c in comps if c.verdict == "differs"), None)
    if hit is not None:
        return "differs from the print", f"step {hit.step!r}: {hit.how}"
    hit = next((c for c in comps if c.verdict == "differs, not decisive"), None)
    if hit is not None:
        return "differs, not decisive", f"step {hit.step!r}: {hit.how}"
    reasons = list(dict.fromkeys(c.how for c in comps))
    return "not compared", "; ".join(reasons)[:400]


def _unreached_cases(hits: Sequence[Comparison]) -> str:
    """The branches of the printed case distinctions the matching steps' points together never reach, as text ('' where
    they reach every one)."""
    seen: dict[str, tuple[int, set]] = {}
    text: dict[str, str] = {}
    for c in hits:
        for item in c.cases:
            key, n, got = item.rsplit("#", 2)
            key = key.split("|", 1)[0]
            text[key] = item.split("|", 1)[-1].rsplit("#", 2)[0]
            total, reached = seen.setdefault(key, (int(n), set()))
            reached.update(x for x in got.split(",") if x)
    missing = [f"{len(reached)} of {total} cases of {text[key]}" for key, (total, reached) in seen.items()
               if len(reached) < total]
    return "; ".join(missing)
