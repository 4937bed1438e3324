"""Reading a paper's source: `read_source` (a .tex or .md file or text -> a Printout), and the Markdown reader for
sources converted from PDF (the LaTeX reader is tex.py)."""
from __future__ import annotations

import bisect
import re
from pathlib import Path
from typing import Sequence

from .printed import Printed, Printout, SourceWarning, _Lines, _norm, _statement_text
from .relations import _REL_RX
from .tex import _read_tex
from .text import _top_level


def read_source(path_or_text: str | Path, *, fmt: str | None = None, extra_patterns: Sequence[str] = ()
                ) -> Printout:
    """Every labelled display and numbered statement of a paper's source, in document order, once per label.

    path_or_text: a path (str or Path) to a .tex, .md or .txt file, or the source text itself. fmt: "tex" or "md";
    by default from the file's suffix (.tex -> tex), or for a text, "tex" where it has \\begin{equation|align|
    gather|multline|document} or \\section, else "md". extra_patterns: regular expressions whose first group is an
    equation number, for a Markdown source's own layout (as `coverage.labels_in_text` takes them).

    Markdown (converted from PDF): displays `$$ … $$` labelled by `\\tag{k}`, `\\quad (k)`, a `(k)` before the
    closing `$$` or after it, `(k)` alone on the next line(s), an inline `$ … $ (k)`, or a line of an HTML
    conversion ending in `\\displaystyle … (k)`; statements are lines starting "Theorem 3.6", "Lemma B.1",
    "Proposition 3", "Corollary 2". LaTeX: see `_read_tex`. Returns a Printout (a list of Printed) whose
    `warnings` list what was not read (unknown environments, labels on no display, unclosed displays,
    braces that do not balance, no label at all).
    """
    text, suffix = None, ""
    if isinstance(path_or_text, Path) or ("\n" not in path_or_text and len(path_or_text) < 4096
                                          and Path(path_or_text).suffix.lower() in (".tex", ".md", ".txt", ".markdown")
                                          and Path(path_or_text).is_file()):
        p = Path(path_or_text)
        text, suffix = p.read_text(encoding="utf-8"), p.suffix.lower()
    else:
        text = str(path_or_text)
    if fmt is None:
        if suffix:
            fmt = "tex" if suffix == ".tex" else "md"
        else:
            fmt = "tex" if re.search(r"\\begin\{(?:equation|align|gather|multline|document)\*?\}|\\section\*?\{",
                                     text) and "$$" not in text else "md"
    if fmt not in ("tex", "md"):
        raise ValueError(f"read_source: fmt must be 'tex' or 'md'; got fmt={fmt!r}")
    out = _read_tex(text) if fmt == "tex" else _read_md(text, extra_patterns)
    if not len(out):
        # #35: a source with no label read is said so, never an empty list that looks like a read
        out.warnings.append(SourceWarning(1, "the source", "no labelled display or numbered statement was read "
                                          "(\\label in an equation or align, \\tag, (k) after a $$ display): "
                                          "nothing to compare"))
    return out


# -- reading: Markdown -----------------------------------------------------------------------------------------------

_N = r"(\d+[a-z]?)"
_MD_LABELS = tuple(re.compile(p, re.M) for p in (
    r"\\tag\{" + _N + r"\}",                    # $$ ... \tag{12} $$
    r"\$\$\s*\(" + _N + r"\)\s*\$\$",           # $$(12)$$
    r"^[ \t]*\(" + _N + r"\)[ \t]*$",           # (12) alone on its line, after the display
    r"\\quad\s*\(" + _N + r"\)",                # $$ ... \quad (22)$$ (closed there or not)
    r"\$\$\s*\(" + _N + r"\)\s*$",              # $$ ... $$ (7)
    r"\s\(" + _N + r"\)\s*\$\$",                # $$ ... (7)$$
    r"\$\s*\(" + _N + r"\)\s*$",                # $ ... $ (18): an inline display labelled after its dollar sign
))
# a line of math ending in " (n)" (an HTML conversion's "\displaystyle ... (6)"): only on lines with LaTeX in them
_MD_LINE_END = re.compile(r"\s\(" + _N + r"\)[ \t]*$", re.M)
_STATEMENT = re.compile(r"^\W{0,4}(Theorem|Lemma|Proposition|Corollary)\s+([A-Z]?\d+(?:\.\d+)*|[A-Z]\.\d+)\b", re.M)
_GAP = re.compile(r"(?:\s|\d+)*")              # between a display and its label: blank lines and line numbers


def _overlapping(pat: re.Pattern, text: str):
    """Matches of pat that may share characters ("$$ (3) $$(4)$$": both labels), each starting after the previous
    match's number."""
    pos = 0
    while True:
        m = pat.search(text, pos)
        if not m:
            return
        yield m
        pos = max(m.end(1), m.start() + 1)


def _strip_md_label(content: str, num: str) -> str:
    n = re.escape(num)
    content = re.sub(r"\\tag\*?\{" + n + r"\}", " ", content)
    content = re.sub(r"(?:\\q?quad)?\s*\(" + n + r"\)\s*$", " ", content)
    content = re.sub(r"^\s*\(" + n + r"\)\s*$", " ", content)
    return _norm(content)


def _html_display(line: str, num: str) -> str:
    """The LaTeX of an HTML conversion's display line: each `\\displaystyle` cell up to the rendered text after it."""
    line = re.sub(r"\s\(" + re.escape(num) + r"\)[ \t]*$", "", line)
    cells = []
    for part in line.split("\\displaystyle")[1:]:
        bad = next((i for i, c in enumerate(part) if ord(c) > 127), None)
        if bad is not None:
            cut = part.rfind(" ", 0, bad)
            part = part[:cut] if cut > 0 else part[:bad]
        cells.append(part.strip())
    return _norm(" ".join(c for c in cells if c))


# between a continuation display and the display it continues: blank lines, line numbers, labels, and a conversion's
# stray punctuation alone on its line (":")
_LEAD_GAP = re.compile(r"(?:\s|\d+|\(\d+[a-z]?\)|(?<![^\n])[ \t]*[:;,.][ \t]*(?=\n))*")


def _read_md(text: str, extra_patterns: Sequence[str] = ()) -> Printout:
    lines = _Lines(text)
    warnings: list[SourceWarning] = []
    toks = [m.start() for m in re.finditer(r"\$\$", text)]
    if len(toks) % 2:
        warnings.append(SourceWarning(lines(toks[-1]), "$$", "a display opened here is never closed; not read"))
    blocks = [(toks[i], toks[i + 1] + 2) for i in range(0, len(toks) - 1, 2)]
    opens = [b[0] for b in blocks]

    hits: list[tuple[int, str, int, str]] = []          # (position, label, position of the number, number)
    for pat in (*_MD_LABELS, *(re.compile(p, re.M) for p in extra_patterns)):
        hits += [(m.start(), f"({m.group(1)})", m.start(1), m.group(1)) for m in _overlapping(pat, text)]
    for m in _MD_LINE_END.finditer(text):
        a, b = lines.span(text, m.start(1))
        if re.search(r"\\[A-Za-z]|\$|=", text[a:b]):
            hits.append((m.start(), f"({m.group(1)})", m.start(1), m.group(1)))
    statements = [(m.start(), f"{m.group(1)} {m.group(2)}", m.end(), "") for m in _STATEMENT.finditer(text)]

    def block_at(pos: int) -> int | None:
        i = bisect.bisect_right(opens, pos) - 1
        return i if i >= 0 and blocks[i][0] < pos < blocks[i][1] else None

    def content(i: int) -> str:
        return text[blocks[i][0] + 2:blocks[i][1] - 2]

    labelled = set()                                         # blocks that carry their own (non-empty) label
    for _, _, g, num in hits:
        i = block_at(g)
        if i is not None and _strip_md_label(content(i), num):
            labelled.add(i)

    def before(end: int) -> tuple[str, int] | None:
        """The unlabelled display just before `end` (only blank lines and line numbers between), with its line."""
        i = bisect.bisect_right(opens, end) - 1
        while i >= 0 and blocks[i][1] > end:
            i -= 1
        if i < 0 or i in labelled or not _GAP.fullmatch(text[blocks[i][1]:end]):
            return None
        return _norm(content(i)), lines(blocks[i][0]), blocks[i][0]

    def lead_of(pos: int, depth: int = 0) -> str:
        """The display just before the one at pos (only labels, line numbers and blank lines between), unlabelled;
        where that display states no relation (it continues the one before it: "- 2 d_0^2 ..."), the display before
        it is prepended (up to three displays back), so the lead's last term is the whole printed side."""
        i = bisect.bisect_right(opens, pos) - 1
        while i >= 0 and blocks[i][1] > pos:
            i -= 1
        if i < 0 or not _LEAD_GAP.fullmatch(text[blocks[i][1]:pos]):
            return ""
        own = _norm(re.sub(r"\\tag\*?\{[^}]*\}|(?:\\q?quad)?\s*\(\d+[a-z]?\)\s*$", " ", content(i)))
        if not own and depth < 3:
            # a display that is only a label ($$\tag{89}$$ after the display it numbers): the display before it
            return lead_of(blocks[i][0], depth + 1)
        if depth < 3 and re.match(r"\s*[+\-]", own) and not _top_level(own, _REL_RX):
            before_it = lead_of(blocks[i][0], depth + 1)
            if before_it:
                return before_it + " " + own
        return own

    def display(start: int, g: int, num: str) -> tuple[str, int, int]:
        """(text, line, position of the display) of the label whose number is at g."""
        i = block_at(g)
        if i is not None:
            own = _strip_md_label(content(i), num)
            if own:
                return own, lines(blocks[i][0]), blocks[i][0]
            return before(blocks[i][0]) or ("", lines(g), g)
        a, b = lines.span(text, g)
        line = text[a:b]
        if "\\displaystyle" in line:
            return _html_display(line, num), lines(g), a
        inline = re.search(r"\$([^$]+)\$\s*\(" + re.escape(num) + r"\)\s*$", line)
        if inline:
            return _norm(inline.group(1)), lines(g), a
        return before(g - 1) or ("", lines(g), g)

    order: dict[str, int] = {}
    found: dict[str, Printed] = {}
    for start, label, g, num in sorted(hits + statements):
        order.setdefault(label, start)
        if label in found and found[label].text:
            continue
        if num:
            txt, line, at = display(start, g, num)
            lead = lead_of(at) if re.match(r"\s*(?:=|\\le|\\ge|<|>|\\approx|\\succ|\\prec|&|[+\-])", txt) else ""
            found[label] = Printed(label=label, kind="display", text=txt, line=line, lead=lead)
        else:
            found[label] = Printed(label=label, kind="statement", text=_statement_text(text, g), line=lines(start))
    out = [found[label] for label in sorted(order, key=order.get)]
    for p in out:
        if p.kind == "display" and not p.text:
            warnings.append(SourceWarning(p.line, p.label, "the label stands on no display (an empty display, or "
                                                           "its display carries another label): its text is empty"))
    return Printout(out, warnings=sorted(warnings, key=lambda w: w.line), fmt="md")
