"""Accuracy maps: each entry's worst relative error (and ulps) per output component and region of its domain.

Every value is measured against (a) the entry's independent reference, run at two working precisions that must
agree (raised until they do), and (b) where it exists and is a different route, the paper's formula evaluated in
mpmath; a disagreement between (a) and (b) is reported, never averaged away. Regions: the strategy's bulk,
log-uniform magnitudes across float64, clusters near excluded (singular) points, domain edges, joint
neighbourhoods (two or more parameters near their special points together: excluded points, bounds, 0, the unbounded
ends, down to the smallest normal float), and a Hypothesis search that maximizes the error with `target()`.
"""
from __future__ import annotations

import concurrent.futures as cf
import itertools
import json
import math
import multiprocessing as mp
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import mpmath
import numpy as np
import sympy as sp

from .._shared import SUBNORMAL_FLOOR, cache_path, fmt, with_timeout, write_json
from .._decide.entry import Entry
from .._numerics import kernels
from .._pipeline import catalogue
from .._records.params import DomainError, Param, generic_values

__all__ = ["Row", "EntryMap", "measure", "regions", "joint_points", "PROFILES"]

# joint: the levels of each parameter's approach to a special point (Param.approaches) and the most joint points per
# entry (pairs of parameters first, deepest levels first, then every parameter at once)
PROFILES = {"quick": {"bulk": 8, "per_region": 6, "search": 10, "budget_s": 3, "joint_levels": 3, "joint": 120},
            "thorough": {"bulk": 60, "per_region": 25, "search": 200, "budget_s": 60, "joint_levels": 6,
                         "joint": 1500}}
_PRECISIONS = (20, 40, 80)


def _with_budget(fn: Callable[[], Any], seconds: float) -> Any:
    """fn() within a budget of CPU seconds of this process: TimeoutError past it (`_shared.with_timeout` on the CPU
    clock). CPU time (ITIMER_PROF), not wall time, so that which points are 'slow' does not depend on the machine's
    load (a wall-clock budget on a loaded machine skipped half of relu's points)."""
    return with_timeout(fn, seconds, clock="cpu")


@dataclass(frozen=True)
class Row:
    """The worst point of one (entry, output component, region)."""

    entry: str
    output: str
    region: str
    rel_error: float
    ulps: float
    point: str
    points: int

    def to_json(self) -> dict:
        return {"entry": self.entry, "output": self.output, "region": self.region, "rel_error": self.rel_error,
                "ulps": self.ulps, "point": self.point, "points": self.points}


@dataclass
class EntryMap:
    entry: str
    rtol: float
    rows: list[Row] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)  # reference (a) vs formula (b), or unstable precisions
    slow: list[str] = field(default_factory=list)           # points whose reference exceeded the time budget
    problems: list[str] = field(default_factory=list)        # DomainError where the reference is representable
    note: str = ""
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    unique_points: int = 0                                   # distinct points measured (regions share points)
    misses: list = field(default_factory=list)               # points (kwargs) where the error exceeded rtol

    @property
    def worst(self) -> Row | None:
        return max(self.rows, key=lambda r: r.rel_error, default=None)

    @property
    def meets(self) -> bool:
        w = self.worst
        return not self.problems and (w is None or w.rel_error <= self.rtol)

    def to_json(self) -> dict:
        return {"entry": self.entry, "rtol": self.rtol, "meets": self.meets, "note": self.note,
                "rows": [r.to_json() for r in self.rows], "disagreements": self.disagreements,
                "problems": self.problems, "slow": self.slow, "seconds": round(self.seconds, 2),
                "cpu_seconds": round(self.cpu_seconds, 2), "unique_points": self.unique_points}


# -- regions of a parameter's domain ------------------------------------------------------------------------


def _inside(p: Param, x: float) -> bool:
    try:
        p.validate(x)
        return True
    except DomainError:
        return False


def _scalar_regions(p: Param, n: int, switches: Sequence[float] = ()) -> dict[str, list[float]]:
    """Values of one scalar parameter: log-uniform magnitudes, near excluded points, near method switches (the
    entry's `switches`), near the edges."""
    out: dict[str, list[float]] = {}
    if p.kind != "scalar":
        return out
    exps = np.linspace(-300, 300, n)
    mags = [s * 10.0**e for e in exps for s in (1.0, -1.0)]
    out["magnitudes 1e-300..1e300"] = [x for x in mags if _inside(p, x)]
    near = []
    for x0 in p.exclude:
        for k in np.linspace(1, 14, max(2, n // 2)):
            for s in (1, -1):
                near.append(x0 + s * max(1.0, abs(x0)) * 10.0**-k)
    if near:
        out["near excluded points"] = [x for x in near if _inside(p, x)]
    sw = []
    for x0 in switches:
        for k in np.linspace(1, 15, max(3, n)):
            for s in (1, -1):
                sw.append(x0 + s * max(1.0, abs(x0)) * 10.0**-k)
        sw.append(float(x0))
    if sw:
        out["near method switches"] = [x for x in sw if _inside(p, x)]
    edges = []
    for bound, sign in ((p.low, 1), (p.high, -1)):
        if bound is None:
            continue
        for k in np.linspace(0, 15, max(2, n // 2)):
            edges.append(bound + sign * max(1.0, abs(bound)) * 10.0**-k)
        if not (p.low_open if sign == 1 else p.high_open):
            edges.append(float(bound))
    if edges:
        out["domain edges"] = [x for x in edges if _inside(p, x)]
    return {k: v for k, v in out.items() if v}


def _scaled_regions(base: np.ndarray, n: int) -> dict[str, list[np.ndarray]]:
    """A vector or matrix parameter's base value rescaled so its largest element spans 1e-300..1e300 (overflow and
    underflow of norms, squares and products), and with one element shrunk towards 0 relative to the rest."""
    top = float(np.max(np.abs(base))) if base.size else 0.0
    if top == 0 or not np.isfinite(top):
        return {}
    out = {"scaled, largest element 1e-300..1e300": [base / top * 10.0**e for e in np.linspace(-300, 300, n)]}
    if base.size > 1:
        i = int(np.argmax(np.abs(base)))
        small = []
        for e in np.linspace(-1, -300, n):
            b = base.copy().ravel()
            j = (i + 1) % b.size
            b[j] = top * 10.0**e * (1 if b[j] >= 0 else -1)
            small.append(b.reshape(base.shape))
        out["one element 1e-1..1e-300 of the largest"] = small
    return out


def _bulk(entry: Entry, n: int) -> list[dict]:
    # lazy: hypothesis costs ~0.4 s; `theorylab eval` loads this module and never draws
    from hypothesis import HealthCheck, given, settings

    found: list[dict] = [dict(e) for e in entry.examples]

    @settings(max_examples=n, database=None, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
    @given(entry.strategy())
    def grab(kwargs):
        found.append(kwargs)

    grab()
    return found


# -- inputs: the contract's Hypothesis settings and its generic point (theorylab.testing re-exports them) -------
def contract_phases():
    """The contract's Hypothesis phases: pinned examples, then generated ones (no shrinking of a found failure)."""
    # lazy: hypothesis costs ~0.4 s; `theorylab eval` loads this module and never draws
    from hypothesis import Phase

    return [Phase.explicit, Phase.generate]


def contract_settings(max_examples: int | None = None, **kw: Any):
    """The current Hypothesis settings with no deadline and the too-slow and filter-too-much health checks off."""
    # lazy: hypothesis costs ~0.4 s; `theorylab eval` loads this module and never draws
    from hypothesis import HealthCheck, settings

    current = settings.default
    return settings(current, deadline=None, max_examples=max_examples or current.max_examples,
                    suppress_health_check=[*current.suppress_health_check, HealthCheck.too_slow,
                                           HealthCheck.filter_too_much], **kw)


def valid_example(entry) -> dict:
    """One valid keyword-argument dict of the entry: a generic point, reproducible. Drawn by the entry's strategy
    from the bulk of the domains (`params.generic_values`: moderate magnitudes, away from bounds and excluded
    points), and inside every branch's domain: the first draw where every branch of every Piecewise of the kernel
    (the unused ones too, which torch differentiates through) and the value are finite.

    Example: `entry(**valid_example(entry))` returns a value."""
    # lazy: hypothesis costs ~0.4 s; `theorylab eval` loads this module and never draws
    from hypothesis import given

    found: list[dict] = []

    with generic_values():
        @given(entry.strategy())
        @contract_settings(max_examples=25, database=None, derandomize=True, phases=contract_phases())
        def grab(kwargs):
            found.append(kwargs)

        grab()
    if not found:
        raise ValueError(f"{entry.id}: its strategy drew no valid point")
    return next((kw for kw in found if inside_every_branch(entry, kw)), found[0])


def inside_every_branch(entry, kwargs: dict) -> bool:
    """Every branch of every Piecewise in the entry's kernel expression, and the value, finite at this point."""
    try:
        values = entry.validate(kwargs)
        with np.errstate(all="ignore"):
            if not np.all(np.isfinite(np.asarray(entry.evaluate(values), dtype=float))):
                return False
    except (DomainError, TypeError, ValueError, ArithmeticError):
        return False
    if entry.compute is not None or entry.formula is None:
        return True
    expr = entry._kernel_expr
    syms = tuple(p.symbol for p in entry.kernel_params)
    args = [values[p.name] for p in entry.kernel_params]
    for pw in expr.atoms(sp.Piecewise):
        for branch, _cond in pw.args:
            if not isinstance(branch, sp.Expr) or not branch.free_symbols <= set(syms):
                continue
            try:
                got = kernels.build("numpy", branch, syms)(*args)
            except Exception:  # noqa: BLE001 - a branch that cannot be evaluated here: not a generic point
                return False
            if not np.all(np.isfinite(got)):
                return False
    return True


def joint_points(entry: Entry, levels: int = 3, cap: int = 120, base: Mapping[str, Any] | None = None
                 ) -> dict[str, list[dict]]:
    """Joint neighbourhoods of the entry's special points: for each pair of real parameters and each pair of their
    special points (`Param.approaches`: excluded points from either side, bounds, 0, the unbounded ends), the points
    where both approach them together, deepest first (1 ulp from gamma = 1 with lambda at the smallest normal
    float); then every real parameter at once. The other parameters keep the `base` point (a generic one by
    default). At most `cap` valid points in all, shared out evenly between the groups (round robin), each group
    named "joint: lam -> 0+, gamma -> 1+".

    Returns {region name: [keyword arguments]}: what the accuracy map measures and the contract's value test draws."""
    if base is None:
        try:
            base = valid_example(entry)
        except Exception:  # noqa: BLE001 - no generic point (a strategy that draws nothing): no joint points
            return {}
    real = [(p, p.approaches(levels)) for p in entry.params if p.kind in ("scalar", "integer")]
    real = [(p, a) for p, a in real if a]
    if len(real) < 2:
        return {}
    groups: list[tuple[str, list[dict]]] = []
    for (p, ap), (q, aq) in itertools.combinations(real, 2):
        for (la, va), (lb, vb) in itertools.product(ap, aq):
            combos = sorted(itertools.product(range(len(va)), range(len(vb))), key=lambda ij: (-(ij[0] + ij[1]),
                                                                                              -min(ij)))
            groups.append((f"joint: {la}, {lb}", [{**base, p.name: va[i], q.name: vb[j]} for i, j in combos]))
    if len(real) > 2:  # every parameter at once, at the same depth of each one's approach
        for choice in itertools.islice(itertools.product(*(a for _, a in real)), 64):
            pts = []
            for k in range(max(len(v) for _, v in choice) - 1, -1, -1):
                pts.append({**base, **{p.name: v[min(k, len(v) - 1)] for (p, _), (_, v) in zip(real, choice)}})
            groups.append(("joint: " + ", ".join(lab for lab, _ in choice), pts))
    out: dict[str, list[dict]] = {}
    taken = 0
    cursors = [0] * len(groups)
    while taken < cap and any(c < len(g[1]) for c, g in zip(cursors, groups)):
        for gi, (name, pts) in enumerate(groups):
            while cursors[gi] < len(pts) and taken < cap:
                kw = pts[cursors[gi]]
                cursors[gi] += 1
                try:
                    entry.validate(kw)
                except DomainError:
                    continue
                out.setdefault(name, []).append(kw)
                taken += 1
                break
    return out


def regions(entry: Entry, profile: str = "quick") -> dict[str, list[dict]]:
    """Named lists of points (keyword arguments) covering the entry's domain."""
    cfg = PROFILES[profile]
    bulk = _bulk(entry, cfg["bulk"])
    out = {"bulk (strategy and pinned examples)": bulk}
    base = bulk[0] if bulk else {}
    for p in entry.params:
        regions_p = _scalar_regions(p, cfg["per_region"], entry.switches.get(p.name, ()))
        if p.kind in ("vector", "matrix") and p.name in base:
            regions_p.update(_scaled_regions(np.asarray(base[p.name], dtype=float), cfg["per_region"]))
        for name, values in regions_p.items():
            pts = []
            for v in values:
                kw = {**base, p.name: v}
                try:
                    entry.validate(kw)
                except DomainError:
                    continue
                pts.append(kw)
            if pts:
                out[f"{p.name}: {name}"] = pts
    out.update(joint_points(entry, cfg["joint_levels"], cfg["joint"]))
    return out


# -- errors ------------------------------------------------------------------------------------------------


def components(value: Any, prefix: str = "value") -> dict[str, np.ndarray]:
    """Flatten an output (float, array, dict of those) into named float arrays."""
    if isinstance(value, dict):
        out: dict[str, np.ndarray] = {}
        for k, v in value.items():
            out.update(components(v, k if prefix == "value" else f"{prefix}.{k}"))
        return out
    if value is None:
        return {}
    try:
        return {prefix: np.atleast_1d(np.asarray(value, dtype=float))}
    except (TypeError, ValueError):
        return {}


def errors(value: Any, reference: Any, *, largest: bool = False) -> dict[str, tuple[float, float]]:
    """Per component: (worst relative error, worst ulps) of value against reference; largest=True (an entry's
    error_scale "largest"): each element's error relative to the largest |reference| element."""
    v, r = components(value), components(reference)
    out = {}
    for k, ref in r.items():
        got = v.get(k)
        if got is None or got.shape != ref.shape:
            out[k] = (math.inf, math.inf)
            continue
        both_inf = np.isinf(got) & np.isinf(ref) & (np.sign(got) == np.sign(ref))
        g, rr = np.where(both_inf, 0.0, got), np.where(both_inf, 0.0, ref)
        diff = np.abs(g - rr)
        with np.errstate(divide="ignore", invalid="ignore"):
            # the one closeness rule's error (theorylab._shared.closeness): each element relative to its own
            # reference, a difference within the subnormal floor counting as none (as the contract compares), so a
            # map that "meets 1e-10" is what the contract's tests will find
            scale = np.abs(rr)
            if largest and scale.size and np.isfinite(scale).any():
                scale = np.full_like(scale, np.max(scale[np.isfinite(scale)]))
            diff = np.where(diff <= SUBNORMAL_FLOOR, 0.0, diff)
            rel = np.where(diff == 0, 0.0, diff / np.where(scale > 0, scale, np.inf))
            rel = np.where((scale == 0) & (diff > 0), np.inf, rel)
            rel = np.where(np.isnan(rel), np.inf, rel)
            ulps = np.where(diff == 0, 0.0, diff / np.spacing(np.maximum(scale, np.finfo(float).tiny)))
        out[k] = (float(np.max(rel)) if rel.size else 0.0, float(np.max(ulps)) if ulps.size else 0.0)
    return out


def _reference(entry: Entry, kw: Mapping[str, Any]) -> tuple[Any, str | None]:
    """Reference (a) at rising working precision until two precisions agree to 1e-14 relative."""
    prev = None
    for dps in _PRECISIONS:
        with mpmath.workdps(dps):
            ref = entry.reference_value(**kw)
        if prev is not None:
            agree = all(e[0] <= 1e-14 for e in errors(ref, prev).values())
            if agree:
                return ref, None
        prev = ref
    return prev, f"reference does not settle between {_PRECISIONS[-2]} and {_PRECISIONS[-1]} digits"


def _formula_route(entry: Entry, kw: Mapping[str, Any]) -> Any:
    """Route (b): the paper's formula in mpmath, where the entry's reference is a different route."""
    if entry.formula is None or entry.reference is None or entry.compute is not None:
        return None
    values = entry.validate(kw)
    out = kernels.mp_reference_array(entry.mpmath, [values[p.name] for p in entry.kernel_params], digits=30)
    if entry.reduce == "sum":
        out = np.sum(out, axis=-1)
    return out


def _key(kw: Mapping[str, Any]) -> Any:
    """A hashable identity of a point (exact: arrays by their bytes), or None where a value has none."""
    try:
        key = tuple((k, ("array", a.shape, a.dtype.str, a.tobytes()) if isinstance(a, np.ndarray)
                     else repr(a) if isinstance(a, float) else a)  # repr keeps -0.0 apart from 0.0
                    for k, v in kw.items() for a in [np.asarray(v) if isinstance(v, (list, np.ndarray)) else v])
        hash(key)
        return key
    except TypeError:
        return None


def _fmt(kw: Mapping[str, Any]) -> str:
    """A point as k=v, floats to 17 digits (the point can be typed back in)."""
    return fmt(dict(kw), 17)


def measure(entry: Entry, profile: str = "quick", progress: Callable[[str], None] | None = None) -> EntryMap:
    """The accuracy map of one entry."""
    t0, c0 = time.perf_counter(), time.process_time()
    m = EntryMap(entry.id, entry.rtol, note=entry.reference_rtol_note)
    if entry.reference is None and entry.formula is None:
        m.problems.append("no reference: accuracy cannot be measured")
        return m

    budget = PROFILES[profile]["budget_s"]  # a reference slower than this at one point is reported as slow there

    cache: dict[Any, dict[str, tuple[float, float]] | None] = {}

    def one(kw: Mapping[str, Any]) -> dict[str, tuple[float, float]] | None:
        # regions share points (each region varies one parameter about the same base point; the search revisits
        # the strategy's edges): each distinct point is measured once, its problems and slowness noted once
        key = _key(kw)
        if key is None:
            return measure_point(kw)
        if key not in cache:
            cache[key] = measure_point(kw)
            m.unique_points += cache[key] is not None
            if cache[key] and max(e[0] for e in cache[key].values()) > entry.rtol and len(m.misses) < MAX_MISSES:
                m.misses.append(_plain(kw))
        return cache[key]

    def measure_point(kw: Mapping[str, Any]) -> dict[str, tuple[float, float]] | None:
        try:
            ref, unstable = _with_budget(lambda: _reference(entry, kw), budget)
        except DomainError:
            return None
        except TimeoutError:
            m.slow.append(f"reference over {budget} CPU s at {_fmt(kw)} (point not measured)")
            return None
        except Exception as exc:  # noqa: BLE001 - a reference that breaks is reported, never skipped silently
            m.problems.append(f"the reference raised {type(exc).__name__} at {_fmt(kw)}: {str(exc)[:80]}")
            return None
        if unstable:
            m.disagreements.append(f"{unstable} at {_fmt(kw)}")
        try:
            value = entry(**kw)
        except DomainError as exc:
            if all(np.all(np.isfinite(c)) for c in components(ref).values()) and components(ref):
                m.problems.append(f"DomainError where the reference is representable, at {_fmt(kw)}: {exc}")
            return None
        except Exception as exc:  # noqa: BLE001 - an entry that crashes on valid input is a bug, reported here
            m.problems.append(f"the entry raised {type(exc).__name__} at {_fmt(kw)}: {str(exc)[:80]}")
            return None
        errs = errors(value, ref, largest=entry.error_scale == "largest")
        try:
            alt = _formula_route(entry, kw)
        except (DomainError, ValueError, ZeroDivisionError, OverflowError):
            alt = None
        if alt is not None:
            ra = components(alt)
            if all(np.all(np.isfinite(c)) for c in ra.values()):
                worst = max((e[0] for e in errors(alt, ref).values()), default=0.0)
                if worst > max(1e-12, entry.rtol / 10):
                    m.disagreements.append(f"the paper's formula and the reference differ by {worst:.2g} "
                                           f"relative at {_fmt(kw)}")
        return errs

    for region, pts in regions(entry, profile).items():
        worst: dict[str, tuple[float, float, str]] = {}
        n = 0
        for kw in pts:
            errs = one(kw)
            if errs is None:
                continue
            n += 1
            for comp, (rel, ulp) in errs.items():
                if comp not in worst or rel > worst[comp][0]:
                    worst[comp] = (rel, ulp, _fmt(kw))
        for comp, (rel, ulp, where) in worst.items():
            m.rows.append(Row(entry.id, comp, region, rel, ulp, where, n))
        if progress:
            progress(f"{entry.id}: {region} ({n} points)")
    m.rows.extend(_search(entry, one, PROFILES[profile]["search"]))
    m.seconds, m.cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
    return m


def _search(entry: Entry, one: Callable, n: int) -> list[Row]:
    """A Hypothesis search that maximizes the log relative error with target()."""
    # lazy: hypothesis costs ~0.4 s; `theorylab eval` loads this module and never draws
    from hypothesis import HealthCheck, given, settings, target

    worst: dict[str, tuple[float, float, str]] = {}
    count = [0]

    @settings(max_examples=n, database=None, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
    @given(entry.strategy())
    def hunt(kw):
        errs = one(kw)
        if not errs:
            return
        count[0] += 1
        top = max(e[0] for e in errs.values())
        target(math.log10(top + 1e-300) if math.isfinite(top) else 300.0, label="log10 relative error")
        for comp, (rel, ulp) in errs.items():
            if comp not in worst or rel > worst[comp][0]:
                worst[comp] = (rel, ulp, _fmt(kw))

    hunt()
    return [Row(entry.id, comp, "Hypothesis target() search", rel, ulp, where, count[0])
            for comp, (rel, ulp, where) in worst.items()]


MAX_MISSES = 20  # points kept per entry and run: a miss is a point, not a region


def _plain(kw: Mapping[str, Any]) -> dict:
    """A point as JSON: floats (repr-exact), lists for arrays."""
    return {k: (np.asarray(v, dtype=float).tolist() if np.ndim(v) else float(v)) for k, v in kw.items()}


def misses_path() -> str:
    """The local store of misses ($XDG_CACHE_HOME/theorylab/accuracy-misses.json): entry ID -> points, as
    Hypothesis keeps its example database, so a miss found once is tested again on every run."""
    return cache_path("accuracy-misses.json")


def pinned_misses(entry_id: str) -> list[dict]:
    """The points where `accuracy` (or an author's run) found this entry missing its bound: every one is tested again
    by the contract on every run (theorylab.testing), until it is fixed and moved into the entry's `examples`."""
    try:
        with open(misses_path()) as fh:
            return list(json.load(fh).get(entry_id, []))
    except (OSError, ValueError, AttributeError):
        return []


def record_misses(maps: Sequence[EntryMap]) -> int:
    """Add the maps' misses to the local store (never removed here: a fixed miss keeps passing). Returns how many
    new points were stored."""
    try:
        with open(misses_path()) as fh:
            store = json.load(fh)
    except (OSError, ValueError):
        store = {}
    added = 0
    for m in maps:
        known = store.setdefault(m.entry, [])
        for kw in m.misses:
            if kw not in known:
                known.append(kw)
                added += 1
    if added:
        try:
            write_json(misses_path(), store)
        except OSError:  # a read-only home: the table still says where the miss is
            pass
    return added


def measure_all(entries: Sequence[Entry], profile: str = "quick", jobs: int | None = None,
                progress: Callable[[EntryMap], None] | None = None) -> list[EntryMap]:
    """Accuracy maps of many entries, in a spawn process pool of `jobs` workers (default: the usable cores);
    the order of the result is the order of `entries`, whatever finishes first. Every miss found is added to the
    local store the contract re-tests (`record_misses`, `pinned_misses`)."""
    maps = _measure_all(entries, profile, jobs, progress)
    record_misses(maps)
    return maps


def _measure_all(entries: Sequence[Entry], profile: str, jobs: int | None,
                 progress: Callable[[EntryMap], None] | None) -> list[EntryMap]:
    if not jobs:
        jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if jobs <= 1 or len(entries) <= 1:
        out = []
        for e in entries:
            out.append(measure(e, profile))
            if progress:
                progress(out[-1])
        return out

    with cf.ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn")) as pool:
        futures = {pool.submit(_measure_id, e.id, profile): i for i, e in enumerate(entries)}
        done: dict[int, EntryMap] = {}
        for f in cf.as_completed(futures):
            done[futures[f]] = f.result()
            if progress:
                progress(done[futures[f]])
    return [done[i] for i in range(len(entries))]


def _measure_id(entry_id: str, profile: str) -> EntryMap:
    return measure(catalogue.get(entry_id), profile)


CONTRACT_RTOL = 1e-10


def worst_rows(entries: Sequence[Mapping[str, Any]]) -> list[dict]:
    """Per entry (as JSON from `EntryMap.to_json`) and output component: its worst row over all regions, with the
    entry's bound (its declared rtol: the contract's 1e-10 unless the entry documents a wider one), whether it
    meets it, and how many points were not measured (reference over budget) or raised."""
    out = []
    for m in entries:
        by: dict[str, Mapping[str, Any]] = {}
        for r in m["rows"]:
            if r["output"] not in by or r["rel_error"] > by[r["output"]]["rel_error"]:
                by[r["output"]] = r
        extra = {"bound": m["rtol"], "note": m.get("note", ""), "slow": len(m.get("slow", ())),
                 "problems": len(m.get("problems", ())), "disagreements": len(m.get("disagreements", ())),
                 "points": m.get("unique_points")}
        for comp, r in by.items():
            out.append({**r, "entry": m["entry"], **extra,
                        "meets": r["rel_error"] <= m["rtol"] and not extra["problems"]})
        if not by:
            out.append({"entry": m["entry"], "output": "-", "region": "-", "rel_error": math.nan, "ulps": math.nan,
                        "point": "; ".join(m.get("problems", ())) or "no point evaluated", **extra, "meets": False})
    return out


def _meets_text(r: Mapping[str, Any]) -> str:
    if not r["meets"]:
        why = f"{r['problems']} points raised" if r["problems"] else f"bound {r['bound']:g}"
        return f"**NO** ({why})"
    return "yes" if r["bound"] <= CONTRACT_RTOL else f"yes, documented bound {r['bound']:g}"


def markdown(data: Mapping[str, Any]) -> str:
    """The published table from `theorylab accuracy --json` data: per entry and output the worst region, the error,
    the point; the documented bound where an entry's is wider than 1e-10, with its reason; what was not measured."""
    rows = worst_rows(data["entries"])
    lines = ["| entry | output | worst region | rel. error | ulps | point | points (over budget) | meets 1e-10 |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        point = r["point"] if len(r["point"]) <= 70 else r["point"][:67] + "..."
        point = point.replace("|", "\\|")
        pts = "-" if r["points"] is None else str(r["points"])
        lines.append(f"| `{r['entry']}` | {r['output']} | {r['region']} | {r['rel_error']:.2g} | {r['ulps']:.3g} | "
                     f"{point} | {pts} ({r['slow']}) | {_meets_text(r)} |")
    notes = []
    for m in data["entries"]:
        if m["rtol"] > CONTRACT_RTOL:
            notes.append(f"- `{m['entry']}`: documented bound {m['rtol']:g}: {m.get('note') or 'no reason given'}")
        for kind in ("problems", "disagreements"):
            for text in m.get(kind, ())[:2]:
                notes.append(f"- `{m['entry']}` ({kind[:-1]}): {text}")
        if m.get("slow"):
            notes.append(f"- `{m['entry']}`: {len(m['slow'])} points not measured, e.g. {m['slow'][0]}")
    if notes:
        lines += ["", *notes]
    return "\n".join(lines)


def table(maps: Sequence[EntryMap]) -> str:
    """Per entry and output, the worst region: entry, output, region, worst relative error, ulps, the point."""
    return markdown({"entries": [m.to_json() for m in maps]})
