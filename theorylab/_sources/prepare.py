"""Preparing a display's LaTeX before its terms are parsed: the notation's rewrites, layout removed, delimited and
derivative constructs rewritten, unsupported constructs reported, and the display cut into statements."""
from __future__ import annotations

import re

import sympy as sp

from .notation import NotationMap
from .relations import _CONDITION, _REL_RX, _SEPARATORS
from .scan import _GREEK, _operand_end
from .text import _brace_arg, _Fail, _match_close, _match_open, _split_top, _T, _top_level


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


_DERIV_VAR = r"(\\[A-Za-z]+|[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?)"


def _derivatives(t: _T) -> _T:
    r"""\frac{\partial^k X}{\partial v^k} and \frac{d^k X}{d v^k} (\mathrm{d} is d after cleanup) as \pdiff{k}{v}{X}: a
    derivative of X in v (SymPy's Derivative; a partial one holds every other symbol fixed). The operator form
    \frac{d}{dv} X, \frac{\partial}{\partial v}(X) is the same where its operand is one group or one symbol
    (`_derivative_operator`); \partial_v X and an operator before a product are left as they are (then reported)."""
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
        op = (r"\\partial(?![A-Za-z])" if num.lstrip().startswith("\\partial")
              else r"d(?=[\s\\^A-Z]|[a-z](?![A-Za-z])|$)")
        mn = re.match(r"\s*(?:" + op + r")\s*(?:\^\s*\{?\s*(\d)\s*\}?)?\s*", num)
        md = re.fullmatch(r"\s*(?:" + op + r")\s*" + _DERIV_VAR + r"\s*(?:\^\s*\{?\s*(\d)\s*\}?)?\s*", den)
        if mn and md and not num[mn.end():].strip() and (mn.group(1) or "1") == (md.group(2) or "1"):
            operator = _derivative_operator(t, m.start(), cb + 1, mn.group(1) or "1", b + 1 + md.start(1),
                                            b + 1 + md.end(1))
            if operator is not None:
                t, start = operator
                continue
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


# what may follow an operator's operand: the end, a sum's sign, a relation, a separator (never a further factor,
# whose place inside or outside the derivative the print leaves open)
_OPERAND_ENDS = re.compile(r"\s*(?:$|[+\-=<>,;)]|\\(?:le|ge|ne|lt|gt|approx|simeq|sim|propto|quad|qquad|text|implies|"
                           r"to|in)(?![A-Za-z]))")


def _derivative_operator(t: _T, at: int, after: int, k: str, v0: int, v1: int):
    r"""\frac{d}{dt} X, \frac{d^2}{dt^2}(X), \frac{\partial}{\partial x}(X) (#35: the operator applied to an
    expression) as \pdiff{k}{v}{X}: (the rewritten text, where to read on), or None where the operand is not one parenthesized group
    or one symbol (with its scripts and an applied group, W^{21}, u_f(t)) ending its product, as in \frac{d}{dt} a b."""
    s = t.s
    a = after
    while a < len(s) and s[a] == " ":
        a += 1
    end = _operand_end(s, a)
    if end is None or not _OPERAND_ENDS.match(s, end):
        return None
    body = t[a + 1:end - 1] if s[a] == "(" and _match_close(s, a, "(", ")") == end - 1 else t[a:end]
    head = "\\pdiff{" + k + "}{"
    out = (t[:at] + _T(head, [t.at(at)] * len(head)) + t[v0:v1] + _T("}{", [t.at(v1)] * 2) + body
           + _T("}", [t.at(end - 1)]) + t[end:])
    return out, at + len(head)


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
