"""The names of a display and the constructs found by scanning its LaTeX before conversion (integrals, limits, named
sums, operands, components, runs): the placeholders table (_Names) and the symbol tables the converter reads."""
from __future__ import annotations

import re

import sympy as sp

from .text import _brace_arg, _Fail, _match_close, _scripts, _T, _tidy, _top_level


class _Names:
    """Symbols of a display replaced by placeholders the parsers read as one symbol (Q_{za}, Q_{zb}, ...)."""

    def __init__(self):
        self.table: dict[str, tuple[str, tuple[str, ...]]] = {}      # placeholder key -> (name, indices)
        self.by: dict[tuple[str, tuple[str, ...]], str] = {}
        self.apps: dict[str, tuple[str, list]] = {}      # application key -> (function placeholder, argument texts)
        self.plain: set[str] = set()                      # names the notation maps to a value: never applied
        self.runs: dict[str, tuple[str, str, bool]] = {}  # placeholder key -> (run name, factor base, transposed)
        self.indexed: set[str] = set()                   # base names declared indexed (NotationMap.indexed)
        self.bound: set[str] = set()                     # letters the display sums or quantifies over (indices)
        self.labels: set[str] = set()                    # base names whose superscripts are labels
        self.declared: set[str] = set()                  # the notation's names ("W^{21}": a label, not a power)
        self.values: set[str] = set()                    # one-letter names the display also prints as a bare value

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


_OPTIMA = ("min", "max", "inf", "sup", "argmin", "argmax", "minimize", "maximize")


_BOUND = re.compile(r"\\(?:sum|prod)\s*_\s*(\{(?:[^{}]|\{[^{}]*\})*\}|[A-Za-z])|\\forall\s*((?:[A-Za-z]|\\[a-z]+)(?:\s*,\s*"
                    r"(?:[A-Za-z]|\\[a-z]+))*)|\\text\s*\{\s*for(?:\s+(?:all|each|every))?\s*\}\s*((?:[A-Za-z]|\\[a-z]+)"
                    r"(?:\s*,\s*(?:[A-Za-z]|\\[a-z]+))*)\s*(?:=|\\in|<|\\le)")
_LETTER = re.compile(r"\\(?!in(?![a-z]))[a-z]+|[A-Za-z]")


def _bound_indices(text: str) -> set[str]:
    r"""The letters a display sums, multiplies or quantifies over (#35, PARSE_FORMAT 7): \sum_{i=1}^n, \prod_{l},
    \sum_{i \in A}, \forall i, \text{for } i = 1, ..., n. A subscript of one of them is an index (x_i in \sum_i x_i is
    x[i]), where an undeclared subscript is part of a name (u_f is the Symbol "u_{f}")."""
    out: set[str] = set()
    for m in _BOUND.finditer(text):
        if m.group(1):
            sub = m.group(1).strip("{}")
            sub = re.split(r"=|\\in(?![A-Za-z])|<|\\le(?![A-Za-z])", sub)[0]
            out |= set(_LETTER.findall(sub))
        else:
            out |= set(_LETTER.findall(m.group(2) or m.group(3)))
    return out


_BARE = re.compile(r"(?<![\\A-Za-z_^{])(?<![_^]\{)([A-Za-z])(?![A-Za-z])(?:\s*_\s*(\{[^{}]*\}|[A-Za-z0-9]))?(?!\s*[(_^'])"
                   r"|(?<=[\s{(+\-=,*/])([A-Za-z])(?:\s*_\s*(\{[^{}]*\}|[A-Za-z0-9]))?(?=\s*[)}])")


def _bare_letters(text: str) -> set[str]:
    r"""One-letter names, with a subscript or without, the display prints as a bare value, b in b(s - a \cdot b) and
    u_f in \ln u_f(s - u_f) (#35): not applied, not superscripted, not an index ("u", "u_{f}"). Such a name followed
    by a group is a product, b(...) = b \cdot (...), unless the notation declares it a function: a name is a value or
    a function within one display, never both."""
    out = set()
    for m in _BARE.finditer(text):
        letter, sub = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        out.add(letter + (f"_{{{sub.strip('{}').strip()}}}" if sub else ""))
    return out
