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
from typing import Any, Callable, Mapping, Sequence

__all__ = ["Task", "plan", "run_task", "make_executor", "execute", "usable_cores", "estimate"]

_TIMINGS = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "theorylab",
                        "timings.json")


@dataclass(frozen=True)
class Task:
    kind: str              # "derivation" | "check"
    key: str               # derivation key or check name
    entries: tuple[str, ...]

    def params(self, profile: str, device: str, seed: int, threads: int) -> dict:
        from . import catalogue

        return {"kind": self.kind, "name": self.key, "family": self.family, "profile": profile, "device": device,
                "seed": seed, "threads": threads, "papers": catalogue.paper_specs(),  # a worker registers the same
                "only": os.environ.get("THEORYLAB_ONLY_FAMILIES", "")}                # papers as this process

    @property
    def family(self) -> str:
        return self.entries[0].split(".", 1)[0]


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def plan(ids: set[str]) -> list[Task]:
    """Derivations first, then checks, each in catalogue order, restricted to the selected entry IDs (only their
    families' modules are imported: a family's derivations and checks name only its own entries)."""
    from . import catalogue

    fams = catalogue.families({i.split(".", 1)[0] for i in ids})
    tasks = [Task("derivation", d.key, tuple(d.entries)) for f in fams for d in f.derivations if set(d.entries) & ids]
    seen: set[str] = set()
    for c in (c for f in fams for c in f.checks):
        if set(c.entries) & ids:
            if c.name in seen:
                raise RuntimeError(f"two checks are named {c.name!r}: check names must be unique")
            seen.add(c.name)
            tasks.append(Task("check", c.name, tuple(c.entries)))
    return tasks


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
             only: str = "", family: str = "") -> dict:
    """Run one task (in any process) and return its records as JSON-ready dicts, with its wall time."""
    from . import catalogue

    if papers and papers != catalogue.paper_specs():  # in a worker: register the planning process's papers
        os.environ["THEORYLAB_PAPERS"] = papers
    if only:
        os.environ["THEORYLAB_ONLY_FAMILIES"] = only
    from .evidence import Context, Evidence

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
        try:
            recs = check.run(ctx)
        except Exception as exc:  # a crashing check is a failed check, reported with its reason
            recs = [Evidence(entry=check.entries[0], check=check.name, kind=check.kind, predicted=None,
                             observed=None, tolerance=0.0, tolerance_source="the check raised",
                             detail=f"{type(exc).__name__}: {exc}")]
        records = [r.to_json() for r in recs]
    return {"records": records, "seconds": round(time.perf_counter() - t0, 3)}


def step_record(d, r) -> dict:
    rec = {"derivation": d.key, "title": d.title, "where": d.where, "step": r.step.label, "status": r.status,
           "method": r.outcome.method, "detail": r.outcome.detail, "ok": r.ok, "relation": r.step.relation,
           "strength": r.strength, "points": r.outcome.points}
    e = r.step.erratum
    if e is not None:  # the report's errata section is built from these, without rerunning anything
        rec["erratum"] = {"key": e.key, "seed": e.seed, "where": e.where, "says": e.says, "truth": e.truth,
                          "note": e.note, "counterexample": r.outcome.counterexample}
    return rec


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
    params = [t.params(profile, device, seed, threads) for t in tasks]
    keys = [_key(p) for p in params]
    results: dict[str, dict] = {}
    shown = [0]

    def on_done(name: str, result: dict) -> None:
        results[name] = result
        while shown[0] < len(tasks) and keys[shown[0]] in results:
            if on_result is not None:
                on_result(tasks[shown[0]], results[keys[shown[0]]])
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


def estimate(tasks: Sequence[Task], profile: str) -> list[float | None]:
    """Seconds each task took the last time it ran with this profile on this machine (None: never run)."""
    try:
        with open(_TIMINGS) as fh:
            known = json.load(fh)
    except (OSError, json.JSONDecodeError):
        known = {}
    return [known.get(f"{profile}|{t.kind}|{t.key}") for t in tasks]


def _remember(tasks: Sequence[Task], results: Sequence[dict], profile: str) -> None:
    try:
        with open(_TIMINGS) as fh:
            known = json.load(fh)
    except (OSError, json.JSONDecodeError):
        known = {}
    for t, r in zip(tasks, results):
        known[f"{profile}|{t.kind}|{t.key}"] = r.get("seconds")
    try:
        os.makedirs(os.path.dirname(_TIMINGS), exist_ok=True)
        tmp = _TIMINGS + f".{os.getpid()}"
        with open(tmp, "w") as fh:
            json.dump(known, fh, indent=0, sort_keys=True)
        os.replace(tmp, _TIMINGS)
    except OSError:  # a read-only home: estimates are a convenience
        pass
