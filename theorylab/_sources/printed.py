"""What a paper's source prints: the records of its labelled displays and numbered statements (Printed, SourceWarning,
Printout), and the text helpers both readers (reading.py for Markdown, tex.py for LaTeX) share."""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Iterable, Mapping

from .text import ParseFailure

_TRIM = 600          # a statement's printed text is cut (at a word) to about this many characters


# -- records ---------------------------------------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class Printed:
    """One labelled display or numbered statement as the source prints it.

    label: "(12)", "(3.2)", "(4a)" for a display; "Theorem 1", "Lemma B.1" for a statement. kind: "display" or
    "statement". text: the display's LaTeX (label, tag, \\label and \\nonumber removed, whitespace normalized; ""
    where the label stands on an empty display) or the statement's sentence(s) up to the paragraph's end (about 600
    characters at most). line: its 1-based line in the source. relations: None until parsed (`parse_printed`), then a
    tuple of SymPy relations (a display without a relation gives its one expression) or a ParseFailure; statements
    are never parsed. lead: for a display that opens with a relation ("= b"), the LaTeX printed just before it in the
    same chain (the previous display, or the previous lines of its align), whose last term is its left side.
    """

    label: str
    kind: str
    text: str
    line: int
    relations: tuple | ParseFailure | None = None
    lead: str = ""

    def __post_init__(self):
        if self.kind not in ("display", "statement"):
            raise ValueError(f"Printed {self.label}: kind must be 'display' or 'statement'; got {self.kind!r}")


@dataclass(frozen=True)
class SourceWarning:
    """Something of the source that was not read as a label: an unknown environment, a label with no display, an
    unclosed display. `str()` is one line."""

    line: int
    construct: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.construct}: {self.message}"


class Printout(list):
    """The labelled displays and statements of a source in document order, once per label (a list of Printed),
    with `warnings` (SourceWarning: what was not read, never dropped silently), `refs` (a .tex source's \\label
    keys -> labels, so \\eqref{eq:x} -> "(3)") and `fmt` ("md" or "tex")."""

    def __init__(self, items: Iterable[Printed] = (), *, warnings: Iterable[SourceWarning] = (),
                 refs: Mapping[str, str] | None = None, fmt: str = "md"):
        super().__init__(items)
        self.warnings = list(warnings)
        self.refs = dict(refs or {})
        self.fmt = fmt

    @property
    def labels(self) -> list[str]:
        return [p.label for p in self]

    def get(self, label: str) -> Printed | None:
        """The Printed of this label ("(12)", "Theorem 1"), or of a .tex \\label key; None if absent."""
        label = self.refs.get(label, label)
        return next((p for p in self if p.label == label), None)


# -- reading: common -------------------------------------------------------------------------------------------------

def _norm(s: str) -> str:
    return " ".join(s.split())


def _trim(s: str, n: int = _TRIM) -> str:
    s = _norm(s)
    if len(s) <= n:
        return s
    cut = s.rfind(" ", 0, n)
    return s[:cut if cut > n // 2 else n] + " …"


class _Lines:
    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def __call__(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos)

    def span(self, text: str, pos: int) -> tuple[int, int]:
        i = self(pos) - 1
        start = self.starts[i]
        end = text.find("\n", start)
        return start, (len(text) if end < 0 else end)


def _statement_text(text: str, start: int) -> str:
    """The statement's sentence(s) from `start` to the end of its paragraph; the next paragraph if that is empty."""
    paras = re.split(r"\n[ \t]*\n", text[start:start + 20 * _TRIM], maxsplit=3)
    first = paras[0].strip().lstrip(".:").strip()
    if not first and len(paras) > 1:
        first = next((p.strip() for p in paras[1:] if p.strip()), "")
    return _trim(first)
