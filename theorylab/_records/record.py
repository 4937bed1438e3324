"""The evidence record: what `theorylab verify` writes and `theorylab report` reads, one typed and versioned JSON file.

Version 1 is the unversioned file of earlier releases (the same fields, without `papers`); it still loads, and so
does version 2 (without the ranked `ledger` and the `coverage` rows: the report then lists errata from the steps).
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Iterator

from .._shared import write_json
from .params import DomainError
from .status import StepStatus, Verdict, parse

__all__ = ["SCHEMA_VERSION", "EvidenceRecord", "StepRecord", "EvidenceItem", "load", "write_json"]

SCHEMA_VERSION = 3
_REDO = "regenerate it with `theorylab verify --json PATH`, or pass --rerun"


@dataclass(frozen=True, eq=False)
class _Row(Mapping):
    """A typed, frozen record of the run that still reads as the JSON object it stands for (`r["status"]`,
    `r.get("detail")`): the typed fields are checked when it is made; `to_json()` gives the object back."""

    data: Mapping[str, Any] = field(repr=False)
    _required: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self):
        if not isinstance(self.data, Mapping):
            raise TypeError(f"a {type(self).__name__} is made from a JSON object; got {type(self.data).__name__}")
        missing = [k for k in self._required if k not in self.data]
        if missing:
            raise ValueError(f"a {type(self).__name__} needs {', '.join(missing)}")
        object.__setattr__(self, "data", dict(self.data))

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.data!r})"

    def to_json(self) -> dict:
        return dict(self.data)


@dataclass(frozen=True, eq=False)
class StepRecord(_Row):
    """One derivation step as verify decided it (`runner.step_record`): derivation, step, status, ok, strength."""

    _required: ClassVar[tuple[str, ...]] = ("derivation", "step", "status", "ok")

    def __post_init__(self):
        super().__post_init__()
        parse(StepStatus, self.data["status"], f"step {self.data['step']!r}'s status")

    @property
    def derivation(self) -> str:
        return self.data["derivation"]

    @property
    def step(self) -> str:
        return self.data["step"]

    @property
    def status(self) -> StepStatus:
        return StepStatus(self.data["status"])

    @property
    def ok(self) -> bool:
        return bool(self.data["ok"])

    @property
    def strength(self) -> str:
        return self.data.get("strength", "searched")


@dataclass(frozen=True, eq=False)
class EvidenceItem(_Row):
    """One evidence record (`Evidence.to_json`) or finding (`Finding.to_json`, reported, never a pass or a failure)."""

    _required: ClassVar[tuple[str, ...]] = ("entry", "check")

    @property
    def record(self) -> str:
        """"evidence" or "finding" (the JSON's "record"; its "kind" is the check's kind: numeric, training, ...)."""
        return self.data.get("record", "evidence")

    @property
    def is_finding(self) -> bool:
        return self.record == "finding"

    @property
    def entry(self) -> str:
        return self.data["entry"]

    @property
    def check(self) -> str:
        return self.data["check"]

    @property
    def passed(self) -> bool | None:
        return None if self.is_finding else bool(self.data["passed"])

    @property
    def verdict(self) -> Verdict | None:
        """"pass", "weak" (within tolerance, coarser than needed) or "fail"; None for a finding."""
        if self.is_finding:
            return None
        stored = self.data.get("verdict")
        if stored:
            return parse(Verdict, stored, f"evidence {self.entry} / {self.check}: verdict")
        return Verdict.PASS if self.data["passed"] else Verdict.FAIL


@dataclass(frozen=True, kw_only=True)
class EvidenceRecord:
    """One run of `theorylab verify`: its settings, the derivation steps and the evidence (typed frozen records
    that read as their JSON objects)."""

    profile: str
    device: str | None
    seed: int | None
    families: tuple[str, ...]
    papers: tuple[str, ...] = ()
    derivation_steps: tuple[StepRecord, ...]
    evidence: tuple[EvidenceItem, ...]
    ledger: tuple[dict, ...] = ()      # theorylab._decide.ledger items, ranked (schema 3)
    coverage: tuple[dict, ...] = ()    # per label: printed text, citing steps, status (schema 3)
    unexpected_steps: int = 0
    failed_evidence: int = 0
    seconds: float | None = None
    schema_version: int = SCHEMA_VERSION
    tasks: int = field(default=0, compare=False)         # the run's tasks (not written)
    tasks_reused: int = field(default=0, compare=False)  # of them, taken from an interrupted run's journal

    def __post_init__(self):
        for name in ("families", "papers", "ledger", "coverage"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "derivation_steps", tuple(
            r if isinstance(r, StepRecord) else StepRecord(r) for r in self.derivation_steps))
        object.__setattr__(self, "evidence", tuple(
            r if isinstance(r, EvidenceItem) else EvidenceItem(r) for r in self.evidence))

    @property
    def findings(self) -> int:
        return sum(r.is_finding for r in self.evidence)

    @property
    def weak_evidence(self) -> int:
        return sum(r.verdict == Verdict.WEAK for r in self.evidence)

    @property
    def ok(self) -> bool:
        """No step other than the ledger says and no evidence failed."""
        return not self.unexpected_steps and not self.failed_evidence

    def to_json(self) -> dict:
        out: dict[str, Any] = {"schema_version": self.schema_version}
        for name in ("profile", "device", "seed", "families", "papers", "derivation_steps", "evidence", "ledger",
                     "coverage", "unexpected_steps", "failed_evidence", "seconds"):
            v = getattr(self, name)
            out[name] = [r.to_json() if isinstance(r, _Row) else r for r in v] if isinstance(v, tuple) else v
        return out

    def write(self, path: str | os.PathLike) -> None:
        """Write the record to `path` whole or not at all."""
        write_json(path, self.to_json(), prefix=".evidence-")


def load(path: str | os.PathLike) -> EvidenceRecord:
    """The record `theorylab verify --json PATH` wrote; a one-line DomainError when it is missing or not one."""
    p = Path(path)
    what = f"evidence must be a JSON file written by `theorylab verify`; got evidence={p}"
    if not p.is_file():
        raise DomainError(f"{what} (no such file: run `theorylab verify` first, or pass --rerun)")
    try:
        data = json.loads(p.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DomainError(f"{what} (not JSON: {exc})") from None
    if not isinstance(data, dict):
        raise DomainError(f"{what} (a JSON {type(data).__name__}, not an object)")
    version: Any = data.get("schema_version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= SCHEMA_VERSION:
        raise DomainError(f"{what} (schema_version {version!r}; this theorylab reads 1 to {SCHEMA_VERSION}): "
                          f"{_REDO}")
    missing = [k for k in ("profile", "evidence", "derivation_steps") if k not in data]
    if missing:
        raise DomainError(f"{what} (missing {', '.join(missing)}): {_REDO}")
    try:
        return EvidenceRecord(
            profile=str(data["profile"]), device=data.get("device"), seed=data.get("seed"),
            families=tuple(data.get("families") or ()), papers=tuple(data.get("papers") or ()),
            derivation_steps=tuple(data["derivation_steps"]), evidence=tuple(data["evidence"]),
            ledger=tuple(data.get("ledger") or ()), coverage=tuple(data.get("coverage") or ()),
            unexpected_steps=int(data.get("unexpected_steps", 0)), failed_evidence=int(data.get("failed_evidence", 0)),
            seconds=data.get("seconds"), schema_version=version)
    except (TypeError, ValueError) as exc:
        raise DomainError(f"{what} (malformed: {exc}): {_REDO}") from None
