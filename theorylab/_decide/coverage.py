"""Coverage: every labelled equation and numbered statement of a paper, its printed text, and what checks it.

Each label's row shows what the paper prints (read from the paper's source file) beside what theorylab checks (the
relations of the steps that cite it, each with its fidelity), and a status: `as printed` (a step states the printed
statement and it holds), `amended` (a declared amendment is checked beside the printed statement, which holds),
`erratum` (the printed statement fails: a confirmed erratum), `definition` or `not-checkable` (declared by the
paper with a reason), `FAILS` (a citing step gives an unexpected verdict) or `missing`. After the labels, one row per
sentence of the paper's prose that a step quotes (`Step(quotes=...)`, #35 item 4): the sentence, where it is (line,
section), and the same status from the steps that quote it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .._records.params import DomainError
from .._sources import prose
from .derivation import AS_PRINTED, STRENGTHS, Amendment, Derivation, StepResult

__all__ = ["Account", "check_accounts", "labels_in_text", "coverage", "quoted_sentences", "summary", "STATUSES",
           "ACCOUNTED"]

STATUSES = ("as printed", "amended", "erratum", "definition", "not-checkable", "FAILS", "draft", "missing")
ACCOUNTED = ("as printed", "amended", "erratum", "definition", "not-checkable")
_STATEMENT = re.compile(r"^\W{0,4}(Theorem|Lemma|Proposition|Corollary)\s+([A-Z]?\d+(?:\.\d+)*)\b", re.M)
_EQUATION = (re.compile(r"\\tag\{(\d+[a-z]?)\}"),                   # $$ ... \tag{12} $$
             re.compile(r"\$\$\s*\((\d+[a-z]?)\)\s*\$\$"),              # $$(12)$$
             re.compile(r"^\s*\((\d+[a-z]?)\)\s*$", re.M),           # a label alone on its line
             re.compile(r"\\quad\s*\((\d+[a-z]?)\)\s*\$\$"),         # $$ ... \quad (22)$$
             re.compile(r"\$\$\s*\((\d+[a-z]?)\)\s*$", re.M))        # $$ ... $$ (7)


@dataclass(frozen=True)
class Account:
    """A label the paper declares as not checked by a step: a definition/notation, or not checkable (why).

    `Account("(3)", "definition", "the notation of the model")`; a paper's coverage module lists them in ACCOUNTS (a
    tuple of Account records). A wrong type or value is a one-line DomainError naming the argument;
    `check_accounts` checks a whole ACCOUNTS against the paper's labels and derivations."""

    label: str
    status: str   # "definition" | "not-checkable"
    reason: str

    def __post_init__(self):
        for arg in ("label", "status", "reason"):
            value = getattr(self, arg)
            if not isinstance(value, str):
                raise DomainError(f"Account({self.label!r}): {arg} must be a string; got the {type(value).__name__} "
                                  f"{value!r}"[:200])
        if not self.label.strip():
            raise DomainError("Account: label must name a label of the paper ('(12)', 'Theorem 3.1'); got ''")
        if self.status not in ("definition", "not-checkable"):
            raise DomainError(f"Account {self.label}: status must be definition or not-checkable; got {self.status!r}")
        if not self.reason.strip():
            raise DomainError(f"Account {self.label}: a reason is required")


def check_accounts(paper: str, accounts: object, labels: Sequence[str] | None = None,
                   derivations: Iterable[Derivation] = ()) -> tuple[Account, ...]:
    """A paper's ACCOUNTS checked against its labels and derivations; returns them as a tuple of Account records.

    Raises a one-line DomainError naming what is wrong: ACCOUNTS not a tuple or list; an item that is not an
    Account (a plain string names its index and value); a label accounted twice; an account for a label the paper
    does not list (`labels`); an account for a label that a step also cites (naming the derivation and the step);
    a step citing a label the paper does not list (naming the derivation, the step and the label: a coverage
    declaration that matches nothing)."""
    if isinstance(accounts, (str, bytes, Account)) or not isinstance(accounts, (tuple, list)):
        raise DomainError(f"paper {paper}: ACCOUNTS must be a tuple of Account(label, status, reason) records "
                          f"(theorylab.authoring.Account); got the {type(accounts).__name__} {accounts!r}"[:300])
    seen: dict[str, int] = {}
    for i, a in enumerate(accounts):
        if not isinstance(a, Account):
            raise DomainError(f"paper {paper}: ACCOUNTS[{i}] must be an Account(label, status, reason) record "
                              f"(theorylab.authoring.Account); got the {type(a).__name__} {a!r}"[:300])
        if a.label in seen:
            raise DomainError(f"paper {paper}: ACCOUNTS[{seen[a.label]}] and ACCOUNTS[{i}] both account for {a.label}")
        seen[a.label] = i
    listed = set(labels) if labels is not None else None
    if listed is not None:
        unknown = [a.label for a in accounts if a.label not in listed]
        if unknown:
            raise DomainError(f"paper {paper}: ACCOUNTS names {', '.join(unknown)}, which the paper does not list "
                              f"(its labels: {', '.join(list(labels)[:12])}{', ...' if len(listed) > 12 else ''})")
    for d in derivations:
        for step in d.steps:
            for label in step.cites:
                if label in seen:
                    raise DomainError(f"paper {paper}: {label} is both accounted for (ACCOUNTS[{seen[label]}], "
                                      f"{accounts[seen[label]].status}) and cited by step {step.label!r} of {d.key}: "
                                      "keep one")
                if listed is not None and label not in listed:
                    raise DomainError(f"paper {paper}: step {step.label!r} of {d.key} cites {label}, which the paper "
                                      "does not list (a misspelt label is never counted as checked)")
    return tuple(accounts)


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


def _check_row(d: Derivation, r: StepResult) -> dict:
    f = r.step.fidelity
    return {"derivation": d.key, "step": r.step.label, "latex": r.step.latex(), "statement": r.step.statement(),
            "status": r.status, "strength": r.strength,
            "fidelity": "draft" if r.step.draft else AS_PRINTED if f == AS_PRINTED else f"amended ({f.kind})",
            "amendment": f.key if isinstance(f, Amendment) else None,
            "erratum": r.step.erratum.key if r.step.erratum is not None else None}


def _verdict(row: dict, steps: Sequence[tuple[Derivation, StepResult]]) -> None:
    """A label's or a quoted sentence's status, how and checks from the steps that cite it (into `row`)."""
    if steps and all(r.step.draft for _, r in steps):
        row.update(status="draft", how=f"{len(steps)} draft step(s) from the printed display, not derived yet",
                   checks=[_check_row(d, r) for d, r in steps])
        return
    steps = [(d, r) for d, r in steps if not r.step.draft]
    row["checks"] = [_check_row(d, r) for d, r in steps]
    bad = [(d, r) for d, r in steps if not r.ok]
    errata = [(d, r) for d, r in steps if r.step.erratum is not None and r.ok]
    amended = [(d, r) for d, r in steps if isinstance(r.step.fidelity, Amendment)]
    kinds = ", ".join(dict.fromkeys(r.step.fidelity.kind for _, r in amended))
    if bad:
        d, r = bad[0]
        row.update(status="FAILS", how=f"{d.key}: step {r.step.label!r} {r.status}")
    elif errata:
        d, r = errata[0]
        row.update(status="erratum", how=f"{r.step.erratum.key} [{r.step.erratum.severity}] ({d.key}: "
                                         f"{r.step.label!r}; counterexample {r.outcome.counterexample})"
                                         + (f"; checked as amended ({kinds})" if amended else ""))
    else:
        d, r = min(steps, key=lambda dr: STRENGTHS.index(dr[1].strength))
        how = f"{len(steps)} step(s), weakest {r.strength}: {d.key}: {r.step.label!r}"
        row.update(status="amended", how=f"checked as amended ({kinds}); {how}") if amended else \
            row.update(status="as printed", how=f"checked as printed; {how}")


def quoted_sentences(paper: str, text: str | None, derivations: Iterable[Derivation]
                     ) -> list[tuple[prose.Sentence, list[str], list[tuple[Derivation, object]]]]:
    """The sentences of the paper's source `text` that steps quote (`Step(quotes=...)`), in source order: (sentence,
    the fragments quoting it, [(derivation, step)]). A one-line QuoteError (a DomainError) naming the paper, the
    derivation, the step and the fragment where a fragment is not in the source or is in two sentences, or where a
    step quotes and the paper has no source text (`Paper.source_file`)."""
    by: dict[int, tuple] = {}
    for d in derivations:
        for step in d.steps:
            for fragment in step.quotes:
                if text is None:
                    raise prose.QuoteError(f"paper {paper}: step {step.label!r} of {d.key} quotes {fragment!r}, but "
                                           "the paper names no source file to find it in (Paper.source_file)")
                try:
                    s = prose.find_quote(text, fragment)
                except prose.QuoteError as exc:
                    raise prose.QuoteError(f"paper {paper}: step {step.label!r} of {d.key}: {exc}") from None
                sentence, fragments, steps = by.setdefault(s.start, (s, [], []))
                if fragment not in fragments:
                    fragments.append(fragment)
                steps.append((d, step))
    return [by[k] for k in sorted(by)]


def coverage(paper: str, labels: Sequence[str], derivations: Iterable[Derivation],
             accounts: Iterable[Account] = (), results: Mapping[str, Sequence[StepResult]] | None = None,
             printed: Mapping[str, str] | None = None, compared: Mapping[str, dict] | None = None,
             text: str | None = None) -> list[dict]:
    """One row per label: {paper, label, kind: "label", status, how, reason, printed, checks, compared}. `printed`
    maps labels to the paper's printed text (the display's LaTeX, the statement's sentence); `checks` lists the
    citing steps (their relation in LaTeX, fidelity, verdict); `compared` (theorylab._pipeline.fidelity.compared_rows)
    maps labels to their machine comparison with the print ({status, reason, compared, steps}; None where not given).
    A label whose citing steps are all drafts (`theorylab new --from`) has the status `draft`. Then one row per
    sentence that steps quote (`quoted_sentences` of the source `text`): {kind: "sentence", label "sentence, line N
    (section)", printed: the sentence, where, line, section, quotes: the fragments, status, how, checks}. Steps are
    checked (cached) unless `results` are given."""
    accounts = {a.label: a for a in accounts}
    printed = printed or {}
    derivations = list(derivations)
    citing: dict[str, list[tuple[Derivation, StepResult]]] = {}
    verdicts: dict[tuple[str, str], StepResult] = {}
    for d in derivations:
        rs = results[d.key] if results is not None and d.key in results else d.check()
        for r in rs:
            verdicts[(d.key, r.step.label)] = r
            for label in r.step.cites:
                citing.setdefault(label, []).append((d, r))
    rows = []
    for label in labels:
        row = {"paper": paper, "label": label, "kind": "label", "status": "missing", "how": "", "reason": "",
               "printed": printed.get(label, ""), "checks": [],
               "compared": None if compared is None else compared.get(label)}
        steps = citing.get(label, [])
        if steps:
            _verdict(row, steps)
        elif label in accounts:
            row.update(status=accounts[label].status, reason=accounts[label].reason)
        rows.append(row)
    unknown = set(accounts) - set(labels)
    if unknown:
        raise ValueError(f"{paper}: accounts for labels the paper does not list: {sorted(unknown)}")
    for sentence, fragments, steps in quoted_sentences(paper, text, derivations):
        row = {"paper": paper, "label": f"sentence, {sentence.where}", "kind": "sentence", "status": "missing",
               "how": "", "reason": "", "printed": sentence.trimmed(), "where": sentence.where, "line": sentence.line,
               "section": sentence.section, "quotes": fragments, "checks": [], "compared": None}
        decided = [(d, verdicts[(d.key, step.label)]) for d, step in steps if (d.key, step.label) in verdicts]
        if decided:
            _verdict(row, decided)
        rows.append(row)
    return rows


def summary(rows: Sequence[dict]) -> str:
    """`paper: N/M accounted (k as printed, k amended, k erratum, ...)` over the labels, then `; S cited sentences (k
    as printed, ...)` where steps quote sentences of the prose, and `; U uncited claims in the prose (listed, not
    counted)` for the rows `coverage --claims` adds."""
    paper = rows[0]["paper"] if rows else "?"
    sentences = [r for r in rows if r.get("kind") == "sentence"]
    candidates = sum(r.get("kind") == "candidate" for r in rows)  # `coverage --claims`: listed, never counted
    rows = [r for r in rows if r.get("kind") not in ("sentence", "candidate")]
    by = {s: sum(r["status"] == s for r in rows) for s in STATUSES}
    accounted = sum(by[s] for s in ACCOUNTED)
    out = (f"{paper}: {accounted}/{len(rows)} accounted (" + ", ".join(f"{v} {k}" for k, v in by.items() if v)
           + ")")
    if sentences:
        by = {s: sum(r["status"] == s for r in sentences) for s in STATUSES}
        out += (f"; {len(sentences)} cited sentence{'s' * (len(sentences) != 1)} ("
                + ", ".join(f"{v} {k}" for k, v in by.items() if v) + ")")
    if candidates:
        out += f"; {candidates} uncited claim{'s' * (candidates != 1)} in the prose (listed, not counted)"
    return out
