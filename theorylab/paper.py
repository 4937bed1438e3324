"""The Paper record: one per paper, naming its families, figures and LaTeX settings by module path.

Declaring a paper imports none of its modules: entries, checks and figures are imported when a command needs them.
"""
from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

__all__ = ["Paper", "Family"]

_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_FAMILY = re.compile(r"^[a-z][a-z0-9_]*$")
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def _module(what: str, value: Any) -> str:
    if not isinstance(value, str) or not _MODULE.match(value) or any(keyword.iskeyword(p) for p in value.split(".")):
        raise ValueError(f"{what} must be a dotted module name (a string such as 'mypaper.entries', or __name__ "
                         f"for the declaring module itself); got {what}={value!r}")
    return value


@dataclass(frozen=True, kw_only=True)
class Family:
    """One family of a paper: its entry IDs are `name.<entry>`.

    `entries` names the module that holds ENTRIES (and DERIVATIONS, if any); `checks` the module that holds
    CHECKS (imported only by verify). A single-file paper passes `__name__` for both."""

    name: str
    entries: str
    checks: str | None = None
    doc: str = ""

    def __post_init__(self):
        if not isinstance(self.name, str) or not _FAMILY.match(self.name):
            raise ValueError(f"Family name must be a lower-case identifier (it prefixes the entry IDs, "
                             f"'name.entry'); got name={self.name!r}")
        _module(f"Family {self.name}: entries", self.entries)
        if self.checks is not None:
            _module(f"Family {self.name}: checks", self.checks)


@dataclass(frozen=True, kw_only=True)
class Paper:
    """A paper: what it is (name, title, source), its families, its figure modules and its LaTeX settings.

    `name` is how the command line selects the paper (`theorylab verify NAME`); `source` is the citation (or the
    file the paper was transcribed from); `figures` names modules that each hold FIGURES, a tuple of
    `theorylab.figure.Figure` records (imported only by report); `coverage` names a module with LABELS (every
    labelled equation and statement of the source, in order) and ACCOUNTS (why a label has no checked step), read by
    `theorylab coverage`; `latex` holds LaTeX settings
    (`preamble`: extra preamble lines, e.g. macros the paper's formulas use)."""

    name: str
    title: str
    source: str
    families: tuple[Family, ...]
    figures: tuple[str, ...] = ()
    coverage: str | None = None
    latex: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    doc: str = ""

    def __post_init__(self):
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise ValueError(f"Paper name must be lower case letters, digits, '-' or '_', starting with a letter; "
                             f"got name={self.name!r}")
        fams = tuple(self.families) if not isinstance(self.families, Family) else (self.families,)
        if not fams or not all(isinstance(f, Family) for f in fams):
            raise ValueError(f"Paper {self.name}: families must be a non-empty tuple of Family records; "
                             f"got families={self.families!r}")
        names = [f.name for f in fams]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"Paper {self.name}: family names must be distinct; got {', '.join(dup)} twice")
        figs = (self.figures,) if isinstance(self.figures, str) else tuple(self.figures)
        for m in figs:
            _module(f"Paper {self.name}: figures", m)
        if self.coverage is not None:
            _module(f"Paper {self.name}: coverage", self.coverage)
        object.__setattr__(self, "families", fams)
        object.__setattr__(self, "figures", figs)
        object.__setattr__(self, "latex", MappingProxyType(dict(self.latex)))

    def family(self, name: str) -> Family | None:
        return next((f for f in self.families if f.name == name), None)
