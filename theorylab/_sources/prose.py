"""Claims in prose (#35 item 4): the sentences of a paper's source (.tex or .md), a quoted fragment found in them, and
the sentences that assert (candidate claims for `theorylab new --from`), each with its line and section.

A step cites a sentence by quoting a fragment of it (`Step(..., quotes=("it follows that the loss converges",))`).
The fragment is found in the source after both are normalized the same way, so a fragment copied from the PDF or
from the .tex is found: LaTeX comments, markup commands (\\emph, \\mathbb, \\left, ...), \\label and \\cite keys,
punctuation, spaces and hyphenation are dropped; \\ref/\\eqref become the printed number; a Greek letter is its name
whether typed (θ) or written (\\theta); ligatures and mathematical letters are folded (NFKC); case is ignored. The
fragment must occur once: a misquote is an error naming the longest part that was found and where, and a fragment
found in two sentences says it is ambiguous.
"""
from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from dataclasses import dataclass

from .._records.params import DomainError

__all__ = ["Sentence", "QuoteError", "sentences", "find_quote", "candidate_claims", "CLAIM_CUES", "MIN_QUOTE"]

MIN_QUOTE = 12  # letters and digits a fragment needs, after normalizing, to name one sentence rather than a phrase

# the words that make a sentence assert something (the list: we show, it follows, therefore, for every, is
# bounded; and converges, holds): a sentence of prose with one of them is a candidate claim
CLAIM_CUES = re.compile(
    r"\b(?:we (?:show|prove|obtain|conclude|find)|it follows|follows that|therefore|hence|consequently|implies|"
    r"for (?:every|all|any|each)\b|(?:is|are|remains?) bounded|bounded (?:by|above|below)|converges?|convergence|"
    r"holds?|minimi[sz]es|maximi[sz]es|vanishes|is (?:at most|at least|equal to|monotone|increasing|decreasing))\b",
    re.I)

_GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta", "vartheta", "iota",
          "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "varpi", "rho", "varrho", "sigma", "varsigma", "tau",
          "upsilon", "phi", "varphi", "chi", "psi", "omega"}
# commands whose braced argument is a key, never printed text (\label{eq:x}, \cite{smith20})
_KEY_COMMANDS = {"label", "cite", "citep", "citet", "citealp", "citealt", "citeauthor", "citeyear", "nocite",
                 "bibliography", "bibliographystyle", "url", "includegraphics", "input", "include", "usepackage",
                 "documentclass", "newcommand", "renewcommand", "setcounter", "numberwithin", "newtheorem", "vspace",
                 "hspace", "begin", "end"}
_REF_COMMANDS = {"ref", "eqref", "autoref", "cref", "Cref", "pageref"}
_ABBREVIATIONS = re.compile(r"(?:\b(?:e\.g|i\.e|et al|etc|cf|vs|resp|approx|Fig|Figs|Eq|Eqs|Sec|Secs|Thm|Lem|Prop|"
                            r"Cor|Def|Ref|Refs|App|Ch|No|i\.i\.d|w\.r\.t|s\.t)|\b[A-Z])\.$")
_TEX_DISPLAYS = r"equation|align|gather|multline|flalign|alignat|eqnarray|displaymath|math"
_PARAGRAPH_BREAK = re.compile(
    r"\n[ \t]*\n|\\(?:sub)*section\*?\s*(?:\[[^\]]*\])?\s*\{|\\paragraph\*?\s*\{|\\(?:begin|end)\s*\{(?!(?:"
    + _TEX_DISPLAYS + r")\*?\})[^}]*\}|\\item\b|\\maketitle\b|\\\[|\\\]|\$\$|\\(?:begin|end)\s*\{(?:" + _TEX_DISPLAYS
    + r")\*?\}")
_TEX_HEADING = re.compile(r"\\(section|subsection|subsubsection|paragraph)\*?\s*(?:\[[^\]]*\])?\s*\{")
_MD_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+(.+)$", re.M)
# environments that state a claim whatever their words (numbered or not: theorem*, an undeclared claim); with every
# environment a \newtheorem declares
_CLAIM_ENVS = {"theorem", "lemma", "proposition", "corollary", "claim", "conjecture", "fact", "observation"}
_LINE_NUMBERS = re.compile(r"^[ \t]*\d{2,4}(?:[ \t]+\d{2,4})*[ \t]*$", re.M)  # a PDF's margin line numbers


class QuoteError(DomainError):
    """A quoted fragment that names no sentence of the source, or more than one; the message is one line."""


@dataclass(frozen=True)
class Sentence:
    """One sentence of a paper's source: its printed text (whitespace normalized), its 1-based line, the heading it
    stands under ("" before the first) and its character span [start, end) in the source."""

    text: str
    line: int
    section: str
    start: int
    end: int
    env: str = ""  # the theorem-like environment it stands in (a .tex's theorem, claim, \newtheorem'd ones), or ""

    @property
    def where(self) -> str:
        """'line 93 (B.1 DIAGONAL LINEAR NETWORKS)': where a reader finds it."""
        return f"line {self.line}" + (f" ({self.section})" if self.section else "")

    def trimmed(self, n: int = 300) -> str:
        """The text cut at a word to about `n` characters."""
        if len(self.text) <= n:
            return self.text
        cut = self.text.rfind(" ", 0, n)
        return self.text[:cut if cut > n // 2 else n] + " …"


def _is_tex(text: str) -> bool:
    """A .tex source (as read_source decides for a text): LaTeX environments or sections and no $$ displays."""
    return bool(re.search(r"\\begin\{(?:equation|align|gather|multline|document)\*?\}|\\section\*?\{", text)) \
        and "$$" not in text


def _blank(text: str, pattern: re.Pattern) -> str:
    """The matches of `pattern` replaced by spaces (lengths and lines kept, so offsets still point into the source)."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _prepared(text: str, tex: bool) -> str:
    """The source with what is never prose blanked, offsets kept: LaTeX comments and the preamble of a .tex, the
    margin line numbers of a PDF conversion."""
    if tex:
        text = _blank(text, re.compile(r"(?<!\\)%[^\n]*|\\label\s*\{[^}]*\}"))
        doc = text.find("\\begin{document}")
        if doc >= 0:
            text = re.sub(r"[^\n]", " ", text[:doc + len("\\begin{document}")]) + text[doc + len("\\begin{document}"):]
    return _blank(text, _LINE_NUMBERS)


def _greek_name(ch: str) -> str | None:
    """'theta' for θ or Θ (a Greek letter typed, as a PDF copies it), else None."""
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return None
    m = re.match(r"(?:MATHEMATICAL \w+ )*(?:\w+ )*GREEK (?:SMALL|CAPITAL) LETTER (\w+)$", name)
    return m.group(1).lower() if m else None


def _normalized(text: str, refs: dict[str, str]) -> tuple[str, list[int]]:
    """`text` as the lower-case letters and digits a reader sees, with each kept character's offset in `text`."""
    out: list[str] = []
    offsets: list[int] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            m = re.match(r"\\([A-Za-z]+)\*?", text[i:])
            if m is None:                      # \( \$ \% \_ \\ : an escaped character, never a letter of the prose
                i += 2
                continue
            name = m.group(1)
            j = i + m.end()
            if name in _KEY_COMMANDS or name in _REF_COMMANDS:
                arg = re.match(r"\s*(?:\[[^\]]*\]\s*)*\{([^}]*)\}", text[j:])
                if arg is not None:
                    j += arg.end()
                    if name in _REF_COMMANDS:  # the number the reader sees, "(3)" -> 3
                        for ch in re.sub(r"[^0-9A-Za-z.]", "", refs.get(arg.group(1).strip(), "")).lower():
                            if ch.isalnum():
                                out.append(ch)
                                offsets.append(i)
            elif name in _GREEK or name.lower() in _GREEK:
                out.extend(name.lower().removeprefix("var"))
                offsets.extend([i] * len(name.lower().removeprefix("var")))
            elif name == "ell":
                out.append("l")
                offsets.append(i)
            i = j                              # any other command is markup: its name is dropped, its argument kept
            continue
        if c.isalnum():
            greek = _greek_name(c)
            folded = greek.removeprefix("var") if greek else unicodedata.normalize("NFKC", c).casefold()
            for ch in folded:
                if ch.isalnum():
                    out.append(ch)
                    offsets.append(i)
        i += 1
    return "".join(out), offsets


@dataclass(frozen=True)
class _Index:
    """A source read once for quoting: its prepared text, its normalized text with offsets, its sentences."""

    prepared: str
    normal: str
    offsets: list
    sentences: tuple
    refs: dict


def _mask_inline_math(text: str) -> str:
    """Inline math $...$ and \\( \\) replaced by 'x' of the same length: a '.' in it never ends a sentence."""
    return re.sub(r"(?<!\\)\$(?!\$)[^$\n]{0,400}?(?<!\\)\$|\\\(.{0,400}?\\\)",
                  lambda m: "x" * len(m.group(0)), text, flags=re.S)


def _closing(text: str, j: int) -> int:
    """The offset just after the '}' that closes a group opened just before offset j."""
    depth = 1
    while j < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        j += 1
    return j


def _headings(prepared: str, tex: bool) -> list[tuple[int, str]]:
    """(offset, title) of each heading, in order: \\section{..} and its kin in a .tex; '# ..' and a line in capitals
    of at least two words (a PDF conversion's heading, 'B.1 DIAGONAL LINEAR NETWORKS') in Markdown."""
    out = []
    if tex:
        for m in _TEX_HEADING.finditer(prepared):
            j = _closing(prepared, m.end())
            out.append((m.start(), " ".join(prepared[m.end():j - 1].split())))
        return out
    for m in _MD_HEADING.finditer(prepared):
        out.append((m.start(), m.group(1).strip()))
    for m in re.finditer(r"^[ \t]*(\S[^\n]{4,200})$", prepared, re.M):
        line = m.group(1).strip()
        letters = [ch for ch in line if ch.isalpha()]
        if (len(letters) >= 6 and sum(ch.isupper() for ch in letters) >= 0.9 * len(letters)
                and len(line.split()) >= 2 and "$" not in line):
            out.append((m.start(), re.sub(r"^\d{2,4}\s+(?=\S)", "", line)))
    return sorted(out)


def _split(prepared: str, tex: bool) -> list[tuple[int, int]]:
    """The [start, end) spans of the sentences of the prepared source: paragraphs cut at blank lines, headings,
    environments and displays, then at '.', '?' or '!' followed by a space and a capital (not after an abbreviation,
    not inside inline math)."""
    breaks = [(m.start(), m.end()) for m in _PARAGRAPH_BREAK.finditer(prepared)]
    if tex:  # a heading's title is no sentence: the break runs to its closing brace
        breaks += [(m.start(), _closing(prepared, m.end())) for m in _TEX_HEADING.finditer(prepared)]
    else:
        breaks += [(m.start(), m.end()) for m in re.finditer(r"^[ \t]*#{1,6}[^\n]*$", prepared, re.M)]
    cuts, at = [0], 0  # the gaps between the breaks, as (start, end) pairs flattened
    for x, y in sorted(breaks):
        if x > at:
            cuts += [x, x]
        at = max(at, y)
        cuts[-1] = at
    cuts.append(len(prepared))
    spans = []
    for a, b in zip(cuts[::2], cuts[1::2]):
        start = 0
        masked = _mask_inline_math(prepared[a:b])  # within the span: a $$ display is a break, never math
        for m in re.finditer(r"[.?!][)\"'”’]*\s+(?=[A-Z\\$(“\"'])", masked):
            end = m.start() + 1
            if _ABBREVIATIONS.search(masked[max(start, end - 12):end]):
                continue
            spans.append((a + start, a + end))
            start = m.end()
        spans.append((a + start, b))
    return [(a + len(prepared[a:b]) - len(prepared[a:b].lstrip()), b) for a, b in spans if prepared[a:b].strip()]


@functools.lru_cache(maxsize=16)
def _index(text: str) -> _Index:
    from .sources import read_source  # lazy: the source reader (numbering, \newtheorem) only for its \ref keys

    tex = _is_tex(text)
    refs = read_source(text, fmt="tex").refs if tex else {}
    prepared = _prepared(text, tex)
    normal, offsets = _normalized(prepared, refs)
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    heads = _headings(prepared, tex)
    envs = []
    if tex:
        # the declarations are in the preamble, which `prepared` blanks
        names = _CLAIM_ENVS | set(re.findall(r"\\newtheorem\*?\s*\{([^}]*)\}", _prepared(text, False)))
        envs = [(m.start(), m.end(), m.group(1)) for m in
                re.finditer(r"\\begin\s*\{([A-Za-z]+\*?)\}(.*?)\\end\s*\{\1\}", prepared, re.S)
                if m.group(1).rstrip("*") in names]
    found = []
    for a, b in _split(prepared, tex):
        k = bisect.bisect_right([h[0] for h in heads], a) - 1
        env = next((name for x, y, name in envs if x <= a < y), "")
        found.append(Sentence(text=" ".join(prepared[a:b].split()), line=bisect.bisect_right(starts, a),
                              section=heads[k][1] if k >= 0 else "", start=a, end=b, env=env))
    return _Index(prepared=prepared, normal=normal, offsets=offsets, sentences=tuple(found), refs=refs)


def sentences(text: str) -> list[Sentence]:
    """Every sentence of a paper's source text (.tex or .md), in order, with its line and section."""
    return list(_index(text).sentences)


def _sentence_at(ix: _Index, hit: int, length: int) -> Sentence:
    """The sentence holding most of the normalized match [hit, hit + length) (a quote may begin in the display a
    sentence follows: "(30) where the right-hand side ..." names the sentence after display (30))."""
    starts = [s.start for s in ix.sentences]
    count: dict[int, int] = {}
    for k in range(hit, hit + length):
        i = max(bisect.bisect_right(starts, ix.offsets[k]) - 1, 0)
        count[i] = count.get(i, 0) + 1
    return ix.sentences[max(count, key=lambda i: (count[i], -i))]


def find_quote(text: str, fragment: str) -> Sentence:
    """The sentence of the source `text` in which the quoted `fragment` occurs (#35 item 4).

    Both are normalized alike (module docstring), so a fragment copied from the PDF or the .tex is found. QuoteError
    in one line where the fragment is not a string, has fewer than MIN_QUOTE letters and digits, is not found (naming
    the longest beginning of it that is found, and where), or is found in two sentences (naming both lines)."""
    if not isinstance(fragment, str):
        raise QuoteError(f"quote must be a string, a fragment of one sentence of the source; got the "
                         f"{type(fragment).__name__} {fragment!r}"[:200])
    ix = _index(text)
    want, want_offsets = _normalized(fragment, ix.refs)
    if len(want) < MIN_QUOTE:
        raise QuoteError(f"quote {fragment!r} must have at least {MIN_QUOTE} letters and digits to name one sentence; "
                         f"it has {len(want)}")
    hits, at = [], ix.normal.find(want)
    while at >= 0:
        hits.append(at)
        at = ix.normal.find(want, at + 1)
    if not hits:
        lo, hi = 0, len(want)  # the longest found beginning: found prefixes are closed under shortening
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if want[:mid] in ix.normal else (lo, mid - 1)
        if lo >= 4:
            s = _sentence_at(ix, ix.normal.find(want[:lo]), lo)
            said = fragment[:want_offsets[lo - 1] + 1].strip()
            hint = (f"; its beginning {said!r} is at {s.where}, where the source goes on: "
                    f"{_after(ix, ix.normal.find(want[:lo]) + lo)!r}")
        else:
            hint = ""
        raise QuoteError(f"quote {fragment!r} is not in the source (compared without markup, case or punctuation)"
                         + hint)
    found = []
    for h in hits:
        s = _sentence_at(ix, h, len(want))
        if all(s.start != f.start for f in found):
            found.append(s)
    if len(found) > 1:
        raise QuoteError(f"quote {fragment!r} is ambiguous: it is in {len(found)} sentences of the source ("
                         + ", ".join(f.where for f in found[:4]) + "); quote more of the one you mean")
    return found[0]


def _after(ix: _Index, k: int, n: int = 40) -> str:
    """The source's printed text from normalized position k on (about n characters), where a misquote departs."""
    if k >= len(ix.offsets):
        return ""
    a = ix.offsets[k]
    return " ".join(ix.prepared[a:a + n].split())


def candidate_claims(text: str, skip: tuple[str, ...] = ()) -> list[tuple[Sentence, str]]:
    """The sentences of the source that assert something: (sentence, the cue found: 'we show', 'it follows',
    'for every', 'is bounded', 'converges', 'holds', ...; or the theorem-like environment it stands in, as
    '\\begin{claim}', whatever its words), in order. Sentences of prose only: a display, a heading or a line of LaTeX
    commands is none (fewer than four words outside math, two in a theorem-like environment). A sentence inside one
    of the texts of `skip` (a numbered statement's text, proposed by its label), compared without markup, is left
    out."""
    ix = _index(text)
    skipped = [_normalized(t, ix.refs)[0] for t in skip]
    out = []
    for s in ix.sentences:
        mine = _normalized(s.text, ix.refs)[0]
        if mine and any(mine in t for t in skipped):
            continue
        prose = re.sub(r"\$[^$]*\$|\\\(.*?\\\)|\\[A-Za-z]+\*?(?:\{[^{}]*\})?", " ", s.text)
        if len(re.findall(r"[A-Za-z]{2,}", prose)) < (2 if s.env else 4) or s.text == s.section:
            continue
        m = CLAIM_CUES.search(prose)
        if m or s.env:
            out.append((s, f"\\begin{{{s.env}}}" if s.env else m.group(0).lower()))
    return out
