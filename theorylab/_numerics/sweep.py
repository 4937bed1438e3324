"""Sweeps: a pure task over a parameter grid, run on any concurrent.futures-style executor, resumable.

Each finished task is appended to a JSON-lines file as soon as it completes; a sweep started again skips
the tasks already recorded there, so a killed sweep recomputes only what it had not finished.
"""
from __future__ import annotations

import concurrent.futures as cf
import contextlib
import hashlib
import itertools
import json
import multiprocessing
import os
import shutil
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from .._shared import write_json
from .._records.evidence import to_jsonable

__all__ = ["grid", "task_key", "run_sweep", "load_results", "default_executor", "InlineExecutor"]


def grid(**axes: Iterable[Any]) -> list[dict[str, Any]]:
    """The Cartesian product of the axes as a list of parameter dicts, in a stable order."""
    names = list(axes)
    return [dict(zip(names, values)) for values in itertools.product(*(list(axes[n]) for n in names))]


def task_key(params: Mapping[str, Any]) -> str:
    """A stable identifier of a task's parameters (sorted JSON)."""
    return json.dumps(to_jsonable(dict(params)), sort_keys=True)


def load_results(path: str | os.PathLike) -> dict[str, Any]:
    """Finished tasks recorded in a results file: key -> result. A torn last line is ignored."""
    done: dict[str, Any] = {}
    if not os.path.exists(path):
        return done
    with open(path) as fh:
        for line in fh:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by a kill: that task is recomputed
            done[record["key"]] = record["result"]
    return done


def _drop_torn_tail(path: str | os.PathLike) -> None:
    """Cut a line torn by a kill back to the last newline, so appended records start on a fresh line."""
    if not os.path.exists(path):
        return
    with open(path, "rb+") as fh:
        data = fh.read()
        if data and not data.endswith(b"\n"):
            fh.truncate(data.rfind(b"\n") + 1)


class InlineExecutor(cf.Executor):
    """Runs each task in this process when submitted (one worker): no pickling, no start-up cost; run_sweep
    records each result before it submits the next task."""

    sequential = True

    def submit(self, fn, /, *args, **kwargs):
        fut: cf.Future = cf.Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - delivered through the future, as a pool would
            fut.set_exception(exc)
        return fut


def default_executor(max_workers: int | None = None) -> cf.Executor:
    """A process pool using the spawn start method: CUDA cannot be re-initialized in a forked child."""
    return cf.ProcessPoolExecutor(max_workers=max_workers, mp_context=multiprocessing.get_context("spawn"))


@dataclass(frozen=True)
class SweepResult:
    results: dict[str, Any]
    computed: int
    reused: int

    def ordered(self, tasks: list[Mapping[str, Any]]) -> list[Any]:
        return [self.results[task_key(t)] for t in tasks]  # (with the default key)


def _handoff_dir(path: str | os.PathLike) -> str:
    return os.fspath(path) + ".handoff"


def _handoff_file(path: str | os.PathLike, name: str) -> str:
    return os.path.join(_handoff_dir(path), hashlib.sha1(name.encode()).hexdigest() + ".json")


def run_sweep(fn: Callable[..., Any], tasks: list[Mapping[str, Any]], path: str | os.PathLike, *,
              executor: cf.Executor | None = None, progress: bool = False,
              key: Callable[[Mapping[str, Any]], str] = task_key,
              on_done: Callable[[str, Any], None] | None = None,
              needs: Mapping[str, Sequence[str]] | None = None, inflight: int | None = None) -> SweepResult:
    """Run fn(**task) for every task not yet in `path`, appending each result as it completes.

    `executor` is any object with concurrent.futures' submit(); a Dask `Client.get_executor()` works
    unchanged. With executor=None a spawn-method process pool is created (and shut down) here.
    fn must be picklable (a module-level function) and its result JSON-serializable. `key` names a task in the
    results file (leave out parameters that do not change the result, e.g. thread counts); `on_done(key, result)`
    is called in this thread as each task finishes.

    Dependencies: `needs[key]` lists the keys of tasks (of this sweep) that a task must wait for; it is then
    called with `inputs=[...]`, the `handoff` of each of them in that order. A result that is a dict with a
    "handoff" item (e.g. the weights a training segment passes to the next) keeps it out of the results file:
    it is written beside it (`path`.handoff/) until every task that needs it has finished, so a resumed sweep
    still has it and the results file stays small. Tasks are submitted in the order given as they become
    ready; `inflight` caps how many are submitted at once (a pool runs its queue first in, first out, so a cap
    lets a later-ready task of a long chain go ahead of the rest).
    """
    needs = {k: list(v) for k, v in (needs or {}).items() if v}
    _drop_torn_tail(path)
    done = load_results(path)
    names = [key(t) for t in tasks]
    # a finished task whose handoff is still needed but gone (a folder removed by hand) is run again
    lost = {m for n in names if n not in done for m in needs.get(n, ())
            if m in done and not os.path.exists(_handoff_file(path, m))}
    done = {k: v for k, v in done.items() if k not in lost}
    todo = [(n, t) for n, t in zip(names, tasks) if n not in done]
    reused = len(tasks) - len(todo)
    users: dict[str, set[str]] = {}  # a task -> the unfinished tasks that need its handoff
    for n, _ in todo:
        for m in needs.get(n, ()):
            users.setdefault(m, set()).add(n)
    missing = sorted({m for n, _ in todo for m in needs.get(n, ()) if m not in done and m not in names})
    if missing:
        raise ValueError(f"a task needs {missing[0]!r}, which is not in this sweep")
    if not todo:
        _clean_handoffs(path, users)
        return SweepResult(done, 0, reused)
    own = executor is None
    executor = executor or default_executor()
    bar = None
    if progress:
        from tqdm.auto import tqdm  # lazy: tqdm.auto costs ~35 ms of start-up; only a shown bar needs it

        bar = tqdm(total=len(todo), desc="sweep", unit="task")
    handoffs: dict[str, Any] = {}  # handoffs of finished tasks still needed, in memory

    def handoff(name: str) -> Any:
        if name not in handoffs:
            with open(_handoff_file(path, name)) as fh:
                handoffs[name] = json.load(fh)
        return handoffs[name]

    try:
        with open(path, "a") as fh:
            def record(fut, name):
                result = to_jsonable(fut.result())
                if isinstance(result, dict) and "handoff" in result:
                    if users.get(name):
                        write_json(_handoff_file(path, name), result["handoff"], indent=None, prefix=".handoff-")
                        handoffs[name] = result["handoff"]
                    result = {k: v for k, v in result.items() if k != "handoff"}
                fh.write(json.dumps({"key": name, "result": result}) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
                done[name] = result
                for m in needs.get(name, ()):  # its inputs are no longer needed by it
                    users.get(m, set()).discard(name)
                    if m in users and not users[m]:
                        del users[m]
                        handoffs.pop(m, None)
                        with contextlib.suppress(OSError):
                            os.unlink(_handoff_file(path, m))
                if on_done is not None:
                    on_done(name, result)
                if bar is not None:
                    bar.update(1)

            def call(name, task):
                if name in needs:
                    return executor.submit(fn, **task, inputs=[handoff(m) for m in needs[name]])
                return executor.submit(fn, **task)

            waiting = list(todo)
            running: dict[Any, str] = {}
            cap = inflight if inflight and inflight > 0 else len(todo)
            sequential = getattr(executor, "sequential", False)  # one at a time, each recorded before the next
            while waiting or running:
                for item in list(waiting):
                    if len(running) >= (1 if sequential else cap):
                        break
                    name, task = item
                    if all(m in done for m in needs.get(name, ())):
                        waiting.remove(item)
                        running[call(name, task)] = name
                if not running:
                    raise ValueError(f"tasks wait on each other in a cycle: {waiting[0][0]!r}")
                finished, _ = cf.wait(list(running), return_when=cf.FIRST_COMPLETED)
                for fut in [f for f in running if f in finished]:
                    record(fut, running.pop(fut))
    finally:
        if bar is not None:
            bar.close()
        if own:
            executor.shutdown(cancel_futures=True)
    _clean_handoffs(path, users)
    return SweepResult(done, len(todo), reused)


def _clean_handoffs(path: str | os.PathLike, users: Mapping[str, Any]) -> None:
    """Remove the handoff folder once nothing waits on it."""
    if not any(users.values()):
        shutil.rmtree(_handoff_dir(path), ignore_errors=True)
