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
