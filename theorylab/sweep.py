"""Sweeps: a pure task over a parameter grid, run on any concurrent.futures-style executor, resumable.

Each finished task is appended to a JSON-lines file as soon as it completes; a sweep started again skips
the tasks already recorded there, so a killed sweep recomputes only what it had not finished.
"""
from __future__ import annotations

import concurrent.futures as cf
import itertools
import json
import multiprocessing
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from .evidence import to_jsonable

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


def run_sweep(fn: Callable[..., Any], tasks: list[Mapping[str, Any]], path: str | os.PathLike, *,
              executor: cf.Executor | None = None, progress: bool = False,
              key: Callable[[Mapping[str, Any]], str] = task_key,
              on_done: Callable[[str, Any], None] | None = None) -> SweepResult:
    """Run fn(**task) for every task not yet in `path`, appending each result as it completes.

    `executor` is any object with concurrent.futures' submit(); a Dask `Client.get_executor()` works
    unchanged. With executor=None a spawn-method process pool is created (and shut down) here.
    fn must be picklable (a module-level function) and its result JSON-serializable. `key` names a task in the
    results file (leave out parameters that do not change the result, e.g. thread counts); `on_done(key, result)`
    is called in this thread as each task finishes.
    """
    _drop_torn_tail(path)
    done = load_results(path)
    todo = [t for t in tasks if key(t) not in done]
    reused = len(tasks) - len(todo)
    if not todo:
        return SweepResult(done, 0, reused)
    own = executor is None
    executor = executor or default_executor()
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo), desc="sweep", unit="task")
    try:
        with open(path, "a") as fh:
            def record(fut, task):
                name = key(task)
                result = to_jsonable(fut.result())
                fh.write(json.dumps({"key": name, "result": result}) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
                done[name] = result
                if on_done is not None:
                    on_done(name, result)
                if bar is not None:
                    bar.update(1)

            if getattr(executor, "sequential", False):  # one task at a time, each recorded before the next
                for t in todo:
                    record(executor.submit(fn, **t), t)
            else:
                futures = {executor.submit(fn, **t): t for t in todo}
                for fut in cf.as_completed(futures):
                    record(fut, futures[fut])
    finally:
        if bar is not None:
            bar.close()
        if own:
            executor.shutdown(cancel_futures=True)
    return SweepResult(done, len(todo), reused)
