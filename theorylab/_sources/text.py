"""Text utilities of the source reader and the display parser (theorylab._sources): a string that keeps each
character's offset in the printed text, delimiter matching, top-level splitting, script arguments, a symbol's canonical
name, and the ParseFailure record. The lowest module of the layer: sources.py and constructs.py import it, it imports
neither."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

__all__ = ["ParseFailure"]


@dataclass(frozen=True)
class ParseFailure:
    """Why a display did not parse: the reason, the construct that stopped it and its position (0-based character
    offset in the display's printed text). `str()` is one line."""

    reason: str
    construct: str
    position: int

    def __str__(self) -> str:
        return f"{self.reason}: {self.construct!r} at character {self.position}"


class _T:
    """A string with, for each character, its offset in the printed text (so a failure names its position)."""

    __slots__ = ("s", "o")

    def __init__(self, s: str, o: list[int] | None = None):
        self.s, self.o = s, (list(range(len(s))) if o is None else o)

    def sub(self, rx: re.Pattern, repl: Callable[[re.Match], str] | str) -> "_T":
        f = repl if callable(repl) else (lambda m, r=repl: r)
        ss, oo, last = [], [], 0
        for m in rx.finditer(self.s):
            ss.append(self.s[last:m.start()])
            oo.extend(self.o[last:m.start()])
            r = f(m)
            ss.append(r)
            oo.extend([self.at(m.start())] * len(r))
            last = m.end()
        if not ss:
            return self
        ss.append(self.s[last:])
        oo.extend(self.o[last:])
        return _T("".join(ss), oo)

    def at(self, i: int) -> int:
        if not self.o:
            return 0
        return self.o[min(max(i, 0), len(self.o) - 1)]

    def __getitem__(self, sl: slice) -> "_T":
        return _T(self.s[sl], self.o[sl])

    def strip(self) -> "_T":
        a = len(self.s) - len(self.s.lstrip())
        b = len(self.s.rstrip())
        return self[a:b]

    def __add__(self, other: "_T") -> "_T":
        return _T(self.s + other.s, self.o + other.o)


class _Fail(Exception):
    def __init__(self, reason: str, construct: str, position: int):
        super().__init__(reason)
        self.failure = ParseFailure(reason, construct, position)


def _match_close(s: str, i: int, open_: str, close: str) -> int:
    """Index of the `close` matching the `open_` at s[i] (nesting counted), or -1."""
    depth, j = 0, i
    while j < len(s):
        if s.startswith(open_, j) and (open_ != close or depth == 0):
            depth += 1
            j += len(open_)
            continue
        if s.startswith(close, j):
            depth -= 1
            if depth == 0:
                return j
            j += len(close)
            continue
        j += 2 if s[j] == "\\" and j + 1 < len(s) and not s[j + 1].isalpha() else 1
    return -1


def _match_open(s: str, close: int) -> int:
    """Index of the "(" matching the ")" at s[close] (nesting counted, scanning back), or -1."""
    depth, i = 0, close
    while i >= 0:
        depth += {")": 1, "(": -1}.get(s[i], 0)
        if depth == 0:
            return i
        i -= 1
    return -1


def _brace_arg(s: str, i: int) -> tuple[str, int] | None:
    """The {...} argument (or single token) starting at s[i] (after spaces): (content, index after it)."""
    while i < len(s) and s[i] == " ":
        i += 1
    if i >= len(s):
        return None
    if s[i] == "{":
        j = _match_close(s, i, "{", "}")
        return (s[i + 1:j], j + 1) if j >= 0 else None
    if s[i] == "\\":
        m = re.match(r"\\(?:[A-Za-z]+|.)", s[i:])
        return m.group(0), i + m.end()
    return s[i], i + 1


def _top_level(s: str, rx: re.Pattern) -> list[re.Match]:
    """Matches of rx outside any (), [], {} and \\left..\\right group."""
    depth = [0] * (len(s) + 1)
    d = 0
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s) and s[i + 1] in "{}":
            depth[i] = depth[i + 1] = d
            i += 2
            continue
        if c in "([{":
            d += 1
        depth[i] = d
        if c in ")]}":
            d = max(d - 1, 0)
        i += 1
    return [m for m in rx.finditer(s) if depth[m.start()] == 0]


def _split_top(t: _T, rx: re.Pattern) -> list[tuple[_T, str]]:
    """t cut at the top-level matches of rx: [(piece, separator after it)]."""
    out, last = [], 0
    for m in _top_level(t.s, rx):
        out.append((t[last:m.start()], m.group(0)))
        last = m.end()
    out.append((t[last:], ""))
    return out


def _scripts(s: str, j: int) -> tuple[dict, int]:
    """The _x / ^{y} arguments at s[j:] (either order): ({"_": (start, end), "^": (start, end)} of their contents,
    index after them)."""
    out = {}
    while True:
        m = re.match(r"\s*([_^])\s*", s[j:])
        if not m or m.group(1) in out:
            return out, j
        a = j + m.end()
        arg = _brace_arg(s, a)
        if arg is None:
            return out, j
        out[m.group(1)] = (a + 1, arg[1] - 1) if s[a] == "{" else (a, arg[1])
        j = arg[1]


def _tidy(name: str) -> str:
    r"""A symbol's canonical name: no spaces around braces and scripts, \widehat/\widetilde as \hat/\tilde."""
    name = re.sub(r"\\wide(hat|tilde)(?![A-Za-z])", r"\\\1", name)
    return re.sub(r"\s+(?=[_^{}])|(?<=[_^{}])\s+", "", name).strip()
