"""Evidence: a prediction compared with independent evidence, as a record with its tolerance.

Every record keeps both the absolute and the relative (Frobenius) error, pass or fail, and says where
its tolerance came from (an error bound, k standard errors plus a stated bias, a convergence rule).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np

__all__ = ["Evidence", "Check", "Context", "compare", "compare_mc", "to_jsonable"]


@dataclass(frozen=True)
class Evidence:
    entry: str
    check: str
    kind: str               # "numeric" | "monte-carlo" | "training" | "property"
    predicted: Any
    observed: Any
    abs_error: float
    rel_error: float
    tolerance: float        # the bound the absolute error is held to
    tolerance_source: str   # where the tolerance comes from, in words
    passed: bool
    detail: str = ""
    stderr: float | None = None
    samples: int | None = None
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return to_jsonable(asdict(self))


@dataclass(frozen=True)
class Context:
    """What a check may depend on: the profile ("quick" or "paper"), the torch device, the seed."""

    profile: str = "quick"
    device: str = "cpu"
    seed: int = 0
    progress: bool = False


@dataclass(frozen=True)
class Check:
    """A verify procedure for one or more entries; `run(ctx)` returns evidence records."""

    name: str
    entries: tuple[str, ...]
    kind: str
    run: Callable[[Context], list[Evidence]] = field(repr=False)
    doc: str = ""


def _errors(predicted: Any, observed: Any) -> tuple[float, float, float]:
    p = np.asarray(predicted, dtype=float)
    o = np.asarray(observed, dtype=float)
    diff = np.abs(p - o)
    abs_err = float(np.max(diff)) if diff.size else 0.0
    big = float(np.max(np.abs(p))) if p.size else 0.0
    if big == 0.0:
        return abs_err, (0.0 if abs_err == 0 else math.inf), 0.0
    # scaled by the largest |pred| so values near 1e300 do not overflow the Frobenius norms
    rel = float(np.linalg.norm(((p - o) / big).ravel()) / np.linalg.norm((p / big).ravel()))
    return abs_err, rel, big


def compare(entry: str, check: str, kind: str, predicted: Any, observed: Any, *, atol: float = 0.0,
            rtol: float = 0.0, source: str, detail: str = "", elementwise: bool = False,
            **extra: Any) -> Evidence:
    """Deterministic comparison: passes when max|pred - obs| <= atol + rtol * max|pred|.

    With elementwise=True each element is held to atol + rtol * |pred_i| (values spanning many decades);
    the record's tolerance is then the relative one and its rel_error the largest elementwise one.
    """
    abs_err, rel_err, scale = _errors(predicted, observed)
    if elementwise:
        p, o = np.asarray(predicted, dtype=float), np.asarray(observed, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(p != 0, np.abs(p - o) / np.abs(p), np.where(o == p, 0.0, np.inf))
        passed = bool(np.all(np.abs(p - o) <= atol + rtol * np.abs(p)))
        return Evidence(entry, check, kind, to_jsonable(predicted), to_jsonable(observed), abs_err,
                        float(np.max(rel)), rtol, source + " (elementwise relative)", passed, detail, **extra)
    tol = atol + rtol * scale
    return Evidence(entry, check, kind, to_jsonable(predicted), to_jsonable(observed), abs_err, rel_err,
                    tol, source, bool(abs_err <= tol), detail, **extra)


def compare_mc(entry: str, check: str, predicted: float, mean: float, stderr: float, samples: int, *,
               k: float = 4.0, bias: float = 0.0, bias_source: str = "", detail: str = "",
               extra: dict | None = None) -> Evidence:
    """Monte Carlo comparison: passes when |pred - mean| <= k * stderr + bias (bias stated).

    `extra` carries what a figure needs to place the point (e.g. {"figure": "002-fig1c", "gamma": 0.5})."""
    tol = k * stderr + abs(bias)
    source = f"{k:g} standard errors ({samples} samples)"
    if bias:
        source += f" + finite-size bias {abs(bias):.3g} ({bias_source})"
    abs_err, rel_err, _ = _errors(predicted, mean)
    return Evidence(entry, check, "monte-carlo", float(predicted), float(mean), abs_err, rel_err, tol,
                    source, bool(abs_err <= tol), detail, stderr=float(stderr), samples=int(samples),
                    extra=to_jsonable(extra or {}))


def to_jsonable(x: Any) -> Any:
    """Convert NumPy values, tuples and nested containers into JSON-ready Python values."""
    if isinstance(x, dict):
        return {str(k): to_jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [to_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return to_jsonable(x.tolist())
    if isinstance(x, (np.floating, float)):
        v = float(x)
        return v if math.isfinite(v) else str(v)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x
