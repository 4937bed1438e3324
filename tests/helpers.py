"""Shared test helpers: relative-error assertions and running the CLI in-process."""
from __future__ import annotations

import contextlib
import io
from typing import Any

import numpy as np

from theorylab.cli import main


SUBNORMAL_FLOOR = 1e-310


def close(value: Any, reference: Any, rtol: float) -> bool:
    """Relative agreement, or absolute agreement within 1e-310 where the reference is subnormal.

    Floats below the normal range (|x| < 2.2e-308) carry fewer than 53 significant bits, so no float64
    computation can be 1e-10-relative there; the contract's "representable" means a normal float.
    """
    if rel_error(value, reference) <= rtol:
        return True
    if isinstance(reference, dict) or reference is None:
        return False
    v, r = np.asarray(value, dtype=float), np.asarray(reference, dtype=float)
    return v.shape == r.shape and bool(np.all(np.abs(v - r) <= rtol * np.abs(r) + SUBNORMAL_FLOOR))


def rel_error(value: Any, reference: Any) -> float:
    """Max over dict keys of the relative Frobenius error ||value - reference|| / ||reference||."""
    if isinstance(reference, dict):
        return max((rel_error(value[k], reference[k]) for k in reference), default=0.0)
    if reference is None:
        return 0.0 if value is None else np.inf
    v = np.asarray(value, dtype=float)
    r = np.asarray(reference, dtype=float)
    if v.shape != r.shape:
        return np.inf
    big = float(np.max(np.abs(r))) if r.size else 0.0
    if big == 0.0:
        return 0.0 if not np.any(v) else np.inf
    diff = float(np.linalg.norm(((v - r) / big).ravel()))  # scaled: no overflow near 1e300
    scale = float(np.linalg.norm((r / big).ravel()))
    if scale == 0.0:
        return 0.0 if diff == 0.0 else np.inf
    return diff / scale


def run_cli(*argv: str) -> tuple[int, str, str]:
    """Run `theorylab argv...` in this process; return (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()
