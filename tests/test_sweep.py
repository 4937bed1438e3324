"""Sweeps resume after a kill and end with identical results; executors are interchangeable."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from theorylab._numerics.sweep import grid, load_results, run_sweep, task_key
from sweep_worker import slow_task

HERE = os.path.dirname(__file__)


def _run(path, workers=2):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([HERE, os.path.dirname(HERE), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([sys.executable, os.path.join(HERE, "sweep_worker.py"), str(path), str(workers)], env=env)


def test_killed_sweep_resumes_and_matches_an_uninterrupted_one(tmp_path):
    reference = tmp_path / "reference.jsonl"
    _run(reference).wait(timeout=120)
    interrupted = tmp_path / "interrupted.jsonl"
    proc = _run(interrupted)
    deadline = time.time() + 60
    while time.time() < deadline and len(load_results(interrupted)) < 6:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    partial = load_results(interrupted)
    assert 6 <= len(partial) < 24, "the kill must land midway"
    with open(interrupted, "a") as fh:  # a torn line, as a kill during a write leaves
        fh.write('{"key": "{\\"a\\": 9')
    tasks = grid(a=range(8), b=(0.5, 1.5, 2.5))
    with ThreadPoolExecutor(max_workers=2) as ex:
        result = run_sweep(slow_task, tasks, interrupted, executor=ex)
    assert result.reused == len(partial) and result.computed == 24 - len(partial)
    assert load_results(interrupted) == load_results(reference)


def test_process_pool_with_spawn_is_the_default(tmp_path):
    tasks = grid(a=range(2), b=(0.5,))
    result = run_sweep(slow_task, tasks, tmp_path / "r.jsonl")
    assert result.computed == 2 and [r["value"] for r in result.ordered(tasks)] == [slow_task(**t)["value"] for t in tasks]


def test_dask_executor_works_unchanged(tmp_path):
    distributed = pytest.importorskip("distributed", reason="dask[distributed] not installed (optional extra)")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2) as client:
        tasks = grid(a=range(3), b=(0.5,))
        result = run_sweep(slow_task, tasks, tmp_path / "d.jsonl", executor=client.get_executor())
    assert sorted(result.results) == sorted(task_key(t) for t in tasks)
