"""Evidence for learning dynamics: an ODE integrated against its closed form and event times, and a trained
network's trajectory against a predicted curve, each with a tolerance derived from the run and stated.

Both estimate their own numerical error by running twice (scipy's solve_ivp at (rtol, atol) and at (rtol, atol) /
refine; gradient descent at lr and at lr / refine), and compare the finer run with the prediction within the
difference of the two plus one stated floor, so a closed form off by more than the integration error fails.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .._records.evidence import Evidence, compare

__all__ = ["Flow", "integrate", "ode_check", "trajectory_check", "Trajectory", "gradient_descent"]


def _positive(name: str, value: Any, low: float = 0.0, high: float = math.inf, why: str = "") -> float:
    """value as a float in (low, high], else a one-line ValueError naming the parameter and its domain."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    if not (low < v <= high):
        raise ValueError(f"{name} must be a number in ({low:g}, {high:g}]{why}; got {name}={value!r}")
    return v


@dataclass(frozen=True)
class Flow:
    """An integrated ODE: `y[k]` is the state at `t[k]` (shape (T, *y0.shape)) from the finer solve, `error[k]`
    its estimated integration error |y_coarse - y_fine|; `events[name]` the event times (one per initial
    condition, nan where it never happens) and `event_errors[name]` their difference between the two solves."""

    t: np.ndarray
    y: np.ndarray
    error: np.ndarray
    y_coarse: np.ndarray | None = None
    events: dict = field(default_factory=dict)
    event_errors: dict = field(default_factory=dict)
    rtol: float = 0.0
    atol: float = 0.0
    refine: float = 10.0
    method: str = "DOP853"

    @property
    def source(self) -> str:
        """Where the comparison tolerance comes from, in words."""
        return (f"solve_ivp ({self.method}) at rtol={self.rtol:g}, atol={self.atol:g} and at those / {self.refine:g}: "
                f"the finer solve is compared, within the two solves' largest difference (its integration error is "
                f"below it) plus one local tolerance atol + rtol max|y|")

    def tolerance(self, scale: float) -> float:
        """max |y_coarse - y_fine| + atol + rtol * scale (the local tolerance of the coarser solve at |y| = scale)."""
        return float(np.max(self.error, initial=0.0)) + self.atol + self.rtol * float(scale)


def integrate(system: Callable[[float, np.ndarray], np.ndarray], y0: Any, times: Sequence[float], *,
              events: Mapping[str, Callable[[float, np.ndarray], np.ndarray]] | None = None, rtol: float = 1e-10,
              atol: float = 1e-12, refine: float = 10.0, method: str = "DOP853") -> Flow:
    """Integrate dy/dt = system(t, y) from y(times[0]) = y0 with scipy.integrate.solve_ivp, twice.

    y0 may hold several initial conditions along its first axis (shape (B,) for a scalar ODE, (B, n) for n states):
    they are solved together as one system (one solve of B*n states), and `system(t, y)` receives y in y0's shape and
    returns its derivative in that shape (so parameters given as (B,) arrays broadcast). `events[name](t, y)`
    returns one number per initial condition, whose zero crossing is the event ("time to reach u = s/2":
    `lambda t, u: u - s / 2`). Both solves run on `times` (increasing); the second at (rtol, atol) / refine, and
    Flow.error is their difference (the first solve's error exceeds the second's: solve_ivp's error scales with its
    tolerances).
    """
    from scipy.integrate import solve_ivp  # lazy: scipy.integrate costs ~0.8 s of start-up; only flows use it

    rtol = _positive("rtol", rtol, 0.0, 1e-3)
    atol = _positive("atol", atol, 0.0, 1.0)
    refine = _positive("refine", refine, 1.0, 1e4, " (the second solve runs at (rtol, atol) / refine)")
    if rtol / refine < 1e-13:
        raise ValueError(f"rtol / refine must be >= 1e-13 (the finer solve's rtol, above float64's floor 100 eps); "
                         f"got rtol={rtol:g}, refine={refine:g}")
    t = np.asarray(times, dtype=float)
    if t.ndim != 1 or t.size < 2 or not np.all(np.diff(t) > 0) or not np.all(np.isfinite(t)):
        raise ValueError(f"times must be >= 2 increasing finite numbers; got times={np.asarray(times).tolist()!r}"[:200])
    start = np.asarray(y0, dtype=float)
    if start.ndim == 0:
        start = start[None]
    shape = start.shape
    batch = shape[0]

    def fun(tt, flat):
        return np.asarray(system(tt, flat.reshape(shape)), dtype=float).reshape(-1)

    names = list(events or {})
    wrappers = []
    for name in names:
        g = events[name]
        for i in range(batch):  # solve_ivp wants one scalar function per event: one per initial condition
            wrappers.append(lambda tt, flat, g=g, i=i: float(np.asarray(g(tt, flat.reshape(shape)))[i]))

    def solve(rt, at):
        sol = solve_ivp(fun, (t[0], t[-1]), start.reshape(-1), method=method, t_eval=t, rtol=rt, atol=at,
                        events=wrappers or None)
        if sol.status < 0 or sol.y.shape[1] != t.size:
            raise RuntimeError(f"solve_ivp ({method}) failed at rtol={rt:g}: {sol.message}")
        found = {}
        for j, name in enumerate(names):
            found[name] = np.array([sol.t_events[j * batch + i][0] if len(sol.t_events[j * batch + i]) else np.nan
                                    for i in range(batch)])
        return sol.y.T.reshape((t.size, *shape)), found

    coarse, ev_coarse = solve(rtol, atol)
    fine, ev_fine = solve(rtol / refine, atol / refine)
    return Flow(t=t, y=fine, error=np.abs(coarse - fine), y_coarse=coarse, events=ev_fine,
                event_errors={k: np.abs(ev_coarse[k] - ev_fine[k]) for k in names}, rtol=rtol, atol=atol,
                refine=refine, method=method)


def ode_check(entry: str, check: str, *, system: Callable, y0: Any, times: Sequence[float],
              solution: Callable[[np.ndarray], Any] | None = None, observe: Callable[[np.ndarray], Any] | None = None,
              events: Mapping[str, tuple[Callable, Any]] | None = None, rtol: float = 1e-10, atol: float = 1e-12,
              refine: float = 10.0, method: str = "DOP853", extra: dict | None = None) -> list[Evidence]:
    """An ODE integrated against its closed form and its event times: the commonest check of a dynamics paper.

    system, y0, times: as `integrate` (several initial conditions along y0's first axis, solved at once).
    solution(t): the closed form (or an entry's kernel) at the times, called with t of shape (T, 1) so that
        parameters of shape (B,) broadcast; returns (T, B) (or (T, B, n)). One record compares it with the
        integrated states at every time and initial condition.
    events: {name: (g, predicted)}: g(t, y) -> (B,) crosses zero at the event ("time to reach u": u - u_target),
        predicted the (B,) predicted times (e.g. the paper's learning time t*). One record per event.
    observe(y): what `solution` predicts, when it is not the state itself: y of shape (T, *y0.shape) -> (T, B) (a
        conserved quantity a^2 - b^2 of the state (a, b): `lambda y: y[..., 0]**2 - y[..., 1]**2`).
    Tolerances (stated on each record): the finer solve's states are within max |y_coarse - y_fine| + atol +
    rtol max|y| of the truth; an observed quantity within max |observe(y_coarse) - observe(y_fine)| + the local
    tolerance carried through observe (|observe(y + d) - observe(y)|, d = atol + rtol |y|); an event time within its
    difference between the solves + atol + rtol t.
    """
    spec = dict(events or {})
    flow = integrate(system, y0, times, events={k: v[0] for k, v in spec.items()}, rtol=rtol, atol=atol,
                     refine=refine, method=method)
    out: list[Evidence] = []
    if solution is not None and observe is not None:
        got = np.asarray(observe(flow.y), dtype=float)
        pred = np.broadcast_to(np.asarray(solution(flow.t[:, None]), dtype=float), got.shape)
        local = np.abs(np.asarray(observe(flow.y + flow.atol + flow.rtol * np.abs(flow.y)), dtype=float) - got)
        tol = float(np.max(np.abs(np.asarray(observe(flow.y_coarse), dtype=float) - got))) + float(np.max(local))
        out.append(compare(entry, check + ": the observed quantity along the integrated flow vs the prediction",
                           "numeric", pred, got, atol=tol,
                           source=flow.source.split(": ")[0] + ": max |observe(coarse) - observe(fine)| + the local "
                                  "tolerance atol + rtol |y| carried through observe",
                           detail=f"{got.shape[1] if got.ndim > 1 else 1} initial condition(s) x {flow.t.size} times",
                           **({"extra": extra} if extra else {})))
    elif solution is not None:
        pred = np.broadcast_to(np.asarray(solution(flow.t[:, None]), dtype=float), flow.y.shape)
        out.append(compare(entry, check + ": the integrated trajectory vs the closed form", "numeric", pred, flow.y,
                           atol=flow.tolerance(np.max(np.abs(flow.y))), source=flow.source,
                           detail=f"{flow.y.shape[1]} initial condition(s) x {flow.t.size} times in "
                                  f"[{flow.t[0]:g}, {flow.t[-1]:g}]; integration error estimate "
                                  f"{float(np.max(flow.error)):.2e}", **({"extra": extra} if extra else {})))
    for name, (_, predicted) in spec.items():
        got = flow.events[name]
        pred = np.broadcast_to(np.asarray(predicted, dtype=float), got.shape)
        err = float(np.nanmax(flow.event_errors[name], initial=0.0))
        tol = err + flow.atol + flow.rtol * float(np.nanmax(np.abs(got), initial=0.0))
        out.append(compare(entry, f"{check}: {name}", "numeric", pred, got, atol=tol,
                           source=f"event times located by solve_ivp ({flow.method}) at rtol={flow.rtol:g}, atol="
                                  f"{flow.atol:g} and / {flow.refine:g}: their difference + atol + rtol t",
                           detail=("an event that never happens is nan, and fails" if np.isnan(got).any() else ""),
                           **({"extra": extra} if extra else {})))
    return out


@dataclass(frozen=True)
class Trajectory:
    """Observables recorded along gradient descent: `values[name]` has shape (T, R) at times `t` (T,) read off
    with t_k = (k - read_at) * time_per_step; `start[name]` (R,) is each observable at step `read_at`."""

    t: np.ndarray
    values: dict
    start: dict
    lr: float
    time_per_step: float
    read_at: int


def gradient_descent(params: Mapping[str, Any], loss: Callable, observe: Mapping[str, Callable], *, lr: float,
                     steps: int, every: int = 1, read_at: int = 0, time_per_step: float | None = None) -> Trajectory:
    """Full-batch gradient descent w <- w - lr grad L(w) on R independent runs at once (the leading axis of every
    tensor in params; loss(params) returns the (R,) per-run losses), recording each observable(params) -> (R,)
    every `every` steps from step `read_at` on. The read-off conventions are parameters: the time of step k is
    t = (k - read_at) * time_per_step (default lr: gradient descent tracks the flow dw/dt = -grad L in that time),
    and `start` holds the observables at step `read_at` (where "u0" is read)."""
    import torch  # lazy: torch costs ~3 s of start-up; only the torch training path may import it

    lr = _positive("lr", lr, 0.0, 1e6)
    tps = lr if time_per_step is None else _positive("time_per_step", time_per_step, 0.0, 1e12)
    if not (isinstance(steps, int) and steps >= 1 and isinstance(every, int) and 1 <= every <= steps):
        raise ValueError(f"steps and every must be integers with 1 <= every <= steps; got steps={steps!r}, "
                         f"every={every!r}")
    if not (isinstance(read_at, int) and 0 <= read_at <= steps):
        raise ValueError(f"read_at (the step the initial values are read at) must be an integer in [0, steps]; got "
                         f"read_at={read_at!r}")
    p = {k: torch.as_tensor(v, dtype=torch.float64).detach().clone() for k, v in params.items()}
    names = list(observe)
    rows: dict[str, list] = {n: [] for n in names}
    times, start = [], {}
    for k in range(steps + 1):
        if k >= read_at and (k - read_at) % every == 0:
            with torch.no_grad():
                for n in names:
                    value = observe[n](p).detach().cpu().numpy().astype(float)
                    rows[n].append(value)
                    if k == read_at:
                        start[n] = value
            times.append((k - read_at) * tps)
        if k == steps:
            break
        for v in p.values():
            v.requires_grad_(True)
        grads = torch.autograd.grad(loss(p).sum(), list(p.values()))  # runs are independent: one summed loss
        with torch.no_grad():
            p = {n: (v - lr * g).detach() for (n, v), g in zip(p.items(), grads)}
    return Trajectory(t=np.asarray(times), values={n: np.stack(rows[n]) for n in names}, start=start, lr=lr,
                      time_per_step=tps, read_at=read_at)


def trajectory_check(entry: str, check: str, *, params: Mapping[str, Any], loss: Callable,
                     observe: Mapping[str, Callable], predicted: Mapping[str, Callable], lr: float, steps: int,
                     every: int = 1, read_at: int = 0, time_per_step: float | None = None, refine: int = 2,
                     extra: dict | None = None) -> list[Evidence]:
    """A trained network's trajectory against the predicted curve of its gradient flow, one record per observable.

    params, loss, observe, lr, steps, every, read_at, time_per_step: as `gradient_descent` (R runs batched along
    the leading axis). predicted[name](t, start) gives the predicted curve, shape (T, R), at the times t (shape
    (T, 1)) from the observables read at step `read_at` (`start[name]`, shape (R,): the u0 of the run).
    The run is repeated at lr / refine (refine x the steps, recorded at the same times); gradient descent is Euler's
    method on the flow, first order in lr, so the finer run's error is about |obs(lr) - obs(lr/refine)| /
    (refine - 1): the tolerance is twice that (for the higher-order remainder) plus 1e-12 max|pred|, and the finer
    run is compared. A prediction off by more than the discretization error fails.
    """
    if not (isinstance(refine, int) and refine >= 2):
        raise ValueError(f"refine must be an integer >= 2 (the second run's lr is lr / refine); got refine={refine!r}")
    missing = sorted(set(predicted) - set(observe))
    if missing:
        raise ValueError(f"predicted names {', '.join(missing)}, which observe does not record (observe has "
                         f"{', '.join(observe) or 'nothing'})")
    tps = lr if time_per_step is None else time_per_step
    coarse = gradient_descent(params, loss, observe, lr=lr, steps=steps, every=every, read_at=read_at,
                              time_per_step=tps)
    fine = gradient_descent(params, loss, observe, lr=lr / refine, steps=steps * refine, every=every * refine,
                            read_at=read_at * refine, time_per_step=tps / refine)
    out: list[Evidence] = []
    for name, curve in predicted.items():
        obs, obs_coarse = fine.values[name], coarse.values[name]
        pred = np.broadcast_to(np.asarray(curve(fine.t[:, None], fine.start), dtype=float), obs.shape)
        disc = float(np.max(np.abs(obs - obs_coarse))) / (refine - 1)
        scale = float(np.max(np.abs(pred))) if pred.size and np.all(np.isfinite(pred)) else 0.0
        out.append(compare(entry, f"{check}: {name}", "training", pred, obs, atol=2 * disc + 1e-12 * scale,
                           source=f"gradient descent at lr={lr / refine:g} (t = (k - {read_at * refine}) x "
                                  f"{tps / refine:g}, {name}'s start read at step {read_at * refine}) vs its flow: "
                                  f"2 x its estimated Euler error |obs(lr={lr:g}) - obs(lr/{refine})| / {refine - 1} "
                                  f"+ 1e-12 max|pred|",
                           detail=f"{obs.shape[1]} run(s) x {obs.shape[0]} times in [0, {fine.t[-1]:g}]",
                           **({"extra": extra} if extra else {})))
    return out
