"""The LaTeX parsers a converted term is given to (PARSERS: latex2sympy2_extended, SymPy's lark and antlr), each
imported only when chosen and cached by its input, and how their errors and ambiguities are read."""
from __future__ import annotations

import functools
import re
from typing import Any, Callable

import sympy as sp

from .text import _Fail


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


@functools.lru_cache(maxsize=1024)
def _parse_l2s_matrices(s: str, matrices: tuple[str, ...]):
    # lazy: latex2sympy2 costs ~80 ms; `theorylab eval` loads this module and never parses
    from latex2sympy2_extended import latex2sympy
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig
    return latex2sympy(s, variable_values={m: sp.zeros(2, 2) for m in matrices},
                       conversion_config=ConversionConfig(lowercase_symbols=False, interpret_as_mixed_fractions=False))
