"""Coverage: every labelled equation and numbered statement of a paper, accounted for.

A label is `checked` when derivation steps cite it (`Step(..., cites=("(28)",))`) and all of them hold (the
weakest step's strength is shown), an `erratum` when a citing step is a confirmed erratum, or declared by the paper
as a `definition` or `not-checkable`, each with a reason. Anything else is `missing`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .derivation import STRENGTHS, Derivation, StepResult

__all__ = ["Account", "labels_in_text", "coverage", "summary", "STATUSES"]

STATUSES = ("checked", "erratum", "definition", "not-checkable", "FAILS", "missing")
_STATEMENT = re.compile(r"^\W{0,4}(Theorem|Lemma|Proposition|Corollary)\s+([A-Z]?\d+(?:\.\d+)*)\b", re.M)
_EQUATION = (re.compile(r"\\tag\{(\d+[a-z]?)\}"),                   # $$ ... \tag{12} $$
             re.compile(r"\$\$\s*\((\d+[a-z]?)\)\s*\$\$"),              # $$(12)$$
             re.compile(r"^\s*\((\d+[a-z]?)\)\s*$", re.M),           # a label alone on its line
             re.compile(r"\\quad\s*\((\d+[a-z]?)\)\s*\$\$"),         # $$ ... \quad (22)$$
             re.compile(r"\$\$\s*\((\d+[a-z]?)\)\s*$", re.M))        # $$ ... $$ (7)


@dataclass(frozen=True)
class Account:
    """A label the paper declares as not checked by a step: a definition/notation, or not checkable (why)."""

    label: str
    status: str   # "definition" | "not-checkable"
    reason: str

    def __post_init__(self):
        if self.status not in ("definition", "not-checkable"):
            raise ValueError(f"Account {self.label}: status must be definition or not-checkable; got {self.status!r}")
        if not self.reason.strip():
            raise ValueError(f"Account {self.label}: a reason is required")


def labels_in_text(text: str, extra_patterns: Sequence[str] = ()) -> list[str]:
    """Equation labels "(n)" and numbered statements ("Theorem 3.6") of a paper's text, in order, once each.

    `extra_patterns` are regular expressions whose first group is an equation number, for a paper's own layout."""
    found: list[tuple[int, str]] = []
    for pat in (*_EQUATION, *(re.compile(p, re.M) for p in extra_patterns)):
        found += [(m.start(), f"({m.group(1)})") for m in pat.finditer(text)]
    found += [(m.start(), f"{m.group(1)} {m.group(2)}") for m in _STATEMENT.finditer(text)]
    seen: dict[str, int] = {}
    for pos, label in sorted(found):
        seen.setdefault(label, pos)
    return list(seen)


def coverage(paper: str, labels: Sequence[str], derivations: Iterable[Derivation],
             accounts: Iterable[Account] = (), results: Mapping[str, Sequence[StepResult]] | None = None
             ) -> list[dict]:
    """One row per label: {paper, label, status, how, reason}. Steps are checked (cached) unless results given."""
    accounts = {a.label: a for a in accounts}
    citing: dict[str, list[tuple[Derivation, StepResult]]] = {}
    for d in derivations:
        rs = results[d.key] if results is not None and d.key in results else d.check()
        for r in rs:
            for label in getattr(r.step, "cites", ()):
                citing.setdefault(label, []).append((d, r))
    rows = []
    for label in labels:
        row = {"paper": paper, "label": label, "status": "missing", "how": "", "reason": ""}
        steps = citing.get(label, [])
        if steps:
            bad = [(d, r) for d, r in steps if not r.ok]
            errata = [(d, r) for d, r in steps if r.step.erratum is not None and r.ok]
            if bad:
                d, r = bad[0]
                row.update(status="FAILS", how=f"{d.key}: step {r.step.label!r} {r.status}")
            elif errata:
                d, r = errata[0]
                row.update(status="erratum", how=f"{r.step.erratum.key} ({d.key}: {r.step.label!r}; "
                                                 f"counterexample {r.outcome.counterexample})")
            else:
                weakest = min(steps, key=lambda dr: STRENGTHS.index(dr[1].strength))
                d, r = weakest
                row.update(status="checked", how=f"{len(steps)} step(s), weakest {r.strength}: {d.key}: "
                                                 f"{r.step.label!r}")
        elif label in accounts:
            row.update(status=accounts[label].status, reason=accounts[label].reason)
        rows.append(row)
    unknown = set(accounts) - set(labels)
    if unknown:
        raise ValueError(f"{paper}: accounts for labels the paper does not list: {sorted(unknown)}")
    return rows


def summary(rows: Sequence[dict]) -> str:
    """`paper: N/M accounted (k checked, k erratum, ...)`."""
    by = {s: sum(r["status"] == s for r in rows) for s in STATUSES}
    accounted = sum(by[s] for s in ("checked", "erratum", "definition", "not-checkable"))
    paper = rows[0]["paper"] if rows else "?"
    return (f"{paper}: {accounted}/{len(rows)} accounted (" + ", ".join(f"{v} {k}" for k, v in by.items() if v)
            + ")")
