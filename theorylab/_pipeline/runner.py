"""verify as tasks: each derivation and each evidence check is a task run on an executor, resumable.

Executors: in-process (`jobs=1`), a spawn process pool (`jobs=N`), Dask distributed (`dask://HOST:PORT`), SLURM
through submitit (`slurm`, or `submitit-local` to run the same path on this machine). Finished tasks are appended
to a journal beside the JSON record as they complete (theorylab._numerics.sweep), so `--resume` recomputes only what a
killed run had not finished; records are assembled in plan order, whatever order the executor finishes in.
"""
from __future__ import annotations

import concurrent.futures as cf
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from . import catalogue
from .._decide.derivation import Outcome, StepResult
from .._records.evidence import Context, Evidence, Finding, to_jsonable
from .._records.params import DomainError
from .._records.status import LedgerStatus, StepStatus
from .._shared import cache_path, write_json

__all__ = ["verify", "check", "dry_run", "RunStart", "CheckRun", "DryRun", "resolve_device", "derivations_for",
           "Task", "plan", "run_task", "make_executor", "execute", "usable_cores", "estimate", "estimates",
           "schedule", "cluster_size", "step_record", "result_from_record", "ledger_and_coverage", "results_from_steps",
           "ledger_from_steps", "recorded_steps", "errata", "BOUND_SECONDS", "POOL_START_S"]

# `check` without --jobs decides in this process when the remembered times of its derivations (a warm step cache:
# an author's re-check after an edit) add up to less than this: spawned workers each import SymPy, theorylab and
# the papers again (measured 2-5 s of wall on 2 cores for a 40-step paper whose steps all come from the cache)
POOL_START_S = 3.0
BOUND_SECONDS = 3600.0  # no task should take more than one CPU-hour: a check whose part does is named by --dry-run

_TIMINGS = cache_path("timings.json")
# The timings `verify --profile paper --sample 1` measured for the built-in papers (the README's "Reproduce the papers"
# table is made from them; benchmarks/paper_plan.py --snapshot writes it), shipped as package data: a machine that has
# measured nothing yet plans from them instead of from the quick profile's rates (which put a part of Fig. 1c at 3 h).
SHIPPED_TIMINGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paper_timings.json")


@dataclass(frozen=True)
class Task:
    kind: str              # "derivation" | "check" | "fidelity" (verify's comparison of one paper's print)
    key: str               # derivation key, check name or paper name
    entries: tuple[str, ...]
    part: Any = None       # one piece of a check declared with parts (JSON-ready label); None: the whole
    nparts: int = 0        # how many pieces its check has (0: not a piece)

    def params(self, profile: str, device: str, seed: int, threads: int) -> dict:

        p = {"kind": self.kind, "name": self.key, "family": self.family, "profile": profile, "device": device,
             "seed": seed, "threads": threads, "papers": catalogue.paper_specs(),  # a worker registers the same
             "only": os.environ.get("THEORYLAB_ONLY_FAMILIES", "")}                # papers as this process
        if self.nparts or self.kind == "fidelity":
            p["part"] = self.part
        return p

    @property
    def label(self) -> str:
        """The task's name in listings and in the timings cache."""
        return self.key if not self.nparts else f"{self.key} [{json.dumps(self.part, sort_keys=True)}]"

    @property
    def family(self) -> str:
        return self.entries[0].split(".", 1)[0]

    @property
    def stage(self) -> Any:
        """What kind of piece this is (a part's "stage", e.g. pretraining vs transfer), for its estimate."""
        return self.part.get("stage") if isinstance(self.part, dict) else None

    @property
    def pid(self) -> Any:
        """A part's "id", by which other parts of its check name it in their "after" lists (None: none)."""
        return self.part.get("id") if isinstance(self.part, dict) else None

    @property
    def after(self) -> tuple[str, ...]:
        """The ids of the parts of its check whose `handoff` it takes as inputs (a part's "after" list)."""
        return tuple(self.part.get("after", ())) if isinstance(self.part, dict) else ()


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def plan(ids: set[str], ctx: Any = None, sample: int = 0, families: Sequence[str] = ()) -> list[Task]:
    """Derivations first, then checks, each in catalogue order, restricted to the selected entry IDs (only their
    families' modules are imported: a family's derivations and checks name only its own entries), and the
    derivations of the selected `families` that name no entry (a paper scaffolded from its source has only those:
    its drafts), as `theorylab check` runs them. A check declared with parts becomes one task per part (its pieces
    for `ctx`: profile, device, seed).

    `sample` = K > 0: only K parts of each stage of every check declared with parts (the largest by declared cost,
    then others spread over the list), for `verify --sample K`: they run for real and their timings give the
    estimates of the rest (a part whose `after` parts are not sampled runs on a stand-in of its inputs)."""

    ctx = ctx or Context()
    fams = catalogue.families([*dict.fromkeys([*families, *(i.split(".", 1)[0] for i in sorted(ids))])])
    tasks = [Task("derivation", d.key, tuple(d.entries) or (f"{f.name}.",)) for f in fams for d in f.derivations
             if set(d.entries) & ids or (not d.entries and f.name in families)]
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
            whole = [Task("check", c.name, tuple(c.entries), part=p, nparts=len(parts)) for p in parts]
            pids = [t.pid for t in whole if t.pid is not None]
            if len(set(pids)) < len(pids):
                raise RuntimeError(f"check {c.name!r}: two parts have the id {_dup(pids)!r}")
            before: set = set()
            for t in whole:
                bad = [a for a in t.after if a not in before]
                if bad:
                    raise RuntimeError(f"check {c.name!r}: part {t.label} is after {bad[0]!r}, which is not one "
                                       f"of the parts listed before it")
                before.add(t.pid)
            if sample > 0:
                whole = [whole[i] for i in _sampled(c, ctx, whole, sample)]
            tasks += whole
    return tasks


def _dup(values: Sequence[Any]) -> Any:
    seen: set = set()
    return next(v for v in values if v in seen or seen.add(v))


def _sampled(check, ctx: Any, tasks: Sequence[Task], k: int) -> list[int]:
    """Indices of the parts `--sample k` runs: per stage, the largest part by declared cost first (the one that
    decides whether the check fits the bound), then parts spread evenly over the rest of the list."""
    stages: dict[str, list[int]] = {}
    for i, t in enumerate(tasks):
        stages.setdefault(json.dumps(t.stage, sort_keys=True), []).append(i)
    chosen: set[int] = set()
    for idx in stages.values():
        costs = {i: (float(check.cost(ctx, tasks[i].part)) if check.cost is not None else 0.0) for i in idx}
        first = max(idx, key=lambda i: (costs[i], -i))
        pick = [first] + [idx[round(j * (len(idx) - 1) / max(1, k - 1))] for j in range(k)]
        for i in pick:
            if len(chosen & set(idx)) >= k:
                break
            chosen.add(i)
        for i in idx:  # fewer distinct picks than k (rounding): fill in list order
            if len(chosen & set(idx)) >= k:
                break
            chosen.add(i)
    return sorted(chosen)


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
        # lazy: threadpoolctl, a module `import theorylab` does not load; only worker processes set threads
        from threadpoolctl import threadpool_limits

        threadpool_limits(n)
    except ImportError:  # numpy's BLAS then keeps the env value it read at import
        pass
    if "torch" in sys.modules:
        # lazy: torch costs ~2 s of start-up; only a worker that trains needs its threads set
        import torch

        torch.set_num_threads(n)
    os.environ["THEORYLAB_TORCH_THREADS"] = str(n)


def run_task(kind: str, name: str, profile: str, device: str, seed: int, threads: int, papers: str = "",
             only: str = "", family: str = "", part: Any = None, standin: bool = False, inputs: Any = None) -> dict:
    """Run one task (in any process) and return its records as JSON-ready dicts, with its wall time.

    A part that is `after` other parts gets their handoffs as `part["inputs"]` (a list, in its order); in a
    sample whose run left those parts out (`standin`), `part["inputs"]` is None and the check makes a stand-in of
    the same size (its timing, not its data, is what a sample is for). A part's result may carry a "handoff"
    item: what the parts after it get, kept out of combine()."""

    if papers and papers != catalogue.paper_specs():  # in a worker: register the planning process's papers
        os.environ["THEORYLAB_PAPERS"] = papers
    if only:
        os.environ["THEORYLAB_ONLY_FAMILIES"] = only

    t0 = time.perf_counter()
    if kind == "fidelity":  # the printed page against the citing steps of one paper (verify's coverage rows)
        _set_threads(threads)
        paper = next(p for p in catalogue.papers() if p.name == name)
        keys = list(part["derivations"])
        return {"compared": _compared_rows(paper, keys), "derivations": keys,
                "seconds": round(time.perf_counter() - t0, 3)}
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
            given = part if inputs is None and not standin else {**part, "inputs": None if standin else inputs}
            try:
                partial = to_jsonable(check.run(ctx, given))
                out = {"seconds": round(time.perf_counter() - t0, 3)}
                if isinstance(partial, dict) and "handoff" in partial:
                    out["handoff"] = partial.pop("handoff")
                return {"partial": partial, **out}
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

    return Evidence(entry=check.entries[0], check=check.name, kind=check.kind, predicted=None, observed=None,
                    tolerance=0.0, tolerance_source="the check raised", detail=why)


def combine(task: Task, results: Sequence[dict], ctx: Any, parts: Sequence[Task] = ()) -> dict:
    """The records of a check run as parts, from its parts' results (in plan order); a crashed part or combine
    is a failed record naming it. A sample (fewer results than the check has parts, `verify --sample`) is one
    Finding with the parts' timings: a verdict needs every part."""

    check = next(c for c in catalogue.checks([task.family]) if c.name == task.key)
    seconds = round(sum(r.get("seconds") or 0.0 for r in results), 3)
    errors = [r["error"] for r in results if "error" in r]
    if errors:
        recs = [_crashed(check, e) for e in errors]
    elif len(results) < task.nparts:
        timed = [{"part": t.part, "seconds": r.get("seconds")} for t, r in zip(parts, results)]
        recs = [Finding(entry=check.entries[0], check=f"{check.name}: sampled {len(results)} of {task.nparts} parts",
                        kind=check.kind, text=(f"verify --sample ran {len(results)} of the check's {task.nparts} parts "
                                               f"({seconds:.1f} s) to measure them; no verdict (it needs every part)"),
                        values={"parts": timed, "nparts": task.nparts})]
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

    holds = StepStatus(rec["status"]).step_holds
    return StepResult(step, Outcome(holds, rec.get("method", ""), rec.get("detail", ""),
                                    rec.get("counterexample") or (rec.get("erratum") or {}).get("counterexample"),
                                    strength=rec.get("strength", "searched"), points=rec.get("points", 0)))


def results_from_steps(derivations: Iterable[Any], steps: Iterable[Mapping[str, Any]]) -> dict[str, list]:
    """derivation key -> its StepResults, in step order, as the step records say (nothing is decided again); a
    derivation whose steps are not all in the records is left out."""
    by_step = {(r["derivation"], r["step"]): r for r in steps}
    return {d.key: [result_from_record(s, by_step[(d.key, s.label)]) for s in d.steps]
            for d in derivations if all((d.key, s.label) in by_step for s in d.steps)}


def ledger_from_steps(pairs: Iterable[tuple[str, Any]], steps: Iterable[Mapping[str, Any]], *,
                      strict: bool = False) -> list:
    """The ranked errata ledger (LedgerItems) of (paper name, derivation) pairs, each erratum confirmed or not by its
    step's record (a step with no record: "not evaluated"); no step is decided again. strict: as ledger.collect."""
    # lazy: a module `import theorylab` does not load (measured: sys.modules), needed only on this path
    from .._decide import ledger

    by_step = {(r["derivation"], r["step"]): r for r in steps}

    def verdict(d, step):
        r = by_step.get((d.key, step.label))
        if r is None:
            return None
        res = result_from_record(step, r)
        return (LedgerStatus.CONFIRMED if res.status == StepStatus.ERRATUM_CONFIRMED else
                "not evaluated" if res.strength == "error" else "NOT REPRODUCED"), res.outcome.counterexample

    return ledger.collect(pairs, verdict=verdict, strict=strict)


def _compared_rows(paper, keys: Sequence[str]) -> dict:
    """The machine comparison of the paper's print with the citing steps of the derivations `keys` (of its families),
    as coverage rows carry it (`fidelity.compared_rows`)."""
    # lazy: the printed-page comparison and its parser, ~0.3 s `import theorylab` does not pay
    from . import fidelity

    by_key = {d.key: d for f in catalogue.families([f.name for f in paper.families]) for d in f.derivations}
    return fidelity.compared_rows(paper, [by_key[k] for k in keys])


def _whole_papers(chosen: Sequence[Any]) -> set[str]:
    """The names of the papers all of whose families are selected (coverage of a part would show labels missing)."""
    selected = {f.name for f in chosen}
    return {f.paper.name for f in chosen if all(g.name in selected for g in f.paper.families)}


def fidelity_tasks(tasks: Sequence[Task], fams: Sequence[str]) -> list[Task]:
    """One task per paper selected whole that declares its print (coverage or source_file): the comparison of the
    print with the steps of the plan's derivations of that paper, which `ledger_and_coverage` would otherwise do in
    this process after every other task (the largest serial part of verify with empty caches); run on the pool
    beside the evidence, its rows are handed to `ledger_and_coverage`."""
    chosen = catalogue.families(list(fams))
    planned = {t.key for t in tasks if t.kind == "derivation"}
    out = []
    for paper in catalogue.papers():
        if paper.name not in _whole_papers(chosen) or (paper.coverage is None and paper.source_file is None):
            continue
        mine = [f for f in chosen if f.paper is paper]
        keys = [d.key for f in mine for d in f.derivations if d.key in planned]
        out.append(Task("fidelity", paper.name, (f"{mine[0].name}.",), part={"derivations": keys}))
    return out


def _fidelity_result(future: cf.Future) -> dict | None:
    """A fidelity task's result; None (the comparison is then made in this process) when it crashed: a worker's
    failure must not change the record, only where the work was done."""
    try:
        return future.result()
    except Exception:  # noqa: BLE001 - ledger_and_coverage compares again here, and raises what it raises
        return None


def ledger_and_coverage(fams: Iterable[str], steps: Iterable[Mapping[str, Any]],
                        compared: Mapping[str, Mapping[str, Any]] | None = None) -> tuple[list[dict], list[dict]]:
    """The ranked ledger and the coverage rows of the selected families' papers, from verify's step records (no step
    is decided again): what the run record stores for `report` and `latex` to read. `compared`: paper name ->
    a fidelity task's result (its "derivations" and "compared" rows), used where it compared exactly the
    derivations the rows are made of; any other paper is compared here."""
    # lazy: a module `import theorylab` does not load (measured: sys.modules), needed only on this path
    from .._decide import coverage

    steps = list(steps)
    chosen = catalogue.families(list(fams))
    items = ledger_from_steps([(f.paper.name, d) for f in chosen for d in f.derivations], steps)
    rows: list[dict] = []
    names = _whole_papers(chosen)
    for paper, labels, accounts, printed in catalogue.coverage_declarations():
        if paper.name not in names:
            continue
        derivs = [d for f in chosen if f.paper is paper for d in f.derivations]
        results = results_from_steps(derivs, steps)
        derivs = [d for d in derivs if d.key in results]
        done = (compared or {}).get(paper.name)
        if done is not None and list(done["derivations"]) == [d.key for d in derivs]:
            by_label = done["compared"]
        else:  # the print against the citing steps, by machine
            by_label = _compared_rows(paper, [d.key for d in derivs])
        path = catalogue.source_path(paper)  # its sentences: the claims in prose that steps quote (#35)
        for row in coverage.coverage(paper.source, labels, derivs, accounts, results=results, printed=printed,
                                     compared=by_label, text=path.read_text(encoding="utf-8") if path else None):
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

    if spec in ("", "local"):
        # lazy: a module `import theorylab` does not load (measured: sys.modules), needed only on this path (tqdm with it)
        from .._numerics.sweep import InlineExecutor, default_executor

        if jobs <= 1:
            return InlineExecutor(), lambda: None
        ex = default_executor(jobs)
        return ex, lambda: ex.shutdown(cancel_futures=True)
    if spec.startswith("dask://"):
        try:
            # lazy: Dask is an optional dependency (the dask extra)
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
            # lazy: submitit is an optional dependency (the slurm extra)
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
            progress: bool = False, inflight: int | None = None) -> tuple[list[dict], int]:
    """Run the tasks through `executor`; returns (results in plan order, tasks reused from the journal).
    `on_result` is called in plan order too (a task's output is shown once every task before it has finished).
    A part that is `after` other parts waits for them and gets their handoffs; if they are not in the plan (a
    sample), it runs on a stand-in. `inflight`: at most this many tasks submitted at once (a local pool)."""
    # lazy: a module `import theorylab` does not load (measured: sys.modules), needed only on this path (tqdm with it)
    from .._numerics.sweep import load_results, run_sweep

    if not resume and os.path.exists(journal):
        os.unlink(journal)

        shutil.rmtree(journal + ".handoff", ignore_errors=True)

    labels = {(t.key, t.pid): i for i, t in enumerate(tasks) if t.pid is not None}
    params = [t.params(profile, device, seed, threads) for t in tasks]
    for t, p in zip(tasks, params):
        if t.after and not all((t.key, a) in labels for a in t.after):
            p["standin"] = True
    keys = [_key(p) for p in params]
    index = {k: i for i, k in enumerate(keys)}
    needs = {keys[i]: [keys[labels[(t.key, a)]] for a in t.after] for i, t in enumerate(tasks)
             if t.after and "standin" not in params[i]}
    groups = units(tasks)
    results: dict[str, dict] = {}
    shown = [0]

    def on_done(name: str, result: dict) -> None:
        results[name] = result
        if name in index:  # remembered as it finishes: a long --sample killed midway keeps what it measured
            _remember([tasks[index[name]]], [result], profile)
        while shown[0] < len(groups) and all(keys[i] in results for i in groups[shown[0]]):
            g = groups[shown[0]]
            task = tasks[g[0]]
            res = results[keys[g[0]]] if not task.nparts else combine(
                task, [results[keys[i]] for i in g], Context(profile=profile, device=device, seed=seed),
                [tasks[i] for i in g])
            if on_result is not None:
                on_result(task, res)
            shown[0] += 1

    if resume:  # what the killed run finished is shown first, in order
        for name, result in load_results(journal).items():
            if name in keys:
                on_done(name, result)
    os.makedirs(os.path.dirname(os.path.abspath(journal)), exist_ok=True)
    # longest path first (by remembered timings: a task's own time plus the longest chain of parts after it)
    # keeps the workers busy to the end; the record's order is unaffected
    est = [e or 0.0 for e in estimate(tasks, profile, seed)]
    rank = _bottom_levels(tasks, est)
    order = sorted(range(len(tasks)), key=lambda i: -rank[i])
    # a local pool runs its queue in order: keep it fed with no more than its workers, so a part that becomes
    # ready (the next segment of a chain) goes ahead of the rest (Dask and SLURM schedule by themselves)
    inflight = inflight or getattr(executor, "_max_workers", None)
    sweep = run_sweep(run_task, [params[i] for i in order], journal, executor=executor, progress=progress,
                      key=_key, on_done=on_done, needs=needs, inflight=inflight)
    return [sweep.results[k] for k in keys], sweep.reused


def _key(params: Mapping[str, Any]) -> str:
    """A task's name in the journal: everything that changes its result, not how many threads ran it."""
    return json.dumps({k: v for k, v in params.items() if k != "threads"}, sort_keys=True)


def _known() -> dict:
    try:
        with open(_TIMINGS) as fh:
            return json.load(fh)
    except (OSError, json.JSONDecodeError):
        return {}


def estimate(tasks: Sequence[Task], profile: str, seed: int = 0) -> list[float | None]:
    """Seconds each task is expected to take with this profile on this machine (None: not yet measured); see
    `estimates` for where each number comes from."""
    return [s for s, _ in estimates(tasks, profile, seed)]


def estimates(tasks: Sequence[Task], profile: str, seed: int = 0) -> list[tuple[float | None, str]]:
    """(seconds, source) per task, from the timings cache (~/.cache/theorylab/timings.json, or under
    $XDG_CACHE_HOME), which every verify run here updates, and the timings shipped with theorylab (`SHIPPED_TIMINGS`:
    the built-in papers' paper profile as measured for the README). Sources, in order of preference:
    "measured": this task ran here with this profile (a derivation does not depend on the profile: any run of it);
    "part": a check's part not run here, from the parts of the same check (same stage where measured) that ran
    here with this profile (`verify --sample K`): their seconds per unit of declared cost times its cost, or their
    mean without a cost; "shipped": as "measured" or "part", from the shipped timings (with those here) where nothing
    here says; "quick": a check that declares `cost`, its cost times the seconds per unit of cost its
    quick-profile tasks took here; "": not yet measured."""
    known = _known()
    here = _estimates_from(tasks, known, profile, seed)
    shipped = _shipped()
    if not shipped or all(src in ("measured", "part") for _, src in here):
        return here
    both = _estimates_from(tasks, {**shipped, **known}, profile, seed, quick=False)
    return [h if h[1] in ("measured", "part") or b[1] not in ("measured", "part") else (b[0], "shipped")
            for h, b in zip(here, both)]


def _shipped() -> dict:
    try:
        with open(SHIPPED_TIMINGS) as fh:
            return json.load(fh)
    except (OSError, json.JSONDecodeError):  # a trimmed install: plans from what was measured here
        return {}


def _estimates_from(tasks: Sequence[Task], known: Mapping[str, float], profile: str, seed: int,
                    quick: bool = True) -> list[tuple[float | None, str]]:
    """`estimates` from one table of timings (quick=False: no estimate from the quick profile's rate)."""
    out: list[tuple[float | None, str]] = []
    derivs: dict[str, float] = {}
    for k, v in known.items():  # a derivation's time from any profile (the newest profile wins: paper, quick, check)
        prof, kind, label = k.split("|", 2)
        if kind == "derivation" and v is not None and (label not in derivs or prof == profile):
            derivs[label] = v
    rates: dict[str, Any] = {}
    for t in tasks:
        s = known.get(f"{profile}|{t.kind}|{t.label}")
        if s is not None:
            out.append((s, "measured"))
        elif t.kind == "derivation":
            out.append((derivs.get(t.key), "measured" if t.key in derivs else ""))
        else:
            if t.key not in rates:
                rates[t.key] = (_part_rates(t, known, profile, seed), _rate(t, known, seed) if quick else None)
            by_part, rate = rates[t.key]
            if by_part is not None:
                out.append((by_part(t), "part"))
            elif rate is not None:
                out.append((rate * _cost(t, profile, seed, t.part), "quick"))
            else:
                out.append((None, ""))
    return out


def _part_rates(task: Task, known: Mapping[str, float], profile: str, seed: int):
    """A function part -> seconds from the measured parts of the task's check at this profile (None: none
    measured, or the check has no parts)."""

    check = _check(task)
    if check is None or check.parts is None:
        return None
    ctx = Context(profile=profile, seed=seed)
    parts = [Task("check", task.key, task.entries, part=to_jsonable(p), nparts=1) for p in check.parts(ctx)]
    timed = [(p, known.get(f"{profile}|check|{p.label}")) for p in parts]
    timed = [(p, sec) for p, sec in timed if sec is not None]
    if not timed:
        return None
    cost = (lambda p: float(check.cost(ctx, p.part))) if check.cost is not None else None

    def rate(group):
        if cost is not None:
            units = sum(cost(p) for p, _ in group)
            return ("rate", sum(sec for _, sec in group) / units) if units > 0 else None
        return ("mean", sum(sec for _, sec in group) / len(group))

    overall = rate(timed)
    stages: dict[str, Any] = {}
    for p, sec in timed:
        stages.setdefault(json.dumps(p.stage, sort_keys=True), []).append((p, sec))
    stages = {k: rate(v) for k, v in stages.items()}

    def seconds(t: Task) -> float | None:
        r = stages.get(json.dumps(t.stage, sort_keys=True)) or overall
        if r is None:
            return None
        return r[1] * cost(t) if r[0] == "rate" else r[1]

    return seconds


def _bottom_levels(tasks: Sequence[Task], est: Sequence[float]) -> list[float]:
    """Each task's seconds plus the longest chain of parts after it (what still has to run in sequence)."""
    index = {(t.key, t.pid): i for i, t in enumerate(tasks) if t.pid is not None}
    users: dict[int, list[int]] = {}
    for i, t in enumerate(tasks):
        for a in t.after:
            if (t.key, a) in index:
                users.setdefault(index[(t.key, a)], []).append(i)
    level = [0.0] * len(tasks)
    for i in reversed(range(len(tasks))):  # parts come after the parts they need: plan order is topological
        level[i] = est[i] + max((level[j] for j in users.get(i, ()) if j > i), default=0.0)
    return level


def schedule(tasks: Sequence[Task], est: Sequence[float | None], workers: int) -> float:
    """Wall seconds of the plan on `workers` workers: list scheduling, longest remaining chain first, each task
    started once the parts it is after have finished (what `execute` does); unknown estimates count as 0."""
    # lazy: only --dry-run's scheduler needs it; `import theorylab` does not load it
    import heapq

    e = [x or 0.0 for x in est]
    level = _bottom_levels(tasks, e)
    index = {(t.key, t.pid): i for i, t in enumerate(tasks) if t.pid is not None}
    preds = [[index[(t.key, a)] for a in t.after if (t.key, a) in index] for t in tasks]
    users: dict[int, list[int]] = {}
    for i, ps in enumerate(preds):
        for j in ps:
            users.setdefault(j, []).append(i)
    left = [len(ps) for ps in preds]
    ready = [(-level[i], i) for i in range(len(tasks)) if not left[i]]
    heapq.heapify(ready)
    running: list[tuple[float, int]] = []
    now, free = 0.0, max(1, workers)
    while ready or running:
        while ready and free:
            _, i = heapq.heappop(ready)
            heapq.heappush(running, (now + e[i], i))
            free -= 1
        now, i = heapq.heappop(running)
        free += 1
        for j in users.get(i, ()):
            left[j] -= 1
            if not left[j]:
                heapq.heappush(ready, (-level[j], j))
    return now


def cluster_size(spec: str) -> int | None:
    """Workers of the executor `spec` names, where it can say (a Dask scheduler's worker threads); else None."""
    if not spec.startswith("dask://"):
        return None
    try:
        # lazy: Dask is an optional dependency (the dask extra)
        from distributed import Client

        with Client(spec[len("dask://"):], timeout=20) as client:
            return sum(client.nthreads().values()) or None
    except Exception:  # noqa: BLE001 - the dry run then falls back to --jobs or the cores here
        return None


def _check(task: Task):

    return next((c for c in catalogue.checks([task.family]) if c.name == task.key), None)


def _cost(task: Task, profile: str, seed: int, part: Any) -> float:

    check = _check(task)
    ctx = Context(profile=profile, seed=seed)
    return float(check.cost(ctx, part) if check.parts is not None else check.cost(ctx))


def _rate(task: Task, known: Mapping[str, float], seed: int) -> float | None:
    """Seconds per unit of declared cost, from the check's quick-profile timings on this machine."""

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
    known = _known()
    for t, r in zip(tasks, results):
        known[f"{profile}|{t.kind}|{t.label}"] = r.get("seconds")

    try:
        write_json(_TIMINGS, known, indent=0, sort_keys=True, prefix=".timings-")
    except OSError:  # a read-only home: estimates are a convenience
        pass


# -- the front door: verify a selection, check its derivations, plan it ----------------------------------


def resolve_device(choice: str) -> str:
    """"auto" (CUDA where torch sees it, else CPU), "cpu" (torch is not imported) or "cuda" (a one-line DomainError
    where there is none): `training.resolve_device`, by its name."""

    if choice not in ("auto", "cpu", "cuda"):
        raise DomainError(f"--device must be one of auto, cpu, cuda; got --device={choice}")
    if choice == "cpu":
        return choice
    # lazy: training imports torch (~2 s of start-up)
    from .._numerics.training import resolve_device as torch_device

    try:
        return torch_device(choice).type
    except ValueError:
        raise DomainError("--device must be auto or cpu on this machine (no CUDA device); got --device=cuda") from None


def _nonnegative(name: str, value: int, what: str) -> None:

    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise DomainError(f"--{name} must be {what}; got --{name}={value}")


@dataclass(frozen=True, kw_only=True)
class RunStart:
    """What `verify` is about to run (given to its `on_start`)."""

    profile: str
    device: str
    families: tuple[str, ...]
    tasks: int
    executor: str
    jobs: int
    threads: int


def verify(select: Sequence[str] = (), *, profile: str = "quick", device: str = "auto", seed: int = 0,
           jobs: int = 0, executor: str = "local", threads: int = 0, resume: bool = False, sample: int = 0,
           json_path: str | os.PathLike | None = None, slurm: Mapping[str, Any] | None = None,
           on_start: Callable[[RunStart], None] | None = None,
           on_task: Callable[[Task, list, float], None] | None = None, progress: bool = False):
    """Run the derivations and evidence checks of the selected papers, families or entries (all: `()`) and return
    the typed run record (`theorylab._records.record.EvidenceRecord`: steps and evidence as typed frozen records).

    jobs: worker processes (0: the usable cores; 1: in-process); executor: "local", "dask://HOST:PORT", "slurm",
    "submitit-local"; threads: BLAS/torch threads per task (0: the task's share of the cores); sample=K: K parts of
    each stage of a check declared with parts (a finding, not a verdict). With `json_path` the record is written
    there whole (atomically) and the task journal beside it (`json_path + ".tasks.jsonl"`) lets `resume=True`
    continue a killed run; without it the journal lives in a temporary folder. `on_task(task, records)` is called
    in plan order with each task's step or evidence records (typed) and its seconds."""

    # lazy: a module `import theorylab` does not load (measured: sys.modules), needed only on this path
    from .._records.record import EvidenceItem, EvidenceRecord, StepRecord

    ids, fams = catalogue.select(list(select))
    if json_path is not None and os.path.isdir(json_path):  # found before minutes of work, not after
        raise DomainError(f"--json must be a file path; got --json={json_path} (a directory)")
    _nonnegative("jobs", jobs, ">= 1 (0: the usable cores)")
    _nonnegative("sample", sample, ">= 1 parts per check (0: all parts)")
    _nonnegative("threads", threads, ">= 1 (0: the task's share of the cores)")
    if resume and json_path is None:
        raise DomainError("resume needs the record's path (its journal lies beside it); got resume=True, json=None")
    t0 = time.time()
    jobs = jobs or usable_cores()
    # each task's share of this machine's cores (1 when the tasks fill them, as by default, or run elsewhere)
    threads = threads or (max(1, usable_cores() // jobs) if executor in (None, "local") else 1)
    device = resolve_device(device)
    tasks = plan(ids, Context(profile=profile, device=device, seed=seed), sample=sample, families=fams)
    side = fidelity_tasks(tasks, fams)  # run beside the plan's tasks, not after them; outside its journal
    where = os.path.dirname(os.path.abspath(json_path)) if json_path is not None else None
    with tempfile.TemporaryDirectory(prefix="theorylab-verify-") as tmp:
        journal = (os.fspath(json_path) if json_path is not None else os.path.join(tmp, "run")) + ".tasks.jsonl"
        pool, shutdown = make_executor(executor, jobs, folder=os.path.join(where or tmp, ".theorylab-jobs"),
                                       slurm=slurm)
        if on_start is not None:
            on_start(RunStart(profile=profile, device=device, families=tuple(fams), tasks=len(tasks),
                              executor=executor or "local", jobs=jobs, threads=threads))
        steps: list[StepRecord] = []
        evidence: list[EvidenceItem] = []

        def on_result(task, result):
            if task.kind == "derivation":
                recs: list = [StepRecord(r) for r in result["records"]]
                steps.extend(recs)
            else:
                recs = [EvidenceItem(r) for r in result["records"]]
                evidence.extend(recs)
            if on_task is not None:
                on_task(task, recs, result["seconds"])

        try:
            # submitted first, so a pool starts them at once (its queue is first in, first out; execute keeps at most
            # one task per worker in it); they are not in the journal: a resumed run compares again
            pending = {t.key: pool.submit(run_task, **t.params(profile, device, seed, threads)) for t in side}
            _, reused = execute(tasks, profile=profile, device=device, seed=seed, executor=pool, threads=threads,
                                journal=journal, resume=resume, on_result=on_result, progress=progress)
            compared = {name: _fidelity_result(fut) for name, fut in pending.items()}
        finally:
            shutdown()
    papers = [p.name for p in catalogue.papers() if any(f.name in fams for f in p.families)]
    ledger, coverage = ledger_and_coverage(fams, steps, compared)
    record = EvidenceRecord(profile=profile, device=device, seed=seed, families=fams, papers=papers,
                            derivation_steps=steps, evidence=evidence, ledger=ledger, coverage=coverage,
                            unexpected_steps=sum(not r.ok for r in steps),
                            failed_evidence=sum(r.passed is False for r in evidence),
                            seconds=round(time.time() - t0, 2), tasks=len(tasks), tasks_reused=reused)
    if json_path is not None:
        record.write(json_path)
        if os.path.exists(journal):
            os.unlink(journal)  # the record is whole: nothing is left to resume
    return record


@dataclass(frozen=True, kw_only=True)
class CheckRun:
    """The outcome of `check`: the step records of the selected derivations and how many declared 'as printed'
    differ from the paper's print (theorylab._pipeline.fidelity)."""

    derivations: tuple[Any, ...]
    steps: tuple[Any, ...]
    differ: int = 0

    @property
    def held(self) -> list:
        return [r for r in self.steps if r.status == StepStatus.HOLDS]

    @property
    def unexpected(self) -> int:
        return sum(not r.ok for r in self.steps) + self.differ

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.steps)

    def by_strength(self) -> dict[str, int]:
        return {k: sum(r.strength == k for r in self.held) for k in ("proved", "certified", "searched")}

    @property
    def drafts(self) -> int:
        return sum(r.status.startswith("draft") for r in self.steps)


def derivations_for(ids: set[str], fams: Sequence[str]) -> list:
    """The derivations of these entries (a family's derivations name only its own entries)."""

    return [d for f in catalogue.families(fams) for d in f.derivations if set(d.entries) & ids or not d.entries]


def check(select: Sequence[str] = (), *, jobs: int = 0,
          on_derivation: Callable[[Any, list, Any], None] | None = None, fidelity: bool = True,
          keys: Iterable[str] | None = None) -> CheckRun:
    """Decide the steps of the selected derivations (on `jobs` worker processes; 0: the usable cores) and compare
    the steps declared 'as printed' with the print (printed on stdout; `fidelity=False`: not compared, differ 0).
    `on_derivation(d, step_records, weakest)` is called in order with each derivation's typed step records and its
    weakest link (`Derivation.weakest`, a StepResult or None). keys: only these derivations of the selection.
    The record `latex` and `show` render (`recorded_steps`)."""

    # lazy: a module `import theorylab` does not load (measured: sys.modules), needed only on this path
    from .._records.record import StepRecord

    ids, fams = catalogue.select(list(select))
    derivs = derivations_for(ids, fams)
    if keys is not None:
        keys = set(keys)
        derivs = [d for d in derivs if d.key in keys]
    _nonnegative("jobs", jobs, ">= 1 (0: the usable cores)")
    family_of = {d.key: f.name for f in catalogue.families(fams) for d in f.derivations}
    tasks = [Task("derivation", d.key, tuple(d.entries) or (f"{family_of[d.key]}.",)) for d in derivs]
    if not jobs:  # in-process where the last check of these derivations took less than starting the workers would
        known = estimate(tasks, "check")
        jobs = 1 if all(s is not None for s in known) and sum(known) < POOL_START_S else usable_cores()
    jobs = min(jobs, max(1, len(derivs)))
    by_key = {d.key: d for d in derivs}
    steps: list[StepRecord] = []

    def on_result(task, result):
        d = by_key[task.key]
        recs = [StepRecord(r) for r in result["records"]]
        by_label = {r.step: r for r in recs}
        weakest = d.weakest([result_from_record(s, by_label[s.label]) for s in d.steps if s.label in by_label])
        if on_derivation is not None:
            on_derivation(d, recs, weakest)
        steps.extend(recs)

    pool, shutdown = make_executor("local", jobs)
    with tempfile.TemporaryDirectory(prefix="theorylab-check-") as tmp:
        try:
            execute(tasks, profile="check", device="cpu", seed=0, executor=pool, threads=1,
                    journal=os.path.join(tmp, "tasks.jsonl"), resume=False, on_result=on_result)
        finally:
            shutdown()
    differ = 0
    if fidelity:
        # lazy: the printed-page comparison and its parser, ~0.3 s `import theorylab` does not pay
        from . import fidelity as _fidelity

        papers = {d.key: f.paper for f in catalogue.families(fams) for d in f.derivations}
        differ, _ = _fidelity.check_section(derivs, papers=papers, families=fams)  # the print against the steps
    return CheckRun(derivations=tuple(derivs), steps=tuple(steps), differ=differ)


def recorded_steps(select: Sequence[str] = (), *, record: str | os.PathLike | None = None, jobs: int = 0,
                   keys: Iterable[str] | None = None) -> tuple:
    """The step records that `latex`, `show` and `errata --record` render: read from a verify record (`record`, a
    JSON file whose families hold the selection; nothing is decided), else decided now by `check` (no fidelity
    section; `jobs` and `keys` as there)."""
    # lazy: a module `import theorylab` does not load (measured: sys.modules), needed only on this path
    from .._records.record import load

    if record is None:
        return check(select, jobs=jobs, fidelity=False, keys=keys).steps
    rec = load(record)
    _, fams = catalogue.select(list(select))
    missing = [f for f in fams if f not in rec.families]
    if missing:
        raise DomainError(f"--record must be a run record of the selected families (`theorylab verify "
                          f"{' '.join(select) + ' ' if select else ''}--json FILE`); {record} holds "
                          f"{', '.join(rec.families) or 'no family'}, not {', '.join(missing)}")
    return tuple(rec.derivation_steps)


def errata(select: Sequence[str] = (), *, record: str | os.PathLike | None = None, evaluate: bool = True) -> list:
    """The ranked errata ledger (LedgerItems) of the selected papers, families or entries (all when empty): each
    erratum confirmed by its step's record in a verify record (`record`: nothing is decided), else by deciding
    that step alone now (`evaluate=False`: none is decided, every erratum "not evaluated")."""

    if record is None:
        return catalogue.ledger(select, evaluate=evaluate)
    if not evaluate:
        raise DomainError(f"--no-eval lists the ledger without a record; got --no-eval with --record {record}")
    steps = recorded_steps(select, record=record)
    _, fams = catalogue.select(list(select))
    pairs = [(f.paper.name, d) for f in catalogue.families(fams) for d in f.derivations]
    return ledger_from_steps(pairs, steps, strict=not list(select))


@dataclass(frozen=True, kw_only=True)
class DryRun:
    """verify's plan with estimated times, nothing run (`dry_run`)."""

    tasks: tuple[Task, ...]
    estimates: tuple[tuple[float | None, str], ...]   # (seconds, "measured" | "part" | "quick") per task
    profile: str
    sample: int
    jobs: int
    wall: float                                       # on `jobs` workers
    critical_path: float                              # on as many workers as tasks
    wall_64: float
    over: Mapping[str, tuple[float, str]]             # check -> (seconds, label) of a part above BOUND_SECONDS

    @property
    def known(self) -> list[float]:
        return [s for s, _ in self.estimates if s is not None]

    @property
    def largest(self) -> tuple[Task, float] | None:
        if not self.known:
            return None
        i = max(range(len(self.tasks)), key=lambda i: self.estimates[i][0] or 0.0)
        return self.tasks[i], self.estimates[i][0]


def dry_run(select: Sequence[str] = (), *, profile: str = "quick", seed: int = 0, sample: int = 0, jobs: int = 0,
            executor: str = "local") -> DryRun:
    """verify's tasks with their estimated times (from timings measured here), the wall time on `jobs` workers
    (0: the Dask cluster's or the usable cores), the critical path and the parts above one CPU-hour; runs nothing."""

    ids, fams = catalogue.select(list(select))
    _nonnegative("jobs", jobs, ">= 1 (0: the usable cores)")
    _nonnegative("sample", sample, ">= 1 parts per check (0: all parts)")
    tasks = plan(ids, Context(profile=profile, device="cpu", seed=seed), sample=sample, families=fams)
    pairs = estimates(tasks, profile, seed)
    est = [s for s, _ in pairs]
    jobs = jobs or cluster_size(executor or "") or usable_cores()
    over: dict[str, tuple[float, str]] = {}
    for t, s in zip(tasks, est):
        if s is not None and s > BOUND_SECONDS and s > over.get(t.key, (0, ""))[0]:
            over[t.key] = (s, t.label)
    return DryRun(tasks=tuple(tasks), estimates=tuple(pairs), profile=profile, sample=sample, jobs=jobs,
                  wall=schedule(tasks, est, jobs), critical_path=schedule(tasks, est, len(tasks)),
                  wall_64=schedule(tasks, est, 64), over=over)
