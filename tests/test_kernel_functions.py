"""The functions each kernel backend supports, as docs/authoring.md lists them: every listed function compiles on
every backend marked "yes" and agrees with SymPy at 30 digits; a backend marked "no" refuses it."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from sympy.codegen.cfunctions import exp2, expm1, hypot, log1p, log2, log10

from theorylab._numerics import kernels

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "authoring.md"
X, Y = sp.Symbol("x"), sp.Symbol("y")
POINT = {X: sp.Rational(7, 10), Y: sp.Rational(13, 10)}
NAMESPACE = {**{k: getattr(sp, k) for k in dir(sp) if not k.startswith("_")}, "x": X, "y": Y, "expm1": expm1,
             "log1p": log1p, "exp2": exp2, "log2": log2, "log10": log10, "hypot": hypot}


def _rows() -> list[tuple[str, dict[str, bool]]]:
    text = GUIDE.read_text()
    table = text.split("<!-- kernel-functions -->", 1)[1].split("<!-- /kernel-functions -->", 1)[0]
    out = []
    for line in table.strip().splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        marks = dict(zip(("numpy", "torch", "mpmath"), (c == "yes" for c in cells[1:])))
        out += [(code, marks) for code in re.findall(r"`([^`]+)`", cells[0])]
    return out


ROWS = _rows()


def test_the_guide_lists_the_stable_forms_staples():
    listed = {code for code, _ in ROWS}
    assert len(ROWS) >= 40 and {"expm1(x)", "log1p(x)", "erfc(x)"} <= listed


def _value(kind: str, expr: sp.Expr) -> float:
    kernel = kernels.build(kind, expr, (X, Y))
    if kind == "torch":
        import torch

        return float(kernel(torch.tensor(0.7, dtype=torch.float64), torch.tensor(1.3, dtype=torch.float64)))
    return float(kernel(0.7, 1.3))


@pytest.mark.parametrize("code,marks", ROWS, ids=[c for c, _ in ROWS])
def test_each_listed_function_compiles_on_the_backends_marked(code, marks):
    expr = eval(code, NAMESPACE)  # noqa: S307 - the guide's own table
    truth = float(sp.N(expr.subs(POINT), 30))
    for kind, supported in marks.items():
        if supported:
            assert abs(_value(kind, expr) - truth) <= 1e-13 * max(1.0, abs(truth)), (code, kind)
        else:
            with pytest.raises(Exception):  # noqa: B017 - "no": it must not silently compile to something
                assert np.isfinite(_value(kind, expr)) and abs(_value(kind, expr) - truth) <= 1e-13 * abs(truth)


def test_a_torch_kernel_without_a_torch_function_is_one_line_naming_it():
    with pytest.raises(TypeError, match=r"no torch function for one of besselj.*docs/authoring.md") as err:
        kernels.torch_kernel(sp.besselj(0, X) + expm1(X), [X])
    assert "\n" not in str(err.value)
