"""One comparison rule (#34 item 6): every caller that compares a value with a reference (the contract, mutate, the
accuracy map, the printed-page comparison, an elementwise evidence record) gives the one answer of
`theorylab._shared.closeness` on awkward pairs: tiny entries beside large ones, zeros, subnormals, NaN, mixed
signs, infinities, shapes that would broadcast, high-precision scalars."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from theorylab import testing
from theorylab._pipeline import fidelity
from theorylab._records.evidence import compare
from theorylab._shared import SUBNORMAL_FLOOR, close, closeness
from theorylab._tools import accuracy, mutate

RTOL = 1e-10
# (value, reference, the one answer)
PAIRS = [
    ("the issue's pair: a tiny entry beside 1", [1.0, 1.001e-10], [1.0, 1e-10], False),
    ("the same, within tolerance", [1.0, 1.0000000000001e-10], [1.0, 1e-10], True),
    ("1 + 1e-12 against 1", 1.0 + 1e-12, 1.0, True),
    ("1 + 1e-9 against 1", 1.0 + 1e-9, 1.0, False),
    ("zeros", 0.0, 0.0, True),
    ("a subnormal against 0 (within the floor)", 5e-324, 0.0, True),
    ("a normal tiny number against 0", 1e-300, 0.0, False),
    ("the smallest normal float against 0", 2.2250738585072014e-308, 0.0, True),
    ("twice the smallest normal float against 0", 4.450147717014403e-308, 0.0, False),
    ("NaN against NaN", math.nan, math.nan, False),
    ("NaN against 1", math.nan, 1.0, False),
    ("mixed signs", -1.0, 1.0, False),
    ("mixed signs, tiny", -1e-20, 1e-20, False),
    ("equal infinities", math.inf, math.inf, True),
    ("opposite infinities", math.inf, -math.inf, False),
    ("a vector against a scalar (no broadcasting)", [1.0, 1.0, 1.0], 1.0, False),
    ("shapes (2,) and (2, 1)", [1.0, 2.0], [[1.0], [2.0]], False),
    ("a vector with a NaN", [1.0, math.nan], [1.0, 2.0], False),
    ("entries spanning 300 decades", [1e-150, 1e150], [1e-150 * (1 + 1e-12), 1e150], True),
]


def _accuracy(v, r, rtol):
    errs = accuracy.errors(v, r)
    return bool(errs) and max(e[0] for e in errs.values()) <= rtol


def _fidelity(v, r, rtol):
    if np.ndim(v) or np.ndim(r):
        return None  # fidelity compares scalars here (matrices as its own _Arr records)
    if abs(v - r) <= 1e-25 and not abs(v - r) <= SUBNORMAL_FLOOR:
        return None  # its stated absolute floor (values of 30-digit quadratures that vanish): a wider atol
    return bool(fidelity._close(v, r, rtol))


def _evidence(v, r, rtol):
    if np.shape(v) != np.shape(r):
        return None  # a record's predicted scalar for many observations is a stated constant, not this comparison
    if not np.all(np.isfinite(np.asarray(r, dtype=float))):
        return None  # an evidence record never passes with a non-finite value (an overflowed experiment failed)
    return compare("e.x", "pairs", "numeric", predicted=r, observed=v, rtol=rtol, source="test",
                   elementwise=True).passed


CALLERS = {"closeness": lambda v, r, t: bool(closeness(v, r, t, atol=SUBNORMAL_FLOOR)), "close": close,
           "contract": testing.close, "mutate": mutate._close, "accuracy": _accuracy, "fidelity": _fidelity,
           "evidence": _evidence}


@pytest.mark.parametrize("name,value,reference,answer", PAIRS, ids=[p[0] for p in PAIRS])
def test_every_caller_gives_the_one_answer(name, value, reference, answer):
    got = {caller: f(value, reference, RTOL) for caller, f in CALLERS.items()}
    got = {k: v for k, v in got.items() if v is not None}
    assert set(got.values()) == {answer}, got


def test_high_precision_scalars_keep_their_digits():
    """A 30-digit comparison (the printed page against a step's value) is not rounded to float: 1e-20 relative
    apart passes at rtol 1e-18 and fails at 1e-22, in every caller that takes such scalars."""
    with mpmath.workdps(30):
        a, b = mpmath.mpf(1) + mpmath.mpf(10) ** -20, mpmath.mpf(1)
        assert close(a, b, 1e-18) and not close(a, b, 1e-22)
        assert fidelity._close(a, b, 1e-18) and not fidelity._close(a, b, 1e-22)
