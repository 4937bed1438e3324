"""Reading a LaTeX source: its labelled displays and numbered statements numbered as LaTeX numbers them
(`_read_tex`, which read_source in reading.py calls for a .tex source)."""
from __future__ import annotations

import re
from collections import Counter

from .printed import Printed, Printout, SourceWarning, _Lines, _norm, _statement_text


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
        self.braces()
        return Printout(self.out, warnings=sorted(self.warnings, key=lambda w: w.line), refs=self.refs, fmt="tex")

    def braces(self):
        """#35: a source whose braces do not balance (comments and escaped braces aside) cannot be read whole: the first
        '}' that closes nothing, or the first '{' never closed, is a warning (scaffolding then stops, never silent)."""
        text, opened = self.text, []
        for m in re.finditer(r"\\[{}]|[{}]", text):
            c = m.group(0)
            if c == "{":
                opened.append(m.start())
            elif c == "}":
                if not opened:
                    self.warnings.append(SourceWarning(self.lines(m.start()), "}", "closes no brace: the source's "
                                                       "braces do not balance, so it cannot be read whole"))
                    return
                opened.pop()
        if opened:
            self.warnings.append(SourceWarning(self.lines(opened[0]), "{", f"never closed ({len(opened)} brace(s) "
                                               f"open at the end): the source's braces do not balance, so it cannot "
                                               f"be read whole"))

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
