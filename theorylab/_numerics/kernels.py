"""Numeric kernels generated from SymPy expressions: NumPy (vectorized), torch and mpmath.

Kernels are built once per expression and cached; the mpmath reference raises its working precision
until two successive evaluations agree, so it is trustworthy near cancellation points.

An expression written in a chosen order (`sp.Add(sp.Add(1, -gamma, evaluate=False), lam, evaluate=False)`: first
1 - gamma, then + lam) is evaluated in that order: its kernels print the terms as stored and skip common
subexpression elimination (which rebuilds, and so reorders, what it touches). Named functions in an expression
(`EntryFunction`: an entry used as m(-lambda) in another's formula) are composed: the kernel calls the function's
own kernel of the same kind, never an inlined copy.
"""
from __future__ import annotations

import functools
import importlib
import math
from typing import Callable, Sequence

import mpmath
import numpy as np
import sympy as sp
from sympy.parsing.sympy_parser import parse_expr
from sympy.printing.numpy import SciPyPrinter

__all__ = ["numpy_kernel", "torch_kernel", "mpmath_kernel", "mp_reference", "numbers_to_floats", "AdaptiveMpmath",
           "hand_ordered", "as_written"]


def numbers_to_floats(expr: sp.Expr) -> sp.Expr:
    """Replace constant subexpressions (sqrt(2), pi, log(3)/2) by Floats: torch functions need tensors. An
    expression written in a chosen order keeps it (see `hand_ordered`)."""
    if hand_ordered(expr):
        return _map_keeping_order(expr, lambda e: sp.Float(e.evalf(30), 30) if isinstance(e, sp.Expr) and e.is_number
                                  and not e.is_Number and not _named(e) else None)
    return expr.replace(lambda e: isinstance(e, sp.Expr) and e.is_number and not e.is_Number and not _named(e),
                        lambda e: sp.Float(e.evalf(30), 30))


def hand_ordered(expr: sp.Basic) -> bool:
    """True when expr holds a sum, product or power built with evaluate=False (or an UnevaluatedExpr) that SymPy
    would build otherwise: its author chose the order of evaluation (1 - gamma first, then + lam), and the kernels
    keep it."""
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.UnevaluatedExpr):
            return True
        if isinstance(node, (sp.Add, sp.Mul, sp.Pow)) and node.args:
            if isinstance(node, (sp.Add, sp.Mul)) and any(type(a) is type(node) for a in node.args):
                return True
            try:
                if node.func(*node.args).args != node.args:
                    return True
            except Exception:  # noqa: BLE001 - a node SymPy cannot rebuild as it is: leave it be
                continue
    return False


def _map_keeping_order(expr: sp.Basic, fn) -> sp.Basic:
    """Rebuild expr bottom-up with `fn(node)` replacing a node where it returns something, sums, products and powers
    rebuilt unevaluated (their order kept)."""
    got = fn(expr)
    if got is not None:
        return got
    if not expr.args or isinstance(expr, (sp.Symbol, sp.Number)):
        return expr
    args = [_map_keeping_order(a, fn) for a in expr.args]
    if all(a is b for a, b in zip(args, expr.args)):
        return expr
    if isinstance(expr, (sp.Add, sp.Mul, sp.Pow)):
        return expr.func(*args, evaluate=False)
    return expr.func(*args)


def _named(e: sp.Basic) -> bool:
    """An applied named function (theorylab._decide.entry.EntryFunction): composed from its own kernels."""
    return hasattr(type(e), "_tl_kernel")


def _composed(kind: str, expr: sp.Basic) -> dict:
    """The namespace that composes the named functions of expr: their printed names -> their own kernels."""
    out = {}
    for e in sp.preorder_traversal(expr):
        if _named(e) and type(e).__name__ not in out:
            out[type(e).__name__] = e._tl_kernel(kind)
    return out


def _settings(expr: sp.Basic) -> tuple[dict, bool]:
    """Printer settings and whether to use common subexpression elimination: an expression in a chosen order is
    printed as stored, without CSE."""
    if hand_ordered(expr):
        return {"order": "none"}, False
    return {}, True


class _LazyScipy:
    """`scipy` in a kernel's namespace: scipy.special is imported the first time a kernel calls into it (most
    kernels print only numpy functions, and `theorylab eval` should not pay for importing scipy)."""

    def __getattr__(self, name: str):
        return importlib.import_module(f"scipy.{name}")


_SCIPY = _LazyScipy()


@functools.lru_cache(maxsize=None)
def _numpy_printer(order: str | None = None):
    """SciPy's printer with fully qualified names (numpy.sqrt, scipy.special.erf), so a kernel's namespace needs
    only the two modules: lambdify's own namespace building imports all of scipy.special and numpy's lazy
    submodules, most of `theorylab eval`'s start-up."""
    return SciPyPrinter({"fully_qualified_modules": True, "inline": True, "allow_unknown_functions": True,
                         "user_functions": {}, "order": order})


def numpy_kernel(expr: sp.Expr, args: Sequence[sp.Symbol]) -> Callable[..., np.ndarray]:
    """Vectorized float64 kernel: broadcasts its arguments, returns an array of their common shape.

    lambdify evaluates every branch of a Piecewise, so floating-point warnings are silenced here and
    the caller checks the result for non-finite values instead.
    """
    settings, cse = _settings(expr)
    # functools: SciPy's printer writes Max/Min as functools.reduce(numpy.maximum, ...)
    raw = sp.lambdify(list(args), expr, modules=[{"numpy": np, "scipy": _SCIPY, "functools": functools,
                                                  **_composed("numpy", expr)}],
                      printer=_numpy_printer(settings.get("order")), cse=cse)

    def kernel(*values):
        arrays = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in values))
        with np.errstate(all="ignore"):
            out = raw(*arrays)
        shape = arrays[0].shape if arrays else ()
        out = np.asarray(out, dtype=float)
        if out.shape == shape:  # the usual case: a fresh array, no copy needed
            return out
        return np.array(np.broadcast_to(out, shape))  # a constant expression

    kernel.__doc__ = f"NumPy kernel of {expr}"
    return kernel


@functools.lru_cache(maxsize=None)
def _torch_printer():
    """SymPy's torch printer (importing it imports torch: only the torch kernels pay for that)."""
    from sympy.printing.pytorch import TorchPrinter  # lazy: it imports torch (~3 s of start-up)

    class _TheorylabTorchPrinter(TorchPrinter):
        """SymPy's torch printer with Max/Min as torch.maximum/minimum and constants as floats."""

        def _print_Max(self, expr):
            return self._minmax(expr, "maximum")

        def _print_Min(self, expr):
            return self._minmax(expr, "minimum")

        def _minmax(self, expr, fn):
            args = [self._print(a) for a in expr.args]
            out = args[0]
            for a in args[1:]:
                out = f"torch.{fn}(torch.as_tensor({out}), torch.as_tensor({a}))"
            return out

        def _print_Function(self, expr):
            if _named(expr):  # a named function, composed from its own torch kernel (the namespace holds it)
                return f"{type(expr).__name__}({', '.join(self._print(a) for a in expr.args)})"
            return super()._print_Function(expr)

        # SymPy's torch printer lacks the C99 functions of stable forms (sympy.codegen.cfunctions): torch has them
        def _print_expm1(self, expr):
            return f"torch.expm1({self._print(expr.args[0])})"

        def _print_log1p(self, expr):
            return f"torch.log1p({self._print(expr.args[0])})"

        def _print_exp2(self, expr):
            return f"torch.exp2({self._print(expr.args[0])})"

        def _print_log2(self, expr):
            return f"torch.log2({self._print(expr.args[0])})"

        def _print_log10(self, expr):
            return f"torch.log10({self._print(expr.args[0])})"

        def _print_erfc(self, expr):
            return f"torch.special.erfc({self._print(expr.args[0])})"

        def _print_cot(self, expr):
            return f"(1/torch.tan({self._print(expr.args[0])}))"

        def _print_sinc(self, expr):  # SymPy's sinc is sin(x)/x; torch's is normalized, sin(pi x)/(pi x)
            return f"torch.sinc({self._print(expr.args[0])}/{math.pi!r})"

        def _print_Heaviside(self, expr):  # SymPy's Heaviside(0) is 1/2
            x = self._print(expr.args[0])
            return f"torch.heaviside(torch.as_tensor({x}), torch.as_tensor(0.5, dtype=torch.float64))"

        def _print_hypot(self, expr):
            return f"torch.hypot({', '.join(f'torch.as_tensor({self._print(a)})' for a in expr.args)})"

        def _print_Float(self, expr):
            return repr(float(expr))

        def _print_Rational(self, expr):
            return repr(float(expr))

        def _print_Integer(self, expr):
            return repr(float(expr))

        def _print_Piecewise(self, expr):
            if expr.args[-1].cond is not sp.true:
                raise ValueError("torch kernel: a Piecewise needs a final otherwise branch")
            out = self._print(expr.args[-1].expr)
            for e, c in reversed(expr.args[:-1]):
                out = f"torch.where({self._print(c)}, {self._print(e)}, {out})"
            return out

    return _TheorylabTorchPrinter


def torch_kernel(expr: sp.Expr, args: Sequence[sp.Symbol]) -> Callable:
    """torch kernel: tensors in, tensors out, on the inputs' device, differentiable."""
    import torch  # lazy: torch costs ~3 s of start-up; only the torch kernels need it

    settings, cse = _settings(expr)
    printer = _torch_printer()({"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True,
                                "user_functions": {}, **settings})
    try:
        raw = sp.lambdify(list(args), numbers_to_floats(expr), modules=[{"torch": torch, **_composed("torch", expr)}],
                          printer=printer, cse=cse)
    except NotImplementedError as exc:  # SymPy's PrintMethodNotImplementedError: no torch function for it
        missing = sorted({type(f).__name__ for f in expr.atoms(sp.Function) if not _named(f)})
        raise TypeError(f"torch kernel: no torch function for one of {', '.join(missing) or 'its functions'} "
                        f"({str(exc).splitlines()[0][:80]}); docs/authoring.md lists the functions each kernel "
                        "supports: write the stable form with those") from None

    def kernel(*values):
        tensors = [v if isinstance(v, torch.Tensor) else torch.as_tensor(v, dtype=torch.float64) for v in values]
        tensors = list(torch.broadcast_tensors(*tensors)) if tensors else []
        out = raw(*tensors)
        if not isinstance(out, torch.Tensor):  # a constant expression
            ref = tensors[0]
            out = torch.full_like(ref, float(out))
        return out.expand(tensors[0].shape) if tensors else out

    kernel.__doc__ = f"torch kernel of {expr}"
    return kernel


def mpmath_kernel(expr: sp.Expr, args: Sequence[sp.Symbol]) -> Callable:
    """Scalar mpmath kernel at the current mpmath precision (see `AdaptiveMpmath` for the adaptive one)."""
    composed = {**_MPMATH_EXTRA, **_composed("mpmath", expr)}
    return sp.lambdify(list(args), expr, modules=[composed, "mpmath"])


# what SymPy's mpmath printer leaves unqualified and mpmath lacks (exp2 of sympy.codegen.cfunctions)
_MPMATH_EXTRA = {"exp2": lambda v: mpmath.mpf(2) ** v}


class AdaptiveMpmath:
    """A scalar mpmath kernel at adaptive precision: `kernel(*values)` evaluates at rising working precision until
    two successive values agree to the current mpmath precision (mp.dps, 15 by default) plus 5 digits, and returns
    that value as an mpmath number (an mpf, rounded to the current precision). Near a cancellation point the closed
    form loses working digits, not correct ones: at lambda = 1e-20 a 15-digit evaluation of a ridge risk can be
    wrong in its 8th digit, this one is not. `raw` is the kernel at the current precision (what `mp_reference`
    drives)."""

    def __init__(self, raw: Callable, expr: sp.Expr | None = None):
        self.raw = raw
        self.__doc__ = f"mpmath kernel (adaptive precision) of {expr}" if expr is not None else raw.__doc__

    def __call__(self, *values):
        digits = mpmath.mp.dps
        with mpmath.workdps(digits):
            mp_values = [v if isinstance(v, (mpmath.mpf, mpmath.mpc)) else mpmath.mpf(v) for v in values]
        value = _adaptive(self.raw, mp_values, digits + 5)
        return +value  # rounded to the caller's precision

    def __repr__(self) -> str:
        return f"<AdaptiveMpmath {self.__doc__}>"


def mp_reference(kernel: Callable, values: Sequence[float], digits: int = 20) -> float:
    """Evaluate a scalar mpmath kernel at increasing precision until `digits` digits are stable; return a float.

    Catastrophic cancellation in the closed form costs working digits, not correctness: the precision
    starts at 30 + 3 digits per decade of the largest input exponent and doubles until two successive
    values agree to `digits` digits. `kernel` may be an `AdaptiveMpmath` (its raw kernel is driven).
    """
    value = _adaptive(getattr(kernel, "raw", kernel), [mpmath.mpf(float(v)) for v in values], digits)
    if isinstance(value, mpmath.mpc):  # the closed form leaves the reals there: say so, never float()'s TypeError
        raise ValueError(f"the closed form is not real at {[float(v) for v in values]} (it is "
                         f"{mpmath.nstr(value, 6)}): the declared domain holds points where it is complex")
    return float(value)


def _adaptive(kernel: Callable, values: Sequence, digits: int):
    """The kernel's value at rising precision until two successive values agree to `digits` digits (an mpf)."""
    previous = None
    # Two precisions can agree on the same wrong value when a term such as z^2 is below both of them
    # (sqrt(4 + z^2) at z = 1e-34): start above three digits per decade of the inputs' exponents.
    spread = max([abs(float(mpmath.log10(abs(v)))) for v in values if v != 0] or [0.0])
    start = max(30, digits + 10) + 3 * int(spread)
    for dps in [start * 2**i for i in range(7)]:
        with mpmath.workdps(dps):
            value = kernel(*values)
            if isinstance(value, mpmath.mpc):
                value = value.real if abs(value.imag) <= abs(value) * mpmath.mpf(10) ** (-dps // 2) else value
            if previous is not None:
                if value == previous or abs(value - previous) <= abs(value) * mpmath.mpf(10) ** (-digits):
                    return value
        previous = value
    raise ArithmeticError(f"reference did not converge at {dps} digits for {[mpmath.nstr(v, 17) for v in values]}")


def mp_reference_array(kernel: Callable, arrays: Sequence[np.ndarray], digits: int = 20) -> np.ndarray:
    """`mp_reference` elementwise over broadcast arrays."""
    arrays = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in arrays))
    shape = arrays[0].shape if arrays else ()
    flat = [a.ravel() for a in arrays]
    kernel = getattr(kernel, "raw", kernel)
    out = np.array([mp_reference(kernel, [f[i] for f in flat], digits) for i in range(int(np.prod(shape)))])
    return out.reshape(shape)


@functools.lru_cache(maxsize=None)
def _cached(kind: str, expr: sp.Expr, args: tuple[sp.Symbol, ...]):
    return {"numpy": numpy_kernel, "torch": torch_kernel, "mpmath": mpmath_kernel}[kind](expr, args)


def build(kind: str, expr: sp.Expr, args: Sequence[sp.Symbol]):
    """Build (once) and return the kernel of `kind` for `expr` in `args`."""
    return _cached(kind, expr, tuple(args))


def as_written(text: str, *symbols: "sp.Symbol | object") -> sp.Expr:
    """`text` parsed into SymPy exactly as written (evaluate=False), in the given symbols (Params or Symbols, by
    name): `as_written("exp(p*log(u) - log(tau))", P, U, TAU)` stays exp(p log u - log tau), where SymPy's own
    `sp.exp(p*sp.log(u) - sp.log(tau))` becomes exp(p log u)/tau (u^p overflows first). The kernels evaluate it as
    written and LaTeX prints it so; a name not among the symbols is a one-line ValueError."""
    table = {}
    for s in symbols:
        sym = getattr(s, "symbol", s)
        if not isinstance(sym, sp.Symbol):
            raise TypeError(f"as_written: symbols must be Params or SymPy Symbols; got {type(s).__name__}")
        table[sym.name] = sym
    expr = parse_expr(text, local_dict=dict(table), evaluate=False)
    extra = sorted(x.name for x in expr.free_symbols if table.get(x.name) is not x)
    if extra:
        raise ValueError(f"as_written({text!r}): {', '.join(extra)} is not among the symbols given "
                         f"({', '.join(table) or 'none'}); pass its Param or Symbol")
    return expr
