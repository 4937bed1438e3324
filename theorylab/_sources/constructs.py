"""Printed constructs read before a display is parsed (#24), beside theorylab._sources.sources: each finds a construct in
a display's cleaned LaTeX (a `sources._T`, positions kept) and writes it as a command `sources._convert` turns into a
named placeholder, so the parse names it and a paper's NotationMap can give it meaning.

- `runs`: a product of indexed factors with an ellipsis, W_1 W_2 \\dots W_{L-1} (same base, consecutive indices at
  each explicit end), is ONE name, "W_{1}\\cdots W_{L-1}" (first and last factor, canonical, joined by "\\cdots ");
  a run of transposes, W_{L-1}^T \\dots W_1^T, is the transpose of the reversed run, "(W_{1}\\cdots W_{L-1})^{T}".
"""
from __future__ import annotations

import re

import sympy as sp

from .sources import _T

__all__ = ["runs", "RUN_TRANSPOSE", "run_name"]

_DOTS = re.compile(r"\\(?:dots|cdots|ldots|dotsm|dotsb|dotsc)(?![A-Za-z])")
# one indexed factor after cleanup: a letter, a Greek letter or an accented letter, its index, an optional transpose
_BASE = r"(?P<base>\\(?:hat|tilde|bar|overline|check|widehat|widetilde)\s*\{\s*\\?[A-Za-z]+\s*\}|\\[A-Za-z]+|[A-Za-z])"
_IDX = r"(?:\{\s*(?:[A-Za-z]|\d+)(?:\s*[+-]\s*(?:\d+|[A-Za-z]))?\s*\}|[A-Za-z0-9])"
_SUPT = r"(?:\{\s*T\s*\}|T)"
_FACTOR = re.compile(r"(?<![A-Za-z\\_^])" + _BASE + r"\s*(?:_\s*(?P<i1>" + _IDX + r")(?:\s*\^\s*(?P<t1>" + _SUPT
                     + r"))?|\^\s*(?P<t2>" + _SUPT + r")\s*_\s*(?P<i2>" + _IDX + r"))(?!\s*[_^'])")
RUN_TRANSPOSE = "({})^{{T}}"
"""The name of a transposed run: RUN_TRANSPOSE.format(run name), "(W_{1}\\cdots W_{L-1})^{T}"."""
_GREEKISH = re.compile(r"\\[A-Za-z]+")


def _index_value(idx: str):
    """An index as SymPy ("L-1" -> L - 1, "2" -> 2): only a letter or a number, plus or minus one of them."""
    s = re.sub(r"[\s{}]", "", idx)
    m = re.fullmatch(r"([A-Za-z]|\d+)(?:([+-])(\d+|[A-Za-z]))?", s)
    if not m:
        return None
    val = lambda x: sp.Integer(x) if x.isdigit() else sp.Symbol(x)       # noqa: E731
    v = val(m.group(1))
    if m.group(2):
        v = v + val(m.group(3)) if m.group(2) == "+" else v - val(m.group(3))
    return v


def run_name(base: str, first: str, last: str) -> str:
    """The canonical name of the run base_first ... base_last: "W_{1}\\cdots W_{L-1}"."""
    b = re.sub(r"\s+", "", base)
    b = re.sub(r"\\wide(hat|tilde)", r"\\\1", b)
    first, last = (re.sub(r"[\s{}]", "", x) for x in (first, last))
    return b + "_{" + first + "}\\cdots " + b + "_{" + last + "}"


class _F:
    __slots__ = ("start", "end", "base", "idx", "t", "value")

    def __init__(self, m: re.Match):
        self.start, self.end = m.start(), m.end()
        self.base = re.sub(r"\s+", "", m.group("base"))
        self.idx = re.sub(r"[\s{}]", "", m.group("i1") or m.group("i2"))
        self.t = bool(m.group("t1") or m.group("t2"))
        self.value = _index_value(self.idx)

    def same(self, other: "_F") -> bool:
        return self.base == other.base and self.t == other.t and self.value is not None and other.value is not None


def _step(a: _F, b: _F):
    """+1 or -1 where b's index is a's plus or minus one, else None."""
    d = sp.simplify(b.value - a.value)
    return int(d) if d in (1, -1) else None


def runs(t: _T, greek: set) -> _T:
    r"""Each run `A_i A_{i+1} \dots A_j` (factors side by side, no operator between; the same base and the same
    transpose mark on every factor, explicit neighbours one index apart in one direction) as
    \dotsrun{A}{first}{last}{T?}, the run run_name(A, first, last) (sources._convert names it), for a run of
    transposes the reversed run (W_{L-1}^T \dots W_1^T is (W_1 \dots W_{L-1})^T) with T marking the transpose. An ellipsis that is not in such a run (a sum
    a_1 + \dots + a_n, a list) is left as it is (then reported)."""
    for _ in range(20):
        s = t.s
        factors = [_F(m) for m in _FACTOR.finditer(s)]
        factors = [f for f in factors if not f.base.startswith("\\") or f.base[1:] in greek
                   or re.match(r"\\(?:hat|tilde|bar|overline|check|widehat|widetilde)", f.base)]
        done = False
        for d in _DOTS.finditer(s):
            left = next((f for f in reversed(factors) if f.end <= d.start() and not s[f.end:d.start()].strip()), None)
            right = next((f for f in factors if f.start >= d.end() and not s[d.end():f.start].strip()), None)
            if left is None or right is None or not left.same(right):
                continue
            k, q = factors.index(left), factors.index(right)
            steps = set()
            while k > 0 and not s[factors[k - 1].end:factors[k].start].strip() and factors[k - 1].same(left):
                st = _step(factors[k - 1], factors[k])
                if st is None:
                    break
                steps.add(st)
                k -= 1
            while q + 1 < len(factors) and not s[factors[q].end:factors[q + 1].start].strip() \
                    and factors[q + 1].same(right):
                st = _step(factors[q], factors[q + 1])
                if st is None:
                    break
                steps.add(st)
                q += 1
            first, last = factors[k], factors[q]
            span = sp.simplify(last.value - first.value)
            if len(steps) > 1 or span == 0 or (span.is_number and steps and sp.sign(span) != steps.pop()):
                continue
            a, b = (last, first) if first.t else (first, last)
            rep = "\\dotsrun{" + first.base + "}{" + a.idx + "}{" + b.idx + "}{" + ("T" if first.t else "") + "} "
            t = t[:first.start] + _T(rep, [t.at(first.start)] * len(rep)) + t[last.end:]
            done = True
            break
        if not done:
            return t
    return t
