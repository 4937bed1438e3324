"""One of each: the value formatter, the atomic JSON write, the timeout and the closeness rule the engine shares.

Nothing here imports the rest of theorylab (standard library and NumPy only): every layer may use it.
"""
from __future__ import annotations

import json
import math
import os
import secrets
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

import mpmath
import numpy as np

__all__ = ["fmt", "write_json", "with_timeout", "Closeness", "close", "closeness", "rel_close", "representable",
           "SUBNORMAL_FLOOR"]


# -- formatting ----------------------------------------------------------------------------------------------------
def fmt(x: Any, digits: int = 6, items: int = 4) -> str:
    """A value as a person reads it in a one-line message: floats to `digits` significant digits (17: exactly),
    None as "-",
    sequences and arrays by their first `items` elements (then "..."), dicts as k=v. Example: fmt([1/3, 2.0]) is
    "[0.333333, 2]"."""
    if x is None:
        return "-"
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (float, np.floating)):  # 17 digits or more: the shortest text that reads back the same float
        return repr(float(x)) if digits >= 17 else f"{float(x):.{digits}g}"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, dict):
        return ", ".join(f"{k}={fmt(v, digits, items)}" for k, v in x.items())
    if isinstance(x, np.ndarray):
        if x.ndim > 1 and x.size > items:
            return f"array{x.shape}"
        x = x.ravel().tolist()
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(fmt(v, digits, items) for v in x[:items]) + (", ...]" if len(x) > items else "]")
    return str(x)


# -- writing -------------------------------------------------------------------------------------------------------
def write_json(path: str | os.PathLike, data: Any, *, indent: int | None = 1, prefix: str = ".theorylab-",
               **dump: Any) -> None:
    """Write JSON whole or not at all: a temporary file in the same folder (named by process, thread and a random
    token; created with the ordinary permissions of the umask, which is never changed: threads may be writing too),
    renamed into place; parent folders are made. The one atomic write."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f"{prefix}{os.getpid()}-{threading.get_ident()}-{secrets.token_hex(4)}.json.tmp")
    try:
        with open(tmp, "x") as fh:
            json.dump(data, fh, indent=indent, **dump)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# -- the cache folder ---------------------------------------------------------------------------------------------
def cache_path(*parts: str) -> str:
    """A path under theorylab's cache folder, $XDG_CACHE_HOME/theorylab (~/.cache/theorylab), read at call time so a
    changed XDG_CACHE_HOME (a test's, a user's) is followed: the step cache, parses, timings, accuracy misses."""
    return os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "theorylab", *parts)


# -- timeouts ------------------------------------------------------------------------------------------------------
def with_timeout(fn: Callable[[], Any], seconds: float, *, clock: str = "wall",
                 error: type[BaseException] = TimeoutError) -> Any:
    """fn() stopped after `seconds` by raising `error`, where this thread can take a timer signal (the main thread
    on POSIX); elsewhere fn() runs unbounded. The one timeout.

    clock="wall": real time (SIGALRM). clock="cpu": CPU time of the process (SIGPROF), for budgets that must not
    shrink on a loaded machine; the timer then repeats every 0.1 CPU s after the first expiry, since a signal that
    lands inside a garbage-collector callback is swallowed by Python ('Exception ignored in gc_callback'), and any
    expiry at all raises `error`, even where fn caught the exception and returned."""
    if clock not in ("wall", "cpu"):
        raise ValueError(f"clock must be wall or cpu; got clock={clock!r}")
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return fn()
    which, sig = (signal.ITIMER_REAL, signal.SIGALRM) if clock == "wall" else (signal.ITIMER_PROF, signal.SIGPROF)
    state = {"fired": False, "done": False}

    class _Expired(BaseException):  # not an Exception: fn's own `except Exception` does not swallow it
        pass

    def handler(signum, frame):
        state["fired"] = True
        if not state["done"]:
            raise _Expired

    outer, _ = signal.getitimer(which)       # a budget around this one (nested): kept, and re-armed after
    now = time.monotonic if clock == "wall" else time.process_time
    start = now()
    old = signal.signal(sig, handler)
    signal.setitimer(which, min(seconds, outer) if outer > 0 else seconds, 0.1 if clock == "cpu" else 0)
    try:
        return fn()
    except BaseException:
        state["done"] = True
        if state["fired"]:  # the expiry, or whatever fn turned it into
            raise error from None
        raise
    finally:
        state["done"] = True
        signal.setitimer(which, 0, 0)
        signal.signal(sig, old)
        if outer > 0:   # the enclosing budget goes on with what is left of it (at once if it ran out meanwhile)
            signal.setitimer(which, max(outer - (now() - start), 1e-3), 0.1 if clock == "cpu" else 0)
        if state["fired"] and clock == "cpu":
            raise error  # noqa: B012 - a swallowed expiry still makes the budget spent


def representable(ref: Any) -> bool:
    """A numeric value that fits in float64 (finite), or not a number at all (a record: region entries use inf
    endpoints on purpose; anything that is not numeric): what the contract and the mutants compare."""
    if isinstance(ref, dict):
        return True
    try:
        return bool(np.all(np.isfinite(np.asarray(ref, dtype=float))))
    except (TypeError, ValueError):
        return True


# -- closeness -----------------------------------------------------------------------------------------------------
# Floats below the normal range (|x| < 2.2e-308) carry fewer than 53 significant bits, so no float64 computation can
# be 1e-10-relative there: a difference within the subnormal range (below the smallest normal float) is a match, so a
# reference of 0 or a subnormal one is matched absolutely (qpenalty.implicit_bias gives 1.96e-308 for an exact 0
# where an input is 2.2e-308: the contract's old norm rule hid that as 1e-308 relative to the vector).
SUBNORMAL_FLOOR = 2.2250738585072014e-308  # numpy.finfo(float).tiny
@dataclass(frozen=True)
class Closeness:
    """The verdict of `closeness` with what a failure message needs (scipy's FuncData style): the largest relative
    and absolute errors, the tolerances, and the worst point (its index, value and reference)."""

    ok: bool
    rel_error: float
    abs_error: float
    rtol: float
    atol: float
    worst: tuple[int, ...] | str | None = None
    value: Any = None
    reference: Any = None
    why: str = ""

    def __bool__(self) -> bool:
        return self.ok

    @property
    def message(self) -> str:
        head = "close" if self.ok else "NOT close"
        where = "" if self.worst is None else f" at {self.worst if isinstance(self.worst, str) else list(self.worst)}"
        return (f"{head}: max rel error {self.rel_error:.3g}, max abs error {self.abs_error:.3g} (rtol {self.rtol:.3g}"
                f", atol {self.atol:.3g}); worst point{where}: value {fmt(self.value, 12)} vs reference "
                f"{fmt(self.reference, 12)}" + (f" ({self.why})" if self.why else ""))

    def __str__(self) -> str:
        return self.message


def _high_precision(x: Any) -> bool:
    """An mpmath or SymPy number: compared at its own precision (a float would drop the digits past 1e-16)."""
    return hasattr(x, "_mpf_") or type(x).__module__.startswith("sympy")


def _closeness_mp(value: Any, reference: Any, rtol: float, atol: float) -> Closeness:
    """`closeness` of two scalars in mpmath at their precision (one of them mpmath or SymPy): the same rule."""
    try:
        v, r = mpmath.mpf(value), mpmath.mpf(reference)
    except (TypeError, ValueError):
        same = bool(value == reference)
        return Closeness(same, 0.0 if same else math.inf, 0.0 if same else math.inf, rtol, atol, None, value,
                         reference, "" if same else "not numbers, and not equal")
    if mpmath.isnan(v) or mpmath.isnan(r):
        return Closeness(False, math.inf, math.inf, rtol, atol, (), value, reference, "NaN")
    if mpmath.isinf(v) or mpmath.isinf(r):
        same = v == r
        return Closeness(same, 0.0 if same else math.inf, 0.0 if same else math.inf, rtol, atol, (), value, reference)
    diff = abs(v - r)
    ok = diff <= rtol * abs(r) or diff <= atol
    rel = 0.0 if diff == 0 else (float(diff / abs(r)) if r != 0 else math.inf)
    return Closeness(bool(ok), rel, float(diff), rtol, atol, (), value, reference)


def rel_close(value: Any, reference: Any, rtol: float) -> np.ndarray:
    """The one closeness rule of relative tolerances: elementwise |value_i - reference_i| <= rtol |reference_i|
    (each element against its own reference, never against the largest), or within SUBNORMAL_FLOOR (a reference
    of 0 or a subnormal one); equal infinities agree. Returns the
    boolean array (shape of the broadcast); `bool(np.all(...))` is the verdict (`closeness` gives the worst point)."""
    v = np.asarray(value, dtype=float)
    r = np.asarray(reference, dtype=float)
    same_inf = np.isinf(v) & np.isinf(r) & (np.sign(v) == np.sign(r))
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(v - r)
        # a finite difference only: inf <= rtol * inf would let +inf match -inf
        return same_inf | (np.isfinite(diff) & ((diff <= rtol * np.abs(r)) | (diff <= SUBNORMAL_FLOOR)))


def close(value: Any, reference: Any, rtol: float, atol: float = SUBNORMAL_FLOOR) -> bool:
    """The one comparison every caller makes (the contract, mutate, accuracy, the printed-page comparison): `closeness`
    with the subnormal floor as its absolute part. Example: close([1, 1.001e-10], [1, 1e-10], 1e-10) is False (the
    second element is 1e-3 off), whatever the first element's size."""
    return bool(closeness(value, reference, rtol, atol=atol))


def closeness(value: Any, reference: Any, rtol: float, atol: float = 0.0) -> Closeness:
    """The one closeness rule: elementwise |value_i - reference_i| <= rtol |reference_i|, or <= atol (a reference of
    0 or a subnormal one is matched absolutely); equal infinities agree; a NaN never does. dicts are compared key by
    key (the value may have more keys), None only with None, non-numbers by ==. The result is truthy when close and
    carries the largest relative and absolute errors and the worst point for a failure message."""
    if isinstance(reference, dict):
        if not isinstance(value, dict) or not set(value) >= set(reference):
            return Closeness(False, math.inf, math.inf, rtol, atol, None, value, reference, "keys differ")
        parts = {k: closeness(value[k], reference[k], rtol, atol) for k in reference}
        if not parts:
            return Closeness(True, 0.0, 0.0, rtol, atol)
        k = max(parts, key=lambda k: (not parts[k].ok, parts[k].rel_error))
        p = parts[k]
        return Closeness(all(parts.values()), p.rel_error, max(q.abs_error for q in parts.values()), rtol, atol,
                         f"{k}{'' if p.worst is None else list(p.worst) if not isinstance(p.worst, str) else p.worst}",
                         p.value, p.reference, p.why)
    if reference is None or value is None:
        same = value is None and reference is None
        return Closeness(same, 0.0 if same else math.inf, 0.0 if same else math.inf, rtol, atol, None, value,
                         reference, "" if same else "one of them is None")
    if _high_precision(value) or _high_precision(reference):
        return _closeness_mp(value, reference, rtol, atol)
    try:
        v, r = np.asarray(value, dtype=float), np.asarray(reference, dtype=float)
    except (TypeError, ValueError):
        same = bool(value == reference)
        return Closeness(same, 0.0 if same else math.inf, 0.0 if same else math.inf, rtol, atol, None, value,
                         reference, "" if same else "not numbers, and not equal")
    if v.shape != r.shape:
        return Closeness(False, math.inf, math.inf, rtol, atol, None, v.shape, r.shape, "shapes differ")
    if v.size == 0:
        return Closeness(True, 0.0, 0.0, rtol, atol)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        diff = np.abs(v - r)
        same_inf = np.isinf(v) & np.isinf(r) & (np.sign(v) == np.sign(r))
        ok = rel_close(v, r, rtol) | (diff <= atol)
        diff = np.where(same_inf, 0.0, diff)
        rel = np.where(same_inf, 0.0, np.where(r != 0, diff / np.abs(r), np.where(diff == 0, 0.0, np.inf)))
    rel = np.where(np.isnan(rel), np.inf, rel)
    i = int(np.argmax(np.where(ok, -1.0, rel))) if not ok.all() else int(np.argmax(rel))  # the worst failure
    idx = tuple(int(j) for j in np.unravel_index(i, v.shape)) if v.ndim else ()
    abs_err = float(np.nanmax(np.where(np.isnan(diff), np.inf, diff)))
    return Closeness(bool(ok.all()), float(np.max(rel)), abs_err, rtol, atol, idx, v.flat[i].item(),
                     r.flat[i].item())
