"""The single list of catalogue families, and lookup of entries, derivations, errata and checks.

The engine reaches `derivations` and `verify` only here, by explicit module names (no import side
effects elsewhere); a family is one module in each.
"""
from __future__ import annotations

import functools
import importlib
import os
from dataclasses import dataclass

from .derivation import Derivation, Erratum
from .entry import Entry
from .evidence import Check
from .params import DomainError

__all__ = ["FAMILIES", "get", "entries", "derivations", "errata", "checks", "select"]

FAMILIES = ("qpenalty", "l12", "measure", "relu", "transfer", "omega")


@dataclass(frozen=True)
class Family:
    name: str
    entries: tuple[Entry, ...]
    derivations: tuple[Derivation, ...]
    checks: tuple[Check, ...]
    claims: tuple[Erratum, ...] = ()


@functools.lru_cache(maxsize=None)
def families() -> tuple[Family, ...]:
    out = []
    only = os.environ.get("THEORYLAB_ONLY_FAMILIES")  # development aid: load a subset of the families
    for name in (FAMILIES if not only else [f for f in FAMILIES if f in only.split(",")]):
        try:
            d = importlib.import_module(f"derivations.{name}")
        except ModuleNotFoundError as exc:  # a family not written yet is absent, and `list` shows that
            if exc.name != f"derivations.{name}":
                raise
            continue
        try:
            v = importlib.import_module(f"verify.{name}")
            checks = tuple(v.CHECKS)
        except ModuleNotFoundError as exc:
            if exc.name != f"verify.{name}":
                raise
            checks = ()
        out.append(Family(name, tuple(d.ENTRIES), tuple(getattr(d, "DERIVATIONS", ())), checks))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def _index() -> dict[str, Entry]:
    index: dict[str, Entry] = {}
    for fam in families():
        for e in fam.entries:
            if e.id in index:
                raise RuntimeError(f"duplicate entry id {e.id}")
            index[e.id] = e
    return index


def entries() -> tuple[Entry, ...]:
    """All entries of the catalogue, family by family."""
    return tuple(_index().values())


def get(entry_id: str) -> Entry:
    """The entry with this ID; DomainError naming the ID when there is none."""
    try:
        return _index()[entry_id]
    except KeyError:
        raise DomainError(f"ID must be one of the catalogue's entry IDs (see `theorylab list`); "
                          f"got ID={entry_id!r}") from None


def derivations() -> tuple[Derivation, ...]:
    return tuple(d for fam in families() for d in fam.derivations)


def errata() -> tuple[Erratum, ...]:
    return tuple(e for d in derivations() for e in d.errata)


def checks() -> tuple[Check, ...]:
    return tuple(c for fam in families() for c in fam.checks)


def select(names: list[str] | tuple[str, ...]) -> tuple[set[str], list[str]]:
    """Resolve CLI selectors (entry IDs or family names) to entry IDs; empty means everything."""
    if not names:
        return set(_index()), [f.name for f in families()]
    ids: set[str] = set()
    fams: list[str] = []
    known = {f.name: f for f in families()}
    for n in names:
        if n in known:
            ids.update(e.id for e in known[n].entries)
            fams.append(n)
        elif n in _index():
            ids.add(n)
            fams.append(n.split(".")[0])
        else:
            raise DomainError(f"selection must be entry IDs or families ({', '.join(known)}); got {n!r}")
    return ids, sorted(set(fams), key=list(known).index)


def coverage_declarations(paper: str = "") -> list[tuple[str, tuple[str, ...], tuple]]:
    """(paper source, its labelled equations and statements, its accounts) from the modules `derivations.coverage_*`
    (each: PAPER = source file name, LABELS, ACCOUNTS)."""
    import pkgutil

    import derivations as pkg

    out = []
    for info in pkgutil.iter_modules(pkg.__path__):
        if not info.name.startswith("coverage_"):
            continue
        mod = importlib.import_module(f"derivations.{info.name}")
        if not paper or paper in (mod.PAPER, info.name[len("coverage_"):]):
            out.append((mod.PAPER, tuple(mod.LABELS), tuple(getattr(mod, "ACCOUNTS", ()))))
    if paper and not out:
        raise DomainError(f"paper must be one with declared labels; got {paper!r}")
    return sorted(out)
