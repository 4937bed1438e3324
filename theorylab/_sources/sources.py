"""Paper sources: every labelled display and numbered statement of a .tex or .md source, with its printed text.
Displays parse to SymPy relations via a NotationMap and latex2sympy2_extended (201 of the four papers' 228 labelled
displays with their notation maps; theorylab._pipeline.fidelity compares them with the steps that cite them). Parses are data
too (`parse_key`, `relations_to_json`): the built-in papers ship theirs beside their sources (`<source>.parses.json`,
keyed by PARSE_FORMAT, the parser's version, the text and the notation), so no machine parses them again."""
from __future__ import annotations

import bisect
import functools
import hashlib
import inspect
import json
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping, Sequence

import sympy as sp

from .text import (ParseFailure, _brace_arg, _Fail, _match_close, _match_open, _scripts, _split_top, _T, _tidy,
                   _top_level)

__all__ = ["Printed", "Printout", "SourceWarning", "ParseFailure", "NotationMap", "PARSERS", "DEFAULT_PARSER",
           "read_source", "parse_display", "parse_printed", "parse_report", "PARSE_FORMAT", "parse_key",
           "parser_version", "notation_key", "relations_to_json", "relations_from_json", "shipped_path",
           "read_parses", "write_parses"]

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


def _replacement(repl: Any) -> Callable[[re.Match], str]:
    """A rewrite's replacement as a function of the match: a callable as is; a string is literal LaTeX in which
    only \\1 .. \\9 and \\g<name> refer to the pattern's groups (so \\langle, \\frac stay literal)."""
    if callable(repl):
        return repl
    parts = re.split(r"(\\\d|\\g<\w+>)", str(repl))

    def expand(m: re.Match) -> str:
        out = []
        for i, p in enumerate(parts):
            if i % 2 == 0:
                out.append(p)
            else:
                key = p[1:] if p[1].isdigit() else p[3:-1]
                out.append(m.group(int(key) if key.isdigit() else key) or "")
        return "".join(out)
    return expand


@dataclass(frozen=True, kw_only=True)
class NotationMap:
    """A paper's notation: how its LaTeX maps to SymPy.

    rewrites: ordered (pattern, replacement) pairs applied to a display's LaTeX before parsing. A pattern given as
        a string is literal LaTeX; a compiled `re.Pattern` is a regular expression. A replacement is LaTeX (in which
        \\1 .. \\9 and \\g<name> insert the pattern's groups), or a function of the match.
    symbols: names as the parse gives them -> SymPy objects. A name is the canonical LaTeX of a symbol: "x",
        "\\alpha", "\\tilde{r}", "\\mathcal{L}", "w^{(1)}", "m_{0h}^{(1)}", "\\|\\cdot\\|_{2}" (a norm),
        "\\langle\\cdot,\\cdot\\rangle", "(\\cdot)_{+}", "\\operatorname{tr}"; bold (\\boldsymbol, \\mathbf, \\vec,
        \\bm) is dropped. A symbol with single-letter indices (x_i, W_{l+1}, beta_{o,d}) is the IndexedBase of its
        other parts indexed by them: map its base name to an IndexedBase, a Function or any callable, or its full
        name ("x_{i}") to an object. A name applied to arguments, f(x, y), calls the mapped object (an undefined
        Function of that name if unmapped). Defaults: "e" -> E, "\\pi" -> pi. A name bound to a matrix (an
        sp.MatrixSymbol, an sp.Matrix, any matrix expression; "W_{l}" and "W_{l+1}" as full names) is a matrix: its
        products keep the printed order, W^T / W^{\\top} / W^{\\mathsf{T}} is its transpose, and norms and inner
        products of matrices mean tr(A^T A) and tr(A^T B) (PARSE_FORMAT 4).

    Example::

        NotationMap(rewrites=((r"\\operatorname{arcsinh}", r"\\arsinh"), (re.compile(r"\\mathrm\\{aux\\}"), "a"))),
                    symbols={"z": sp.Symbol("z", real=True)})
    """

    rewrites: tuple = ()
    symbols: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self):
        rw = tuple(self.rewrites.items()) if isinstance(self.rewrites, Mapping) else tuple(self.rewrites)
        for item in rw:
            if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], (str, re.Pattern))):
                raise ValueError(f"NotationMap: each rewrite is a (pattern, replacement) pair with a str or re.Pattern "
                                 f"pattern; got {item!r}")
        object.__setattr__(self, "rewrites", rw)
        object.__setattr__(self, "symbols", MappingProxyType(dict(self.symbols)))

    def compiled(self) -> list[tuple[re.Pattern, Callable[[re.Match], str]]]:
        return [(p if isinstance(p, re.Pattern) else re.compile(re.escape(p)), _replacement(r))
                for p, r in self.rewrites]


_NO_NOTATION = NotationMap()


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
    `warnings` list what was not read (unknown environments, labels on no display, unclosed displays).
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
    if fmt == "tex":
        return _read_tex(text)
    if fmt == "md":
        return _read_md(text, extra_patterns)
    raise ValueError(f"read_source: fmt must be 'tex' or 'md'; got fmt={fmt!r}")


def _statement_text(text: str, start: int) -> str:
    """The statement's sentence(s) from `start` to the end of its paragraph; the next paragraph if that is empty."""
    paras = re.split(r"\n[ \t]*\n", text[start:start + 20 * _TRIM], maxsplit=3)
    first = paras[0].strip().lstrip(".:").strip()
    if not first and len(paras) > 1:
        first = next((p.strip() for p in paras[1:] if p.strip()), "")
    return _trim(first)


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


# -- reading: LaTeX --------------------------------------------------------------------------------------------------

_ROWS = ("align", "gather", "flalign", "alignat", "eqnarray", "xalignat")      # one number per line
_ONE = ("equation", "multline", "displaymath")                                  # one number for the display
_UNNUMBERED = ("displaymath",)
_TEXT_ENVS = {"document", "abstract", "itemize", "enumerate", "description", "figure", "table", "center", "proof",
              "quote", "quotation", "tabular", "tabularx", "minipage", "thebibliography", "verbatim", "flushleft",
              "flushright", "algorithm", "algorithmic", "lstlisting", "tikzpicture", "wrapfigure", "subfigure",
              "small", "footnotesize", "remark", "example", "definition", "assumption", "acknowledgments",
              "acknowledgements", "appendices", "titlepage", "frame", "list", "sloppypar", "comment", "split",
              "aligned", "gathered", "cases", "array", "matrix", "pmatrix", "bmatrix", "vmatrix", "Vmatrix"}
_DEFAULT_THEOREMS = {"theorem": "Theorem", "lemma": "Lemma", "proposition": "Proposition", "corollary": "Corollary"}
_TEX_TOKEN = re.compile(
    r"\\begin\s*\{(?P<begin>[^}]*)\}|\\end\s*\{(?P<end>[^}]*)\}"
    r"|\\(?P<sec>section|subsection)\s*(?P<star>\*?)\s*(?:\[[^\]]*\])?\s*\{"
    r"|\\(?P<appendix>appendix)\b"
    r"|\\numberwithin\s*\{(?P<nw_counter>[^}]*)\}\s*\{(?P<nw_within>[^}]*)\}"
    r"|\\newtheorem(?P<nt_star>\*?)\s*\{(?P<nt_env>[^}]*)\}\s*(?:\[(?P<nt_shared>[^\]]*)\])?\s*\{(?P<nt_title>[^}]*)\}"
    r"\s*(?:\[(?P<nt_within>[^\]]*)\])?"
    r"|\\setcounter\s*\{(?P<sc_counter>[^}]*)\}\s*\{(?P<sc_value>-?\d+)\}"
    r"|(?P<bracket>(?<!\\)\\\[)|(?P<dollars>\$\$)")
_LABEL = re.compile(r"\\label\s*\{([^}]*)\}")
_TAG = re.compile(r"\\tag(\*?)\s*\{([^}]*)\}")
_NONUMBER = re.compile(r"\\(?:nonumber|notag)\b")


def _strip_comments(text: str) -> str:
    """LaTeX comments blanked (lengths and lines kept, so positions still point into the source)."""
    return re.sub(r"(?<!\\)%[^\n]*", lambda m: " " * len(m.group(0)), text)


def _split_rows(body: str) -> list[tuple[int, str]]:
    """The lines of an align-like body at its top-level `\\\\` (not inside braces or nested environments)."""
    rows, depth, env, start, i = [], 0, 0, 0, 0
    while i < len(body):
        c = body[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "\\":
            if body.startswith("\\begin", i):
                env += 1
            elif body.startswith("\\end", i):
                env -= 1
            elif body.startswith("\\\\", i) and depth == 0 and env == 0:
                rows.append((start, body[start:i]))
                i += 2
                m = re.match(r"\*?\s*(?:\[[^\]]*\])?", body[i:])
                i += m.end()
                start = i
                continue
            i += 2
            continue
        i += 1
    rows.append((start, body[start:]))
    return rows


def _read_tex(text: str) -> Printout:
    """LaTeX: equation, align, gather, multline, flalign, alignat, eqnarray (and starred), \\[ \\], $$ $$;
    \\label, \\tag, \\tag*, \\nonumber/\\notag; subequations (4a, 4b); numbered as LaTeX numbers them: each line of
    align-like environments unless \\nonumber (empty lines are not numbered), per section where
    \\numberwithin{equation}{section} (or subsection) says so, sections lettered after \\appendix; theorem,
    lemma, proposition, corollary (each its own counter unless declared) and every \\newtheorem environment
    (shared counters `\\newtheorem{lemma}[theorem]{Lemma}`, per-section `\\newtheorem{theorem}{Theorem}[section]`)
    are numbered statements. An environment that is neither math, theorem-like nor a known text environment is
    reported in `warnings`, as is a \\label on an unnumbered line."""
    return _TexReader(text).run()


class _TexReader:
    """`_read_tex` in named parts: the counters and what was read (state), `display` (a math environment's lines),
    and one handler per token of `_TEX_TOKEN` (`begin`, `end`, `section`, `newtheorem`, `math`)."""

    def __init__(self, text: str):
        self.text = _strip_comments(text)
        self.lines = _Lines(self.text)
        self.out: list[Printed] = []
        self.warnings: list[SourceWarning] = []
        self.refs: dict[str, str] = {}
        self.seen: set[str] = set()
        self.sec = [0, 0]                                          # section, subsection
        self.appendix = False
        self.within: dict[str, str] = {}                           # counter -> section | subsection
        self.counters: Counter = Counter()
        self.theorems: dict[str, tuple[str, str | None]] = {}      # env -> (title, counter or None when unnumbered)
        self.declared: set[str] = set()
        self.sub: list = []                                        # [parent number, letters used] in subequations

    def run(self) -> Printout:
        text, pos = self.text, 0
        while True:
            m = _TEX_TOKEN.search(text, pos)
            if not m:
                break
            pos = m.end()
            g = m.lastgroup
            if m.group("begin") is not None:
                pos = self.begin(m, pos)
            elif m.group("end") is not None:
                if m.group("end").strip() == "subequations":
                    self.sub.clear()
            elif g == "star" or m.group("sec"):
                self.section(m)
            elif g == "appendix":
                self.appendix, self.sec[0], self.sec[1] = True, 0, 0
            elif m.group("nw_counter") is not None:
                self.within[m.group("nw_counter").strip()] = m.group("nw_within").strip()
            elif m.group("nt_env") is not None:
                self.newtheorem(m)
            elif m.group("sc_counter") is not None:
                if m.group("sc_counter").strip() == "equation":
                    self.counters["equation"] = int(m.group("sc_value"))
            elif g in ("bracket", "dollars"):
                pos = self.math(m, g, pos)
        return Printout(self.out, warnings=sorted(self.warnings, key=lambda w: w.line), refs=self.refs, fmt="tex")

    # -- numbering ---------------------------------------------------------------------------------------------------

    def prefix(self, counter: str) -> str:
        w = self.within.get(counter)
        s = (chr(64 + self.sec[0]) if self.appendix and self.sec[0] else str(self.sec[0]))
        return {"section": f"{s}.", "subsection": f"{s}.{self.sec[1]}."}.get(w, "")

    def next_eq(self) -> str:
        if self.sub:
            self.sub[1] += 1
            return f"({self.sub[0]}{chr(96 + self.sub[1])})"
        self.counters["equation"] += 1
        return f"({self.prefix('equation')}{self.counters['equation']})"

    def add(self, p: Printed):
        if p.label in self.seen:
            self.warnings.append(SourceWarning(p.line, p.label, "the label is printed twice; the first is kept"))
            return
        self.seen.add(p.label)
        self.out.append(p)

    # -- displays ----------------------------------------------------------------------------------------------------

    def display(self, env: str, body: str, at: int, starred: bool):
        """A math environment's body: each numbered line (align-like) or the display, with its label and lead."""
        rows = _split_rows(body) if env in _ROWS else [(0, body)]
        before = []
        for off, row in rows:
            tag = _TAG.search(row)
            keys = _LABEL.findall(row)
            clean = _norm(_NONUMBER.sub(" ", _LABEL.sub(" ", _TAG.sub(" ", row))))
            if env == "multline":
                clean = _norm(clean.replace("\\\\", " "))
            if not clean and not tag:
                continue
            if tag:
                label = tag.group(2) if tag.group(1) else f"({tag.group(2)})"
            elif not starred and not _NONUMBER.search(row) and env not in _UNNUMBERED:
                label = self.next_eq()
            else:
                label = None
            pos = at + off + (len(row) - len(row.lstrip()))
            if label:
                lead = before[-1] if before and re.match(r"&?\s*&?\s*(?:=|\\le|\\ge|<|>|\\approx)", clean) else ""
                self.add(Printed(label=label, kind="display", text=clean, line=self.lines(pos), lead=lead))
                for k in keys:
                    self.refs[k] = label
            elif keys:
                self.warnings.append(SourceWarning(self.lines(pos), f"\\label{{{keys[0]}}}",
                                                   "a label on an unnumbered line refers to no number here"))
            before.append(clean)

    def math(self, m: re.Match, g: str, pos: int) -> int:
        """\\[ ... \\] or $$ ... $$: an unnumbered display (numbered only by its \\tag)."""
        text = self.text
        close = "\\]" if g == "bracket" else "$$"
        end = text.find(close, m.end())
        if end < 0:
            self.warnings.append(SourceWarning(self.lines(m.start()), m.group(0), "a display never closed; not read"))
            return pos
        self.display("displaymath", text[m.end():end], m.end(), True)
        return end + len(close)

    # -- environments, sections, theorem declarations ----------------------------------------------------------------

    def begin(self, m: re.Match, pos: int) -> int:
        """\\begin{env}: a math environment, subequations, a theorem-like statement, or a known or unknown text
        environment; the position to read on from."""
        text = self.text
        env = m.group("begin").strip()
        base, starred = env.rstrip("*"), env.endswith("*")
        if base in _ROWS or base in _ONE:
            end = text.find(f"\\end{{{env}}}", m.end())
            if end < 0:
                self.warnings.append(SourceWarning(self.lines(m.start()), f"\\begin{{{env}}}",
                                                   "never ended; not read"))
                return pos
            start = m.end()
            if base in ("alignat", "xalignat"):
                arg = re.match(r"\s*\{[^}]*\}", text[start:end])
                start += arg.end() if arg else 0
            self.display(base, text[start:end], start, starred)
            return end + len(f"\\end{{{env}}}")
        if env == "subequations":
            self.counters["equation"] += 1
            self.sub[:] = [f"{self.prefix('equation')}{self.counters['equation']}", 0]
            head = text[m.end():m.end() + 200]
            lab = re.match(r"\s*\\label\s*\{([^}]*)\}", head)
            if lab:
                self.refs[lab.group(1)] = f"({self.sub[0]})"
        elif env in self.theorems or (env in _DEFAULT_THEOREMS and env not in self.declared):
            self.statement(m, env)
        elif env not in _TEXT_ENVS and env.rstrip("*") not in _TEXT_ENVS:
            self.warnings.append(SourceWarning(self.lines(m.start()), f"\\begin{{{env}}}",
                                               "an environment theorylab does not know: its contents are read as text "
                                               "(no display or statement in it is numbered by it)"))
        return pos

    def statement(self, m: re.Match, env: str):
        """A theorem-like environment: a numbered statement (its counter, its \\label)."""
        text = self.text
        title, counter = self.theorems.get(env, (_DEFAULT_THEOREMS.get(env), env))
        end = text.find(f"\\end{{{env}}}", m.end())
        body = text[m.end():end if end >= 0 else len(text)]
        opt = re.match(r"\s*\[[^\]]*\]", body)
        body = body[opt.end():] if opt else body
        if counter is None:
            return
        self.counters[counter] += 1
        label = f"{title} {self.prefix(counter)}{self.counters[counter]}"
        head = re.split(r"\\begin\s*\{", body, maxsplit=1)[0]
        for k in _LABEL.findall(head)[:1]:
            self.refs[k] = label
        self.add(Printed(label=label, kind="statement", line=self.lines(m.start()),
                         text=_statement_text(_LABEL.sub(" ", body), 0)))

    def section(self, m: re.Match):
        """\\section / \\subsection (unstarred): the counters numbered within them reset."""
        if m.group("star"):
            return
        if m.group("sec") == "section":
            self.sec[0], self.sec[1] = self.sec[0] + 1, 0
            resets = ("section", "subsection")
        else:
            self.sec[1] += 1
            resets = ("subsection",)
        for c, w in self.within.items():
            if w in resets:
                self.counters[c] = 0

    def newtheorem(self, m: re.Match):
        """\\newtheorem{env}[shared]{Title}[within] (starred: unnumbered)."""
        env, title = m.group("nt_env").strip(), m.group("nt_title").strip()
        self.declared.add(env)
        if m.group("nt_star"):
            self.theorems[env] = (title, None)
            return
        shared = (m.group("nt_shared") or "").strip()
        counter = (self.theorems[shared][1] if shared in self.theorems and self.theorems[shared][1]
                   else (shared or env))
        self.theorems[env] = (title, counter)
        if m.group("nt_within"):
            self.within[counter] = m.group("nt_within").strip()


# -- parsing ---------------------------------------------------------------------------------------------------------

def _cleanup(t: _T) -> _T:
    """Layout and style removed: what carries no mathematics, with sizes and spacing."""
    for pat, rep in _CLEANUP:
        for _ in range(3):                       # nested (\bm{\hat{\bm{x}}}) and repeated forms
            new = t.sub(pat, rep)
            if new.s == t.s:
                break
            t = new
    t = _pairs(t, r"\\underbrace\s*\{", "underbrace")
    t = _pairs(t, r"\\overbrace\s*\{", "underbrace")
    t = _pairs(t, r"\\[|]|\\lVert|\\rVert|\|\|", "norm")
    t = _pairs(t, r"\\langle", "inner")
    t = _pairs(t, r"\\mathbb\{E\}(?:_\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}|_[A-Za-z])?\s*\[", "expectation")
    t = _pairs(t, r"\\(?:max|min)\s*\\\{", "setfun")
    t = _pairs(t, r"\)\s*_\s*(?:\+|\{\+\})", "relu")
    return t.sub(_BRACKET, lambda m: "(" if m.group(0) == "[" else ")")     # [ ] group as ( ) do


def _pairs(t: _T, opener: str, kind: str) -> _T:
    """Rewrites of delimited constructs the parsers lack, found by matching delimiters:
    norms -> \\nrm{sub}(x), <a, b> -> \\inn(a, b), E[x] -> E(x), \\max\\{a,b\\} -> \\max(a,b), (x)_+ -> \\relu(x),
    \\underbrace{x}_{note} -> {x}."""
    rx = re.compile(opener)
    for _ in range(50):
        s = t.s
        if kind == "norm":
            ms = list(rx.finditer(s))
            if len(ms) < 2:
                return t
            a, b = ms[0], ms[1]
            inner = s[a.end():b.start()]
            rest = s[b.end():]
            sm = re.match(r"\s*_\s*(\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}|[A-Za-z0-9])", rest)
            sub = sm.group(1) if sm else ""
            sub = sub[1:-1] if sub.startswith("{") else sub
            end = b.end() + (sm.end() if sm else 0)
            head = _T("\\nrm{" + sub + "}(", [t.at(a.start())] * (len(sub) + 8))
            t = t[:a.start()] + head + t[a.end():b.start()] + _T(")", [t.at(b.start())]) + t[end:]
            continue
        m = rx.search(s)
        if not m:
            return t
        if kind == "inner":
            j = _match_close(s, m.start(), "\\langle", "\\rangle")
            if j < 0:
                return t
            after = j + len("\\rangle")
            sm = re.match(r"\s*_\s*(\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}|[A-Za-z0-9])", s[after:])
            head = "\\inn" + (sm.group(1) if sm and sm.group(1).startswith("{") else "{" + sm.group(1) + "}" if sm
                               else "") + "("
            t = t[:m.start()] + _T(head, [t.at(m.start())] * len(head)) + t[m.end():j] + _T(")", [t.at(j)]) \
                + t[after + (sm.end() if sm else 0):]
        elif kind == "expectation":
            k = m.end() - 1
            j = _match_close(s, k, "[", "]")
            if j < 0:
                return t
            t = t[:k] + _T("(", [t.at(k)]) + t[k + 1:j] + _T(")", [t.at(j)]) + t[j + 1:]
        elif kind == "setfun":
            k = m.end() - 2
            j = _match_close(s, k, "\\{", "\\}")
            if j < 0:
                return t
            t = t[:k] + _T("(", [t.at(k)]) + t[k + 2:j] + _T(")", [t.at(j)]) + t[j + 2:]
        elif kind == "relu":
            close = m.start()
            i = _match_open(s, close)
            if i < 0:
                return t
            t = t[:i] + _T("\\relu(", [t.at(i)] * 6) + t[i + 1:close] + _T(")", [t.at(close)]) + t[m.end():]
        elif kind == "underbrace":
            k = m.end() - 1
            j = _match_close(s, k, "{", "}")
            if j < 0:
                return t
            after = _brace_arg(s, j + 1) if re.match(r"\s*_", s[j + 1:]) else None
            end = j + 1
            if after is not None:
                u = s.index("_", j + 1)
                arg = _brace_arg(s, u + 1)
                end = arg[1] if arg else j + 1
            t = t[:m.start()] + _T("{", [t.at(m.start())]) + t[k + 1:j] + _T("}", [t.at(j)]) + t[end:]
    return t


_BRACKET = re.compile(r"(?<!\\sqrt)\[|\]")
_CLEANUP = tuple((re.compile(p), r) for p, r in (
    (r"\\(?:displaystyle|textstyle|scriptstyle|scriptscriptstyle|limits|nolimits|nonumber|notag)(?![A-Za-z])", " "),
    (r"\\label\s*\{[^}]*\}|\\tag\*?\s*\{[^}]*\}", " "),
    (r"\\(?:big|Big|bigg|Bigg)[lrm]?\s*\{(\\?.)\}", lambda m: m.group(1)),          # HTML conversions: \Big{(}
    (r"\\(?:big|Big|bigg|Bigg)[lrm]?(?![A-Za-z])", ""),
    (r"\\(?:left|right)\s*\.", ""),
    # \left| x \right|: an absolute value's bars, kept tight to their contents (never a conditional bar f(x | y))
    (r"\\left\s*\|\s*", "|"), (r"\s*\\right\s*\|", "|"),
    (r"\\(?:left|right)(?![A-Za-z])", ""),
    (r"\\(?:hskip|kern|mkern|mskip)\s*-?[\d.]+\s*(?:pt|em|mu|ex)?", " "),
    (r"\\[hv]space\*?\s*\{[^}]*\}|\\(?:hfill|allowbreak|nobreak|mathstrut|strut|phantom\{[^}]*\})", " "),
    (r"\\[,;:!> ]|~", " "),
    (r"\\(?:tfrac|dfrac|cfrac)(?![A-Za-z])", r"\frac"),
    # a bold name right after a command's letters, n\lambda\boldsymbol{I}: kept apart from it (never \lambdaI)
    (r"(?<=[A-Za-z])(?=\\(?:vec|boldsymbol|bm|mathbf|mathbfit|pmb|mathbold)\s*\{)", " "),
    (r"\\(?:vec|boldsymbol|bm|mathbf|mathbfit|pmb|mathbold)\s*\{\s*(\\?[A-Za-z]+)\s*\}", lambda m: m.group(1) + " "),
    (r"\\(?:vec|boldsymbol|bm|mathbf|mathbfit|pmb|mathbold)\s*\{([^{}]*)\}", lambda m: "{" + m.group(1) + "}"),
    (r"\\(?:vec|boldsymbol|bm|mathbf|pmb)\s+([A-Za-z])", lambda m: m.group(1)),
    (r"\{\s*\{([^{}]*)\}\s*\}", lambda m: "{" + m.group(1) + "}"),
    (r"(?<![\\_^A-Za-z}\]])\{\s*(\\?[A-Za-z]+)\s*\}", lambda m: m.group(1) + " "),
    (r"\{\s*\}", " "),
    # a braced name after a script, U_{l}{\Sigma}_{l} (from {\bm{\Sigma}}): the name, so its own scripts attach to it
    (r"([_^]\s*\{[^{}]*\}\s*)\{\s*(\\[A-Za-z]+|[A-Za-z])\s*\}(?=\s*[_^])", lambda m: m.group(1) + m.group(2) + " "),
    (r"\\operatorname\*", r"\operatorname"),
    (r"\\mathop\s*\{\s*\\mathrm\s*\{([^}]*)\}\s*\}", lambda m: "\\operatorname{" + m.group(1) + "}"),
    (r"\{\\rm\s+([A-Za-z]+)\}|\\rm\s+([A-Za-z]+)", lambda m: "{\\mathrm{" + (m.group(1) or m.group(2)) + "}}"),
    (r"\\(?:textrm|textnormal|textit|textup|mbox)\s*\{", r"\text{"),
    (r"\\circ(?![A-Za-z])", r"\cdot "),
    (r"\\(?:top|intercal|T)(?![A-Za-z])|\\mathsf\s*\{T\}|\\mathrm\s*\{T\}", "T"),
    (r"\\(?:leqslant|leq)(?![A-Za-z])", r"\le "),
    (r"\\(?:geqslant|geq)(?![A-Za-z])", r"\ge "),
    (r"\\(?:neq)(?![A-Za-z])", r"\ne "),
    (r"\\(?:lvert|rvert|vert)(?![A-Za-z])", "|"),
    (r"\\operatorname\s*\{\s*(?:arcsinh|arsinh|asinh)\s*\}|\\arcsinh(?![A-Za-z])", r"\arsinh "),
    (r"\\operatorname\s*\{\s*(?:arccosh|arcosh|acosh)\s*\}|\\arccosh(?![A-Za-z])", r"\arcosh "),
    (r"\\operatorname\s*\{\s*(?:arctanh|artanh|atanh)\s*\}|\\arctanh(?![A-Za-z])", r"\artanh "),
    (r"\\operatorname\s*\{\s*(sinh|cosh|tanh|exp|log|ln|sin|cos|tan)\s*\}", lambda m: "\\" + m.group(1) + " "),
    (r"\\mathrm\s*\{d\}", "d"),
    (r"\\ell(?![A-Za-z])", r"\ell "),
))

# displays with these constructs are beyond the parsers (the reason names the construct)
_UNSUPPORTED = tuple((re.compile(p), r) for p, r in (
    (r"\\begin\s*\{(?:cases|dcases)\}", "a case distinction (cases)"),
    (r"\\begin\s*\{(?:array|matrix|pmatrix|bmatrix|vmatrix|Vmatrix|smallmatrix)\}", "a matrix or array"),
    (r"\\partial(?![A-Za-z])", "a partial derivative not written \\frac{\\partial f}{\\partial x} (a subdifferential "
                                 "\\partial f, an operator \\partial_x)"),
    (r"\\(?:dots|cdots|ldots|vdots|ddots|dotsb|dotsm|dotsc)(?![A-Za-z])", "an ellipsis (\\dots)"),
    (r"\\(?:min|max|inf|sup|argmin|argmax|minimize|maximize)\s*_(?=.*\\text\s*\{\s*(?:s\.\s*t\.|subject))",
     "an optimization problem with constraints (s.t.): the constraint is part of its value"),
    (r"\\frac\s*\{\s*d\s*(?:\^\s*\{?\s*\d\s*\}?)?\s*\}\s*\{\s*d", "a derivative operator (\\frac{d}{dt} f)"),
    (r"\\(?:argmin|argmax|minimize|maximize)(?!\s*_)", "an optimization problem without its variable (argmin with no "
                                                       "subscript)"),
    (r"\\(?:odot|ominus|bigotimes|bigoplus)(?![A-Za-z])", "a tensor or direct sum (\\odot, \\bigoplus)"),
    (r"\\(?:underset|overset|stackrel|substack)(?![A-Za-z])", "a stacked symbol (\\underset)"),
    (r"\\(?:mid|vert)(?![A-Za-z])|(?<=[A-Za-z0-9}])\s\|\s(?=[A-Za-z\\])", "a conditional bar (f(x | y))"),
    (r"\\(?:forall|exists)(?![A-Za-z])", "a quantifier"),
    (r"\\(?:cup|cap|setminus|emptyset|subset|subseteq)(?![A-Za-z])", "a set operation"),
    (r"\\(?:sum|prod)(?![A-Za-z])(?!\s*[_^])", "a sum or product without limits i=1..n"),
    (r"\\middle(?![A-Za-z])", "a set defined by a condition ({x \\middle| ...}): a set, no value to compare"),
    (r"(?:\\(?:det|rank|tr|Tr|diag|vec|sign|sgn)\b|\\operatorname\s*\{\s*(?:tr|Tr|det|rank|diag|vec|sign|sgn)\s*\}"
     r"|\\mathrm\s*\{\s*(?:tr|Tr|vec|diag|rank|sign)\s*\})(?!\s*\()",
     "a matrix function (tr, det, vec, diag) not applied to a group in parentheses"),
))

_RELATIONS = {"=": "==", ":=": "==", "\\coloneqq": "==", "\\triangleq": "==", "\\equiv": "==", "\\doteq": "==",
              "\\eqqcolon": "==", "\\stackrel{\\text{def}}{=}": "==",
              "\\le": "<=", "\\ge": ">=", "<": "<", ">": ">", "\\ne": "!=", "\\lt": "<", "\\gt": ">"}
_OTHER_RELATIONS = ("\\approx", "\\simeq", "\\sim", "\\propto", "\\succcurlyeq", "\\preccurlyeq", "\\succeq",
                    "\\preceq", "\\succ", "\\prec", "\\ll", "\\gg", "\\asymp", "\\cong", "\\to", "\\rightarrow",
                    "\\mapsto", "\\ni", "\\in", "\\notin", "\\lesssim", "\\gtrsim")


class Approx(sp.core.relational.Relational):
    r"""A printed approximation, a \approx b (PARSE_FORMAT 4): kept as printed, never decided by SymPy; the comparison
    (theorylab._pipeline.fidelity) reads it as an equality at the step's stated tolerance."""

    __slots__ = ()
    rel_op = "approx"

    def _latex(self, printer):
        return f"{printer._print(self.lhs)} \\approx {printer._print(self.rhs)}"


class Propto(sp.core.relational.Relational):
    r"""A printed proportionality, a \propto b (PARSE_FORMAT 4): a = C b with C a constant in the variables the
    proportionality is about (theorylab._pipeline.fidelity says which); kept as printed, never decided by SymPy."""

    __slots__ = ()
    rel_op = "propto"

    def _latex(self, printer):
        return f"{printer._print(self.lhs)} \\propto {printer._print(self.rhs)}"


_APPROXIMATE = {"\\approx": "approx", "\\propto": "propto"}     # printed relations kept as Approx / Propto
_REL_CLASSES = {"approx": Approx, "propto": Propto}


def relation(lhs, rhs, op: str):
    """The printed relation lhs op rhs, unevaluated: op one of SymPy's (==, <=, <, >=, >, !=) or "approx", "propto"."""
    cls = _REL_CLASSES.get(op)
    return cls(lhs, rhs) if cls is not None else sp.Rel(lhs, rhs, op, evaluate=False)


_REL_RX = re.compile(r"(?::=|\\coloneqq|\\triangleq|\\equiv|\\doteq|\\eqqcolon|\\le(?![A-Za-z])|\\ge(?![A-Za-z])|"
                     r"\\ne(?![A-Za-z])|\\lt(?![A-Za-z])|\\gt(?![A-Za-z])|=|<|>|"
                     + "|".join(re.escape(r) + "(?![A-Za-z])" for r in _OTHER_RELATIONS) + ")")
_SEPARATORS = re.compile(r"\\q?quad(?![A-Za-z])|\\text\s*\{\s*(?:and|or|,)\s*\}|\\(?:implies|Rightarrow|"
                         r"Longrightarrow|iff|Leftrightarrow)(?![A-Za-z])|;")
_CONDITION = re.compile(r"\\(?:text|mathrm)\s*\{\s*(?:s\.\s*t\.|for|if|where|with|when|subject|such|as|since|"
                        r"otherwise|on|and\s+for)[^}]*\}|\\(?:forall)(?![A-Za-z])|\\text\s*\{\s*\}")


class _Names:
    """Symbols of a display replaced by placeholders the parsers read as one symbol (Q_{za}, Q_{zb}, ...)."""

    def __init__(self):
        self.table: dict[str, tuple[str, tuple[str, ...]]] = {}      # placeholder key -> (name, indices)
        self.by: dict[tuple[str, tuple[str, ...]], str] = {}
        self.apps: dict[str, tuple[str, list]] = {}      # application key -> (function placeholder, argument texts)
        self.plain: set[str] = set()                      # names the notation maps to a value: never applied
        self.runs: dict[str, tuple[str, str, bool]] = {}  # placeholder key -> (run name, factor base, transposed)

    def placeholder(self, name: str, indices: tuple[str, ...] = ()) -> str:
        key = (name, indices)
        if key not in self.by:
            n = len(self.by)
            code = "z" + "".join(chr(97 + (n // 26 ** k) % 26) for k in (2, 1, 0))
            self.by[key] = code
            self.table["Q" + code] = key
        return "Q_{" + self.by[key] + "}"

    def app(self, function: str, args: list) -> str:
        n = len(self.apps)
        code = "y" + "".join(chr(97 + (n // 26 ** k) % 26) for k in (2, 1, 0))
        self.apps["Q" + code] = (function, args)
        return "Q_{" + code + "}"


_ACCENTS = {"tilde": "tilde", "widetilde": "tilde", "hat": "hat", "widehat": "hat", "bar": "bar",
            "overline": "bar", "dot": "dot", "ddot": "ddot", "check": "check", "breve": "breve", "acute": "acute",
            "mathcal": "mathcal", "mathbb": "mathbb", "mathfrak": "mathfrak", "mathscr": "mathscr",
            "mathsf": "mathsf", "mathrm": "mathrm", "mathit": "mathit", "text": "text", "operatorname": "operatorname",
            "underline": "underline", "mathring": "mathring"}
_GREEK = set("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi omicron "
             "rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma "
             "Upsilon Phi Psi Omega ell pi".split())
_PASS = set("frac sqrt sum prod int lim to infty exp log ln lg sin cos tan csc sec cot sinh cosh tanh arsinh arcosh "
            "artanh arcsin arccos arctan min max cdot times div le ge ne lt gt".split())
_APPLIED = {"exp": sp.exp, "log": sp.log, "ln": sp.log, "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "sinh": sp.sinh,
            "cosh": sp.cosh, "tanh": sp.tanh, "arsinh": sp.asinh, "arcosh": sp.acosh, "artanh": sp.atanh,
            "arcsin": sp.asin, "arccos": sp.acos, "arctan": sp.atan}
_INDEX = re.compile(r"[A-Za-z](?:[+-]\d+|[+-][A-Za-z])?|\\(?:ell|[a-z]+)")


def _depth_scan(s: str, j: int):
    """Positions from j on at the depth of s[j] (stops where that group closes): yields (index, char)."""
    depth = 0
    while j < len(s):
        c = s[j]
        if c == "\\" and j + 1 < len(s) and s[j + 1] in "{}":
            j += 2
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return
        if depth == 0:
            yield j, c
        j += 1


def _integral(t: _T, j: int):
    r"""\int_a^b BODY dx (dy ...): (args for the application, index after it), or None when no differential ends it."""
    s = t.s
    sc, k = _scripts(s, j)
    for p, c in _depth_scan(s, k):
        if c != "d" or (p > 0 and (s[p - 1].isalpha() or s[p - 1] == "\\") and s[p - 1] != "d"
                        and not s[:p].rstrip().endswith("}")):
            continue
        # one differential, or a run of them (dx dy, \mathrm{d}x\mathrm{d}y: a multiple integral)
        m = re.match(r"(?:d\s*(?:\\[A-Za-z]+|[A-Za-z])\s*)*d\s*(\\[A-Za-z]+|[A-Za-z])(?![A-Za-z_^(])", s[p:])
        if not m:
            continue
        run = list(re.finditer(r"d\s*(\\[A-Za-z]+|[A-Za-z])", s[p:p + m.end()]))
        if any(d.group(1).startswith("\\") and d.group(1)[1:] not in _GREEK for d in run):
            continue
        if p > k and s[p - 1].isalpha() and s[p - 1] != " ":
            continue
        end = p + m.end()
        lo = t[sc["_"][0]:sc["_"][1]] if "_" in sc else None
        hi = t[sc["^"][0]:sc["^"][1]] if "^" in sc else None
        if len(run) > 1 and _top_level(s[k:p], re.compile(r"\\int(?![A-Za-z])")):
            # nested signs, \int \int f dx dy: this sign takes the last differential, the inner ones the others
            last = run[-1]
            return [t[k:p + last.start()], t[p + last.start(1):p + last.end(1)], lo, hi], end
        if not s[k:p].strip() and not _top_level(s[k:p], re.compile(r"\\int")):
            raise _Fail("an integral with its differential before its integrand (\\int dx f(x))", s[p:end].strip(),
                        t.at(p))
        if len(run) > 1 and (lo is not None or hi is not None):
            raise _Fail("one integral sign with bounds over several differentials (which bound is whose?)",
                        s[p:end].strip(), t.at(p))
        variables = [t[p + d.start(1):p + d.end(1)] for d in run]
        return [t[k:p], variables[0], lo, hi, *variables[1:]], end
    return None


def _limit(t: _T, j: int):
    r"""\lim_{x \to a} BODY (to the next top-level + or -, or the term's end): (args, index after it), or None."""
    s = t.s
    sc, k = _scripts(s, j)
    if "_" not in sc or "^" in sc:
        return None
    off = sc["_"][0]
    m = re.fullmatch(r"\s*(.+?)\s*(?:\\to|\\rightarrow)\s*(.+?)\s*", s[off:sc["_"][1]])
    if not m:
        return None
    var = t[off + m.start(1):off + m.end(1)]
    point = t[off + m.start(2):off + m.end(2)]
    end = len(s)
    for p, c in _depth_scan(s, k):
        if c in "+-" and s[k:p].strip():
            end = p
            break
    return [t[k:end], var, point, None], end


def _operand_end(s: str, a: int) -> int | None:
    r"""The end of the operand starting at s[a] (an operator's, \nabla's): a parenthesized group, or a symbol (a
    letter or Greek letter, its accent or font, its sub- and superscripts, primes) with its applied group f(x)."""
    if a >= len(s):
        return None
    if s[a] == "(":
        close = _match_close(s, a, "(", ")")
        return close + 1 if close > a + 1 else None
    if s[a] == "\\":
        m = re.match(r"\\([A-Za-z]+)", s[a:])
        if not m:
            return None
        j = a + m.end()
        if m.group(1) in _ACCENTS:
            arg = _brace_arg(s, j)
            if arg is None:
                return None
            j = arg[1]
        elif m.group(1) not in _GREEK:
            return None
    elif s[a].isalpha():
        j = a + 1
    else:
        return None
    while True:
        m = re.match(r"\s*(?:'+|([_^]))", s[j:])
        if not m:
            break
        if m.group(1) is None:
            j += m.end()
            continue
        arg = _brace_arg(s, j + m.end())
        if arg is None:
            break
        j = arg[1]
    m = re.match(r"\s*\(", s[j:])
    if m:
        close = _match_close(s, j + m.end() - 1, "(", ")")
        if close > 0:
            j = close + 1
    return j


def _untoken(name: str) -> str:
    r"""A name as printed where it holds a norm the cleanup rewrote: \nrm{BL}(h) is \|h\|_{BL} again."""
    return re.sub(r"\\nrm\{([^{}]*)\}\(([^()]*)\)", lambda m: "\\|" + m.group(2).strip() + "\\|"
                  + (f"_{{{m.group(1)}}}" if m.group(1) else ""), name)


def _inner_name(n_args: int, sub: str) -> str:
    r"""The name of an inner product: "\langle\cdot,\cdot\rangle" (two arguments) or "\langle\cdot\rangle" (one: the
    bracket as a mean), with its subscript, "\langle\cdot,\cdot\rangle_{L_{2}}"."""
    base = "\\langle\\cdot,\\cdot\\rangle" if n_args != 1 else "\\langle\\cdot\\rangle"
    return base + (f"_{{{_tidy(sub)}}}" if sub else "")


def _named_sum(t, j: int, body: bool = False):
    r"""\sum_{i \in A} X, \sum_{ij}^{M} X (a subscript without "="): the range the print leaves to its reader, so the
    sum is the named operator "\sum_{i\in A}" ("\sum_{ij}^{M}") applied to its body, which runs to the next
    top-level + or - (or the end of the term), as a notation map may define it. Without `body`: whether s[j:] is such
    a subscript; with it: ([body], index after it)."""
    s = t if isinstance(t, str) else t.s
    sc, k = _scripts(s, j)
    if "_" not in sc or "=" in s[sc["_"][0]:sc["_"][1]]:
        return None
    if not body:
        return True
    end = len(s)
    for p, c in _depth_scan(s, k):
        if c in "+-" and s[k:p].strip():
            end = p
            break
    if not s[k:end].strip():
        raise _Fail("a sum with no body", "\\sum", t.at(j))
    return [t[k:end]], end


def _component_app(t: _T, j: int, names: _Names, emit, in_integral: bool, at: int) -> int:
    r"""\qcomp{k}(X) (constructs.components: (X)_k, a component of a group) as the name "(\cdot)" indexed by k (or
    "(\cdot)_{k}" where k is no index) applied to X; the index after it."""
    s = t.s
    k, a = _brace_arg(s, j)
    while s[a] == " ":
        a += 1
    close = _match_close(s, a, "(", ")")
    key = names.placeholder("(\\cdot)", (k,)) if _INDEX.fullmatch(k) else names.placeholder(f"(\\cdot)_{{{k}}}")
    emit(names.app(key, [t[a + 1:close]]), at)
    return close + 1


def _run_placeholder(s: str, j: int, names: _Names, emit, at: int) -> int:
    r"""\dotsrun{A}{first}{last}{T?} (constructs.runs: a product W_1 \dots W_{L-1}) as the placeholder of its one
    name, constructs.run_name (constructs.RUN_TRANSPOSE of it where T marks a run of transposes); the index after it."""
    # lazy: constructs (~10 ms) only once a display is parsed; `theorylab eval` loads this module and never parses
    from .constructs import RUN_TRANSPOSE, run_name

    parts, k = [], j
    for _ in range(4):
        m = re.match(r"\s*\{", s[k:])
        close = _match_close(s, k + m.end() - 1, "{", "}")
        parts.append(s[k + m.end():close])
        k = close + 1
    base, first, last, flag = parts
    name = run_name(base, first, last)
    full = RUN_TRANSPOSE.format(name) if flag == "T" else name
    emit(names.placeholder(full), at)
    names.runs["Q" + names.by[(full, ())]] = (name, base, flag == "T")
    return k


def _convert(t: _T, names: _Names, in_integral: bool) -> _T:
    """A term's LaTeX with every symbol (a letter or Greek letter, its accents and fonts, name-like sub- and
    superscripts) replaced by a placeholder; operators, numbers, grouping and known functions pass through."""
    return _Converter(t, names, in_integral).run()


class _Converter:
    """One term's conversion (`_convert`), in named parts: `command` (a backslash command: the constructs read before
    parsing, operators, accents and fonts), `letter`, and `symbol` (a symbol's scripts and its application to a
    parenthesized group). Each part returns the index after what it read."""

    def __init__(self, t: _T, names: _Names, in_integral: bool):
        self.t, self.s, self.names, self.in_integral = t, t.s, names, in_integral
        self.out: list[_T] = []

    def emit(self, text: str, at: int):
        self.out.append(_T(text, [self.t.at(at)] * len(text)))

    def run(self) -> _T:
        s, i = self.s, 0
        while i < len(s):
            c = s[i]
            start = i
            if c == "\\":
                i, base = self.command(i)
            elif c.isalpha():
                i, base = self.letter(i)
            else:
                self.emit(c, i)
                i += 1
                continue
            if base is not None:
                i = self.symbol(start, i, base)
        res = _T("", [])
        for piece in self.out:
            res = res + piece
        return res

    # -- commands ----------------------------------------------------------------------------------------------------

    def command(self, i: int) -> tuple[int, str | None]:
        """The command at s[i]: (index after it, the base name of the symbol it starts, or None where it emitted
        all it read)."""
        s, t = self.s, self.t
        m = re.match(r"\\([A-Za-z]+)", s[i:])
        if not m:
            self.emit(s[i:i + 2], i)
            return i + 2, None
        cmd = m.group(1)
        j = i + m.end()
        part = self._PARTS.get(cmd)
        if part is not None:
            end = getattr(self, part)(i, j, cmd)
            if end is not None:
                return end, None
        if cmd in _OPTIMA and re.match(r"\s*_", s[j:]):
            return self.optimum(i, j, cmd), None
        if cmd in ("sum", "prod") and _named_sum(s, j):
            return self.named_sum(i, j, cmd), None
        if cmd in _ACCENTS:
            return self.accent(i, j, cmd)
        if cmd == "qname":
            inner, j = _brace_arg(s, j)
            return j, _tidy(inner)
        if cmd in _GREEK:
            return j, "\\" + cmd
        if cmd in _APPLIED and re.match(r"\s*\(", s[j:]):
            return j, "\\" + cmd                               # \sinh(x): an application, never sinh(x - ...)
        if cmd in _PASS:
            self.emit(s[i:j] + " ", i)
            return j, None
        raise _Fail("a command the parsers do not read", "\\" + cmd, t.at(i))

    _PARTS = {"nrm": "operator", "inn": "operator", "relu": "operator", "pdiff": "derivative", "nabla": "gradient",
              "copt": "constrained", "qcomp": "component", "dotsrun": "run_", "pwcases": "cases", "int": "int_or_lim",
              "lim": "int_or_lim"}

    def operator(self, i: int, j: int, cmd: str) -> int:
        r"""\nrm{sub}(x), \inn{sub}(a, b), \relu(x) (the cleanup's norms, inner products, positive parts): the named
        function applied to its arguments."""
        s, t, names = self.s, self.t, self.names
        arg = _brace_arg(s, j) if cmd == "nrm" or s[j:j + 1] == "{" else ("", j)
        sub = arg[0].strip() if arg else ""
        j = arg[1] if arg else j
        base = {"nrm": "\\|\\cdot\\|" + (f"_{{{sub}}}" if sub else ""), "inn": "\\langle\\cdot,\\cdot\\rangle",
                "relu": "(\\cdot)_{+}"}[cmd]
        m = re.match(r"\s*\(", s[j:])
        k = j + m.end() - 1 if m else -1
        close = _match_close(s, k, "(", ")") if m else -1
        if close > 0:
            args = [a for a, _ in _split_top(t[k + 1:close], re.compile(r"[,;]"))]
            if cmd == "inn":                               # <a, b>_{L_2}, <x>_{L_2}: the subscript names the form
                base = _inner_name(len(args), sub)
            self.emit(names.app(names.placeholder(base), args), i)
            return close + 1
        self.emit(names.placeholder(base), i)
        return j

    def derivative(self, i: int, j: int, cmd: str) -> int:
        r"""\pdiff{k}{v}{X} (`_derivatives`): Derivative(X, (v, k)) once parsed."""
        s, t = self.s, self.t
        parts, k = [], j
        for _ in range(3):
            a = k
            while a < len(s) and s[a] == " ":
                a += 1
            close = _match_close(s, a, "{", "}") if a < len(s) and s[a] == "{" else -1
            if close < 0:
                raise _Fail("a derivative the parsers do not read", "\\frac{\\partial", t.at(i))
            parts.append(t[a + 1:close])
            k = close + 1
        order, var, body = parts
        self.emit(self.names.app("\\diff", [body, var, order]), i)
        return k

    def gradient(self, i: int, j: int, cmd: str) -> int:
        r"""A gradient: an opaque named operator applied to its operand (\nabla_{w} L is \nabla_{w}(L)), which a
        notation map may define (symbols={"\\nabla_{w}": callable})."""
        s, t, names = self.s, self.t, self.names
        sc, k = _scripts(s, j)
        sub = _tidy(s[sc["_"][0]:sc["_"][1]]) if "_" in sc else ""
        if "^" in sc:
            raise _Fail("a gradient with a superscript", "\\nabla^", t.at(i))
        a = k
        while a < len(s) and s[a] == " ":
            a += 1
        end = _operand_end(s, a)
        if end is None:
            raise _Fail("a gradient (\\nabla) with no operand it can read", "\\nabla", t.at(i))
        body = t[a + 1:end - 1] if s[a] == "(" else t[a:end]
        self.emit(names.app(names.placeholder("\\nabla" + (f"_{{{sub}}}" if sub else "")), [body]), i)
        return end

    def optimum(self, i: int, j: int, cmd: str) -> int:
        r"""An optimum over a variable: an opaque named value of its objective, which runs to the end of the side (or
        of the group it stands in): \min_{u > 0} p(u) + c is the minimum of p(u) + c."""
        s, t, names = self.s, self.t, self.names
        sc, k = _scripts(s, j)
        sub = _untoken(_tidy(s[sc["_"][0]:sc["_"][1]]))
        end = len(s)
        for p, c in _depth_scan(s, k):
            end = p + 1
        if k >= len(s) or not s[k:end].strip():
            raise _Fail("an optimum with no objective", "\\" + cmd + "_", t.at(i))
        fname = f"\\{cmd}_{{{sub}}}" + (f"^{{{_tidy(s[sc['^'][0]:sc['^'][1]])}}}" if "^" in sc else "")
        self.emit(names.app(names.placeholder(fname), [t[k:end]]), i)
        return end

    def constrained(self, i: int, j: int, cmd: str) -> int:
        r"""constructs.constrained: \copt{\min_{S}}{objective}{constraint}...: the named constrained value."""
        s, t, names = self.s, self.t, self.names
        parts, k = [], j
        while re.match(r"\s*\{", s[k:]):
            a = k + re.match(r"\s*\{", s[k:]).end() - 1
            close = _match_close(s, a, "{", "}")
            parts.append(t[a + 1:close])
            k = close + 1
        sc, _k = _scripts(parts[0].s, len(re.match(r"\\[A-Za-z]+\s*", parts[0].s).group(0)))
        opt = re.match(r"\\[A-Za-z]+", parts[0].s).group(0)
        fname = opt + "".join(f"{p}{{{_untoken(_tidy(parts[0].s[sc[p][0]:sc[p][1]]))}}}" for p in "_^" if p in sc)
        key = names.placeholder(fname + "\\text{ s.t. }")
        self.emit(names.app("\\copt", [_T(key, [t.at(i)] * len(key)), *parts[1:]]), i)
        return k

    def component(self, i: int, j: int, cmd: str) -> int:
        return _component_app(self.t, j, self.names, self.emit, self.in_integral, i)

    def named_sum(self, i: int, j: int, cmd: str) -> int:
        s = self.s
        args, end = _named_sum(self.t, j, body=True)
        sc, _k = _scripts(s, j)
        fname = "\\" + cmd + "".join(f"{p}{{{_tidy(s[sc[p][0]:sc[p][1]])}}}" for p in "_^" if p in sc)
        self.emit(self.names.app(self.names.placeholder(fname), args), i)
        return end

    def run_(self, i: int, j: int, cmd: str) -> int:
        return _run_placeholder(self.s, j, self.names, self.emit, self.t.at(i))

    def cases(self, i: int, j: int, cmd: str) -> int:
        r"""\pwcases{value}{condition}... (`_cases`): a Piecewise once parsed."""
        s, t = self.s, self.t
        args, k = [], j
        while True:
            m2 = re.match(r"\s*\{", s[k:])
            if not m2:
                break
            a = k + m2.end() - 1
            close = _match_close(s, a, "{", "}")
            if close < 0:
                raise _Fail("an unclosed case distinction", "\\begin{cases}", t.at(i))
            args.append(t[a + 1:close])
            k = close + 1
        if not args or len(args) % 2:
            raise _Fail("a case distinction without conditions", "\\begin{cases}", t.at(i))
        self.emit(self.names.app("\\cases", args), i)
        return k

    def int_or_lim(self, i: int, j: int, cmd: str) -> int:
        r"""\int ... dx and \lim_{x \to a} ...: an Integral or Limit once parsed; a sign without its differential (or
        limit) passes through."""
        found = (_integral if cmd == "int" else _limit)(self.t, j)
        if found:
            args, end = found
            self.emit(self.names.app("\\" + cmd, args), i)
            return end
        self.emit(self.s[i:j] + " ", i)
        return j

    def accent(self, i: int, j: int, cmd: str) -> tuple[int, str]:
        r"""An accent or font over its argument: the base name it gives ("\hat{x}", "\mathcal{L}", "\operatorname{tr}";
        over an expression, \overline{\nabla f_\theta}, one name "\bar{\nabla f_{\theta}}")."""
        s, t, names = self.s, self.t, self.names
        base = None
        arg = _brace_arg(s, j)
        if arg is None:
            raise _Fail("an accent or font with no argument", "\\" + cmd, t.at(i))
        inner, j = arg
        inner = inner.strip()
        if cmd in ("text", "mathrm", "operatorname", "mathit", "mathsf") and re.fullmatch(r"[A-Za-z]{2,}", inner):
            base = f"\\operatorname{{{inner}}}" if cmd == "operatorname" else f"\\{cmd}{{{inner}}}"
            if cmd == "text":
                base = f"\\text{{{inner}}}"
        elif re.fullmatch(r"\\?[A-Za-z]+", inner) and (not inner.startswith("\\") or inner[1:] in _GREEK):
            if cmd in ("mathrm", "mathit", "text") and len(inner) == 1:
                base = inner
            else:
                base = f"\\{_ACCENTS[cmd]}{{{inner}}}"
        else:
            inner_t = _convert(_T(inner, [t.at(i)] * len(inner)), names, self.in_integral)
            if re.fullmatch(r"Q_\{z[a-z]{3}\}", inner_t.s.strip()):
                nm, idx = names.table["Q" + inner_t.s.strip()[3:-1]]
                base = f"\\{_ACCENTS[cmd]}{{{nm}}}" if not idx else None
            if base is None and _ACCENTS[cmd] in ("tilde", "hat", "bar"):
                # an accent over an expression, \overline{\nabla f_\theta}(x): one name (a map may bind it)
                base = f"\\{_ACCENTS[cmd]}{{{_tidy(' '.join(inner.split()))}}}"
            if base is None:
                raise _Fail("an accent or font over an expression", f"\\{cmd}{{{inner}}}", t.at(i))
        return j, base

    # -- letters and symbols -----------------------------------------------------------------------------------------

    def letter(self, i: int) -> tuple[int, str | None]:
        """A letter: a symbol's base, or an integral's differential d."""
        s, c = self.s, self.s[i]
        if c == "d" and self.in_integral and re.match(r"d\s*(?:[A-Za-z](?![A-Za-z])|\\[A-Za-z]+)", s[i:]) \
                and (i == 0 or not s[i - 1].isalpha() or s[i - 1] in "dxyzst"):
            self.emit("d ", i)
            return i + 1, None
        return i + 1, c

    def symbol(self, start: int, i: int, base: str) -> int:
        """The symbol whose base ends at s[i]: its scripts (name-like parts join its name, single letters become
        indices), then its placeholder, applied to a parenthesized group that follows it (f(x, y))."""
        s, t, names = self.s, self.t, self.names
        indices: list[str] = []
        subs: list[str] = []
        sups: list[str] = []
        while True:
            m = re.match(r"\s*(')+", s[i:])
            if m:
                sups.append("'" * m.group(0).count("'"))
                i += m.end()
                continue
            m = re.match(r"\s*([_^])", s[i:])
            if not m:
                break
            arg = _brace_arg(s, i + m.end())
            if arg is None:
                break
            content, j = arg
            content = content.strip()
            if m.group(1) == "_":
                parts = [p.strip() for p in content.split(",")]
                if all(_INDEX.fullmatch(p) for p in parts) and not any(p in ("\\min", "\\max", "\\rm") for p in parts):
                    indices += parts
                else:
                    subs.append(content)
                i = j
                continue
            # a name-like superscript (^{ft}, ^{(1)}, ^T, ^*) joins the name; letters followed by an argument
            # (e^{nf(t)}) or over the exponential's e (e^{nt}) are a power
            sm = _NAME_SUP.fullmatch(content)
            if sm and base == "e" and re.fullmatch(r"[A-Za-z]{2,}", sm.group(1)):
                sm = None
            if not sm:
                break
            sups.append(sm.group(1))
            rest = sm.group(2).strip()
            if rest:
                # "^{*2}": the name takes the star, the rest is a power
                pre = len(s[:j]) - 1 - len(rest) if s[j - 1] == "}" else j
                out_name = _tidy(base + (f"_{{{','.join(subs)}}}" if subs else "") + "".join(f"^{{{p}}}" for p in sups))
                self.emit(names.placeholder(out_name, tuple(indices)), start)
                self.emit("^{", j)
                self.out.append(_convert(_T(rest, [t.at(pre)] * len(rest)), names, self.in_integral))
                self.emit("}", j)
                return j
            i = j
        name = _tidy(base + (f"_{{{','.join(subs)}}}" if subs else "") + "".join(f"^{{{p}}}" for p in sups))
        m = re.match(r"\s*\(", s[i:])
        if m and name not in names.plain and base not in names.plain and not re.search(r"[\^_]\s*$", s[:start]) \
                and not (sups and sups[-1] == "T"):         # x^T (A + B): a transpose times a group, never applied
            k = i + m.end() - 1
            j = _match_close(s, k, "(", ")")
            if j > k + 1 and s[k + 1:j].strip():
                # a symbol followed by a parenthesized group is applied to it: f(x, y), \Gamma(n/2), w_h(t)
                args = [a for a, _ in _split_top(t[k + 1:j], re.compile(r"[,;]"))]
                self.emit(names.app(names.placeholder(name, tuple(indices)), args), start)
                return j + 1
        self.emit(names.placeholder(name, tuple(indices)), start)
        return i


_NAME_SUP = re.compile(r"(\(\s*[\w+\-]+\s*\)|T|\*+|\\star|\\ast|\\prime|\\perp|\\parallel|\+|\\dagger|\\text\{[^}]*\}|"
                       r"\\mathrm\{[^}]*\}|\\operatorname\{[^}]*\}|[A-Za-z]{2,}(?![A-Za-z]|\s*\())(.*)")


@functools.lru_cache(maxsize=4096)
def _parse_lark(s: str):
    # lazy: SymPy's LaTeX parser only when that backend is chosen; `theorylab eval` never parses
    from sympy.parsing.latex import parse_latex
    return parse_latex(s, backend="lark")


@functools.lru_cache(maxsize=4096)
def _parse_l2s(s: str):
    # lazy: latex2sympy2 costs ~80 ms; `theorylab eval` loads this module and never parses
    from latex2sympy2_extended import latex2sympy
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig
    return latex2sympy(s, conversion_config=ConversionConfig(lowercase_symbols=False,
                                                             interpret_as_mixed_fractions=False))


@functools.lru_cache(maxsize=4096)
def _parse_antlr(s: str):
    # lazy: SymPy's LaTeX parser only when that backend is chosen; `theorylab eval` never parses
    from sympy.parsing.latex import parse_latex
    return parse_latex(s, backend="antlr")


# The parsers, measured on the four built-in papers' labelled displays with the same preparation (placeholders for
# symbols, applications, integrals and limits built here), parsed / labelled displays for papers 000, 001, 002, 003:
#   latex2sympy2_extended 1.11.0: 23/30, 5/11, 77/155, 5/32 (48% in all; 167 s on one core)
#   SymPy 1.14 lark backend (lark 1.3.1): 25/30, 5/11, 44/155, 3/32 (34%; 95 s): its grammar lacks products after a
#       power (x^2 y) or an application (f(x) y) and leaves Earley ambiguities to resolve (see _resolve)
#   SymPy 1.14 antlr backend (antlr4-python3-runtime 4.11, pinned by SymPy; 4.13.2 is what latex2sympy2_extended
#       takes): 23/30, 6/11, 92/155, 6/32 (56%; 80 s), but it reads a subscript as an expression (Q_{zab} is Q_{z*a*b},
#       so the placeholders, hence the symbols, are lost) and accepts what the others reject: its share counts misreads.
# latex2sympy2_extended is the default: the most displays read faithfully, maintained, no runtime pin of its own.
PARSERS: dict[str, Callable[[str], Any]] = {"latex2sympy2_extended": _parse_l2s, "lark": _parse_lark,
                                             "antlr": _parse_antlr}
DEFAULT_PARSER = "latex2sympy2_extended"


def _resolve(e):
    """A lark parse that stays ambiguous (Tree '_ambig'): the first of the readings with most function applications
    (a symbol followed by a parenthesized group is applied to it, as the notation map's names assume)."""
    if type(e).__name__ == "Tree":
        kids = [_resolve(k) for k in getattr(e, "children", ())]
        kids = [k for k in kids if isinstance(k, sp.Basic)]
        if not kids:
            raise _Fail("the parse stays ambiguous", "", 0)
        return max(kids, key=lambda k: len(k.atoms(sp.Function)))
    return e


def _error_column(ex: Exception, s: str) -> int:
    for attr in ("pos_in_stream", "column"):
        v = getattr(ex, attr, None)
        if isinstance(v, int) and v >= 0:
            return v if attr == "pos_in_stream" else v - 1
    m = re.search(r"\n\s*(~*)\^", str(ex))
    if m:
        return len(m.group(1))
    return 0


def _unbalanced(s: str) -> int | None:
    """The position of the first unmatched '(' or ')' of s (escaped braces aside), or None where they balance."""
    stack = []
    for i, c in enumerate(s):
        if c == "(" and not s[:i].endswith("\\"):
            stack.append(i)
        elif c == ")" and not s[:i].endswith("\\"):
            if not stack:
                return i
            stack.pop()
    return stack[0] if stack else None


_INNER_BAR = re.compile(r"\|\s*_\s*\{")
_EVAL_BAR = re.compile(r"\|\s*_\s*\{([^{}=]+)=([^{}]+)\}\s*$")


def _parse_term(t: _T, names: _Names, parser: str):
    t = t.strip()
    if not t.s:
        raise _Fail("an empty side of a relation", "", t.at(0))
    bar = _EVAL_BAR.search(t.s)
    if bar and t.s[:bar.start()].count("|") % 2 == 0 and t.s[:bar.start()].strip():
        # an evaluation bar ending a side, X |_{v=a}: X with v put to a (SymPy's Subs), the whole side as printed
        var = _parse_term(t[bar.start(1):bar.end(1)], names, parser)
        if not isinstance(var, sp.Symbol):
            raise _Fail("an evaluation bar at something other than a variable", bar.group(0), t.at(bar.start()))
        body = _parse_term(t[:bar.start()], names, parser)
        if var not in body.free_symbols:
            # M_{\theta'}|_{\theta'=...}: the variable only inside a name; Subs would drop the bar silently
            raise _Fail("an evaluation bar at a variable the side shows only inside a name (or not at all)",
                        bar.group(0), t.at(bar.start()))
        return sp.Subs(body, var, _parse_term(t[bar.start(2):bar.end(2)], names, parser))
    inner_bar = next((m for m in _INNER_BAR.finditer(t.s)
                      if "=" in t.s[m.end() - 1:max(_match_close(t.s, m.end() - 1, "{", "}"), m.end())]), None)
    if inner_bar:
        # X|_{v=a} inside a side: the parser would put a into X's free symbols only, and a v inside a name
        # (M_{\theta'}) is none of them: the substitution would be dropped silently
        raise _Fail("an evaluation bar the parse cannot place (X|_{v=a} inside a side, or its value braced)",
                    inner_bar.group(0), t.at(inner_bar.start()))
    conv = _convert(t, names, "\\int" in t.s).strip()
    try:
        fn = PARSERS[parser]
    except KeyError:
        raise ValueError(f"parser must be one of {sorted(PARSERS)}; got parser={parser!r}") from None
    try:
        e = _resolve(_with_matrices(fn, conv, names, parser))
    except _Fail:
        raise
    except ImportError as ex:
        raise _Fail(f"the parser {parser} is not installed ({ex})", parser, 0) from None
    except Exception as ex:            # the parsers raise their own exception types
        col = min(max(_error_column(ex, conv.s), 0), max(len(conv.s) - 1, 0))
        tok = re.match(r"\\[A-Za-z]+|Q_\{[yz][a-z]{3}\}|.", conv.s[col:]) if conv.s else None
        construct = tok.group(0) if tok else ""
        if construct.startswith("Q_{y") and "Q" + construct[3:-1] in names.apps:
            function = names.apps["Q" + construct[3:-1]][0]
            construct = names.table.get("Q" + function[3:-1], (function,))[0] + "(…)"
        elif construct.startswith("Q_{"):
            construct = names.table.get("Q" + construct[3:-1], (construct,))[0]
        if _unbalanced(t.s) is not None:
            at = _unbalanced(t.s)
            raise _Fail("the parentheses of this side do not balance as printed (a misprint, or a side cut across "
                        "displays)", t.s[at], t.at(at)) from None
        raise _Fail(f"{parser} cannot read it here", construct, conv.at(col)) from None
    if not isinstance(e, sp.Basic):
        raise _Fail(f"{parser} gave no SymPy expression", type(e).__name__, t.at(0))
    rep = {}
    for a in e.atoms(sp.Symbol):
        k = re.sub(r"[{}_]", "", a.name)
        if k in names.apps:
            function, args = names.apps[k]
            if function == "\\cases":
                pieces = []
                for value, cond in zip(args[::2], args[1::2]):
                    c = _parse_condition(cond, names, parser)
                    pieces.append((_parse_term(value, names, parser), c))
                rep[a] = sp.Piecewise(*pieces)
            elif function == "\\copt":
                fn = sp.Function(args[0].s)                # the placeholder of "\min_{S}\text{ s.t. }"
                rep[a] = fn(_parse_term(args[1], names, parser), *[_parse_condition(c, names, parser)
                                                                   for c in args[2:]])
            elif function == "\\diff":
                body, var = _parse_term(args[0], names, parser), _parse_term(args[1], names, parser)
                rep[a] = sp.Derivative(body, (var, int(args[2].s)))
            elif function in ("\\int", "\\lim"):
                body, var, lo, hi, *more = [None if x is None else _parse_term(x, names, parser) for x in args]
                if function == "\\lim":
                    rep[a] = sp.Limit(body, var, lo)
                else:
                    rep[a] = sp.Integral(body, (var, lo, hi) if lo is not None and hi is not None else (var,),
                                         *[(v,) for v in more])
            else:
                rep[a] = sp.Function(function)(*[_parse_term(x, names, parser) for x in args])
    return e.xreplace(rep) if rep else e


def _parse_condition(t: _T, names: _Names, parser: str):
    """A case's condition: a relation or a chain a < x <= b (a conjunction); empty (otherwise) is true."""
    if t.s.strip() in ("", "\\pwtrue"):
        return sp.true
    ops = _top_level(t.s, _REL_RX)
    if not ops or any(m.group(0) not in _RELATIONS for m in ops):
        raise _Fail("a case condition that is not a relation", t.s.strip()[:40], t.at(0))
    terms, last = [], 0
    for m in ops:
        terms.append(t[last:m.start()])
        last = m.end()
    terms.append(t[last:])
    values = [_parse_term(x, names, parser) for x in terms]
    return sp.And(*[sp.Rel(a, b, _RELATIONS[m.group(0)]) for m, a, b in zip(ops, values, values[1:])])


def _back(e, names: _Names, notation: NotationMap):
    """Placeholders -> the notation's SymPy objects (or Symbols, IndexedBases and Functions named canonically)."""
    symbols = dict(notation.symbols)
    symbols.setdefault("e", sp.E)
    symbols.setdefault("\\pi", sp.pi)
    for k, f in _APPLIED.items():
        symbols.setdefault("\\" + k, f)

    def obj(key: str):
        name, idx = names.table[key]
        full = name + (f"_{{{','.join(idx)}}}" if idx else "")
        if full in symbols:
            return symbols[full], ()
        if name in symbols:
            return symbols[name], idx
        return None, idx

    def index(i: str):
        m = re.fullmatch(r"([A-Za-z]|\\[a-z]+)(?:([+-])(\w+))?", i)
        s = sp.Symbol(m.group(1))
        if m.group(2):
            off = sp.Integer(m.group(3)) if m.group(3).isdigit() else sp.Symbol(m.group(3))
            s = s + off if m.group(2) == "+" else s - off
        return s

    def symbol(key: str):
        name, idx = names.table[key]
        o, idx = obj(key)
        if o is None and key in names.runs:
            return _run_symbol(names.runs[key], symbols, notation)
        if o is None:
            return sp.IndexedBase(name)[tuple(index(i) for i in idx)] if idx else sp.Symbol(name)
        if idx:
            if isinstance(o, sp.IndexedBase):
                return o[tuple(index(i) for i in idx)]
            if callable(o) and not isinstance(o, sp.Expr):
                return o(*[index(i) for i in idx])
            return sp.IndexedBase(name)[tuple(index(i) for i in idx)]   # a value for the bare name only
        return o if isinstance(o, sp.Basic) else sp.Symbol(name)

    def key_of(nm: str) -> str | None:
        k = re.sub(r"[{}_]", "", nm)
        return k if k in names.table else None

    rep = {}
    for a in e.atoms(sp.Symbol):
        k = key_of(a.name)
        if k:
            rep[a] = symbol(k)
    e = e.xreplace(rep) if rep else e
    for f in sorted(e.atoms(sp.core.function.AppliedUndef), key=lambda f: -sp.count_ops(f)):
        k = key_of(f.func.__name__)
        if not k:
            continue
        name, idx = names.table[k]
        o, idx = obj(k)
        if o is None or not callable(o):
            full = name + (f"_{{{','.join(idx)}}}" if idx else "")
            e = e.xreplace({f: sp.Function(full)(*f.args)})
        else:
            e = e.xreplace({f: o(*[index(i) for i in idx], *f.args)})
    return _matrices_back(e, names, symbols)


# -- matrix names (PARSE_FORMAT 4): a name the notation binds to a matrix keeps its factors' order -------------------

def _is_matrix(v: Any) -> bool:
    return isinstance(v, (sp.MatrixBase, sp.MatrixExpr))


def _matrix_of(names: _Names, key: str) -> tuple[str, bool] | None:
    r"""The declared matrix name a placeholder stands for, and whether it is transposed (W^{T}, W^\top, W^{\mathsf{T}}
    all read W^{T}); None where the notation declares no matrix of that name."""
    declared = getattr(names, "matrices", None)
    if not declared or key not in names.table:
        return None
    name, idx = names.table[key]
    suffix = f"_{{{','.join(idx)}}}" if idx else ""
    plain = name[1:-5] if name.startswith("(") and name.endswith(")^{T}") else name[:-4]   # (W_1 ... W_L)^{T}
    for base, transposed in ((name, False), (plain, True) if name.endswith("^{T}") else (name, False)):
        for n in (base + suffix, base):
            if n in declared:
                return n, transposed
    return None


_MATRIX_POWER = re.compile(r"Q_\{(z[a-z]{3})\}\s*\^")


def _with_matrices(fn: Callable[[str], Any], conv: _T, names: _Names, parser: str):
    r"""The parser's reading of a term, its matrix names as matrices (latex2sympy2_extended's variable_values: their
    products are MatMul, in the printed order, W^T W is not W W^T); a power of a matrix name is reported."""
    s = conv.s
    present = tuple(sorted(k for k in names.table if "Q_{" + k[1:] + "}" in s and _matrix_of(names, k)))
    if not present:
        return fn(s)
    if parser != "latex2sympy2_extended":
        raise _Fail("matrix names need the latex2sympy2_extended parser", parser, conv.at(0))
    for m in _MATRIX_POWER.finditer(s):
        if "Q" + m.group(1) in present:
            raise _Fail("a power of a matrix (W^{2}, W^{-1})", names.table["Q" + m.group(1)][0], conv.at(m.start()))
    return _parse_l2s_matrices(s, tuple("Q_{" + k[1:] + "}" for k in present))


@functools.lru_cache(maxsize=1024)
def _parse_l2s_matrices(s: str, matrices: tuple[str, ...]):
    # lazy: latex2sympy2 costs ~80 ms; `theorylab eval` loads this module and never parses
    from latex2sympy2_extended import latex2sympy
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig
    return latex2sympy(s, variable_values={m: sp.zeros(2, 2) for m in matrices},
                       conversion_config=ConversionConfig(lowercase_symbols=False, interpret_as_mixed_fractions=False))


_NORMS = {"\\|\\cdot\\|_{F}": "F", "\\|\\cdot\\|_{2}": "2", "\\|\\cdot\\|": "2", "\\|\\cdot\\|_{op}": "op",
          "\\|\\cdot\\|_{\\text{op}}": "op", "\\|\\cdot\\|_{\\mathrm{op}}": "op"}


def _matrix_meaning(f: sp.Basic) -> sp.Basic | None:
    r"""A norm or inner product (unmapped by the notation) of matrices as what it means: \|A\|_F = sqrt(tr(A^T A)), the
    same for \|v\|_2 of a vector; \|A\|_2 and \|A\|_{op} of a matrix its largest singular value (the undefined function
    "\|\cdot\|_{op}", which the comparison evaluates); <A, B> = tr(A^T B). None for anything else."""
    name = f.func.__name__
    args = f.args
    if not args or not all(getattr(a, "is_Matrix", False) for a in args):
        return None
    if name == "\\langle\\cdot,\\cdot\\rangle" and len(args) == 2:
        return sp.Trace(sp.MatMul(args[0].T, args[1]))
    kind = _NORMS.get(name)
    if kind is None or len(args) != 1:
        return None
    a = args[0]
    if kind == "F" or (kind == "2" and 1 in a.shape):
        return sp.sqrt(sp.Trace(sp.MatMul(a.T, a)))
    return sp.Function("\\|\\cdot\\|_{op}")(a)


def _matrices_back(e, names: _Names, symbols: Mapping[str, Any]):
    """The matrix placeholders (MatrixSymbols of the parser) -> the notation's matrices (transposed where printed so),
    and norms and inner products of matrices their meaning (`_matrix_meaning`)."""
    rep = {}
    for a in e.atoms(sp.MatrixSymbol):
        key = re.sub(r"[{}_]", "", str(a.name))
        found = _matrix_of(names, key)
        if found is not None:
            m = symbols[found[0]]
            m = sp.ImmutableMatrix(m) if isinstance(m, sp.MatrixBase) else m
            rep[a] = m.T if found[1] else m
    if rep:
        e = e.xreplace(rep)
    if getattr(names, "matrices", None):
        for f in sorted(e.atoms(sp.core.function.AppliedUndef), key=lambda f: sp.count_ops(f)):
            meaning = _matrix_meaning(f)
            if meaning is not None:
                e = e.xreplace({f: meaning})
    return e


def _noncommutative(name: str, symbols: Mapping, notation: NotationMap) -> bool:
    """Whether the notation map declares `name` a matrix (its object a MatrixExpr or a noncommutative SymPy object,
    or the name listed in the map's `noncommutative`, where it has one)."""
    if name in (getattr(notation, "noncommutative", None) or ()):
        return True
    o = symbols.get(name)
    return isinstance(o, sp.MatrixExpr) or getattr(o, "is_commutative", True) is False


def _run_symbol(run: tuple[str, str, bool], symbols: Mapping, notation: NotationMap):
    r"""A run W_1 \dots W_{L-1} (constructs.runs) the map does not bind by its own name: a transposed run whose
    untransposed name the map binds to a matrix (MatrixExpr, noncommutative) is that matrix's transpose; otherwise
    the run is a Symbol of its name, noncommutative where the map declares its factors' base a matrix. A commutative
    run symbol and its transposed name stay two names (never W^T = W for a matrix read as a scalar)."""
    # lazy: constructs (~10 ms) only once a display is parsed; `theorylab eval` loads this module and never parses
    from .constructs import RUN_TRANSPOSE

    name, base, transposed = run
    if transposed and name in symbols:
        o = symbols[name]
        if isinstance(o, sp.MatrixExpr) or getattr(o, "is_commutative", True) is False:
            return sp.transpose(o)
    nc = _noncommutative(base, symbols, notation) or _noncommutative(name, symbols, notation)
    full = RUN_TRANSPOSE.format(name) if transposed else name
    if nc and transposed:
        return sp.transpose(sp.Symbol(name, commutative=False))
    return sp.Symbol(full, commutative=not nc)


def parse_display(text: str, notation: NotationMap | None = None, *, lead: str = "",
                  parser: str | None = None) -> tuple | ParseFailure:
    """A printed display's relations (SymPy), or a ParseFailure saying why not (reason, construct, position).

    The display's LaTeX is rewritten by the notation map, stripped of layout (\\left/\\right, spacing, \\quad,
    alignment `&`, line breaks `\\\\`, \\label/\\tag, trailing punctuation), cut into statements at \\quad,
    \\text{and}, `;`, \\implies and top-level commas followed by a relation; a condition (\\text{s.t. / for / if /
    where}, \\forall, a membership `x \\in S`) ends or drops its statement. A chain `a = b \\le c` gives two
    relations, Eq(a, b) and b <= c (:=, \\triangleq, \\equiv give Eq). A display that opens with a relation takes
    the last term of `lead` as its left side. Each term is parsed by `parser` (PARSERS; DEFAULT_PARSER) after its
    symbols are replaced by placeholders, which are then mapped back through `notation.symbols`. A display with no
    relation gives its one expression; relations with no SymPy counterpart (\\succcurlyeq, \\to; \\approx and \\propto are kept as Approx and Propto) and the
    constructs in `_UNSUPPORTED` are failures naming the construct.

    PARSE_FORMAT 3 reads: \\frac{\\partial^k X}{\\partial v^k} and \\frac{d X}{d v} as Derivative(X, (v, k)) (a partial
    derivative holds every other symbol fixed: a printed z* that depends on v needs the notation map to say so); an
    evaluation bar ending a side, X|_{v=a}, as Subs(X, v, a); \\nabla_{w} X as the undefined function "\\nabla_{w}"
    applied to its operand (a notation map may define it); \\min_{S} / \\max / \\inf / \\sup / argmin / minimize
    over a subscript as the undefined function "\\min_{S}" applied to the objective, which runs to the end of its
    side; a run of differentials, \\int f dx dy, as a multiple integral.

    PARSE_FORMAT 5 adds (theorylab._sources.constructs; each a name a notation map binds, never a guessed meaning):
    a run of indexed factors with an ellipsis, W_1 W_2 \\dots W_{L-1}, as ONE Symbol "W_{1}\\cdots W_{L-1}" (first and
    last factor), a run of transposes W_{L-1}^T \\dots W_1^T as "(W_{1}\\cdots W_{L-1})^{T}" (the transpose of the
    map's object where the map binds the run to a matrix or a noncommutative object; noncommutative where the map
    declares the base, "W", one); (A \\oplus B)(v) as the function "A\\oplus B" applied to v, (A \\otimes B) as
    "\\otimes"(A, B); an accent over an expression, \\overline{\\nabla f_\\theta}(x), as the name
    "\\bar{\\nabla f_{\\theta}}"; \\operatorname{tr}(X), \\det(X), \\mathrm{vec}(X), \\operatorname{diag}(X) as the
    functions "\\operatorname{tr}" etc. (not applied to a group: reported); (X)_k as "(\\cdot)" indexed by k applied
    to X (a map binds "(\\cdot)" to lambda k, x: ...; unmapped: "(\\cdot)_{k}"); \\sum_{i \\in A} X and
    \\sum_{ij}^{M} X (a range left to the reader) as the named operator "\\sum_{i \\in A}" applied to the body (to
    the next top-level + or -); <a, b>_{L_2} and <x>_{L_2} as "\\langle\\cdot,\\cdot\\rangle_{L_2}" and
    "\\langle\\cdot\\rangle_{L_2}"; D(p \\| q) as D(p, q); x^{\\perp} a name; x^T (A + B) a product, never an
    application; \\left| x \\right| an absolute value; an optimum with constraints, \\min_{S} f \\text{ s.t. } g = c,
    as "\\min_{S}\\text{ s.t. }"(f, Eq(g, c), ...) (quantified constraints, \\forall i, and several values on the
    left are reported). A side whose parentheses do not balance says so; a continuation whose previous display is
    only a label ($$\\tag{89}$$) takes the display before that as its lead."""
    notation = notation or _NO_NOTATION
    parser = parser or DEFAULT_PARSER
    try:
        return _parse(text, notation, lead, parser)
    except _Fail as f:
        return f.failure
    except RecursionError:
        return ParseFailure("too deeply nested for the parser", "", 0)
    except (TypeError, ValueError, AttributeError) as ex:   # a notation map's object that does not fit the parse
        return ParseFailure(f"the notation map does not apply here ({type(ex).__name__}: {ex})"[:160], "", 0)
    except NotImplementedError as ex:   # SymPy cannot form it, e.g. a scalar of the parse inside a product of matrices
        return ParseFailure(f"SymPy cannot form this expression of the map's matrices ({ex})"[:160], "", 0)


_CASES = re.compile(r"\\begin\s*\{(?:cases|dcases)\}(.*?)\\end\s*\{(?:cases|dcases)\}", re.S)
_OTHERWISE = re.compile(r"^\s*(?:\\text\s*\{\s*(?:otherwise|else|elsewhere)\s*\}|\\mathrm\s*\{\s*otherwise\s*\})\s*$")


def _cases(m: re.Match) -> str:
    r"""\begin{cases} A & cond \\ B & cond \end{cases} as \pwcases{A}{cond}{B}{cond} (a Piecewise); 'otherwise' is
    \pwtrue. A row without a condition, or a nested case distinction, is left as it is (then reported)."""
    rows = [r for r in re.split(r"\\\\(?:\[[^\]]*\])?", m.group(1)) if r.strip()]
    out = []
    for row in rows:
        parts = row.split("&")
        if len(parts) != 2 or "\\begin" in row:
            return m.group(0)
        value, cond = parts[0].strip().rstrip(",;."), parts[1].strip().rstrip(",;.")
        cond = re.sub(r"^\s*\\(?:text|mathrm)\s*\{\s*(?:if|for|when)\s*\}\s*", "", cond)
        cond = "\\pwtrue" if _OTHERWISE.match(cond) or not cond else cond
        out.append("{" + value + "}{" + cond + "}")
    return "\\pwcases" + "".join(out) + " "


_OPTIMUM_NAMES = re.compile(r"\\operatorname\s*\{\s*(arg\s*min|arg\s*max|argmin|argmax|minimize|maximize)\s*\}|"
                            r"\\arg\s*\\?(min|max)(?![A-Za-z])|\\mathop\s*\{\s*(minimize|maximize)\s*\}")
_OPTIMA = ("min", "max", "inf", "sup", "argmin", "argmax", "minimize", "maximize")
_DERIV_VAR = r"(\\[A-Za-z]+|[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?)"


def _derivatives(t: _T) -> _T:
    r"""\frac{\partial^k X}{\partial v^k} and \frac{d^k X}{d v^k} (\mathrm{d} is d after cleanup) as \pdiff{k}{v}{X}: a
    derivative of X in v (SymPy's Derivative; a partial one holds every other symbol fixed). The operator forms
    (\frac{d}{dv} X, \partial_v X) are left as they are (then reported)."""
    rx = re.compile(r"\\frac\s*\{")
    start = 0
    for _ in range(50):
        s = t.s
        m = rx.search(s, start)
        if not m:
            return t
        a = m.end() - 1
        ca = _match_close(s, a, "{", "}")
        b = ca + 1 if ca >= 0 else -1
        while 0 <= b < len(s) and s[b] == " ":
            b += 1
        if ca < 0 or b >= len(s) or s[b] != "{":
            start = m.end()
            continue
        cb = _match_close(s, b, "{", "}")
        if cb < 0:
            start = m.end()
            continue
        num, den = s[a + 1:ca], s[b + 1:cb]
        op = r"\\partial(?![A-Za-z])" if num.lstrip().startswith("\\partial") else r"d(?=[\s\\^A-Z]|[a-z](?![A-Za-z]))"
        mn = re.match(r"\s*(?:" + op + r")\s*(?:\^\s*\{?\s*(\d)\s*\}?)?\s*", num)
        md = re.fullmatch(r"\s*(?:" + op + r")\s*" + _DERIV_VAR + r"\s*(?:\^\s*\{?\s*(\d)\s*\}?)?\s*", den)
        if not mn or not md or not num[mn.end():].strip() or (mn.group(1) or "1") != (md.group(2) or "1"):
            start = m.end()
            continue
        k = mn.group(1) or "1"
        x0, v0 = a + 1 + mn.end(), b + 1 + md.start(1)
        head = "\\pdiff{" + k + "}{"
        t = (t[:m.start()] + _T(head, [t.at(m.start())] * len(head)) + t[v0:b + 1 + md.end(1)]
             + _T("}{", [t.at(b)] * 2) + t[x0:ca] + _T("}", [t.at(cb)]) + t[cb + 1:])
        start = m.start() + len(head)
    return t


_MATRIX_FUNCTIONS = re.compile(r"(?:\\(det|rank|tr|Tr|diag|sign|sgn)(?![A-Za-z])|\\mathrm\s*\{\s*(tr|Tr|vec|diag|rank|"
                               r"sign|det)\s*\})(?=\s*\()")     # \det(A), \mathrm{vec}(W): named "\operatorname{det}"


def _constructs():
    # lazy: constructs (~10 ms) only once a display is parsed; `theorylab eval` loads this module and never parses
    from . import constructs
    return constructs


_THIN_APPLY = re.compile(r"(\\?[A-Za-z]+(?:_\{[^{}]*\}|_[A-Za-z0-9])?)\s*\\[,;:]\s*(?=\()")


def _thin_product(m: re.Match, notation: NotationMap) -> str:
    r"""`b\,(s - a\cdot b)`: a thin space between a name and a parenthesis marks a product (issue #35: it was read as
    the call b(...)), unless the notation map declares the name a function (a SymPy Function or a callable)."""
    name = m.group(1)
    obj = notation.symbols.get(name, notation.symbols.get(name.lstrip("\\")))
    if isinstance(obj, sp.FunctionClass) or (callable(obj) and not isinstance(obj, sp.Basic)):
        return name
    return name + r" \cdot "


def _prepare(text: str, notation: NotationMap) -> list[_T]:
    t = _T(text)
    for rx, rep in notation.compiled():
        t = t.sub(rx, rep)
    t = t.sub(_THIN_APPLY, lambda m: _thin_product(m, notation))
    t = t.sub(_CASES, _cases)
    t = t.sub(re.compile(r"\\\\(?:\[[^\]]*\])?|&"), " ")
    t = _constructs().divergence_bars(t)
    t = t.sub(re.compile(r"\\begin\s*\{(?:split|aligned|gathered|alignedat)\}(?:\{\d+\})?|"
                         r"\\end\s*\{(?:split|aligned|gathered|alignedat)\}"), " ")
    t = _cleanup(t)
    t = t.sub(_OPTIMUM_NAMES, lambda m: "\\" + ("arg" + m.group(2) if m.group(2) else
                                                 re.sub(r"\s", "", m.group(1) or m.group(3))) + " ")
    t = _derivatives(t)
    t = _constructs().runs(t, _GREEK)
    t = _constructs().binary_ops(t)
    t = _constructs().components(t)
    t = _constructs().constrained(t)
    t = t.sub(_MATRIX_FUNCTIONS, lambda m: "\\operatorname{" + (m.group(1) or m.group(2)) + "}")
    for rx, reason in _UNSUPPORTED:
        m = rx.search(t.s)
        if m:
            raise _Fail(reason, m.group(0).strip(), t.at(m.start()))
    cond = _top_level(t.s, _CONDITION)
    if cond:
        t = t[:cond[0].start()]
    pieces = [p for p, _ in _split_top(t, _SEPARATORS)]
    statements: list[_T] = []
    for p in pieces:
        local: list[_T] = []
        for q, _ in _split_top(p, re.compile(",")):
            if local and not _top_level(q.s, _REL_RX):
                local[-1] = local[-1] + _T(",", [q.at(0)]) + q
            else:
                local.append(q)
        statements += local
    out = []
    for st in statements:
        st = st.sub(re.compile(r"[\s.,;]+$"), "")
        if not st.s.strip():
            continue
        rels = _top_level(st.s, _REL_RX)
        if rels and rels[-1].group(0) == "\\in" and any(m.group(0) not in ("\\in", "\\notin") for m in rels):
            # a chain that ends in its type, a = b \in R^{C x C}: the chain without the membership
            st, rels = st[:rels[-1].start()], rels[:-1]
            while rels and rels[-1].group(0) in ("\\in", "\\notin"):
                st, rels = st[:rels[-1].start()], rels[:-1]
        if any(m.group(0) in ("\\in", "\\notin") for m in rels):
            continue                                           # a membership: a condition, not a statement
        out.append(st)
    return out


def _parse(text: str, notation: NotationMap, lead: str, parser: str) -> tuple:
    statements = _prepare(text, notation)
    if (lead.strip() and statements and re.match(r"\s*[+\-]", statements[0].s)
            and not any(_top_level(st.s, _REL_RX) for st in statements)):
        # a display that continues the side printed before it ("- 2 d_0^2 ..." after "beta = 2 s_0^2 ..."): the
        # relation it completes
        joined = _prepare(lead + " " + text, notation)
        if joined and _top_level(joined[-1].s, _REL_RX):
            shift = len(lead) + 1
            statements = [_T(st.s, [max(o - shift, 0) for o in st.o]) for st in joined[-1:]]
    if not statements:
        raise _Fail("nothing to parse (only conditions or an empty display)", text[:30], 0)
    names = _Names()
    names.plain = {k for k, v in notation.symbols.items() if isinstance(v, sp.Expr) and not isinstance(v, sp.Indexed)}
    names.matrices = {k for k, v in notation.symbols.items() if _is_matrix(v)}
    names.plain |= names.matrices
    rels: list = []
    for k, st in enumerate(statements):
        ops = _top_level(st.s, _REL_RX)
        terms, last = [], 0
        for m in ops:
            terms.append(st[last:m.start()])
            last = m.end()
        terms.append(st[last:])
        for m in ops:
            if m.group(0) not in _RELATIONS and m.group(0) not in _APPROXIMATE:
                raise _Fail("a relation with no SymPy counterpart", m.group(0), st.at(m.start()))
        if ops and not terms[0].s.strip():
            if k == 0 and lead.strip():
                prev = _prepare(lead, notation)
                if not prev:
                    raise _Fail("a continuation whose previous line does not parse", ops[0].group(0), st.at(0))
                pops = _top_level(prev[-1].s, _REL_RX)
                prev_last = prev[-1][pops[-1].end():] if pops else prev[-1]
                try:
                    left = _back(_parse_term(prev_last, names, parser), names, notation)
                except _Fail as f:
                    raise _Fail(f"a continuation whose left side, the last term printed before it, does not parse "
                                f"({f.failure.reason})", ops[0].group(0), st.at(ops[0].start())) from None
            elif k > 0 and rels:
                left = rels[-1].rhs if isinstance(rels[-1], sp.core.relational.Relational) else rels[-1]
            else:
                raise _Fail("a continuation (the display opens with a relation) with no left side printed before it",
                            ops[0].group(0), st.at(ops[0].start()))
            values = [left] + [_back(_parse_term(x, names, parser), names, notation) for x in terms[1:]]
        else:
            values = [_back(_parse_term(x, names, parser), names, notation) for x in terms]
        if not ops:
            rels.append(values[0])
            continue
        for m, a, b in zip(ops, values, values[1:]):
            rels.append(relation(a, b, _RELATIONS.get(m.group(0)) or _APPROXIMATE[m.group(0)]))
    return tuple(rels)


_CONTINUED = re.compile(r"^(?:\s|\\(?:hskip|kern|hspace\*?)\s*\{?-?[\d.]+\s*(?:pt|em|mu|ex)?\}?|\\q?quad|&)*"
                        r"(\\cdot|\\times|\+)")


def cut_sides(items: Sequence[Printed]) -> dict[str, ParseFailure]:
    r"""Displays whose last side the next display continues (it opens with \cdot, \times or +, as adaptive-tangent's
    (18) continues (17)): label -> the reason. Such a display's own parse would be a side cut short, so it is
    reported, never compared as if complete."""
    displays = [p for p in items if p.kind == "display" and p.text]
    out = {}
    for p, nxt in zip(displays, displays[1:]):
        m = _CONTINUED.match(nxt.text)
        if m:
            out[p.label] = ParseFailure(f"a side cut across displays: the next display {nxt.label} continues it",
                                        m.group(1), len(p.text))
    return out


def parse_printed(printed: Iterable[Printed], notation: NotationMap | None = None, *,
                  parser: str | None = None) -> Printout:
    """The Printed records with `relations` filled: each display parsed (a tuple of relations or a ParseFailure);
    statements unchanged; a display the next one continues (`cut_sides`) is reported. Keeps a Printout's warnings and
    refs."""
    items = list(printed)
    cut = cut_sides(items)
    out = [replace(p, relations=cut.get(p.label) or parse_display(p.text, notation, lead=p.lead, parser=parser))
           if p.kind == "display" and p.text else (replace(p, relations=ParseFailure("no printed display", p.label, 0))
                                                   if p.kind == "display" else p) for p in items]
    return Printout(out, warnings=getattr(printed, "warnings", ()), refs=getattr(printed, "refs", {}),
                    fmt=getattr(printed, "fmt", "md"))


def parse_report(printed: Iterable[Printed], notation: NotationMap | None = None, *, parser: str | None = None,
                 top: int = 3) -> dict:
    """How much of a paper's printed displays parse: {"displays": n, "parsed": k, "share": k/n, "reasons":
    [(reason, count), ...] most common first (at most `top`), "failures": {label: str(ParseFailure)}}. Displays
    already parsed (relations set) are not parsed again; labels on no display count as failures."""
    items = [p for p in printed if p.kind == "display"]
    if any(p.relations is None for p in items):
        items = [p for p in parse_printed(items, notation, parser=parser)]
    failures = {p.label: p.relations for p in items if isinstance(p.relations, ParseFailure)}
    n = len(items)
    return {"displays": n, "parsed": n - len(failures), "share": (n - len(failures)) / n if n else 0.0,
            "reasons": Counter(f.reason for f in failures.values()).most_common(top),
            "failures": {k: str(v) for k, v in failures.items()}}


# -- parse results as data: keyed, written and read (the built-in papers ship theirs) --------------------------------

PARSE_FORMAT = 6
"""The version of the parsing rules: what this module makes of a display's LaTeX (reading, cleanup, placeholders,
relations). Bump it with any change that can change a parse. Shipped parses (`<source>.parses.json` beside a paper's
source, e.g. derivations/sources/) are keyed by it, by the parser and its version, the display's text and lead and
the notation map, never by this module's code: an edit that changes no parse keeps them; a bump makes them stale, and
tests/test_sources.py asks for them to be regenerated (`python -m theorylab._pipeline.fidelity --rebuild`)."""
SHIPPED_SUFFIX = ".parses.json"


def _code_digest(obj: Any) -> str:
    try:
        return hashlib.sha256(inspect.getsource(obj).encode()).hexdigest()[:16]
    except (OSError, TypeError):
        code = getattr(obj, "__code__", None)
        return hashlib.sha256(code.co_code if code is not None else repr(obj).encode()).hexdigest()[:16]


def _object_text(v: Any) -> str:
    if isinstance(v, sp.Basic):
        # srepr writes a Symbol with the assumptions it was created with, and SymPy's cache hands back an equal
        # Symbol created elsewhere (gamma positive=True may come back as positive=True, real=True, depending on
        # what was imported first): each symbol is written by its name and its full assumptions instead
        marks = {s: sp.Symbol(f"{s.name}[{','.join(k for k, val in sorted(s.assumptions0.items()) if val)}]")
                 for s in v.atoms(sp.Symbol)}
        return sp.srepr(v.xreplace(marks)) if marks else sp.srepr(v)
    if isinstance(v, type) and issubclass(v, sp.Basic):      # sp.Function("f"), sp.exp
        return f"class {v.__module__}.{v.__name__}"
    if callable(v):
        return f"callable {getattr(v, '__qualname__', type(v).__name__)} {_code_digest(v)}"
    return repr(v)


def notation_key(notation: NotationMap | None) -> str:
    """A stable text of a notation map: its rewrites (patterns, replacements, a callable's code) and symbols."""
    if notation is None:
        return "none"
    parts = []
    for pat, rep in notation.rewrites:
        p = f"re/{pat.pattern}/{pat.flags}" if hasattr(pat, "pattern") else f"str/{pat}"
        parts.append(p + "->" + (rep if isinstance(rep, str) else _object_text(rep)))
    parts += [f"{k}={_object_text(v)}" for k, v in sorted(notation.symbols.items())]
    return "\x00".join(parts)


@functools.lru_cache(maxsize=8)
def parser_version(parser: str | None = None) -> str:
    """The parser and its installed version ("latex2sympy2_extended 1.11.0"; SymPy's own backends: SymPy's version)."""
    parser = parser or DEFAULT_PARSER
    try:
        version = metadata.version(parser) if parser == "latex2sympy2_extended" else "sympy " + sp.__version__
    except metadata.PackageNotFoundError:
        version = "absent"
    return f"{parser} {version}"


def parse_key(text: str, notation: NotationMap | None = None, *, lead: str = "", parser: str | None = None,
              notation_text: str | None = None) -> str:
    """The key of a display's parse as data: PARSE_FORMAT, the parser and its version, the text, its lead and the
    notation map (what `parse_display` reads, and the rules that read it); notation_text: notation_key(notation)
    where the caller has it."""
    nk = notation_key(notation) if notation_text is None else notation_text
    parts = [f"theorylab-parse {PARSE_FORMAT}", parser_version(parser), text, lead, nk]
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


def relations_to_json(relations: tuple | ParseFailure) -> dict:
    """A parse as JSON: {"relations": [[op, srepr(lhs), srepr(rhs)] or ["expr", srepr(e)], ...]} or {"failure":
    [reason, construct, position]}. Relations are kept as (op, lhs, rhs): one rebuilt evaluated would be decided
    (Eq(x, x) -> True)."""
    if isinstance(relations, ParseFailure):
        return {"failure": [relations.reason, relations.construct, relations.position]}
    return {"relations": [[r.rel_op, sp.srepr(r.lhs), sp.srepr(r.rhs)] if isinstance(r, sp.core.relational.Relational)
                          else ["expr", sp.srepr(r)] for r in relations]}


@functools.lru_cache(maxsize=1)
def _srepr_names() -> dict:
    """SymPy's top-level names, and every SymPy class srepr may write that it lacks (ExprCondPair)."""
    names = {k: getattr(sp, k) for k in dir(sp) if not k.startswith("_")}
    todo = [sp.Basic]
    while todo:
        cls = todo.pop()
        for c in cls.__subclasses__():
            if (c.__module__ or "").startswith("sympy.") and not issubclass(c, sp.core.function.AppliedUndef):
                names.setdefault(c.__name__, c)
            todo.append(c)
    names["__builtins__"] = {}
    return names


def relations_from_json(obj: Mapping) -> tuple | ParseFailure:
    """The parse `relations_to_json` wrote (the same SymPy objects: srepr is evaluated in SymPy's names only)."""
    if "failure" in obj:
        reason, construct, position = obj["failure"]
        return ParseFailure(str(reason), str(construct), int(position))
    names = _srepr_names()
    out = []
    for item in obj["relations"]:
        if item[0] == "expr":
            out.append(eval(item[1], names))                       # noqa: S307 - srepr, SymPy's names only
        else:
            out.append(relation(eval(item[1], names), eval(item[2], names), item[0]))  # noqa: S307
    return tuple(out)


def shipped_path(source: str | Path) -> Path:
    """Where a source's shipped parses lie: beside it, `<stem>.parses.json`."""
    source = Path(source)
    return source.with_name(source.stem + SHIPPED_SUFFIX)


def read_parses(path: str | Path) -> dict[str, dict]:
    """A shipped parses file: {key: entry} (entries as `relations_to_json` writes them, with their label and text);
    {} where the file is absent or unreadable (the displays are then parsed)."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        return dict(data["parses"]) if data.get("format") == PARSE_FORMAT else {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def write_parses(path: str | Path, entries: Mapping[str, dict], *, source: str = "", parser: str | None = None
                 ) -> None:
    """Write a shipped parses file: {key: {"label", "text", "relations" | "failure"}} in label order, one entry a
    line (diffs stay readable)."""
    head = {"about": "theorylab's parses of this source's labelled displays (theorylab._sources.sources.parse_display), keyed "
                     "by sources.parse_key; regenerate with `python -m theorylab._pipeline.fidelity --rebuild`",
            "format": PARSE_FORMAT, "parser": parser_version(parser), "source": source}
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()] + ['  "parses": {']
    body = [f"    {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in entries.items()]
    lines += [",\n".join(body), "  }", "}"]
    tmp = Path(f"{path}.{__import__('os').getpid()}")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(path)
