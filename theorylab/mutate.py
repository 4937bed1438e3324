"""Mutation testing of the checks: plant a standard mistake in an entry and see which layer catches it.

Each mutant changes one entry in place (its formula, its stable form, or its solver's output) for the duration of
the test; the layers are the contract (value against the independent reference, stable form against the
paper's formula), the derivations that name the entry, and the evidence checks that name it. A mutant that no
layer catches is a check that could not fail, and `theorylab mutate` exits 1.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import sympy as sp

from .entry import Entry
from .params import DomainError
from .testing import _representable  # one definition: the contract suite's

__all__ = ["Mutant", "MutantResult", "mutants", "run", "score", "LAYERS", "PROFILES"]

LAYERS = ("contract", "derivation", "evidence")
# quick: layers in order, stop at the first that catches; full: every layer on every mutant
PROFILES = {"quick": {"samples": 12, "all_layers": False}, "full": {"samples": 40, "all_layers": True}}
_EQUIV_RTOL = 1e-9


@dataclass(frozen=True)
class Mutant:
    """One planted mistake: `target` is "formula", "stable_form" or "compute"; `op` names the mutation."""

    entry: str
    target: str
    op: str
    description: str
    apply: Callable[[Entry], dict] = dataclasses.field(repr=False, compare=False)  # entry -> field overrides


@dataclass(frozen=True)
class MutantResult:
    mutant: Mutant
    caught_by: tuple[str, ...]       # the layers that caught it (in order tried)
    equivalent: bool                 # the mutant computes the same values: excluded from the score
    detail: str
    seconds: float

    @property
    def survived(self) -> bool:
        return not self.equivalent and not self.caught_by

    def to_json(self) -> dict:
        return {"entry": self.mutant.entry, "target": self.mutant.target, "op": self.mutant.op,
                "description": self.mutant.description, "caught_by": list(self.caught_by),
                "equivalent": self.equivalent, "survived": self.survived, "detail": self.detail,
                "seconds": round(self.seconds, 3)}


# ---------------------------------------------------------------------------------------------------
# the standard set of mutations


def _terms(expr: sp.Expr) -> list[sp.Expr]:
    return list(sp.Add.make_args(expr))


def _first_pow(expr: sp.Expr) -> sp.Pow | None:
    """The first power with a numeric exponent other than +-1/2 and -1, in a stable (preorder) order."""
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Pow) and node.exp.is_Number and node.exp not in (-1,):
            return node
    return None


def _expr_mutations(expr: sp.Expr, symbols: Sequence[sp.Symbol]) -> list[tuple[str, str, sp.Expr]]:
    out: list[tuple[str, str, sp.Expr]] = []
    terms = _terms(expr)
    if len(terms) > 1:
        # the largest term by operation count: the one a transcription slip most likely hits
        t = max(terms, key=lambda a: (sp.count_ops(a), sp.default_sort_key(a)))
        out.append(("sign flip", f"sign of the term {sp.sstr(t)[:60]} flipped", expr - 2 * t))
        small = min(terms, key=lambda a: (sp.count_ops(a), sp.default_sort_key(a)))
        out.append(("dropped term", f"term {sp.sstr(small)[:60]} dropped", expr - small))
        out.append(("factor 2", f"term {sp.sstr(t)[:60]} doubled", expr + t))
    else:
        out.append(("sign flip", "the whole expression negated", -expr))
        out.append(("factor 2", "the whole expression doubled", 2 * expr))
    p = _first_pow(expr)
    if p is not None:
        for d, name in ((1, "exponent + 1"), (-1, "exponent - 1")):
            new = sp.Pow(p.base, p.exp + d)
            out.append((name, f"{sp.sstr(p)[:50]} -> {sp.sstr(new)[:50]}", expr.xreplace({p: new})))
    scal = [s for s in symbols if s in expr.free_symbols]
    if len(scal) >= 2:
        a, b = scal[0], scal[1]
        out.append(("swapped arguments", f"{a} and {b} swapped", expr.xreplace({a: b, b: a})))
    return out


def _map_numbers(x: Any, fn: Callable[[Any], Any]) -> Any:
    if isinstance(x, dict):
        return {k: _map_numbers(v, fn) for k, v in x.items()}
    if x is None or isinstance(x, (str, bool)):
        return x
    if isinstance(x, (list, tuple)):
        return type(x)(_map_numbers(v, fn) for v in x)
    arr = np.asarray(x, dtype=float)
    out = fn(arr)
    return float(out) if np.ndim(out) == 0 else out


def _compute_mutations(entry: Entry) -> list[tuple[str, str, Callable]]:
    f = entry.compute
    out: list[tuple[str, str, Callable]] = [
        ("sign flip", "the solver's output negated", lambda **kw: _map_numbers(f(**kw), lambda a: -a)),
        ("factor 2", "the solver's output doubled", lambda **kw: _map_numbers(f(**kw), lambda a: 2 * a)),
        ("exponent + 1", "the solver's output squared", lambda **kw: _map_numbers(f(**kw), lambda a: a * np.abs(a))),
        ("perturbed", "the solver's output off by 1e-6 relative",
         lambda **kw: _map_numbers(f(**kw), lambda a: a * (1 + 1e-6) + 1e-300)),
    ]
    same = {}
    for p in entry.params:
        if p.kind in ("scalar", "vector", "matrix"):
            same.setdefault((p.kind, p.shape), []).append(p.name)
    pair = next((names[:2] for names in same.values() if len(names) >= 2), None)
    if pair:
        a, b = pair
        out.append(("swapped arguments", f"{a} and {b} swapped in the solver's input",
                    lambda **kw: f(**{**kw, a: kw[b], b: kw[a]})))
    return out


def mutants(entry: Entry) -> list[Mutant]:
    """The standard set of mutations of one entry: of its formula, its stable form and its solver."""
    syms = [p.symbol for p in entry.params if p.kind in ("scalar", "integer")]
    out: list[Mutant] = []
    if entry.compute is not None:
        for op, text, fn in _compute_mutations(entry):
            out.append(Mutant(entry.id, "compute", op, text, lambda e, fn=fn: {"compute": fn}))
    for target in ("formula", "stable_form"):
        expr = getattr(entry, target)
        if expr is None or (target == "stable_form" and expr == entry.formula):
            continue
        for op, text, new in _expr_mutations(expr, syms):
            out.append(Mutant(entry.id, target, op, text, lambda e, t=target, n=new: {t: n}))
    return out


@contextlib.contextmanager
def applied(entry: Entry, overrides: dict) -> Iterator[None]:
    """Change the entry's fields in place (frozen records included) and restore them afterwards."""
    old = {k: getattr(entry, k) for k in overrides}

    def clear():
        for cached in ("_kernel_expr", "kernel_params"):
            entry.__dict__.pop(cached, None)

    try:
        for k, v in overrides.items():
            object.__setattr__(entry, k, v)
        clear()
        yield
    finally:
        for k, v in old.items():
            object.__setattr__(entry, k, v)
        clear()


# ---------------------------------------------------------------------------------------------------
# the layers


def samples(entry: Entry, n: int) -> list[dict]:
    """Pinned examples plus n points drawn (derandomized) from the entry's own strategy."""
    from hypothesis import HealthCheck, given, settings

    found: list[dict] = [dict(e) for e in entry.examples]

    @settings(max_examples=n, database=None, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(entry.strategy())
    def grab(kwargs):
        found.append(kwargs)

    grab()
    return found


def _close(a: Any, b: Any, rtol: float) -> bool:
    if isinstance(b, dict):
        return isinstance(a, dict) and set(a) >= set(b) and all(_close(a[k], b[k], rtol) for k in b)
    if b is None:
        return a is None
    try:
        x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        return a == b
    if x.shape != y.shape:
        return False
    both_inf = np.isinf(x) & np.isinf(y) & (np.sign(x) == np.sign(y))
    x, y = np.where(both_inf, 0, x), np.where(both_inf, 0, y)
    return bool(np.all(np.abs(x - y) <= rtol * np.maximum(np.abs(y), 1e-300) + 1e-300))


def _value(entry: Entry, kw: dict) -> Any:
    try:
        return entry(**kw)
    except DomainError as exc:
        return ("DomainError", str(exc).split(" at ")[0])


def contract_layer(entry: Entry, points: Sequence[dict]) -> str | None:
    """Value against the entry's reference, and the stable form against the paper's formula; None if it holds."""
    try:
        return _contract(entry, points)
    except _ReferenceRaised as exc:
        return str(exc)


def _contract(entry: Entry, points: Sequence[dict]) -> str | None:
    for kw in points:
        try:
            value = entry(**kw)
        except DomainError as exc:
            ref = _safe_reference(entry, kw)
            if ref is None or not _representable(ref):
                continue
            return f"DomainError where the reference is {ref!r:.60} at {_short(kw)}: {exc}"
        except Exception as exc:  # noqa: BLE001 - a mutant that crashes the kernel is caught
            return f"{type(exc).__name__} at {_short(kw)}: {exc}"
        ref = _safe_reference(entry, kw)
        if ref is not None and not _close(value, ref, max(entry.rtol, 1e-10) * 10):
            return f"value {_short(value)} vs reference {_short(ref)} at {_short(kw)}"
        if entry.formula is not None and entry.stable_form is not None and entry.stable_form != entry.formula:
            vals = entry.validate(kw)
            args = [vals[p.name] for p in entry.kernel_params]
            try:
                from . import kernels
                paper = kernels.mp_reference_array(entry.mpmath, args)
            except Exception:  # noqa: BLE001 - the paper's form is singular here: not evidence
                continue
            stable = entry.numpy(*args)
            if np.all(np.isfinite(np.asarray(paper, dtype=float))) and not _close(stable, paper, 1e-8):
                return f"stable form {_short(stable)} vs the paper's formula {_short(paper)} at {_short(kw)}"
    return None




class _ReferenceRaised(Exception):
    pass


def _safe_reference(entry: Entry, kw: dict) -> Any:
    """The reference's value; None where it is bad input; a crash (as the contract test would see it) is raised."""
    try:
        return entry.reference_value(**kw)
    except DomainError:
        return None
    except Exception as exc:  # noqa: BLE001 - the contract test fails on it, so the mutant is caught
        raise _ReferenceRaised(f"the reference raised {type(exc).__name__}: {exc}") from exc


def _short(x: Any) -> str:
    text = repr({k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in x.items()}) if isinstance(
        x, dict) else repr(x.tolist() if isinstance(x, np.ndarray) else x)
    return text if len(text) <= 90 else text[:87] + "..."


def derivation_layer(entry: Entry) -> str | None:
    from . import catalogue

    for d in catalogue.derivations():
        if entry.id not in d.entries:
            continue
        for r in d.check(cache=False):
            if not r.ok:
                return f"{d.key}: step {r.step.label!r} {r.status}"
    return None


def evidence_layer(entry: Entry, profile: str = "quick") -> str | None:
    from . import catalogue
    from .evidence import Context, Evidence

    ctx = Context(profile=profile, device="cpu", seed=0)
    for check in catalogue.checks():
        if entry.id not in check.entries:
            continue
        try:
            recs = check.evaluate(ctx)
        except Exception as exc:  # noqa: BLE001 - a mutant that crashes a check is caught by it
            return f"{check.name} raised {type(exc).__name__}: {exc}"
        bad = next((r for r in recs if isinstance(r, Evidence) and not r.passed), None)
        if bad is not None:
            return f"{check.name}: {bad.check} failed (abs err {bad.abs_error:.3g} > tol {bad.tolerance:.3g})"
    return None


def _formula_values(entry: Entry, kw: dict) -> Any:
    """The paper's formula (not the kernel) at a point, in float64: what a formula mutant changes."""
    from . import kernels

    try:
        values = entry.validate(kw)
        f = kernels.build("numpy", entry.formula, tuple(p.symbol for p in entry.kernel_params))
        out = f(*(values[p.name] for p in entry.kernel_params))
        return np.sum(out, axis=-1) if entry.reduce == "sum" else out
    except Exception as exc:  # noqa: BLE001 - a formula that cannot be evaluated here is a value of its own
        return ("error", type(exc).__name__)


def _observed(entry: Entry, target: str, kw: dict) -> Any:
    return _formula_values(entry, kw) if target == "formula" else _value(entry, kw)


def _equivalent(entry: Entry, target: str, baseline: Sequence[Any], points: Sequence[dict]) -> bool:
    """The mutated field computes the same values as the original at every sample point (an equivalent mutant):
    for a formula mutant, the formula's own values; otherwise the entry's value."""
    for kw, base in zip(points, baseline):
        if not _close_or_same(_observed(entry, target, kw), base):
            return False
    return True


def _close_or_same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return a == b
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if a.shape != b.shape:
            return False
        same_nan = np.isnan(a) & np.isnan(b)
        a, b = np.where(same_nan, 0, a), np.where(same_nan, 0, b)
    try:
        return _close(a, b, _EQUIV_RTOL)
    except Exception:  # noqa: BLE001
        return False


def run(entries: Sequence[Entry], *, profile: str = "quick", progress: Callable[[MutantResult], None] | None = None,
        layers: Sequence[str] = LAYERS) -> list[MutantResult]:
    """Apply every standard mutant of each entry and record which layers catch it."""
    cfg = PROFILES[profile]
    results: list[MutantResult] = []
    for entry in entries:
        points = samples(entry, cfg["samples"])
        baseline = {t: [_observed(entry, t, kw) for kw in points] for t in ("formula", "stable_form", "compute")
                    if getattr(entry, t) is not None}
        for m in mutants(entry):
            t0 = time.perf_counter()
            caught: list[str] = []
            details: list[str] = []
            with applied(entry, m.apply(entry)):
                equivalent = False
                try:
                    equivalent = _equivalent(entry, m.target, baseline[m.target], points)
                except Exception:  # noqa: BLE001 - a crashing mutant is not equivalent
                    equivalent = False
                if not equivalent:
                    for layer in layers:
                        fn = {"contract": lambda: contract_layer(entry, points),
                              "derivation": lambda: derivation_layer(entry),
                              "evidence": lambda: evidence_layer(entry)}[layer]
                        why = fn()
                        if why:
                            caught.append(layer)
                            details.append(f"{layer}: {why}")
                            if not cfg["all_layers"]:
                                break
            res = MutantResult(m, tuple(caught), equivalent,
                               "; ".join(details) or ("equivalent at every sample point" if equivalent
                                                      else "SURVIVED every layer"),
                               time.perf_counter() - t0)
            results.append(res)
            if progress:
                progress(res)
    return results


def score(results: Sequence[MutantResult]) -> tuple[int, int, float]:
    """(caught, counted, caught / counted) over the non-equivalent mutants."""
    counted = [r for r in results if not r.equivalent]
    caught = sum(bool(r.caught_by) for r in counted)
    return caught, len(counted), (caught / len(counted) if counted else math.nan)
