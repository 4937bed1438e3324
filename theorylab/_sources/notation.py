"""A paper's notation map (NotationMap): the rewrites of its LaTeX and the SymPy objects its names stand for, read by
the display parser (parse.py) and keyed by the parse store (store.py)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping


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
        \\bm) is dropped. A symbol with single-letter subscripts (u_f, N_l, W_{l+1}, beta_{o,d}) is one Symbol of
        its full name ("u_{f}", PARSE_FORMAT 7) unless its base is declared indexed: then it is the IndexedBase of
        its other parts indexed by them. The base is declared indexed by `indexed`, by mapping it to an IndexedBase,
        a Function or any callable, or where the display sums or quantifies over the index (\\sum_{i=1}^n x_i,
        \\forall i, \\text{for } i = 1, ...); map a full name ("x_{i}") to give it any object. A name applied to
        arguments, f(x, y), calls the mapped object (an undefined Function of that name if unmapped; a one-letter
        name the display also prints as a bare value, b in b(s - a b), is a factor: PARSE_FORMAT 7). Defaults:
        "e" -> E, "\\pi" -> pi. A name bound to a matrix (an sp.MatrixSymbol, an sp.Matrix, any matrix expression;
        "W_{l}" and "W_{l+1}" as full names) is a matrix: its products keep the printed order, W^T / W^{\\top} /
        W^{\\mathsf{T}} is its transpose, and norms and inner products of matrices mean tr(A^T A) and tr(A^T B)
        (PARSE_FORMAT 4).
    indexed: base names ("x", "W", "\\beta") whose letter subscripts are indices: x_i is x[i], an IndexedBase (a base
        covers its superscripted names: "W" makes W_l^{T} the IndexedBase "W^{T}" at l).
    labels: base names ("W", "\\Sigma") whose superscripts are labels, never powers: W^{21}, W^{2} are the names
        "W^{21}", "W^{2}". Undeclared, a parenthesized superscript (W^{(2)}) and one of two or more digits on a
        capital (\\Sigma^{31}, W^{21}: layer labels, PARSE_FORMAT 7) are labels; x^{2} and x^{10} are powers.

    Example::

        NotationMap(rewrites=((r"\\operatorname{arcsinh}", r"\\arsinh"), (re.compile(r"\\mathrm\\{aux\\}"), "a"))),
                    symbols={"z": sp.Symbol("z", real=True)})
    """

    rewrites: tuple = ()
    symbols: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    indexed: tuple = ()
    labels: tuple = ()

    def __post_init__(self):
        for what in ("indexed", "labels"):
            names = getattr(self, what)
            names = (names,) if isinstance(names, str) else tuple(names)
            if not all(isinstance(n, str) and n.strip() for n in names):
                raise ValueError(f"NotationMap: {what} must be base names as LaTeX strings (\"x\", \"\\\\Sigma\"); "
                                 f"got {what}={getattr(self, what)!r}")
            object.__setattr__(self, what, tuple(n.strip() for n in names))
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
