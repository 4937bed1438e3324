"""The evidence record: what `theorylab verify` writes and `theorylab report` reads, one typed and versioned JSON file.

Version 1 is the unversioned file of earlier releases (the same fields, without `papers`); it still loads, and so
does version 2 (without the ranked `ledger` and the `coverage` rows: the report then lists errata from the steps).
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .params import DomainError

__all__ = ["SCHEMA_VERSION", "EvidenceRecord", "load"]

SCHEMA_VERSION = 3
_REDO = "regenerate it with `theorylab verify --json PATH`, or pass --rerun"


@dataclass(frozen=True, kw_only=True)
class EvidenceRecord:
    """One run of `theorylab verify`: its settings, the derivation steps and the evidence (as JSON dicts)."""

    profile: str
    device: str | None
    seed: int | None
    families: tuple[str, ...]
    papers: tuple[str, ...] = ()
    derivation_steps: tuple[dict, ...]
    evidence: tuple[dict, ...]
    ledger: tuple[dict, ...] = ()      # theorylab.ledger items, ranked (schema 3)
    coverage: tuple[dict, ...] = ()    # per label: printed text, citing steps, status (schema 3)
    unexpected_steps: int = 0
    failed_evidence: int = 0
    seconds: float | None = None
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self):
        for name in ("families", "papers", "derivation_steps", "evidence", "ledger", "coverage"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    def to_json(self) -> dict:
        out = asdict(self)
        return {"schema_version": out.pop("schema_version"), **{k: list(v) if isinstance(v, tuple) else v
                                                                 for k, v in out.items()}}


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
