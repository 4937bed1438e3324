"""The errata ledger: every erratum and amendment of the registered papers, ranked by severity, folded by root.

An item is an `Erratum` (a printed statement that fails; confirmed by evaluating its step, never by its own word),
an `Amendment` (what theorylab checks in place of a printed statement, and why) or a withdrawn erratum (kept, with
the reason). Consequences name their `root`; the summary counts distinct roots per severity and paper.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from .._records.status import LedgerStatus, StepStatus, parse
from .derivation import SEVERITIES, Amendment, Derivation, Erratum, Outcome, Step, StepResult

__all__ = ["LedgerItem", "collect", "ordered", "summary", "summary_table", "LedgerError"]

KINDS = ("erratum", "amendment", "withdrawn")


class LedgerError(ValueError):
    """A ledger whose items do not fit together (an unknown root, a cycle, one key for two different items)."""


@dataclass(frozen=True, kw_only=True)
class LedgerItem:
    """One item of the ledger, as `theorylab errata --json` writes it.

    kind          "erratum", "amendment" or "withdrawn".
    status        erratum: "confirmed" (its step fails where stated), "NOT REPRODUCED" (it holds: the ledger is
                  stale) or "not evaluated"; amendment: "declared"; withdrawn: "withdrawn".
    says, truth   erratum: what the paper prints and what holds; amendment: the amendment's kind and what changed.
    top           the root this item folds under (itself for a root); depth 0 for a root.
    """

    key: str
    kind: str
    severity: str
    paper: str
    source: str
    where: str
    says: str
    truth: str
    why: str = ""
    note: str = ""
    root: str | None = None
    top: str = ""
    depth: int = 0
    amendment_kind: str = ""
    status: LedgerStatus = LedgerStatus.NOT_EVALUATED
    counterexample: str | None = None
    steps: tuple[str, ...] = ()
    history: tuple[str, ...] = ()
    withdrawn: str = ""

    def __post_init__(self):
        object.__setattr__(self, "status", parse(LedgerStatus, self.status, f"ledger item {self.key!r}: status"))

    def to_json(self) -> dict:
        out = asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}


Verdict = Callable[[Derivation, Step], "tuple[str, str | None] | None"]


def _cited(step: Step) -> str:
    """Where an amended step's statement is printed: its labels, then the sentences it quotes (trimmed)."""
    return ", ".join((*step.cites, *(f"“{q[:60]}”" for q in step.quotes)))


def _evaluate(d: Derivation, step: Step) -> tuple[str, str | None]:
    """The erratum step's own verdict (only that step is decided; symbolic verdicts come from the disk cache)."""
    try:
        out = step.check()
    except Exception as exc:  # noqa: BLE001 - a crashing check is reported, never a confirmation
        out = Outcome(False, "error", f"{type(exc).__name__}: {exc}", strength="error")
    r = StepResult(step, out)
    return (LedgerStatus.CONFIRMED if r.status == StepStatus.ERRATUM_CONFIRMED else
            LedgerStatus.NOT_EVALUATED if out.strength == "error" else LedgerStatus.NOT_REPRODUCED), out.counterexample


def collect(derivations: Iterable[tuple[str, Derivation]], *, verdict: Verdict | None = _evaluate,
            strict: bool = True) -> list[LedgerItem]:
    """The ledger of (paper name, derivation) pairs, in `ordered` order.

    verdict(derivation, step) -> (status, counterexample) confirms each erratum: by default the erratum's step alone
    is decided (errata are cheap: most carry their counterexample `at`); None lists without evaluating.
    strict: a root naming no item of these derivations is a LedgerError (a part of a paper: it is kept as named,
    and the item is placed as a root)."""
    items: dict[str, dict[str, Any]] = {}

    def add(key: str, record: Any, item: dict[str, Any]) -> dict[str, Any]:
        have = items.get(key)
        if have is None:
            item["_record"] = record
            items[key] = item
            return item
        if have["_record"] != record:
            raise LedgerError(f"ledger key {key} names two different items ({have['where']}; {item['where']})")
        return have

    for paper, d in derivations:
        for e in d.withdrawn:
            add(e.key, e, dict(key=e.key, kind="withdrawn", severity=e.severity, paper=paper, source=e.source,
                               where=e.where, says=e.says, truth=e.truth, note=e.note, root=e.root,
                               history=tuple(e.history), status=LedgerStatus.WITHDRAWN, withdrawn=e.withdrawn,
                               steps=[]))
        for step in d.steps:
            where = f"{d.key}: {step.label}"
            e = step.erratum
            if e is not None:
                it = add(e.key, e, dict(key=e.key, kind="erratum", severity=e.severity, paper=paper, source=e.source,
                                        where=e.where, says=e.says, truth=e.truth, note=e.note, root=e.root,
                                        history=tuple(e.history), steps=[], verdicts=[]))
                it["steps"].append(where)
                it["verdicts"].append(verdict(d, step) if verdict is not None else None)
            a = step.fidelity
            if isinstance(a, Amendment):
                it = add(a.key, a, dict(key=a.key, kind="amendment", severity=a.severity, paper=paper,
                                        source=d.source, where=_cited(step), says=a.kind, truth=a.what,
                                        why=a.why, root=a.root, amendment_kind=a.kind, status=LedgerStatus.DECLARED, steps=[]))
                it["steps"].append(where)
    for it in items.values():
        verdicts = it.pop("verdicts", None)
        it.pop("_record")
        if verdicts is not None:
            known = [v for v in verdicts if v is not None]
            if not known:
                it["status"] = LedgerStatus.NOT_EVALUATED
            else:
                it["status"] = (LedgerStatus.CONFIRMED if all(v[0] == LedgerStatus.CONFIRMED for v in known) else
                                LedgerStatus.NOT_REPRODUCED if any(v[0] == LedgerStatus.NOT_REPRODUCED for v in known)
                                else LedgerStatus.NOT_EVALUATED)
                it["counterexample"] = next((v[1] for v in known if v[1]), None)
        it["steps"] = tuple(it["steps"])
    # roots: every named root exists, in the same paper, with no cycle; top = the root a chain ends at
    for key, it in items.items():
        seen, cur, depth = [key], it, 0
        while cur["root"] is not None:
            nxt = items.get(cur["root"])
            if nxt is None and not strict:
                break
            if nxt is None:
                raise LedgerError(f"ledger item {cur['key']} names root {cur['root']}, which is no item of the ledger")
            if nxt["paper"] != cur["paper"]:
                raise LedgerError(f"ledger item {cur['key']} ({cur['paper']}) names root {nxt['key']} of another "
                                  f"paper ({nxt['paper']})")
            if nxt["key"] in seen:
                raise LedgerError(f"ledger roots form a cycle: {' -> '.join(seen + [nxt['key']])}")
            seen.append(nxt["key"])
            cur, depth = nxt, depth + 1
        it["top"], it["depth"] = cur["key"], depth
    return ordered([LedgerItem(**it) for it in items.values()])


def _rank(it: LedgerItem, papers: Sequence[str]) -> tuple:
    withdrawn = it.kind == "withdrawn"
    return (withdrawn, -SEVERITIES.index(it.severity), papers.index(it.paper), it.kind != "erratum", it.key)


def ordered(items: Sequence[LedgerItem]) -> list[LedgerItem]:
    """Roots by severity (worst first), then paper, errata before amendments, then key; each root followed by its
    consequences (depth first, in the same order); withdrawn items last."""
    papers = list(dict.fromkeys(it.paper for it in items))
    children: dict[str, list[LedgerItem]] = {}
    keys = {it.key for it in items}
    for it in items:
        if it.root is not None and it.root in keys:
            children.setdefault(it.root, []).append(it)
    out: list[LedgerItem] = []

    def walk(it: LedgerItem) -> None:
        out.append(it)
        for c in sorted(children.get(it.key, []), key=lambda c: _rank(c, papers)):
            walk(c)

    for it in sorted((it for it in items if it.root is None or it.root not in keys), key=lambda it: _rank(it, papers)):
        walk(it)
    return out


def summary(items: Sequence[LedgerItem]) -> dict[str, Any]:
    """Distinct roots per paper and severity (errata and amendments; withdrawn items counted apart), the items
    that are consequences, and the statuses: the summary `theorylab errata --json` writes."""
    papers = list(dict.fromkeys(it.paper for it in items))
    live = [it for it in items if it.kind != "withdrawn"]
    roots = [it for it in live if it.root is None]
    by_paper = {p: {s: sum(it.paper == p and it.severity == s for it in roots) for s in SEVERITIES} for p in papers}
    return {
        "roots": len(roots),
        "roots_by_severity": {s: sum(it.severity == s for it in roots) for s in SEVERITIES},
        "roots_by_paper": by_paper,
        "errata": sum(it.kind == "erratum" for it in live),
        "amendments": sum(it.kind == "amendment" for it in live),
        "consequences": sum(it.root is not None for it in live),
        "withdrawn": sum(it.kind == "withdrawn" for it in items),
        "not_reproduced": sum(it.status == LedgerStatus.NOT_REPRODUCED for it in items),
    }


def summary_table(items: Sequence[LedgerItem]) -> str:
    """The summary as a fixed-width table: distinct roots per paper (rows) and severity (columns, worst first)."""
    s = summary(items)
    cols = list(reversed(SEVERITIES))
    width = max([len("paper"), *(len(p) for p in s["roots_by_paper"])]) + 2
    head = "paper".ljust(width) + " ".join(f"{c:>18s}" for c in cols) + f"{'roots':>7s}"
    lines = [head]
    for p, row in s["roots_by_paper"].items():
        lines.append(p.ljust(width) + " ".join(f"{row[c]:>18d}" for c in cols) + f"{sum(row.values()):>7d}")
    lines.append("all".ljust(width) + " ".join(f"{s['roots_by_severity'][c]:>18d}" for c in cols)
                 + f"{s['roots']:>7d}")
    return "\n".join(lines)


def from_json(rows: Iterable[Mapping[str, Any]]) -> list[LedgerItem]:
    """Ledger items as a run record stores them."""
    names = set(LedgerItem.__dataclass_fields__)
    return [LedgerItem(**{k: tuple(v) if isinstance(v, list) else v for k, v in r.items() if k in names})
            for r in rows]
