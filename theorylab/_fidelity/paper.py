"""Per paper: its notation and parsed printout, every label against the steps citing it
(`compare_paper`), the shares report and the fidelity section of `theorylab check`."""
from __future__ import annotations

import importlib
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from .._sources import sources
from .._sources.sources import NotationMap, ParseFailure, Printed
from .._pipeline import catalogue
from .parses import PARSES, parsed_printout
from .links import _short, relations_latex
from .comparison import Comparison, _fidelity_text, _stated
from .compare import compare_step
from .chains import _chain, _misprinted_labels, _misprinted_sides, _skip_misprinted
from .status import LabelComparison, _label_status


def notation_of(paper) -> NotationMap | None:
    """The paper's NotationMap: `Paper.notation` as given, or imported from its "module:ATTR" reference."""
    n = getattr(paper, "notation", None)
    if n is None or isinstance(n, NotationMap):
        return n

    module, _, attr = str(n).partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, attr or "NOTATION")


def printout_of(paper) -> list[Printed] | None:
    """The paper's labelled displays and statements, displays parsed with its notation (cached); None without a
    source file."""
    found = catalogue.printed_labels(paper)
    if found is None:
        return None
    PARSES.ship(sources.shipped_path(catalogue.source_path(paper)))
    return parsed_printout(found, notation_of(paper))


def compare_paper(paper, derivations: Iterable, *, printout: Sequence[Printed] | None = None,
                  numeric: bool = True) -> dict[str, LabelComparison]:
    """Each label of the paper's source (in order) against the steps of `derivations` that cite it. numeric=False
    skips the steps with numeric sides (their routines are not called): reported as not compared."""
    items = printout if printout is not None else printout_of(paper)
    if items is None:
        return {}
    context = _PaperContext.of(paper, derivations, items)
    return {p.label: context.compare(p, numeric=numeric) for p in items}


@dataclass(frozen=True)
class _PaperContext:
    """What comparing one label needs of its paper: its printed items, notation map, the steps citing each label and
    the sides its errata say are misprinted (a chain's link through one of those is skipped)."""
    items: Sequence[Printed]
    notation: Any
    citing: Mapping[str, list]
    errata: Mapping[str, str]
    sides: Mapping[str, tuple]

    @classmethod
    def of(cls, paper, derivations: Iterable, items: Sequence[Printed]) -> "_PaperContext":
        derivations = list(derivations)
        citing: dict[str, list] = {}
        for d in derivations:
            for s in d.steps:
                for label in s.cites:
                    citing.setdefault(label, []).append((d, s))
        errata = _misprinted_labels(derivations)
        sides = {q.label: _misprinted_sides(q, items) for q in items if q.label in errata and q.kind == "display"}
        return cls(items=items, notation=notation_of(paper), citing=citing, errata=errata, sides=sides)

    def compare(self, p: Printed, *, numeric: bool = True) -> LabelComparison:
        """The printed item p (one of `items`, or a planted copy of one) against the steps that cite its label."""
        comps = []
        chain: Any = False
        for d, s in self.citing.get(p.label, ()):
            misprinted: tuple = ()
            if p.kind != "display":
                rel = None
            elif isinstance(p.relations, ParseFailure):
                rel = p.relations
            else:
                if chain is False:
                    chain = _chain(p, self.items, self.notation)
                rel = chain or p.relations
                others = {self.errata[k]: v for k, v in self.sides.items() if k != p.label and v}
                misprinted = tuple(m for v in self.sides.values() for m in v)
                rel, skipped = _skip_misprinted(rel, others)
                if not rel:
                    comps.append(Comparison(label=p.label, derivation=d.key, step=s.label,
                                            fidelity=_fidelity_text(s), verdict="not compared",
                                            how=f"its printed links go through a side an erratum says is misprinted "
                                                f"({', '.join(skipped)}), and nothing printed bridges it",
                                            printed=relations_latex(chain or p.relations), stated=_stated(s)))
                    continue
            if s.numeric and not numeric and not isinstance(rel, ParseFailure) and rel is not None:
                comps.append(Comparison(label=p.label, derivation=d.key, step=s.label, fidelity=_fidelity_text(s),
                                        verdict="not compared", how="numeric sides (not evaluated here)",
                                        printed=relations_latex(rel), stated=_stated(s)))
                continue
            comps.append(compare_step(p.label, rel, s, derivation=d.key, misprinted=misprinted,
                                      notation=self.notation))
        status, reason = _label_status(p, comps, self.notation)
        return LabelComparison(label=p.label, kind=p.kind, status=status, reason=reason, printed=p.text,
                               relations=relations_latex(p.relations) if p.kind == "display" else "",
                               comparisons=tuple(comps))


def compared_rows(paper, derivations: Iterable) -> dict[str, dict]:
    """compare_paper as JSON by label: what coverage rows carry in their "compared" field."""
    return {k: v.to_json() for k, v in compare_paper(paper, derivations).items()}


def share_report(paper, derivations: Iterable, comparisons: Mapping[str, LabelComparison] | None = None) -> dict:
    """Item 5's measure for one paper: labelled displays, how many parse, cited labels, how many are machine-compared
    (matches or differs), and the most common reasons a display did not parse or compare."""
    comps = comparisons if comparisons is not None else compare_paper(paper, derivations)
    displays = [c for c in comps.values() if c.kind == "display"]
    parsed = [c for c in displays if c.status != "not parsed"]
    cited = [c for c in comps.values() if c.comparisons]
    compared = [c for c in comps.values() if c.compared]
    reasons: Counter = Counter()
    for c in displays:
        if c.compared:
            continue
        if c.status == "not parsed":
            reasons["not parsed: " + c.reason.split(":")[0]] += 1
        elif c.status == "not cited":
            reasons["not cited by any step"] += 1
        elif c.status == "differs, not decisive":
            reasons["differs, not decisive (the step states another relation)"] += 1
        elif c.status == "rewritten whole":
            reasons["rewritten whole (a printed side replaced by the notation map)"] += 1
        else:
            reasons["not compared: " + _reason_kind(c.reason)] += 1
    n = len(displays)
    return {"paper": getattr(paper, "name", str(paper)), "displays": n, "parsed": len(parsed),
            "parse_share": len(parsed) / n if n else 0.0,
            "cited": len(cited), "compared": len(compared),
            "compared_share_of_cited": len(compared) / len(cited) if cited else 0.0,
            "displays_compared": sum(c.compared for c in displays),
            "compared_share_of_displays": sum(c.compared for c in displays) / n if n else 0.0,
            "matches": sum(c.status == "matches the print" for c in comps.values()),
            "differs": sum(c.status == "differs from the print" for c in comps.values()),
            "partly": sum(c.status == "partly compared" for c in comps.values()),
            "not_decisive": sum(c.status == "differs, not decisive" for c in comps.values()),
            "rewritten": sum(c.status == "rewritten whole" for c in comps.values()),
            "reasons": reasons.most_common()}


def _reason_kind(reason: str) -> str:
    for key in ("circular", "only a trivial side agrees", "not a name the step computes", "misprinted",
                "only links between names",
                "symbols of the print not in the step", "matrices", "numeric sides", "no relation",
                "no finite real value", "took over", "search failed"):
        if key in reason:
            return key
    return reason[:60]


# -- `theorylab check`: the fidelity section -------------------------------------------------------------------------

def check_section(derivations: Sequence, *, papers: Mapping[str, Any] | None = None, families: Sequence[str] = (),
                  out=None) -> tuple[int, list[LabelComparison]]:
    """Print, per paper of the derivations (one that names a source file), its labels with their machine comparison
    (every label where the paper's families are all selected, else the labels the derivations cite); return
    (unexpected, comparisons): unexpected counts the steps declared "as printed" that decisively differ from the
    print, each shown with both forms. papers: derivation key -> its Paper (default: looked up in the catalogue);
    families: the selected family names."""
    write = (out or sys.stdout).write
    if papers is None:
        keys = {d.key for d in derivations}
        papers = {d.key: f.paper for f in catalogue.families() for d in f.derivations if d.key in keys}
    by_paper: dict[str, tuple[Any, list]] = {}
    for d in derivations:
        paper = papers.get(d.key)
        if paper is not None:
            by_paper.setdefault(paper.name, (paper, []))[1].append(d)
    unexpected, everything = 0, []
    for paper, derivs in by_paper.values():
        items = printout_of(paper)
        if items is None:
            continue
        comps = compare_paper(paper, derivs, printout=items)
        everything += comps.values()
        rep = share_report(paper, derivs, comps)
        whole = not families or {f.name for f in paper.families} <= set(families)
        shown = [c for c in comps.values() if whole or c.comparisons]
        write(f"\nfidelity to the printed page, {paper.name} ({paper.source}): {rep['displays']} labelled displays, "
              f"{rep['parsed']} parse; {rep['cited']} labels cited by these steps, {rep['compared']} machine-compared "
              f"({rep['matches']} match the print, {rep['partly']} partly, {rep['differs']} differ; "
              f"{rep['not_decisive']} differ, not decisively: not counted)"
              + ("" if whole else f"; the {len(shown)} labels these steps cite") + "\n")
        for c in shown:
            bad = [x for x in c.comparisons if x.unexpected]
            unexpected += len(bad)
            mark = "!! " if bad else "   "
            write(f"  {mark}{c.label:14s} {c.status}: {_short(c.reason)}\n")
            for x in bad:
                write(f"        UNEXPECTED: step {x.step!r} ({x.derivation}) is declared 'as printed' but states "
                      f"something else\n          the paper prints: {x.printed}\n          the step states:  "
                      f"{x.stated}\n          {x.how}\n")
    return unexpected, everything
