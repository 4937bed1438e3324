"""Evidence: a prediction compared with independent evidence, as a record with its tolerance.

Every record keeps both the absolute and the relative (Frobenius) error, pass or fail, and says where
its tolerance came from (an error bound, k standard errors plus a stated bias, a convergence rule).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np

__all__ = ["Evidence", "Finding", "Check", "Context", "PROFILES", "compare", "compare_mc", "compare_scaling", "to_jsonable"]


RECORD_RELATIONS = ("==", "<=", ">=")


@dataclass(frozen=True, kw_only=True)
class Evidence:
    """A prediction against an observation, with the tolerance and where it comes from; the verdict is computed.

    relation "==": passes when |predicted - observed| <= tolerance (elementwise=True: each element within
    `tolerance` relative to |predicted_i|); "<=": observed <= predicted + tolerance (an upper bound holds);
    ">=": observed >= predicted - tolerance. There is no way to pass a verdict in: a record without numbers to
    compare (a crashed check) fails.
    """

    entry: str
    check: str
    kind: str               # "numeric" | "monte-carlo" | "training" | "property"
    predicted: Any
    observed: Any
    tolerance: float        # the bound the error is held to
    tolerance_source: str   # where the tolerance comes from, in words (an error bound, k SE + stated bias)
    relation: str = "=="
    elementwise: bool = False
    detail: str = ""
    stderr: float | None = None
    samples: int | None = None
    extra: dict = field(default_factory=dict)
    abs_error: float = field(init=False)
    rel_error: float = field(init=False)
    passed: bool = field(init=False)

    def __post_init__(self):
        if self.relation not in RECORD_RELATIONS:
            raise ValueError(f"relation must be one of {RECORD_RELATIONS}; got {self.relation!r}")
        tol = float(self.tolerance)
        if not (tol >= 0) or math.isnan(tol):
            raise ValueError(f"tolerance must be a number >= 0; got {self.tolerance!r}")
        if self.predicted is None or self.observed is None:
            abs_err, rel_err, passed = math.nan, math.nan, False
        else:
            abs_err, rel_err, passed = _verdict(self.predicted, self.observed, tol, self.relation, self.elementwise)
        object.__setattr__(self, "predicted", to_jsonable(self.predicted))
        object.__setattr__(self, "observed", to_jsonable(self.observed))
        object.__setattr__(self, "extra", to_jsonable(self.extra))
        object.__setattr__(self, "abs_error", abs_err)
        object.__setattr__(self, "rel_error", rel_err)
        object.__setattr__(self, "passed", passed)

    def to_json(self) -> dict:
        return {"record": "evidence", **to_jsonable(asdict(self))}

    def __repr__(self) -> str:
        return (f"<Evidence {self.entry} / {self.check}: {'passed' if self.passed else 'FAILED'}, abs error "
                f"{self.abs_error:.3g} vs tolerance {float(self.tolerance):.3g} ({self.tolerance_source})>")

    def _repr_html_(self) -> str:
        """In Jupyter: the verdict, prediction, observation, errors and where the tolerance comes from."""
        verdict = "passed" if self.passed else "<b>FAILED</b>"
        se = f" &plusmn; {self.stderr:.3g} (SE, {self.samples} samples)" if self.stderr is not None else ""
        return (f"<div><b>{_esc(self.entry)}</b> &mdash; {_esc(self.check)} [{_esc(self.kind)}]: {verdict}<br>"
                f"predicted {_esc(_short(self.predicted))}, observed {_esc(_short(self.observed))}{se}<br>"
                f"abs error {self.abs_error:.3g}, rel error {self.rel_error:.3g}; tolerance "
                f"{float(self.tolerance):.3g} ({_esc(self.tolerance_source)})"
                + (f"<br><small>{_esc(self.detail)}</small>" if self.detail else "") + "</div>")


@dataclass(frozen=True, kw_only=True)
class Finding:
    """An observation reported, not asserted: it never counts as a pass (nor as a failure).

    Use it for what a paper claims only qualitatively, or for what an honest check showed at a scale that
    cannot decide; `values` holds the numbers behind `text`.
    """

    entry: str
    check: str
    kind: str
    text: str
    values: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)  # what a figure needs to draw it (e.g. {"figure": ...})
    passed: bool = field(init=False, default=False)

    def __post_init__(self):
        object.__setattr__(self, "values", to_jsonable(self.values))
        object.__setattr__(self, "extra", to_jsonable(self.extra))

    def to_json(self) -> dict:
        return {"record": "finding", **to_jsonable(asdict(self))}

    def __repr__(self) -> str:
        return f"<Finding {self.entry} / {self.check}: {self.text}>"

    def _repr_html_(self) -> str:
        """In Jupyter: the observation, marked as a finding (never a pass)."""
        return (f"<div><b>{_esc(self.entry)}</b> &mdash; {_esc(self.check)} [{_esc(self.kind)}]: finding "
                f"(reported, not a pass)<br>{_esc(self.text)}</div>")


def _esc(text: Any) -> str:
    import html

    return html.escape(str(text))


def _short(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.6g}"
    if isinstance(x, list):
        return "[" + ", ".join(_short(v) for v in x[:4]) + (", ...]" if len(x) > 4 else "]")
    return str(x)


def _verdict(predicted: Any, observed: Any, tol: float, relation: str, elementwise: bool) -> tuple[float, float, bool]:
    p = np.asarray(predicted, dtype=float)
    o = np.asarray(observed, dtype=float)
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(o))):
        abs_err, rel_err, _ = _errors(np.nan_to_num(p), np.nan_to_num(o))
        return abs_err, rel_err, False
    abs_err, rel_err, _ = _errors(p, o)
    if relation == "<=":
        return abs_err, rel_err, bool(np.all(o <= p + tol))
    if relation == ">=":
        return abs_err, rel_err, bool(np.all(o >= p - tol))
    if elementwise:
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(p != 0, np.abs(p - o) / np.abs(p), np.where(o == p, 0.0, np.inf))
        return abs_err, float(np.max(rel)) if rel.size else 0.0, bool(np.all(np.abs(p - o) <= tol * np.abs(p)))
    return abs_err, rel_err, bool(abs_err <= tol)


PROFILES = ("quick", "paper")


@dataclass(frozen=True)
class Context:
    """What a check may depend on: the profile ("quick" or "paper"), the torch device, the seed."""

    profile: str = "quick"
    device: str = "cpu"
    seed: int = 0
    progress: bool = False

    def __post_init__(self):
        if self.profile not in PROFILES:
            raise ValueError(f"profile must be one of {', '.join(PROFILES)}; got profile={self.profile!r}")

    def pick(self, **by_profile: Any) -> Any:
        """The value for this profile, the one way a check sizes itself: `ctx.pick(quick=400, paper=20000)`,
        or a dict of sizes, `ctx.pick(quick=dict(n=40, seeds=4), paper=dict(n=400, seeds=20))`."""
        bad = sorted(set(by_profile) - set(PROFILES))
        if bad:
            raise ValueError(f"pick takes the profiles {', '.join(PROFILES)}; got {', '.join(bad)}")
        if self.profile not in by_profile:
            raise ValueError(f"pick: no value for profile {self.profile!r} (given: {', '.join(by_profile)})")
        return by_profile[self.profile]


@dataclass(frozen=True)
class Check:
    """A verify procedure for one or more entries.

    A plain check: `run(ctx)` returns Evidence and Finding records. A check made of independent pieces (the grid
    points, seeds or sizes of a big experiment) declares them so verify can run them as separate tasks, in
    parallel and resumably: `parts(ctx)` lists the pieces (JSON-ready labels, e.g. `[{"alpha": 0.1}, ...]`),
    `run(ctx, part)` computes one piece and returns JSON-ready data (numbers, lists, dicts; NumPy arrays are
    converted), and `combine(ctx, results)` turns the pieces' results, in the order of `parts(ctx)`, into the
    records (cheap: it runs in the main process). `evaluate(ctx)` runs either kind in this process.
    `cost(ctx)` (or `cost(ctx, part)`), optional, is the work in any consistent unit (e.g. steps x width^2 x
    seeds): `verify --dry-run` estimates a profile never run here from the quick profile's measured seconds per
    unit.

    Example::

        Check(name="risk vs n", entries=("mypaper.risk",), kind="montecarlo",
              parts=lambda ctx: [{"n": n} for n in (100, 200, 400)],
              run=lambda ctx, part: simulate(part["n"], seed=ctx.seed),
              combine=lambda ctx, results: [compare_scaling(...)])
    """

    name: str
    entries: tuple[str, ...]
    kind: str
    run: Callable[..., Any] = field(repr=False)
    doc: str = ""
    parts: Callable[[Context], list[Any]] | None = field(default=None, repr=False)
    combine: Callable[[Context, list[Any]], list[Evidence]] | None = field(default=None, repr=False)
    cost: Callable[..., float] | None = field(default=None, repr=False)

    def __post_init__(self):
        if (self.parts is None) != (self.combine is None):
            raise ValueError(f"check {self.name!r}: parts and combine go together (parts(ctx) lists the pieces, "
                             f"combine(ctx, results) makes the records); got only "
                             f"{'parts' if self.combine is None else 'combine'}")

    def evaluate(self, ctx: Context) -> list[Evidence]:
        """All records of this check, computed in this process (its parts one after another)."""
        if self.parts is None:
            return self.run(ctx)
        return self.combine(ctx, [to_jsonable(self.run(ctx, part)) for part in self.parts(ctx)])


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
            rtol: float = 0.0, source: str, detail: str = "", elementwise: bool = False, relation: str = "==",
            **extra: Any) -> Evidence:
    """Deterministic comparison: passes when max|pred - obs| <= atol + rtol * max|pred|.

    With elementwise=True each element is held to atol + rtol * |pred_i| (values spanning many decades);
    the record's tolerance is then the relative one and its rel_error the largest elementwise one.
    """
    if elementwise:
        if atol:
            raise ValueError("elementwise comparison takes rtol only")
        return Evidence(entry=entry, check=check, kind=kind, predicted=predicted, observed=observed, tolerance=rtol,
                        tolerance_source=source + " (elementwise relative)", elementwise=True, detail=detail, **extra)
    _, _, scale = _errors(predicted, observed)
    return Evidence(entry=entry, check=check, kind=kind, predicted=predicted, observed=observed,
                    tolerance=atol + rtol * scale, tolerance_source=source, detail=detail, relation=relation,
                    **extra)


def compare_mc(entry: str, check: str, predicted: float, mean: float, stderr: float, samples: int, *,
               k: float = 4.0, bias: float = 0.0, bias_source: str = "", detail: str = "",
               extra: dict | None = None) -> Evidence:
    """Monte Carlo comparison: passes when |pred - mean| <= k * stderr + bias (bias stated).

    `extra` carries what a figure needs to place the point (e.g. {"figure": "002-fig1c", "gamma": 0.5})."""
    if not (stderr >= 0):
        raise ValueError(f"stderr must be >= 0; got {stderr!r}")
    if bias and not bias_source:
        raise ValueError("a finite-size bias needs bias_source (the independent computation it comes from)")
    tol = k * stderr + abs(bias)
    source = f"{k:g} standard errors ({samples} samples)"
    if bias:
        source += f" + finite-size bias {abs(bias):.3g} ({bias_source})"
    return Evidence(entry=entry, check=check, kind="monte-carlo", predicted=float(predicted), observed=float(mean),
                    tolerance=tol, tolerance_source=source, detail=detail, stderr=float(stderr),
                    samples=int(samples), extra=extra or {})


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


def compare_scaling(entry: str, check: str, sizes: Any, means: Any, stderrs: Any, *, theory: float, order: float,
                    k: float = 3.0, size_name: str = "n", kind: str = "monte-carlo", detail: str = "",
                    extra: dict | None = None) -> list[Evidence | Finding]:
    """A limit claim checked by a finite-size scaling fit: mean(N) = L + C N^(-p) over >= 3 sizes.

    Two records: the order p fitted freely (weighted least squares with the standard errors, the covariance taken
    as absolute) must match the predicted `order` within k of its standard error; and the value extrapolated with
    the predicted order, L, must agree with `theory` within k of its standard error. Neither tolerance contains the
    quantity under test. Where the finite-size term is not resolved (|C| < k SE(C)), the order cannot be measured:
    that is reported as a finding and only the extrapolation is asserted. `extra["scaling"]` holds the data for the
    report's scaling figure.
    """
    from scipy.optimize import curve_fit

    N = np.asarray(sizes, dtype=float)
    y = np.asarray(means, dtype=float)
    s = np.asarray(stderrs, dtype=float)
    if N.ndim != 1 or N.size < 3 or y.shape != N.shape or s.shape != N.shape:
        raise ValueError(f"a scaling fit needs >= 3 sizes with a mean and a standard error each; got {N.size}")
    if np.any(s <= 0) or np.any(N <= 0):
        raise ValueError("sizes and standard errors must be > 0")
    # fixed (predicted) order: linear weighted least squares for L and C
    A = np.stack([np.ones_like(N), N ** (-order)], axis=1) / s[:, None]
    cov_fixed = np.linalg.inv(A.T @ A)
    L, C = cov_fixed @ A.T @ (y / s)
    se_L, se_C = np.sqrt(np.diag(cov_fixed))
    chi2 = float(np.sum(((y - L - C * N ** (-order)) / s) ** 2))
    data = {"sizes": N, "means": y, "stderrs": s, "theory": theory, "order": order, "L": L, "C": C, "se_L": se_L,
            "size_name": size_name, "chi2": chi2, "dof": int(N.size - 2)}
    ex = {**(extra or {}), "scaling": data}
    out: list[Evidence | Finding] = [Evidence(
        entry=entry, check=f"{check}: the value extrapolated to {size_name} -> oo (fit L + C {size_name}^-{order:g})",
        kind=kind, predicted=theory, observed=float(L), tolerance=float(k * se_L),
        tolerance_source=f"{k:g} standard errors of the extrapolated value (weighted least squares over {N.size} sizes "
                         f"{', '.join(f'{v:g}' for v in N)}; chi2 = {chi2:.2f} on {N.size - 2} dof)",
        detail=detail, stderr=float(se_L), samples=int(N.size), extra=ex)]
    if abs(C) < k * se_C:
        out.append(Finding(entry=entry, check=f"{check}: the order of the finite-size term", kind=kind,
                           text=f"the finite-size term is not resolved at these sizes (C = {C:.3g} +- {se_C:.2g}); "
                                f"its order cannot be measured here", values=data))
        return out
    p0 = (L, C, order)
    try:
        popt, pcov = curve_fit(lambda n, a, c, p: a + c * n ** (-p), N, y, p0=p0, sigma=s, absolute_sigma=True,
                               maxfev=20000)
        p_hat, se_p = float(popt[2]), float(np.sqrt(pcov[2, 2]))
    except (RuntimeError, ValueError) as exc:
        out.append(Evidence(entry=entry, check=f"{check}: the order of the finite-size term", kind=kind,
                            predicted=None, observed=None, tolerance=0.0, tolerance_source="the fit failed",
                            detail=str(exc)))
        return out
    data.update(p=p_hat, se_p=se_p)
    out.append(Evidence(
        entry=entry, check=f"{check}: the order of the finite-size term ({size_name}^-p, predicted p = {order:g})",
        kind=kind, predicted=order, observed=p_hat, tolerance=float(k * se_p) if math.isfinite(se_p) else 0.0,
        tolerance_source=f"{k:g} standard errors of the fitted order (free fit L + C {size_name}^-p, weighted by the "
                         f"standard errors of the means)", detail=detail, stderr=se_p, samples=int(N.size), extra=ex))
    return out
