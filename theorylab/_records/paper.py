"""The Paper record: one per paper, naming its families, figures and LaTeX settings by module path.

Declaring a paper imports none of its modules: entries, checks and figures are imported when a command needs them.
"""
from __future__ import annotations

import html
import keyword
import re
import sys
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

    Arguments:
        name: a lower-case identifier, the prefix of the family's entry IDs (`name.entry`) and a selector on the
            command line (`theorylab verify name`).
        entries: the dotted name of the module that holds ENTRIES (a tuple of `Entry`) and, if any, DERIVATIONS
            (a tuple of `Derivation`); imported on first use.
        checks: the module that holds CHECKS (a tuple of `Check`), imported only by verify; None: no evidence.
        derivations: the module that holds DERIVATIONS, imported only by the commands that decide or list steps
            (check, verify, coverage, show, latex); None: DERIVATIONS of the entries module. Building steps is SymPy
            work (a derivation section costs 0.2-0.5 s at import), which `eval` and `list` then never pay.
        doc: one line on what the family covers.
    A single-file paper passes `__name__` for both modules.
    Example::

        Family(name="ridge", entries="ridgepaper.entries", checks="ridgepaper.checks",
               derivations="ridgepaper.proofs")
    """

    name: str
    entries: str
    checks: str | None = None
    derivations: str | None = None
    doc: str = ""

    def __post_init__(self):
        if not isinstance(self.name, str) or not _FAMILY.match(self.name):
            raise ValueError(f"Family name must be a lower-case identifier (it prefixes the entry IDs, "
                             f"'name.entry'); got name={self.name!r}")
        _module(f"Family {self.name}: entries", self.entries)
        if self.checks is not None:
            _module(f"Family {self.name}: checks", self.checks)
        if self.derivations is not None:
            _module(f"Family {self.name}: derivations", self.derivations)


@dataclass(frozen=True, kw_only=True)
class Paper:
    """A paper: what it is (name, title, source), its families, its figure modules and its LaTeX settings.

    Declaring a paper imports none of its modules. Register it with an entry point in the group `theorylab.papers`
    naming the module that defines PAPER (`theorylab new NAME` writes such a package), with `--paper FILE.py`, or
    with THEORYLAB_PAPERS.

    Arguments:
        name: how the command line selects the paper (`theorylab verify NAME`): lower-case letters, digits, '-'
            and '_', starting with a letter.
        title: the paper's title.
        source: the citation, or the file the paper was transcribed from.
        families: one or more `Family` records (distinct names).
        figures: dotted names of modules that each hold FIGURES, a tuple of `Figure` records (imported only by
            report).
        coverage: a module with ACCOUNTS (why a label has no citing step) and, for a paper without `source_file`,
            LABELS (every labelled equation and statement of the source, in order), read by `theorylab coverage`.
        source_file: the paper's printed source (.tex, or Markdown/.txt with `$$ ... $$` displays labelled (k) or
            \\tag{k}): an absolute path, or one relative to the folder of the `coverage` module (else of the first
            family's entries module). Its labels, with their printed text, are what coverage accounts for.
        latex: LaTeX settings (`preamble`: extra preamble lines, e.g. macros the paper's formulas use).
        notation: how the source's LaTeX maps to the SymPy symbols of the paper's steps (a
            `theorylab._sources.sources.NotationMap`, or "module:ATTR" naming one, imported when needed): its displays are
            parsed with it and compared with the steps that cite them (`theorylab._pipeline.fidelity`). None: names alone.
        doc: a paragraph on the paper.
    Example::

        PAPER = Paper(name="ridge-bias", title="The bias of ridge regression", source="arXiv:0000.00000",
                      families=(Family(name="ridge", entries="ridgepaper.entries", checks="ridgepaper.checks"),),
                      figures=("ridgepaper.figures",))

    In Jupyter a paper shows its families, and the entries of those already imported (never importing them).
    """

    name: str
    title: str
    source: str
    families: tuple[Family, ...]
    figures: tuple[str, ...] = ()
    coverage: str | None = None
    source_file: str | None = None
    latex: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    doc: str = ""
    notation: Any = field(default=None, compare=False, hash=False)  # a NotationMap or "module:ATTR"

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
        if self.source_file is not None and (not isinstance(self.source_file, str) or not self.source_file.strip()):
            raise ValueError(f"Paper {self.name}: source_file must be a path (a non-empty string); got "
                             f"source_file={self.source_file!r}")
        if self.notation is not None and not (isinstance(self.notation, str) and self.notation.strip()) and not (
                hasattr(self.notation, "rewrites") and hasattr(self.notation, "symbols")):
            raise ValueError(f"Paper {self.name}: notation must be a theorylab.authoring.NotationMap or 'module:ATTR' "
                             f"naming one; got notation={self.notation!r}"[:300])
        object.__setattr__(self, "families", fams)
        object.__setattr__(self, "figures", figs)
        object.__setattr__(self, "latex", MappingProxyType(dict(self.latex)))

    def family(self, name: str) -> Family | None:
        """The family of this name, or None."""
        return next((f for f in self.families if f.name == name), None)

    def _loaded_entries(self, family: Family) -> list | None:
        """The family's entries if its module is already imported (a repr never imports a paper's modules)."""
        module = sys.modules.get(family.entries)
        found = getattr(module, "ENTRIES", None) if module is not None else None
        return list(found) if found is not None else None

    def _repr_markdown_(self) -> str:
        lines = [f"**{self.name}**: {self.title} ({self.source})", ""]
        if self.doc:
            lines += [self.doc, ""]
        lines += ["| family | entries |", "| --- | --- |"]
        for f in self.families:
            entries = self._loaded_entries(f)
            shown = (", ".join(f"`{e.id}`" for e in entries) if entries is not None
                     else f"not imported yet (`{f.entries}`)")
            lines.append(f"| `{f.name}` | {shown} |")
        if self.figures:
            lines += ["", "figures: " + ", ".join(f"`{m}`" for m in self.figures)]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = []
        for f in self.families:
            entries = self._loaded_entries(f)
            shown = (", ".join(f"<code>{html.escape(e.id)}</code>" for e in entries) if entries is not None
                     else f"not imported yet (<code>{html.escape(f.entries)}</code>)")
            rows.append(f"<tr><td><code>{html.escape(f.name)}</code></td><td>{shown}</td></tr>")
        return (f"<p><b>{html.escape(self.name)}</b>: {html.escape(self.title)} ({html.escape(self.source)})</p>"
                f"<table><tr><th>family</th><th>entries</th></tr>{''.join(rows)}</table>")
