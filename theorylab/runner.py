"""verify as tasks: each derivation and each evidence check is a task run on an executor, resumable.

Executors: in-process (`jobs=1`), a spawn process pool (`jobs=N`), Dask distributed (`dask://HOST:PORT`), SLURM
through submitit (`slurm`, or `submitit-local` to run the same path on this machine). Finished tasks are appended
to a journal beside the JSON record as they complete (theorylab.sweep), so `--resume` recomputes only what a
killed run had not finished; records are assembled in plan order, whatever order the executor finishes in.
"""
from __future__ import annotations

import concurrent.futures as cf
import json
import os
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

__all__ = ["Task", "plan", "run_task", "make_executor", "execute", "usable_cores", "estimate"]

_TIMINGS = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "theorylab",
                        "timings.json")


@dataclass(frozen=True)
class Task:
    kind: str              # "derivation" | "check"
    key: str               # derivation key or check name
    entries: tuple[str, ...]
    part: Any = None       # one piece of a check declared with parts (JSON-ready label); None: the whole
    nparts: int = 0        # how many pieces its check has (0: not a piece)

    def params(self, profile: str, device: str, seed: int, threads: int) -> dict:
        from . import catalogue

        p = {"kind": self.kind, "name": self.key, "family": self.family, "profile": profile, "device": device,
             "seed": seed, "threads": threads, "papers": catalogue.paper_specs(),  # a worker registers the same
             "only": os.environ.get("THEORYLAB_ONLY_FAMILIES", "")}                # papers as this process
        if self.nparts:
            p["part"] = self.part
        return p

    @property
    def label(self) -> str:
        """The task's name in listings and in the timings cache."""
        return self.key if not self.nparts else f"{self.key} [{json.dumps(self.part, sort_keys=True)}]"

    @property
    def family(self) -> str:
        return self.entries[0].split(".", 1)[0]


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def plan(ids: set[str], ctx: Any = None) -> list[Task]:
    """Derivations first, then checks, each in catalogue order, restricted to the selected entry IDs (only their
    families' modules are imported: a family's derivations and checks name only its own entries). A check
    declared with parts becomes one task per part (its pieces for `ctx`: profile, device, seed)."""
    from . import catalogue
    from .evidence import Context, to_jsonable

    ctx = ctx or Context()
    fams = catalogue.families({i.split(".", 1)[0] for i in ids})
    tasks = [Task("derivation", d.key, tuple(d.entries)) for f in fams for d in f.derivations if set(d.entries) & ids]
    seen: set[str] = set()
    for c in (c for f in fams for c in f.checks):
        if set(c.entries) & ids:
            if c.name in seen:
                raise RuntimeError(f"two checks are named {c.name!r}: check names must be unique")
            seen.add(c.name)
            if c.parts is None:
                tasks.append(Task("check", c.name, tuple(c.entries)))
                continue
            parts = [to_jsonable(p) for p in c.parts(ctx)]
            if not parts:
                raise RuntimeError(f"check {c.name!r} declares parts but parts(ctx) listed none for profile "
                                   f"{ctx.profile}")
            tasks += [Task("check", c.name, tuple(c.entries), part=p, nparts=len(parts)) for p in parts]
    return tasks


def units(tasks: Sequence[Task]) -> list[list[int]]:
    """The plan's tasks grouped into what is reported together: a derivation, a check, or all parts of one."""
    out: list[list[int]] = []
    for i, t in enumerate(tasks):
        if t.nparts and out and tasks[out[-1][0]].nparts and tasks[out[-1][0]].key == t.key:
            out[-1].append(i)
        else:
            out.append([i])
    return out


def _set_threads(n: int) -> None:
    """BLAS and torch threads for this task. The default is one: the problems are small, parallelism comes from the
    worker processes, and busy-waiting intra-op threads collapse when another process holds a core."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(n)
    except ImportError:  # numpy's BLAS then keeps the env value it read at import
        pass
    if "torch" in sys.modules:
        import torch

        torch.set_num_threads(n)
    os.environ["THEORYLAB_TORCH_THREADS"] = str(n)


def run_task(kind: str, name: str, profile: str, device: str, seed: int, threads: int, papers: str = "",
             only: str = "", family: str = "", part: Any = None) -> dict:
    """Run one task (in any process) and return its records as JSON-ready dicts, with its wall time."""
    from . import catalogue

    if papers and papers != catalogue.paper_specs():  # in a worker: register the planning process's papers
        os.environ["THEORYLAB_PAPERS"] = papers
    if only:
        os.environ["THEORYLAB_ONLY_FAMILIES"] = only
    from .evidence import Context, to_jsonable

    t0 = time.perf_counter()
    if kind == "derivation":
        _set_threads(threads)
        d = next(d for d in (catalogue.family(family).derivations if family else catalogue.derivations())
                 if d.key == name)
        records = [step_record(d, r) for r in d.check()]
    else:
        check = next(c for c in catalogue.checks([family] if family else None) if c.name == name)
        _set_threads(threads)  # after the check's module (and torch) is imported
        ctx = Context(profile=profile, device=device, seed=seed, progress=False)
        if check.parts is not None:  # one piece: its data go to combine() in the planning process
            try:
                return {"partial": to_jsonable(check.run(ctx, part)), "seconds": round(time.perf_counter() - t0, 3)}
            except Exception as exc:  # a crashing piece fails its check, with its reason
                return {"error": f"part {json.dumps(part, sort_keys=True)}: {type(exc).__name__}: {exc}",
                        "seconds": round(time.perf_counter() - t0, 3)}
        try:
            recs = check.run(ctx)
        except Exception as exc:  # a crashing check is a failed check, reported with its reason
            recs = [_crashed(check, f"{type(exc).__name__}: {exc}")]
        records = [r.to_json() for r in recs]
    return {"records": records, "seconds": round(time.perf_counter() - t0, 3)}


def _crashed(check, why: str):
    from .evidence import Evidence

    return Evidence(entry=check.entries[0], check=check.name, kind=check.kind, predicted=None, observed=None,
                    tolerance=0.0, tolerance_source="the check raised", detail=why)


def combine(task: Task, results: Sequence[dict], ctx: Any) -> dict:
    """The records of a check run as parts, from its parts' results (in plan order); a crashed part or combine
    is a failed record naming it."""
    from . import catalogue

    check = next(c for c in catalogue.checks([task.family]) if c.name == task.key)
    seconds = round(sum(r.get("seconds") or 0.0 for r in results), 3)
    errors = [r["error"] for r in results if "error" in r]
    if errors:
        recs = [_crashed(check, e) for e in errors]
    else:
        try:
            recs = check.combine(ctx, [r["partial"] for r in results])
        except Exception as exc:  # noqa: BLE001
            recs = [_crashed(check, f"combine: {type(exc).__name__}: {exc}")]
    return {"records": [r.to_json() for r in recs], "seconds": seconds}


def step_record(d, r) -> dict:
    f = r.step.fidelity
    rec = {"derivation": d.key, "title": d.title, "where": d.where, "step": r.step.label, "status": r.status,
           "method": r.outcome.method, "detail": r.outcome.detail, "ok": r.ok, "relation": r.step.relation,
           "strength": r.strength, "points": r.outcome.points, "cites": list(r.step.cites),
           "fidelity": f if f is None or isinstance(f, str) else f"amended ({f.kind})",
           "counterexample": r.outcome.counterexample}
    e = r.step.erratum
    if e is not None:  # the report's errata section is built from these, without rerunning anything
        rec["erratum"] = {"key": e.key, "source": e.source, "where": e.where, "says": e.says, "truth": e.truth,
                          "severity": e.severity, "root": e.root, "note": e.note,
                          "counterexample": r.outcome.counterexample}
    return rec


def result_from_record(step, rec: Mapping[str, Any]):
    """The StepResult a step record stands for (the verdict as recorded; nothing is decided again)."""
    from .derivation import Outcome, StepResult

    holds = rec["status"] in ("holds", "ERRATUM NOT REPRODUCED (step holds)")
    return StepResult(step, Outcome(holds, rec.get("method", ""), rec.get("detail", ""),
                                    rec.get("counterexample") or (rec.get("erratum") or {}).get("counterexample"),
                                    strength=rec.get("strength", "searched"), points=rec.get("points", 0)))


def ledger_and_coverage(fams: Iterable[str], steps: Iterable[Mapping[str, Any]]) -> tuple[list[dict], list[dict]]:
    """The ranked ledger and the coverage rows of the selected families' papers, from verify's step records (no step
    is decided again): what the run record stores for `report` and `latex` to read."""
    from . import catalogue, coverage, ledger

    by_step = {(r["derivation"], r["step"]): r for r in steps}
    chosen = catalogue.families(list(fams))

    def verdict(d, step):
        r = by_step.get((d.key, step.label))
        if r is None:
            return None
        res = result_from_record(step, r)
        return ("confirmed" if res.status == "erratum confirmed" else
                "not evaluated" if res.strength == "error" else "NOT REPRODUCED"), res.outcome.counterexample

    items = ledger.collect([(f.paper.name, d) for f in chosen for d in f.derivations], verdict=verdict,
                           strict=False)
    rows: list[dict] = []
    selected = {f.name for f in chosen}  # coverage of the papers selected whole (a part would show labels missing)
    names = {f.paper.name for f in chosen if all(g.name in selected for g in f.paper.families)}
    for paper, labels, accounts, printed in catalogue.coverage_declarations():
        if paper.name not in names:
            continue
        derivs = [d for f in chosen if f.paper is paper for d in f.derivations]
        results = {d.key: [result_from_record(s, by_step[(d.key, s.label)]) for s in d.steps]
                   for d in derivs if all((d.key, s.label) in by_step for s in d.steps)}
        derivs = [d for d in derivs if d.key in results]
        from . import fidelity

        compared = fidelity.compared_rows(paper, derivs)  # the print against the citing steps, by machine
        for row in coverage.coverage(paper.source, labels, derivs, accounts, results=results, printed=printed,
                                     compared=compared):
            rows.append({**row, "paper_name": paper.name})
    return [it.to_json() for it in items], rows


# -- executors -------------------------------------------------------------------------------------------


class SubmititExecutor(cf.Executor):
    """concurrent.futures over submitit jobs: each submitted job is watched by a thread that fills a Future."""

    def __init__(self, executor):
        self._ex = executor

    def submit(self, fn, /, *args, **kwargs):
        fut: cf.Future = cf.Future()
        job = self._ex.submit(fn, *args, **kwargs)

        def wait():
            try:
                fut.set_result(job.result())
            except BaseException as exc:  # noqa: BLE001
                fut.set_exception(exc)

        threading.Thread(target=wait, daemon=True).start()
        return fut


def make_executor(spec: str, jobs: int, *, folder: str = ".theorylab-jobs", slurm: Mapping[str, Any] | None = None
                  ) -> tuple[cf.Executor, Callable[[], None]]:
    """(executor, shutdown) for `--executor SPEC` (local, dask://HOST:PORT, slurm, submitit-local)."""
    from .params import DomainError

    if spec in ("", "local"):
        from .sweep import InlineExecutor, default_executor

        if jobs <= 1:
            return InlineExecutor(), lambda: None
        ex = default_executor(jobs)
        return ex, lambda: ex.shutdown(cancel_futures=True)
    if spec.startswith("dask://"):
        try:
            from distributed import Client
        except ImportError:
            raise DomainError("--executor dask://... needs Dask distributed: pip install 'theorylab[dask]'") from None
        try:
            client = Client(spec[len("dask://"):], timeout=20)
        except OSError as exc:
            raise DomainError(f"--executor must name a reachable Dask scheduler; got --executor={spec} ({exc})"
                              ) from None
        return client.get_executor(pure=False), client.close
    if spec in ("slurm", "submitit-local"):
        try:
            import submitit
        except ImportError:
            raise DomainError(f"--executor {spec} needs submitit: pip install 'theorylab[slurm]'") from None
        if spec == "slurm":
            ex = submitit.AutoExecutor(folder=folder, cluster="slurm")
            opts = {k: v for k, v in (slurm or {}).items() if v not in (None, "")}
            ex.update_parameters(**{f"slurm_{k}" if k in ("partition",) else k: v for k, v in opts.items()})
        else:
            ex = submitit.LocalExecutor(folder=folder)
            ex.update_parameters(timeout_min=int((slurm or {}).get("timeout_min") or 60))
        return SubmititExecutor(ex), lambda: None
    raise DomainError(f"--executor must be local, dask://HOST:PORT, slurm or submitit-local; got --executor={spec}")


# -- running a plan --------------------------------------------------------------------------------------


def execute(tasks: Sequence[Task], *, profile: str, device: str, seed: int, executor: cf.Executor, threads: int,
            journal: str, resume: bool, on_result: Callable[[Task, dict], None] | None = None,
            progress: bool = False) -> tuple[list[dict], int]:
    """Run the tasks through `executor`; returns (results in plan order, tasks reused from the journal).
    `on_result` is called in plan order too (a task's output is shown once every task before it has finished)."""
    from .sweep import load_results, run_sweep

    if not resume and os.path.exists(journal):
        os.unlink(journal)
    from .evidence import Context

    params = [t.params(profile, device, seed, threads) for t in tasks]
    keys = [_key(p) for p in params]
    groups = units(tasks)
    results: dict[str, dict] = {}
    shown = [0]

    def on_done(name: str, result: dict) -> None:
        results[name] = result
        while shown[0] < len(groups) and all(keys[i] in results for i in groups[shown[0]]):
            g = groups[shown[0]]
            task = tasks[g[0]]
            res = results[keys[g[0]]] if not task.nparts else combine(task, [results[keys[i]] for i in g],
                                                                     Context(profile=profile, device=device, seed=seed))
            if on_result is not None:
                on_result(task, res)
            shown[0] += 1

    if resume:  # what the killed run finished is shown first, in order
        for name, result in load_results(journal).items():
            if name in keys:
                on_done(name, result)
    os.makedirs(os.path.dirname(os.path.abspath(journal)), exist_ok=True)
    # longest first (by remembered timings) keeps the pool busy to the end; the record's order is unaffected
    est = estimate(tasks, profile)
    order = sorted(range(len(tasks)), key=lambda i: -(est[i] or 0.0))
    sweep = run_sweep(run_task, [params[i] for i in order], journal, executor=executor, progress=progress,
                      key=_key, on_done=on_done)
    out = [sweep.results[k] for k in keys]
    _remember(tasks, out, profile)
    return out, sweep.reused


def _key(params: Mapping[str, Any]) -> str:
    """A task's name in the journal: everything that changes its result, not how many threads ran it."""
    return json.dumps({k: v for k, v in params.items() if k != "threads"}, sort_keys=True)


def estimate(tasks: Sequence[Task], profile: str, seed: int = 0) -> list[float | None]:
    """Seconds each task is expected to take with this profile on this machine: what it took the last time it ran
    here; else, for a check that declares `cost`, its cost times the seconds per unit of cost its quick-profile
    tasks took here (None: neither is known)."""
    try:
        with open(_TIMINGS) as fh:
            known = json.load(fh)
    except (OSError, json.JSONDecodeError):
        known = {}
    out = [known.get(f"{profile}|{t.kind}|{t.label}") for t in tasks]
    rates: dict[str, float | None] = {}
    for i, t in enumerate(tasks):
        if out[i] is None and t.kind == "check":
            if t.key not in rates:
                rates[t.key] = _rate(t, known, seed)
            if rates[t.key] is not None:
                out[i] = rates[t.key] * _cost(t, profile, seed, t.part)
    return out


def _check(task: Task):
    from . import catalogue

    return next((c for c in catalogue.checks([task.family]) if c.name == task.key), None)


def _cost(task: Task, profile: str, seed: int, part: Any) -> float:
    from .evidence import Context

    check = _check(task)
    ctx = Context(profile=profile, seed=seed)
    return float(check.cost(ctx, part) if check.parts is not None else check.cost(ctx))


def _rate(task: Task, known: Mapping[str, float], seed: int) -> float | None:
    """Seconds per unit of declared cost, from the check's quick-profile timings on this machine."""
    from .evidence import Context, to_jsonable

    check = _check(task)
    if check is None or check.cost is None:
        return None
    quick = Context(profile="quick", seed=seed)
    if check.parts is None:
        pieces = [(task.key, None)]
    else:
        pieces = [(Task("check", task.key, task.entries, part=p, nparts=1).label, p)
                  for p in (to_jsonable(p) for p in check.parts(quick))]
    seconds = [known.get(f"quick|check|{label}") for label, _ in pieces]
    if any(s is None for s in seconds):
        return None
    units = sum(_cost(task, "quick", seed, p) for _, p in pieces)
    return sum(seconds) / units if units > 0 else None


def _remember(tasks: Sequence[Task], results: Sequence[dict], profile: str) -> None:
    try:
        with open(_TIMINGS) as fh:
            known = json.load(fh)
    except (OSError, json.JSONDecodeError):
        known = {}
    for t, r in zip(tasks, results):
        known[f"{profile}|{t.kind}|{t.label}"] = r.get("seconds")
    try:
        os.makedirs(os.path.dirname(_TIMINGS), exist_ok=True)
        tmp = _TIMINGS + f".{os.getpid()}"
        with open(tmp, "w") as fh:
            json.dump(known, fh, indent=0, sort_keys=True)
        os.replace(tmp, _TIMINGS)
    except OSError:  # a read-only home: estimates are a convenience
        pass
