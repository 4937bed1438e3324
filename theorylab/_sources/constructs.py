"""Printed constructs read before a display is parsed (#24), beside theorylab._sources.sources. Each finds a
construct in a display's cleaned LaTeX (a `sources._T`: positions kept) and writes it as a command that
`sources._convert` turns into a named placeholder, so the parse names it and a paper's NotationMap gives it meaning:

- `runs`: a product of indexed factors with an ellipsis, W_1 W_2 \\dots W_{L-1} (same base, consecutive indices at
  each explicit end), is ONE name, "W_{1}\\cdots W_{L-1}" (first and last factor, joined by "\\cdots "); a run of
  transposes, W_{L-1}^T \\dots W_1^T, is the transpose of the reversed run, "(W_{1}\\cdots W_{L-1})^{T}".
- `binary_ops`: (A \\oplus B)(v) is the function "A\\oplus B" applied to v; (A \\otimes B) is "\\otimes"(A, B).
- `components`: (x)_k is the name "(\\cdot)" indexed by k applied to x.
- `divergence_bars`: D(p \\| q) is D(p, q).
- `constrained`: \\min_{S} f \\text{ s.t. } g = c is "\\min_{S}\\text{ s.t. }"(f, Eq(g, c)).
"""
from __future__ import annotations

import re

import sympy as sp

from .text import _Fail, _match_close, _match_open, _scripts, _split_top, _T, _tidy, _top_level

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
    transposes the reversed run (W_{L-1}^T \dots W_1^T is (W_1 \dots W_{L-1})^T) with T marking the transpose. An
    ellipsis that is not in such a run (a sum a_1 + \dots + a_n, a list) is left as it is (then reported)."""
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


# -- named operators: \oplus and \otimes, a component (x)_k, a divergence's bar D(p \| q) ----------------------------

_BINOP = re.compile(r"\\(oplus|otimes)(?![A-Za-z])")
_SIMPLE_NAME = re.compile(r"\s*(?:\\[A-Za-z]+\s*(?:\{\s*\\?[A-Za-z]+\s*\})?|[A-Za-z])"
                          r"(?:\s*[_^]\s*(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}|\\?[A-Za-z0-9]+))*\s*")


def _opener(s: str, pos: int) -> int:
    """Index of the innermost '(' or '{' still open at pos (escaped braces skipped), or -1."""
    stack = []
    i = 0
    while i < pos:
        c = s[i]
        if c == "\\" and i + 1 < len(s) and s[i + 1] in "{}":
            i += 2
            continue
        if c in "({[":
            stack.append(i)
        elif c in ")}]" and stack:
            stack.pop()
        i += 1
    return stack[-1] if stack else -1


def binary_ops(t: _T) -> _T:
    r"""\oplus and \otimes, each as the whole of a parenthesized group (A \oplus B): applied to arguments,
    (\omega_1 \oplus \omega_2)(v), the combined function is one name, "\omega_{1}\oplus\omega_{2}", applied to them;
    otherwise the operator is a function of its two operands, "\otimes"(A, B) (a notation map may define "\otimes",
    e.g. as sp.kronecker_product for its matrices). In a subscript (\Omega_{\omega_1 \oplus \omega_2}) it is part of
    that name. Anywhere else it is reported: its operands are not delimited."""

    start = 0
    for _ in range(20):
        s = t.s
        m = _BINOP.search(s, start)
        if not m:
            return t
        k = _opener(s, m.start())
        if k >= 0 and s[k] == "{" and re.search(r"(?:[_^]|\\qname)\s*$", s[:k]):
            start = m.end()                                  # in a subscript or superscript: part of a name
            continue
        close = _match_close(s, k, "(", ")") if k >= 0 and s[k] == "(" else -1
        inner = s[k + 1:close] if close > 0 else ""
        ops = _top_level(inner, _BINOP)
        if close < 0 or len(ops) != 1 or _top_level(inner, re.compile(r",")):
            raise _Fail("a tensor or direct sum (\\otimes, \\oplus) that is not the whole of a group (A \\otimes B)",
                        m.group(0), t.at(m.start()))
        op = ops[0]
        a, b = inner[:op.start()], inner[op.end():]
        if re.match(r"\s*\(", s[close + 1:]) and _SIMPLE_NAME.fullmatch(a) and _SIMPLE_NAME.fullmatch(b):
            name = _tidy(" ".join(a.split())) + op.group(0) + _tidy(" ".join(b.split()))
            rep = _T("\\qname{" + name + "}", [t.at(k)] * (len(name) + 8))
            t = t[:k] + rep + t[close + 1:]
        else:
            head = "\\qname{" + op.group(0) + "}("
            t = (t[:k] + _T(head, [t.at(k)] * len(head)) + t[k + 1:k + 1 + op.start()]
                 + _T(",", [t.at(k + 1 + op.start())]) + t[k + 1 + op.end():close + 1] + t[close + 1:])
        start = k + 1
    return t


_COMPONENT = re.compile(r"\)\s*_\s*(\{[^{}]*\}|[A-Za-z0-9])")
_APPLIED_NAME = re.compile(r"(?:\\[A-Za-z]+\s*(?:\{[^{}]*\})?|[A-Za-z])\s*(?:_\s*(?:\{[^{}]*\}|\w)\s*)?$")


def components(t: _T) -> _T:
    r"""A subscript on a parenthesized group, (z_l)_i, [s]_j (brackets group as parentheses do), E(beta)_k: the
    component, \qcomp{i}(z_l), the name "(\cdot)" indexed by i applied to the group (with a function name before the
    group, the component of the application: E(beta)_k is (\cdot)_k(E(beta))). (x)_+ is the positive part (read
    before this)."""

    for _ in range(30):
        s = t.s
        m = next((m for m in _COMPONENT.finditer(s) if m.group(1).strip("{} ") not in ("+", "")), None)
        if not m:
            return t
        close = m.start()
        i = _match_open(s, close)
        if i < 0 or _match_close(s, i, "(", ")") != close:
            return t
        fn = _APPLIED_NAME.search(s[:i])
        begin = i
        if fn and not re.search(r"[_^]\s*$", s[:fn.start()]) and not s[fn.start():i].strip().startswith(("\\frac",
                                                                                                      "\\sum")):
            begin = fn.start()
        idx = m.group(1).strip("{} ")
        head = "\\qcomp{" + idx + "}("
        t = (t[:begin] + _T(head, [t.at(begin)] * len(head)) + t[begin:close + 1] + _T(")", [t.at(close)])
             + t[m.end():])
    return t


_DIVERGENCE = re.compile(r"(?<=[A-Za-z}])\s*\(")


def divergence_bars(t: _T) -> _T:
    r"""A name applied to a group with one top-level bar \|, D_{KL}(p \| q): two arguments, D_{KL}(p, q) (before
    norms pair their bars: such a group holds no norm)."""

    bar = re.compile(r"\\\|")
    for m in list(_DIVERGENCE.finditer(t.s))[::-1]:
        s = t.s
        k = m.end() - 1
        close = _match_close(s, k, "(", ")")
        if close < 0:
            continue
        inner = s[k + 1:close]
        bars = _top_level(inner, bar)
        if len(bars) == 1 and len(bar.findall(inner)) == 1:
            p = k + 1 + bars[0].start()
            t = t[:p] + _T(",", [t.at(p)]) + t[p + 2:]
    return t


# -- constrained optima: \min_{S} f \text{ s.t. } g = c, h \le d -------------------------------------------------------

_OPT = re.compile(r"\\(min|max|inf|sup|argmin|argmax|minimize|maximize)\s*(?=_)")
_SUCH_THAT = re.compile(r"\\(?:text|mathrm)\s*\{\s*(?:s\.\s*t\.|subject\s+to|such\s+that)\s*\}")
_QUANTIFIED = re.compile(r"\\forall(?![A-Za-z])|\\text\s*\{\s*(?:for|if|where|when)\b|\\(?:in|notin)(?![A-Za-z])"
                         r"|\\q?quad(?![A-Za-z])")


def constrained(t: _T) -> _T:
    r"""An optimum with constraints, \min_{S} f \text{ s.t. } g = c, h \le d (the constraints to the display's end):
    \copt{\min_{S}}{f}{g = c}{h \le d}, which sources._parse_term makes the named value "\min_{S}\text{ s.t. }"
    applied to the objective and the constraints as relations (the variables and their sets stay in the name's
    subscript, as printed): data a notation map or a comparison can evaluate. Reported instead: constraints that are
    quantified (\forall i, "for j <= ...", a membership g \in B, several statements) and an optimum with several
    values on its left (a, b = \argmin ...), whose constraint list and whose left side are not delimited."""

    s = t.s
    st = _top_level(s, _SUCH_THAT)
    if not st:
        return t
    st = st[0]
    opts = [m for m in _top_level(s[:st.start()], _OPT)]
    if not opts:
        return t
    m = opts[-1]
    sc, k = _scripts(s, m.end())
    if "_" not in sc:
        return t
    head = s[:m.start()]
    rel = _top_level(head, re.compile(r"=|:=|\\triangleq|\\coloneqq|\\le(?![A-Za-z])|\\ge(?![A-Za-z])"
                                      r"|\\in(?![A-Za-z])"))
    if rel and _top_level(head[:rel[-1].start()], re.compile(",")):
        raise _Fail("a constrained optimum with several values on its left (a, b = argmin ... s.t. ...)",
                    s[m.start():m.end()], t.at(m.start()))
    tail = s[st.end():]
    if _QUANTIFIED.search(tail):
        q = _QUANTIFIED.search(tail)
        raise _Fail("an optimization problem whose constraints are quantified or a membership (\\forall i, for j, "
                    "\\in B): the quantifier is part of its value", q.group(0), t.at(st.end() + q.start()))
    cons = [c for c in _split_commas(t[st.end():]) if c.s.strip(" .,;")]
    if not cons or not s[k:st.start()].strip():
        raise _Fail("a constrained optimum with no objective or no constraint", m.group(0), t.at(m.start()))
    name = s[m.start():k]
    out = (_T("\\copt{" + name + "}{", [t.at(m.start())] * (len(name) + 8)) + t[k:st.start()]
           + _T("}", [t.at(st.start())]))
    for c in cons:
        c = c.sub(re.compile(r"[\s.,;]+$"), "")
        out = out + _T("{", [c.at(0)]) + c + _T("}", [c.at(len(c.s) - 1)])
    return t[:m.start()] + out


def _split_commas(t: _T) -> list[_T]:
    return [p for p, _ in _split_top(t, re.compile(","))]
