"""Evidence: a prediction compared with independent evidence, as a record with its tolerance.

Every record keeps both the absolute and the relative (Frobenius) error, pass or fail, and says where
its tolerance came from (an error bound, k standard errors plus a stated bias, a convergence rule).

Every record also states its *resolution*: the smallest relative deviation of its prediction it is sure to detect
(from its tolerance, the error it shows and the size of the prediction; `resolution()`). A record needs a
resolution (`needs`: given on the record, else by its check's `resolution=`, else by `RESOLUTION` in the module
that defines the check's `run` (a paper's checks module), else `RESOLUTION_NEEDED[kind]`); one coarser than it
needs is *weak* evidence: its verdict is "weak", never a full pass, however well it agrees.
"""
from __future__ import annotations

import functools
import html
import math
import sys
from dataclasses import asdict, dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping

import numpy as np

from .._shared import fmt
from .status import Verdict
from .._shared import rel_close as rel_close  # the one closeness rule (re-exported)

__all__ = ["Evidence", "Finding", "Check", "Context", "PROFILES", "RESOLUTION_NEEDED", "EvidenceKind", "EVIDENCE_KINDS",
           "register_evidence_kind", "evidence_kind", "compare", "compare_mc", "compare_scaling", "rel_close",
           "resolution", "to_jsonable"]


RECORD_RELATIONS = ("==", "<=", ">=")



@dataclass(frozen=True, kw_only=True)
class EvidenceKind:
    """A kind of evidence: its name and the resolution a record of it needs by default (the largest relative
    deviation of its prediction it may fail to detect), with why."""

    name: str
    resolution: float
    doc: str

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip() or self.name != self.name.strip():
            raise ValueError(f"an evidence kind's name must be a non-empty string without outer spaces; got "
                             f"name={self.name!r}")
        r = self.resolution
        if isinstance(r, bool) or not isinstance(r, (int, float)) or not (0 < r < math.inf):
            raise ValueError(f"evidence kind {self.name!r}: resolution must be a number > 0; got resolution={r!r}")
        if not isinstance(self.doc, str) or not self.doc.strip():
            raise ValueError(f"evidence kind {self.name!r}: doc must say why its resolution is what it is")


# The registry of evidence kinds. A record, finding or check of a kind not in it is refused with one line (a typo
# such as "montecarlo" once got a default resolution silently); a paper adds its own with register_evidence_kind.
EVIDENCE_KINDS: dict[str, EvidenceKind] = {}
_RESOLUTIONS: dict[str, float] = {}
# kind -> default resolution, read-only (the registry's view; kept under its former name for the outputs)
RESOLUTION_NEEDED: Mapping[str, float] = MappingProxyType(_RESOLUTIONS)


def register_evidence_kind(name: str, *, resolution: float, doc: str) -> EvidenceKind:
    """Register an evidence kind (`name`, the default resolution its records need, and why); returns it.

    Registering a name again with the same resolution and doc is a no-op (a module imported twice); with other
    values it is an error, so two papers cannot silently give one kind two meanings."""
    kind = EvidenceKind(name=name, resolution=float(resolution), doc=doc)
    old = EVIDENCE_KINDS.get(kind.name)
    if old is not None and old != kind:
        raise ValueError(f"evidence kind {name!r} is registered already with resolution {old.resolution:g} "
                         f"({old.doc}); got resolution={kind.resolution:g}")
    EVIDENCE_KINDS[kind.name] = kind
    _RESOLUTIONS[kind.name] = kind.resolution
    return kind


def evidence_kind(name: Any, where: str = "kind") -> EvidenceKind:
    """The registered kind `name`, or a one-line ValueError naming `where`, the known kinds and what was given."""
    kind = EVIDENCE_KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise ValueError(f"{where} must be a registered evidence kind ({', '.join(EVIDENCE_KINDS)}; a paper adds "
                         f"its own with theorylab.authoring.register_evidence_kind); got kind={name!r}")
    return kind


# The built-in kinds. A numeric check compares with an independent computation and must see a 2% error; a Monte
# Carlo check must see a 25% one (4 standard errors of a few thousand draws see a few percent); a trained network,
# 50% (a factor 2 is a deviation of 100%: a record that swallows it is weak at any setting); a property check, 50%.
register_evidence_kind("numeric", resolution=0.02,
                       doc="an independent deterministic computation: it must see a 2% error")
register_evidence_kind("monte-carlo", resolution=0.25,
                       doc="4 standard errors of a few thousand draws see a few percent: it must see 25%")
register_evidence_kind("training", resolution=0.5,
                       doc="trained networks: a factor 2 (100%) swallowed is weak at any setting; it must see 50%")
register_evidence_kind("property", resolution=0.5, doc="a qualitative property of the prediction: it must see 50%")


@dataclass(frozen=True, kw_only=True)
class Evidence:
    """A prediction against an observation, with the tolerance and where it comes from; the verdict is computed.

    relation "==": passes when |predicted - observed| <= tolerance (elementwise=True: each element within
    `tolerance` relative to |predicted_i|); "<=": observed <= predicted + tolerance (an upper bound holds);
    ">=": observed >= predicted - tolerance. There is no way to pass a verdict in: a record without numbers to
    compare (a crashed check) fails.

    `abs_error` is max |predicted - observed| over the elements; `rel_error` is the Frobenius ratio
    ||predicted - observed|| / ||predicted|| (not abs_error / max|predicted|: over a curve it weighs every element;
    elementwise=True: the largest |p_i - o_i| / |p_i|). The verdict uses neither: it holds the error to `tolerance`.

    `resolution` is the smallest relative deviation of the prediction (all of it scaled by 1 + delta) that the
    record is sure to detect (see `resolution()`; None where the prediction is 0, which no relative deviation
    moves). A passing record whose resolution is coarser than `resolution_needed` is `weak`: its `verdict` is
    "weak", not "pass".
    """

    entry: str
    check: str
    kind: str               # a registered evidence kind: "numeric", "monte-carlo", "training", "property", ...
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
    needs: float | None = None  # the resolution this record needs; None: its check's, its paper's or its kind's
    abs_error: float = field(init=False)
    rel_error: float = field(init=False)
    passed: bool = field(init=False)       # within the tolerance (the verdict of the comparison alone)
    resolution: float | None = field(init=False)   # the smallest relative deviation of the prediction it detects
    resolution_needed: float = field(init=False)   # `needs`, or the default it falls back to
    weak: bool = field(init=False)         # passed, but coarser than it needs: not a full pass

    def __post_init__(self):
        evidence_kind(self.kind, f"evidence {self.entry} / {self.check}: kind")
        if self.relation not in RECORD_RELATIONS:
            raise ValueError(f"relation must be one of {RECORD_RELATIONS}; got {self.relation!r}")
        tol = float(self.tolerance)
        if not (tol >= 0) or math.isnan(tol):
            raise ValueError(f"tolerance must be a number >= 0; got {self.tolerance!r}")
        if self.needs is not None and not (float(self.needs) > 0):
            raise ValueError(f"needs (the resolution the record needs) must be a number > 0; got {self.needs!r}")
        if self.predicted is None or self.observed is None:
            abs_err, rel_err, passed, res = math.nan, math.nan, False, None
        else:
            abs_err, rel_err, passed = _verdict(self.predicted, self.observed, tol, self.relation, self.elementwise)
            res = resolution(self.predicted, self.observed, tol, self.relation, self.elementwise)
        object.__setattr__(self, "predicted", to_jsonable(self.predicted))
        object.__setattr__(self, "observed", to_jsonable(self.observed))
        object.__setattr__(self, "extra", to_jsonable(self.extra))
        object.__setattr__(self, "abs_error", abs_err)
        object.__setattr__(self, "rel_error", rel_err)
        object.__setattr__(self, "passed", passed)
        object.__setattr__(self, "resolution", res)
        self._set_needs(self.needs)

    def _set_needs(self, needs: float | None) -> None:
        """The resolution this record needs (None: its kind's default), and whether it is weak against it."""
        object.__setattr__(self, "needs", None if needs is None else float(needs))
        need = float(needs) if needs is not None else RESOLUTION_NEEDED[self.kind]
        object.__setattr__(self, "resolution_needed", need)
        object.__setattr__(self, "weak", bool(self.passed and self.resolution is not None and self.resolution > need))

    @property
    def verdict(self) -> Verdict:
        """"pass" (within tolerance, at the resolution it needs), "weak" (within tolerance, coarser than it needs:
        never a full pass) or "fail"."""
        return Verdict.FAIL if not self.passed else (Verdict.WEAK if self.weak else Verdict.PASS)

    def to_json(self) -> dict:
        return {"record": "evidence", **to_jsonable(asdict(self)), "verdict": self.verdict}

    def __repr__(self) -> str:
        state = {"pass": "passed", "weak": "WEAK (passed, coarser than needed)", "fail": "FAILED"}[self.verdict]
        return (f"<Evidence {self.entry} / {self.check}: {state}, abs error "
                f"{self.abs_error:.3g} vs tolerance {float(self.tolerance):.3g} ({self.tolerance_source}); "
                f"resolution {_fmt_res(self.resolution)} (needs {self.resolution_needed:.3g})>")

    def _repr_html_(self) -> str:
        """In Jupyter: the verdict, prediction, observation, errors and where the tolerance comes from."""
        verdict = {"pass": "passed", "weak": "<b>WEAK</b> (passed, coarser than needed: not a full pass)",
                   "fail": "<b>FAILED</b>"}[self.verdict]
        se = f" &plusmn; {self.stderr:.3g} (SE, {self.samples} samples)" if self.stderr is not None else ""
        return (f"<div><b>{_esc(self.entry)}</b> &mdash; {_esc(self.check)} [{_esc(self.kind)}]: {verdict}<br>"
                f"predicted {_esc(fmt(self.predicted))}, observed {_esc(fmt(self.observed))}{se}<br>"
                f"abs error {self.abs_error:.3g}, rel error ||p-o||/||p|| {self.rel_error:.3g}; tolerance "
                f"{float(self.tolerance):.3g} ({_esc(self.tolerance_source)}); resolution "
                f"{_esc(_fmt_res(self.resolution))} (needs {self.resolution_needed:.3g})"
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
        evidence_kind(self.kind, f"finding {self.entry} / {self.check}: kind")
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
    return html.escape(str(text))




def _fmt_res(res: float | None) -> str:
    return "n/a (the prediction is 0)" if res is None else f"{res:.3g}"


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
        return abs_err, float(np.max(rel)) if rel.size else 0.0, bool(np.all(rel_close(o, p, tol)))
    return abs_err, rel_err, bool(abs_err <= tol)


def resolution(predicted: Any, observed: Any, tolerance: float, relation: str = "==",
               elementwise: bool = False) -> float | None:
    """The smallest relative deviation delta of the prediction (all of it scaled by 1 + delta, either sign) that a
    record with these numbers is sure to detect; None where the prediction is 0 (no relative deviation moves it).

    Element i detects it when the deviation exceeds what the tolerance and the error already shown leave room for:
    relation "==": |delta| > (tol + |p_i - o_i|) / |p_i| (elementwise, relative tol: (tol + r_i) / (1 - tol),
    r_i = |p_i - o_i| / |p_i|; infinite for tol >= 1); "<=": (tol + p_i - o_i) / |p_i| (the slack of the bound:
    only a deviation that lowers the bound below the observation is seen); ">=": (tol + o_i - p_i) / |p_i|. The
    record detects it when any element does: the minimum over the elements with p_i != 0. Examples: 4 standard
    errors of 0.01 on a prediction of 1 resolve 0.04; an upper bound of 1 over an observation of 0.5 resolves 0.5.
    """
    p = np.asarray(predicted, dtype=float)
    o = np.asarray(observed, dtype=float)
    try:
        p, o = np.broadcast_arrays(p, o)
    except ValueError:
        return math.inf
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(o))):
        return math.inf
    nz = p != 0
    if not nz.any():
        return None
    a, b, tol = np.abs(p[nz]), o[nz], float(tolerance)
    pn = p[nz]
    if relation == "<=":
        thr = (tol + pn - b) / a
    elif relation == ">=":
        thr = (tol + b - pn) / a
    elif elementwise:
        thr = (tol + np.abs(pn - b) / a) / (1 - tol) if tol < 1 else np.full(a.shape, math.inf)
    else:
        thr = (tol + np.abs(pn - b)) / a
    return max(float(np.min(thr)), 0.0)


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


@dataclass(frozen=True, kw_only=True)
class Check:
    """A verify procedure for one or more entries.

    A plain check: `run(ctx)` returns Evidence and Finding records. A check made of independent pieces (the grid
    points, seeds or sizes of a big experiment) declares them so verify can run them as separate tasks, in
    parallel and resumably: `parts(ctx)` lists the pieces (JSON-ready labels, e.g. `[{"alpha": 0.1}, ...]`),
    `run(ctx, part)` computes one piece and returns JSON-ready data (numbers, lists, dicts; NumPy arrays are
    converted), and `combine(ctx, results)` turns the pieces' results, in the order of `parts(ctx)`, into the
    records (cheap: it runs in the main process). `evaluate(ctx)` runs either kind in this process.
    `cost(ctx)` (or `cost(ctx, part)`), optional, is the work in any consistent unit (e.g. steps x width^2 x
    seeds): `verify --dry-run` estimates a part never run here from a measured part of the same check and stage
    (seconds per unit; `verify --sample K` measures K parts of each). `resolution`, optional, is the resolution its records need (a number, or {kind: number}); records that
    state their own `needs` keep it, and a paper states its own for all its checks with a module-level
    `RESOLUTION = {kind: number}` in the module that defines the checks' run functions (defaults:
    RESOLUTION_NEEDED).

    Example::

        Check(name="risk vs n", entries=("mypaper.risk",), kind="monte-carlo",
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
    resolution: float | Mapping[str, float] | None = None  # the resolution its records need (a number, or by kind)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"Check name must be a non-empty string; got name={self.name!r}")
        if isinstance(self.entries, str):
            object.__setattr__(self, "entries", (self.entries,))
        if not isinstance(self.entries, (tuple, list)) or not all(isinstance(e, str) for e in self.entries):
            raise ValueError(f"check {self.name!r}: entries must be a tuple of entry IDs (strings); got "
                             f"entries={self.entries!r}"[:200])
        object.__setattr__(self, "entries", tuple(self.entries))
        evidence_kind(self.kind, f"check {self.name!r}: kind")
        for what in ("run", "parts", "combine", "cost"):
            fn = getattr(self, what)
            if fn is not None and not callable(fn):
                raise ValueError(f"check {self.name!r}: {what} must be a function; got {what}={fn!r}"[:200])
        _check_resolution(f"check {self.name!r}: resolution", self.resolution)
        # the records it makes carry the resolution they need (theirs, else the check's, else the paper's RESOLUTION,
        # else the kind's default): applied where every caller gets them, whether it calls run, combine or evaluate
        if self.parts is None:
            object.__setattr__(self, "run", _needing(self.run, self, self.run))
        elif self.combine is not None:
            object.__setattr__(self, "combine", _needing(self.combine, self, self.run))
        if (self.parts is None) != (self.combine is None):
            raise ValueError(f"check {self.name!r}: parts and combine go together (parts(ctx) lists the pieces, "
                             f"combine(ctx, results) makes the records); got only "
                             f"{'parts' if self.combine is None else 'combine'}")

    def evaluate(self, ctx: Context) -> list[Evidence]:
        """All records of this check, computed in this process (its parts one after another)."""
        if self.parts is None:
            return self.run(ctx)
        return self.combine(ctx, [to_jsonable(self.run(ctx, part)) for part in self.parts(ctx)])


def _check_resolution(where: str, value: Any) -> None:
    if value is None:
        return
    items = value.items() if isinstance(value, Mapping) else [("", value)]
    for kind, v in items:
        if isinstance(value, Mapping):
            evidence_kind(kind, f"{where}'s key")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (v > 0) or math.isinf(v):
            raise ValueError(f"{where} must be a number > 0 or a dict {{kind: number > 0}}; got "
                             f"{where.rsplit(' ', 1)[-1]}={value!r}")


def needed_resolution(kind: str, check: "Check | None" = None, module: Any = None) -> float:
    """The resolution a record of this kind needs: the check's `resolution`, else the module's RESOLUTION (the
    paper's), else RESOLUTION_NEEDED[kind]."""
    for source in ((check.resolution if check is not None else None), getattr(module, "RESOLUTION", None)):
        if isinstance(source, Mapping):
            if kind in source:
                return float(source[kind])
        elif source is not None:
            return float(source)
    return evidence_kind(kind).resolution


def _needing(fn: Callable, check: "Check", defined_by: Callable) -> Callable:
    """fn, whose Evidence records (without their own `needs`) get the resolution the check or its paper needs."""
    if getattr(fn, "_theorylab_needing", False):
        return fn

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        if isinstance(out, (list, tuple)):
            module = sys.modules.get(getattr(defined_by, "__module__", None) or "")
            for r in out:
                if isinstance(r, Evidence) and r.needs is None:
                    need = needed_resolution(r.kind, check, module)
                    if need != r.resolution_needed:
                        r._set_needs(need)
        return out

    run._theorylab_needing = True
    return run


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
               extra: dict | None = None, needs: float | None = None) -> Evidence:
    """Monte Carlo comparison: passes when |pred - mean| <= k * stderr + bias (bias stated).

    `extra` carries what a figure needs to place the point (e.g. {"figure": "002-fig1c", "gamma": 0.5}); `needs`,
    the resolution the record needs (default: the check's, else RESOLUTION_NEEDED["monte-carlo"])."""
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
                    samples=int(samples), extra=extra or {}, needs=needs)


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
    from scipy.optimize import curve_fit  # lazy: scipy.optimize costs ~1 s of start-up; only scaling fits need it

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
