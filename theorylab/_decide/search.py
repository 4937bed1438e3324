"""The search behind an inequality step's "searched": where it looks, how hard, and what it covered.

`check_inequality` (theorylab._decide.derivation) proves a step with SymPy where it can; otherwise it evaluates the step at
simple and random points at 50 digits, tries a quick certification (at most three variables, 200 boxes), runs the
search here on the float64 slack, re-evaluates the search's best points at 50 digits, and then certifies (at most
three variables) or reports "searched" with what was covered. Only a 50-digit evaluation refutes: float64 only
points the way.

Coordinates (`coordinate`). Each variable x with interval [lo, hi] is searched in a coordinate u:

  lin     x = u                   a bounded interval spanning less than LOG_DECADES decades
  log     x = 10^u                0 < lo with hi/lo >= 10^LOG_DECADES (a positive box of two decades or more)
          x = -10^u               the same on the negative side (hi < 0)
          x = 10^u, u >= -CLIP    [0, hi] with hi >= 10^LOG_DECADES: clipped at 1e-9 above 0
  tail    x = lo + 10^u           [lo, oo): u in [-CLIP, CLIP], i.e. x - lo in [1e-9, 1e9] (stated clipping)
          x = hi - 10^u           (-oo, hi]
  asinh   x = sinh(u)             lo < 0 < hi with a side beyond 10^LOG_DECADES (linear near 0, logarithmic
                                  beyond +-1), and (-oo, oo) clipped at |x| <= 1e9

Budget (`budget`): BUDGET_PER_VARIABLE float64 evaluations per variable, times (1 + D/2) where D is the number of
decades searched (each variable counts at least 1), capped at BUDGET_CAP; at most SCALAR_BUDGET_CAP when the
sides cannot be evaluated on arrays. One variable on a linear box: 2250; one on [1e-3, 1e3]: 6000; for all x > 0:
15,000; the four-variable ridge box of issue 26 (lambda: 6 decades, gamma: 2.6, r and sigma: 2 each): 43,806.

Stages (`search`): the centre, corners and points near each face of the u-box; a global stage, SciPy's
differential evolution (Latin hypercube start, seeded, no polishing) on the scaled slack
(rhs - lhs) / (|lhs| + |rhs| + S), S the median of |lhs| + |rhs| over the first points: relative where the sides
are large, proportional to the slack where they are small; a run that converges (or meets a plateau) early is
restarted with the next seed until the budget is spent; it stops at a clear violation (CLEAR_VIOLATION). Then local
refinement: bounded Nelder-Mead from LOCAL_STARTS + (number of variables) distinct best points, at least
START_SEPARATION of the box apart. The CONFIRM best distinct points are re-evaluated at 50 digits by the caller.

Certification (`certification_plan`): a bounded box as it is (split geometrically along log coordinates); an
unbounded interval through a compactifying change of variables onto a closed t-interval:
x = lo + t/(1 - t) on [lo, oo), x = hi - t/(1 - t) on (-oo, hi] (t in [0, 1]), x = t/(1 - t^2) on (-oo, oo)
(t in [-1, 1]); the slack in t is brought over one denominator (SymPy `cancel`) and certified on the closed t-box,
so the limits at infinity are part of what is certified.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
import sympy as sp

from .._records.domain import finite_interval as finite_interval
from .._records.relation import relation_of  # the one rule for a bound (None, oo: unbounded)

LOG_DECADES = 2             # a positive interval spanning this many decades or more is searched in log coordinates
CLIP = 9                    # unbounded and [0, hi] intervals: searched down to 1e-9 from the finite end, up to 1e9
BUDGET_PER_VARIABLE = 1500  # global-stage float64 evaluations per variable, times (1 + decades / 2)
BUDGET_CAP = 60000
SCALAR_BUDGET_CAP = 2000    # when the sides cannot be evaluated on arrays (one call per point)
POPULATION = 40             # differential evolution's population (at least, and 10 per variable)
LOCAL_STARTS = 2            # Nelder-Mead starts: LOCAL_STARTS + number of variables
LOCAL_EVALS_PER_VARIABLE = 200
START_SEPARATION = 0.05     # local starts at least 5% of the box apart (per coordinate), so they explore other basins
CONFIRM = 8                 # best distinct float64 points re-evaluated at 50 digits
CLEAR_VIOLATION = -1e-6     # a relative slack this negative in float64 stops the global stage early
PENALTY = 4.0               # the objective where a side is not a finite real number (relative slacks lie in [-1, 1])
SEED = 0


@dataclass(frozen=True)
class Coordinate:
    """How one variable is searched: x = to_x(u), u in [ulo, uhi]."""

    sym: Any
    lo: float         # the variable's interval (may be infinite)
    hi: float
    kind: str         # "lin", "log", "asinh"
    shift: float = 0.0
    sign: float = 1.0
    ulo: float = 0.0
    uhi: float = 0.0
    integer: bool = False

    @property
    def name(self) -> str:
        return getattr(self.sym, "name", str(self.sym))

    @property
    def clipped(self) -> bool:
        """True when the searched range is narrower than the interval (an infinite or a [0, hi] interval)."""
        xs = sorted(float(self.to_x(np.array([u]))[0]) for u in (self.ulo, self.uhi))
        return not (math.isclose(xs[0], self.lo, rel_tol=1e-9) and math.isclose(xs[1], self.hi, rel_tol=1e-9))

    @property
    def decades(self) -> float:
        if self.kind == "log":
            return self.uhi - self.ulo
        if self.kind == "asinh":
            return sum(max(0.0, math.log10(abs(math.sinh(u)))) for u in (self.ulo, self.uhi) if u)
        return 0.0

    def to_x(self, u: np.ndarray) -> np.ndarray:
        u = np.asarray(u, dtype=float)
        if self.kind == "log":
            x = self.shift + self.sign * np.power(10.0, u)
        elif self.kind == "asinh":
            x = np.sinh(u)
        else:
            x = u
        x = np.clip(x, self.lo, self.hi)
        return np.round(x) if self.integer else x

    def to_u(self, x: float) -> float:
        if self.kind == "log":
            d = (x - self.shift) * self.sign
            return min(max(math.log10(d), self.ulo), self.uhi) if d > 0 else self.ulo
        if self.kind == "asinh":
            return min(max(math.asinh(x), self.ulo), self.uhi)
        return min(max(x, self.ulo), self.uhi)

    def describe(self) -> str:
        iv = f"[{_g(self.lo)}, {_g(self.hi)}]"
        if self.kind == "lin":
            return f"{self.name} in {iv} (lin{', integer' if self.integer else ''})"
        if self.kind == "asinh":
            clip = f", clipped at |{self.name}| <= {_g(math.sinh(self.uhi))}" if math.isinf(self.hi) else ""
            return f"{self.name} in {iv} (asinh: {self.name} = sinh(u), u in [{self.ulo:.3g}, {self.uhi:.3g}]{clip})"
        base = ("" if self.shift == 0 else f"{_g(self.shift)} {'+' if self.sign > 0 else '-'} ") + \
            ("-" if self.sign < 0 and self.shift == 0 else "") + "10^u"
        clip = " (clipped)" if self.clipped else ""
        return f"{self.name} in {iv} (log: {self.name} = {base}, u in [{self.ulo:.3g}, {self.uhi:.3g}]{clip})"


def _g(v: float) -> str:
    return "oo" if v == math.inf else "-oo" if v == -math.inf else f"{v:g}"


def coordinate(sym: Any, lo: float, hi: float) -> Coordinate:
    """The coordinate a variable with interval [lo, hi] is searched in (see the module's table)."""
    integer = bool(getattr(sym, "is_integer", False))
    if integer:
        lo_, hi_ = max(lo, -1e6), min(hi, 1e6)
        return Coordinate(sym, lo, hi, "lin", ulo=lo_, uhi=hi_, integer=True)
    big = 10.0 ** LOG_DECADES
    if math.isinf(lo) and math.isinf(hi):
        a = math.asinh(10.0 ** CLIP)
        return Coordinate(sym, lo, hi, "asinh", ulo=-a, uhi=a)
    if math.isinf(hi):
        return Coordinate(sym, lo, hi, "log", shift=lo, sign=1.0, ulo=-CLIP, uhi=CLIP)
    if math.isinf(lo):
        return Coordinate(sym, lo, hi, "log", shift=hi, sign=-1.0, ulo=-CLIP, uhi=CLIP)
    if lo > 0 and hi / lo >= big:
        return Coordinate(sym, lo, hi, "log", ulo=math.log10(lo), uhi=math.log10(hi))
    if hi < 0 and lo / hi >= big:
        return Coordinate(sym, lo, hi, "log", sign=-1.0, ulo=math.log10(-hi), uhi=math.log10(-lo))
    if lo == 0 and hi >= big:
        return Coordinate(sym, lo, hi, "log", ulo=-CLIP, uhi=math.log10(hi))
    if hi == 0 and -lo >= big:
        return Coordinate(sym, lo, hi, "log", sign=-1.0, ulo=-CLIP, uhi=math.log10(-lo))
    if lo < 0 < hi and max(-lo, hi) > big:
        return Coordinate(sym, lo, hi, "asinh", ulo=math.asinh(lo), uhi=math.asinh(hi))
    return Coordinate(sym, lo, hi, "lin", ulo=lo, uhi=hi)


def coordinates(syms: Sequence[Any], interval: Callable[[Any], tuple[float, float]]) -> list[Coordinate]:
    return [coordinate(s, *interval(s)) for s in syms]


def budget(coords: Sequence[Coordinate], vectorized: bool = True) -> int:
    """Float64 evaluations of the global stage: grows with the number of variables and of decades."""
    if not coords:
        return 0
    decades = sum(max(1.0, c.decades) for c in coords)
    n = int(min(BUDGET_CAP, BUDGET_PER_VARIABLE * len(coords) * (1 + decades / 2)))
    return n if vectorized else min(n, SCALAR_BUDGET_CAP)


def rational(v: float, digits: int = 12) -> sp.Rational:
    """v as a rational with `digits` significant digits (relative rounding: 1e-15 stays 1e-15)."""
    if v == 0 or not math.isfinite(v):
        return sp.Integer(0)
    k = digits - 1 - math.floor(math.log10(abs(v)))
    if k >= 0:
        return sp.Rational(round(v * 10**k), 10**k)
    return sp.Integer(round(v / 10**(-k))) * 10**(-k)


def point_of(coords: Sequence[Coordinate], u: Sequence[float], digits: int = 12) -> dict:
    """The exact (rational) point at search coordinates u, kept inside each variable's interval."""
    out = {}
    for c, ui in zip(coords, u):
        x = float(c.to_x(np.array([ui]))[0])
        q = sp.Integer(int(round(x))) if c.integer else rational(x, digits)
        if float(q) < c.lo:
            q = sp.Rational(repr(c.lo))
        elif float(q) > c.hi:
            q = sp.Rational(repr(c.hi))
        out[c.sym] = q
    return out


# -- float64 evaluation of the slack --------------------------------------------------------------------------

def float_sides(lhs: sp.Expr, rhs: sp.Expr, syms: Sequence[Any]) -> tuple[Callable | None, str]:
    """An evaluator X (n, d) -> (lhs, rhs) arrays in float64, and how it evaluates ("vectorized" or "scalar");
    (None, reason) when there is none."""
    if any(e.has(sp.Limit, sp.Sum, sp.Product) or e.atoms(sp.core.function.AppliedUndef) for e in (lhs, rhs)):
        return None, "a side has a limit, sum, product or undefined function"
    try:
        fa = sp.lambdify(list(syms), lhs.doit() if lhs.has(sp.Derivative, sp.Subs) else lhs, modules=["numpy", "scipy"])
        fb = sp.lambdify(list(syms), rhs.doit() if rhs.has(sp.Derivative, sp.Subs) else rhs, modules=["numpy", "scipy"])
    except Exception as exc:  # noqa: BLE001 - no float64 route
        return None, f"no float64 form ({type(exc).__name__})"

    def vec(X: np.ndarray):
        cols = [X[:, i] for i in range(X.shape[1])]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            a = np.broadcast_to(np.asarray(fa(*cols)), (X.shape[0],))
            b = np.broadcast_to(np.asarray(fb(*cols)), (X.shape[0],))
        return a, b

    def scalar(X: np.ndarray):
        a, b = np.full(X.shape[0], np.nan, dtype=complex), np.full(X.shape[0], np.nan, dtype=complex)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            for i, row in enumerate(X):
                try:
                    a[i], b[i] = complex(fa(*row)), complex(fb(*row))
                except Exception:  # noqa: BLE001 - not evaluable here: penalized
                    pass
        return a, b

    probe = np.array([[0.37 + 0.11 * i for i in range(len(syms))], [1.3 + 0.07 * i for i in range(len(syms))]])
    try:
        a, b = vec(probe)
        sa, sb = scalar(probe)
        same = np.allclose(np.asarray(a, complex), sa, equal_nan=True, rtol=1e-9) and np.allclose(
            np.asarray(b, complex), sb, equal_nan=True, rtol=1e-9)
        if same:
            return vec, "vectorized"
    except Exception:  # noqa: BLE001 - one point at a time
        pass
    return scalar, "scalar"


def relative_slack(a: np.ndarray, b: np.ndarray, relation: str, scale: float = 0.0) -> np.ndarray:
    """The slack d = rhs - lhs for <=, < (lhs - rhs for >=, >) over |lhs| + |rhs| + scale: relative where the sides
    are large against `scale` (a typical size of the sides over the box), proportional to d where they are small (so
    `f >= 0` keeps its gradient); PENALTY where a side is not a finite real number."""
    a, b = np.asarray(a), np.asarray(b)
    bad = ~(np.isfinite(a) & np.isfinite(b))
    if np.iscomplexobj(a) or np.iscomplexobj(b):
        bad |= (np.abs(np.imag(a)) > 1e-12 * np.abs(a)) | (np.abs(np.imag(b)) > 1e-12 * np.abs(b))
        a, b = np.real(a), np.real(b)
    with np.errstate(all="ignore"):
        d = relation_of(relation).slack(a, b)
        norm = np.abs(a) + np.abs(b) + scale
        r = np.where(norm > 0, d / np.where(norm > 0, norm, 1.0), 0.0)
    r = np.where(bad | ~np.isfinite(r), PENALTY, r)
    return r.astype(float)


# -- the search ------------------------------------------------------------------------------------------------

@dataclass
class Coverage:
    """What the search covered, for the verdict."""

    coords: list
    budget: int = 0
    evaluator: str = ""
    global_evals: int = 0
    probe_evals: int = 0
    local_evals: int = 0
    starts: int = 0
    stopped_early: bool = False
    runs: int = 0
    best: list = field(default_factory=list)  # [(relative slack, u)] best first, distinct
    scale: float = 0.0  # the S of the relative slack d / (|lhs| + |rhs| + S)
    skipped: str = ""

    @property
    def float_evals(self) -> int:
        return self.global_evals + self.probe_evals + self.local_evals

    def box(self) -> str:
        return "; ".join(c.describe() for c in self.coords)

    def stages(self) -> str:
        if self.skipped:
            return f"no float64 search ({self.skipped})"
        return (f"{self.probe_evals} corner and face points, differential evolution {self.global_evals} "
                f"(budget {self.budget}, {self.runs} run{'s' if self.runs != 1 else ''} from seed {SEED}"
                f"{', stopped at a clear violation' if self.stopped_early else ''}), "
                f"Nelder-Mead from {self.starts} start{'s' if self.starts != 1 else ''} {self.local_evals}, "
                f"{self.evaluator} float64")


class _Objective:
    def __init__(self, sides: Callable, coords: Sequence[Coordinate], relation: str, keep: int = 256):
        self.sides, self.coords, self.relation, self.keep = sides, coords, relation, keep
        self.evals = 0
        self.best_u = np.zeros((0, len(coords)))
        self.best_r = np.zeros(0)
        self.clear = False
        self.scale: float | None = None  # the median of |lhs| + |rhs| over the first batch (the probes)

    def batch(self, U: np.ndarray) -> np.ndarray:
        """U (n, d) -> relative slacks (n,), remembering the best points."""
        U = np.atleast_2d(U)
        X = np.column_stack([c.to_x(U[:, i]) for i, c in enumerate(self.coords)])
        a, b = self.sides(X)
        if self.scale is None:
            with np.errstate(all="ignore"):
                size = np.abs(np.real(np.asarray(a, complex))) + np.abs(np.real(np.asarray(b, complex)))
            size = size[np.isfinite(size)]
            self.scale = float(np.median(size)) if size.size and np.median(size) > 0 else 1.0
        r = relative_slack(a, b, self.relation, self.scale)
        self.evals += len(r)
        self.best_u = np.vstack([self.best_u, U])
        self.best_r = np.concatenate([self.best_r, r])
        if len(self.best_r) > 4 * self.keep:
            idx = np.argsort(self.best_r, kind="stable")[: self.keep]
            self.best_u, self.best_r = self.best_u[idx], self.best_r[idx]
        if np.min(r) < CLEAR_VIOLATION:
            self.clear = True
        return r

    def distinct_best(self, k: int, scale: np.ndarray, separation: float = 1e-3) -> list[tuple[float, np.ndarray]]:
        """The k best points, each at least `separation` (a fraction of the box, per coordinate) from the others."""
        order = np.argsort(self.best_r, kind="stable")
        out: list[tuple[float, np.ndarray]] = []
        for i in order:
            u = self.best_u[i]
            if self.best_r[i] >= PENALTY:
                break
            if all(np.max(np.abs(u - v) / scale) > separation for _, v in out):
                out.append((float(self.best_r[i]), u.copy()))
            if len(out) >= k:
                break
        return out


def _probe_points(coords: Sequence[Coordinate]) -> np.ndarray:
    lo = np.array([c.ulo for c in coords])
    hi = np.array([c.uhi for c in coords])
    d = len(coords)
    pts = [0.5 * (lo + hi)]
    if d <= 6:
        for corner in range(2**d):
            pts.append(np.where([(corner >> i) & 1 for i in range(d)], hi, lo))
    for i in range(d):
        for frac in (0.0, 1e-3, 1e-2, 1 - 1e-2, 1 - 1e-3, 1.0):
            p = 0.5 * (lo + hi)
            p[i] = lo[i] + frac * (hi[i] - lo[i])
            pts.append(p)
    return np.array(pts)


def search(lhs: sp.Expr, rhs: sp.Expr, relation: str, coords: Sequence[Coordinate], *, seed: int = SEED,
           starts: Sequence[Sequence[float]] = (), early_stop: bool = True) -> Coverage:
    """Search the slack of `lhs relation rhs` in float64 over the coordinates' box: probes, differential evolution,
    then Nelder-Mead from several starts. Returns the coverage with the best distinct points (in u). With
    early_stop, differential evolution stops at the first clear float64 violation and the local stage is skipped."""
    # lazy: SciPy's optimizers cost ~0.55 s of start-up; `import theorylab` and `theorylab eval` never search
    from scipy.optimize import differential_evolution, minimize

    cov = Coverage(list(coords))
    syms = [c.sym for c in coords]
    if not coords:
        cov.skipped = "no variables"
        return cov
    sides, how = float_sides(lhs, rhs, syms)
    if sides is None:
        cov.skipped = how
        return cov
    vectorized = how == "vectorized"
    cov.evaluator = how
    cov.budget = budget(coords, vectorized)
    obj = _Objective(sides, coords, relation)
    lo = np.array([c.ulo for c in coords])
    hi = np.array([c.uhi for c in coords])
    scale = np.where(hi > lo, hi - lo, 1.0)
    d = len(coords)

    probes = _probe_points(coords)
    if len(starts):
        probes = np.vstack([probes, np.clip(np.asarray(starts, float), lo, hi)])
    obj.batch(probes)
    cov.probe_evals = obj.evals

    free = hi > lo
    if np.any(free):
        bounds = [(a, b) if a < b else (a, a + abs(a) * 1e-12 + 1e-300) for a, b in zip(lo, hi)]  # a fixed one
        popsize = max(5, math.ceil(max(POPULATION, 10 * d) / d))

        def f_vec(Ut: np.ndarray) -> np.ndarray:  # (d, S) -> (S,)
            return obj.batch(np.clip(np.asarray(Ut).T, lo, hi))

        def f_one(u: np.ndarray) -> float:
            return float(obj.batch(np.clip(np.asarray(u)[None, :], lo, hi))[0])

        def stop(xk, convergence=0.0):  # the (x, convergence) form works on every supported SciPy
            return obj.clear

        before = obj.evals
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # tol = atol = 0: a run ends at its iteration limit or when its population's values are all equal (a
            # minimum found, or a plateau of the float64 slack); then it restarts with the next seed on the budget
            # left, so a flat landscape is still sampled through the whole budget
            while cov.budget - (obj.evals - before) >= 2 * popsize * d and not (early_stop and obj.clear):
                left = cov.budget - (obj.evals - before)
                differential_evolution(f_vec if vectorized else f_one, bounds, seed=seed + cov.runs,
                                       popsize=popsize, maxiter=max(1, left // (popsize * d) - 1), tol=0.0,
                                       atol=0.0, polish=False, init="latinhypercube", vectorized=vectorized,
                                       updating="deferred" if vectorized else "immediate",
                                       callback=stop if early_stop else None)
                cov.runs += 1
        cov.global_evals = obj.evals - before
        cov.stopped_early = early_stop and obj.clear
        cov.scale = float(obj.scale or 0.0)
        if cov.stopped_early:  # the caller confirms the violation at 50 digits (and searches again if it is not)
            cov.best = obj.distinct_best(CONFIRM, scale)
            return cov

        before = obj.evals
        picks = obj.distinct_best(LOCAL_STARTS + d, scale, separation=START_SEPARATION)
        cov.starts = len(picks)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _, u0 in picks:
                res = minimize(f_one, u0, method="Nelder-Mead", bounds=bounds,
                               options={"maxfev": LOCAL_EVALS_PER_VARIABLE * d, "xatol": 1e-12, "fatol": 1e-16})
                f_one(np.clip(res.x, lo, hi))
        cov.local_evals = obj.evals - before
    cov.best = obj.distinct_best(CONFIRM, scale)
    cov.scale = float(obj.scale or 0.0)
    return cov


# -- certification through a compactifying change of variables ---------------------------------------------------

@dataclass
class Plan:
    expr: sp.Expr
    box: dict
    log: frozenset
    text: str
    mapped: dict  # t symbol -> (original symbol, expression of it in t)


def certification_plan(slack: sp.Expr, coords: Sequence[Coordinate],
                       simplify: Callable[[sp.Expr], sp.Expr] | None = None) -> Plan:
    """The slack and the closed box to certify it on: bounded intervals as they are, unbounded ones mapped onto
    t in [0, 1] (x = lo + t/(1 - t), x = hi - t/(1 - t)) or [-1, 1] (x = t/(1 - t^2))."""
    box, log, texts, subs, mapped = {}, set(), [], {}, {}
    for c in coords:
        s = c.sym
        if math.isfinite(c.lo) and math.isfinite(c.hi):
            box[s] = (c.lo, c.hi)
            if c.kind == "log" and c.lo * c.hi > 0:
                log.add(s)
            texts.append(f"{c.name} in [{_g(c.lo)}, {_g(c.hi)}]")
            continue
        t = sp.Symbol(f"t_{c.name}", real=True)
        if math.isinf(c.lo) and math.isinf(c.hi):
            phi, box[t], how = t / (1 - t**2), (-1.0, 1.0), f"{c.name} = t/(1 - t^2), t in [-1, 1]"
        elif math.isinf(c.hi):
            end = sp.nsimplify(c.lo)
            phi, box[t] = end + t / (1 - t), (0.0, 1.0)
            how = f"{c.name} = {'' if end == 0 else sp.sstr(end) + ' + '}t/(1 - t), t in [0, 1]"
        else:
            end = sp.nsimplify(c.hi)
            phi, box[t] = end - t / (1 - t), (0.0, 1.0)
            how = f"{c.name} = {'' if end == 0 else sp.sstr(end) + ' '}- t/(1 - t), t in [0, 1]"
        subs[s] = phi
        mapped[t] = (s, phi)
        texts.append(f"{c.name} in [{_g(c.lo)}, {_g(c.hi)}] through {how}")
    expr = slack
    if subs:
        expr = slack.subs(subs)
        if simplify is not None:
            try:
                expr = simplify(expr)
            except Exception:  # noqa: BLE001 - certify the substituted form as it is
                expr = slack.subs(subs)
    return Plan(expr, box, frozenset(log), ", ".join(texts), mapped)
