"""Numeric kernels generated from SymPy expressions: NumPy (vectorized), torch and mpmath.

Kernels are built once per expression and cached; the mpmath reference raises its working precision
until two successive evaluations agree, so it is trustworthy near cancellation points.
"""
from __future__ import annotations

import functools
import math
from typing import Callable, Sequence

import mpmath
import numpy as np
import sympy as sp

__all__ = ["numpy_kernel", "torch_kernel", "mpmath_kernel", "mp_reference", "numbers_to_floats"]


def numbers_to_floats(expr: sp.Expr) -> sp.Expr:
    """Replace constant subexpressions (sqrt(2), pi, log(3)/2) by Floats: torch functions need tensors."""
    return expr.replace(lambda e: isinstance(e, sp.Expr) and e.is_number and not e.is_Number,
                        lambda e: sp.Float(e.evalf(30), 30))


class _LazyScipy:
    """`scipy` in a kernel's namespace: scipy.special is imported the first time a kernel calls into it (most
    kernels print only numpy functions, and `theorylab eval` should not pay for importing scipy)."""

    def __getattr__(self, name: str):
        import importlib

        return importlib.import_module(f"scipy.{name}")


_SCIPY = _LazyScipy()


@functools.lru_cache(maxsize=None)
def _numpy_printer():
    """SciPy's printer with fully qualified names (numpy.sqrt, scipy.special.erf), so a kernel's namespace needs
    only the two modules: lambdify's own namespace building imports all of scipy.special and numpy's lazy
    submodules, most of `theorylab eval`'s start-up."""
    from sympy.printing.numpy import SciPyPrinter

    return SciPyPrinter({"fully_qualified_modules": True, "inline": True, "allow_unknown_functions": True,
                         "user_functions": {}})


def numpy_kernel(expr: sp.Expr, args: Sequence[sp.Symbol]) -> Callable[..., np.ndarray]:
    """Vectorized float64 kernel: broadcasts its arguments, returns an array of their common shape.

    lambdify evaluates every branch of a Piecewise, so floating-point warnings are silenced here and
    the caller checks the result for non-finite values instead.
    """
    raw = sp.lambdify(list(args), expr, modules=[{"numpy": np, "scipy": _SCIPY}], printer=_numpy_printer(), cse=True)

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
    from sympy.printing.pytorch import TorchPrinter

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
    import torch

    raw = sp.lambdify(list(args), numbers_to_floats(expr), modules=[{"torch": torch}],
                      printer=_torch_printer(), cse=True)

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
    """Scalar mpmath kernel at the current mpmath precision."""
    return sp.lambdify(list(args), expr, modules="mpmath")


def mp_reference(kernel: Callable, values: Sequence[float], digits: int = 20) -> float:
    """Evaluate a scalar mpmath kernel at increasing precision until `digits` digits are stable.

    Catastrophic cancellation in the closed form costs working digits, not correctness: the precision
    starts at 30 + 3 digits per decade of the largest input exponent and doubles until two successive
    values agree to `digits` digits.
    """
    previous = None
    # Two precisions can agree on the same wrong value when a term such as z^2 is below both of them
    # (sqrt(4 + z^2) at z = 1e-34): start above three digits per decade of the inputs' exponents.
    spread = max([abs(math.log10(abs(float(v)))) for v in values if float(v) != 0.0] or [0.0])
    start = 30 + 3 * int(spread)
    for dps in [start * 2**i for i in range(7)]:
        with mpmath.workdps(dps):
            value = kernel(*[mpmath.mpf(float(v)) for v in values])
            if isinstance(value, mpmath.mpc):
                value = value.real if abs(value.imag) <= abs(value) * mpmath.mpf(10) ** (-dps // 2) else value
        if previous is not None:
            if value == previous or abs(value - previous) <= abs(value) * mpmath.mpf(10) ** (-digits):
                return float(value)
        previous = value
    raise ArithmeticError(f"reference did not converge at {dps} digits for {list(values)}")


def mp_reference_array(kernel: Callable, arrays: Sequence[np.ndarray], digits: int = 20) -> np.ndarray:
    """`mp_reference` elementwise over broadcast arrays."""
    arrays = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in arrays))
    shape = arrays[0].shape if arrays else ()
    flat = [a.ravel() for a in arrays]
    out = np.array([mp_reference(kernel, [f[i] for f in flat], digits) for i in range(int(np.prod(shape)))])
    return out.reshape(shape)


@functools.lru_cache(maxsize=None)
def _cached(kind: str, expr: sp.Expr, args: tuple[sp.Symbol, ...]):
    return {"numpy": numpy_kernel, "torch": torch_kernel, "mpmath": mpmath_kernel}[kind](expr, args)


def build(kind: str, expr: sp.Expr, args: Sequence[sp.Symbol]):
    """Build (once) and return the kernel of `kind` for `expr` in `args`."""
    return _cached(kind, expr, tuple(args))
