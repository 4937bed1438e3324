"""Matrix names in a parse (PARSE_FORMAT 4): a name the notation binds to a matrix keeps its factors' order, its
transposes and norms mean what they mean for matrices, and runs of factors (constructs.runs) become their symbols."""
from __future__ import annotations

import re
from typing import Any, Callable, Mapping

import sympy as sp

from .backends import _parse_l2s_matrices
from .notation import NotationMap
from .scan import _Names
from .text import _Fail, _T


# -- matrix names (PARSE_FORMAT 4): a name the notation binds to a matrix keeps its factors' order -------------------

def _is_matrix(v: Any) -> bool:
    return isinstance(v, (sp.MatrixBase, sp.MatrixExpr))


def _matrix_of(names: _Names, key: str) -> tuple[str, bool] | None:
    r"""The declared matrix name a placeholder stands for, and whether it is transposed (W^{T}, W^\top, W^{\mathsf{T}}
    all read W^{T}); None where the notation declares no matrix of that name."""
    declared = getattr(names, "matrices", None)
    if not declared or key not in names.table:
        return None
    name, idx = names.table[key]
    suffix = f"_{{{','.join(idx)}}}" if idx else ""
    plain = name[1:-5] if name.startswith("(") and name.endswith(")^{T}") else name[:-4]   # (W_1 ... W_L)^{T}
    for base, transposed in ((name, False), (plain, True) if name.endswith("^{T}") else (name, False)):
        for n in (base + suffix, base):
            if n in declared:
                return n, transposed
    return None


_MATRIX_POWER = re.compile(r"Q_\{(z[a-z]{3})\}\s*\^")


def _with_matrices(fn: Callable[[str], Any], conv: _T, names: _Names, parser: str):
    r"""The parser's reading of a term, its matrix names as matrices (latex2sympy2_extended's variable_values: their
    products are MatMul, in the printed order, W^T W is not W W^T); a power of a matrix name is reported."""
    s = conv.s
    present = tuple(sorted(k for k in names.table if "Q_{" + k[1:] + "}" in s and _matrix_of(names, k)))
    if not present:
        return fn(s)
    if parser != "latex2sympy2_extended":
        raise _Fail("matrix names need the latex2sympy2_extended parser", parser, conv.at(0))
    for m in _MATRIX_POWER.finditer(s):
        if "Q" + m.group(1) in present:
            raise _Fail("a power of a matrix (W^{2}, W^{-1})", names.table["Q" + m.group(1)][0], conv.at(m.start()))
    return _parse_l2s_matrices(s, tuple("Q_{" + k[1:] + "}" for k in present))


_NORMS = {"\\|\\cdot\\|_{F}": "F", "\\|\\cdot\\|_{2}": "2", "\\|\\cdot\\|": "2", "\\|\\cdot\\|_{op}": "op",
          "\\|\\cdot\\|_{\\text{op}}": "op", "\\|\\cdot\\|_{\\mathrm{op}}": "op"}


def _matrix_meaning(f: sp.Basic) -> sp.Basic | None:
    r"""A norm or inner product (unmapped by the notation) of matrices as what it means: \|A\|_F = sqrt(tr(A^T A)), the
    same for \|v\|_2 of a vector; \|A\|_2 and \|A\|_{op} of a matrix its largest singular value (the undefined function
    "\|\cdot\|_{op}", which the comparison evaluates); <A, B> = tr(A^T B). None for anything else."""
    name = f.func.__name__
    args = f.args
    if not args or not all(getattr(a, "is_Matrix", False) for a in args):
        return None
    if name == "\\langle\\cdot,\\cdot\\rangle" and len(args) == 2:
        return sp.Trace(sp.MatMul(args[0].T, args[1]))
    kind = _NORMS.get(name)
    if kind is None or len(args) != 1:
        return None
    a = args[0]
    if kind == "F" or (kind == "2" and 1 in a.shape):
        return sp.sqrt(sp.Trace(sp.MatMul(a.T, a)))
    return sp.Function("\\|\\cdot\\|_{op}")(a)


def _matrices_back(e, names: _Names, symbols: Mapping[str, Any]):
    """The matrix placeholders (MatrixSymbols of the parser) -> the notation's matrices (transposed where printed so),
    and norms and inner products of matrices their meaning (`_matrix_meaning`)."""
    rep = {}
    for a in e.atoms(sp.MatrixSymbol):
        key = re.sub(r"[{}_]", "", str(a.name))
        found = _matrix_of(names, key)
        if found is not None:
            m = symbols[found[0]]
            m = sp.ImmutableMatrix(m) if isinstance(m, sp.MatrixBase) else m
            rep[a] = m.T if found[1] else m
    if rep:
        e = e.xreplace(rep)
    if getattr(names, "matrices", None):
        for f in sorted(e.atoms(sp.core.function.AppliedUndef), key=lambda f: sp.count_ops(f)):
            meaning = _matrix_meaning(f)
            if meaning is not None:
                e = e.xreplace({f: meaning})
    return e


def _noncommutative(name: str, symbols: Mapping, notation: NotationMap) -> bool:
    """Whether the notation map declares `name` a matrix (its object a MatrixExpr or a noncommutative SymPy object,
    or the name listed in the map's `noncommutative`, where it has one)."""
    if name in (getattr(notation, "noncommutative", None) or ()):
        return True
    o = symbols.get(name)
    return isinstance(o, sp.MatrixExpr) or getattr(o, "is_commutative", True) is False


def _run_symbol(run: tuple[str, str, bool], symbols: Mapping, notation: NotationMap):
    r"""A run W_1 \dots W_{L-1} (constructs.runs) the map does not bind by its own name: a transposed run whose
    untransposed name the map binds to a matrix (MatrixExpr, noncommutative) is that matrix's transpose; otherwise
    the run is a Symbol of its name, noncommutative where the map declares its factors' base a matrix. A commutative
    run symbol and its transposed name stay two names (never W^T = W for a matrix read as a scalar)."""
    # lazy: constructs (~10 ms) only once a display is parsed; `theorylab eval` loads this module and never parses
    from .constructs import RUN_TRANSPOSE

    name, base, transposed = run
    if transposed and name in symbols:
        o = symbols[name]
        if isinstance(o, sp.MatrixExpr) or getattr(o, "is_commutative", True) is False:
            return sp.transpose(o)
    nc = _noncommutative(base, symbols, notation) or _noncommutative(name, symbols, notation)
    full = RUN_TRANSPOSE.format(name) if transposed else name
    if nc and transposed:
        return sp.transpose(sp.Symbol(name, commutative=False))
    return sp.Symbol(full, commutative=not nc)
