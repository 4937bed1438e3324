"""verify as tasks: a killed run resumes to the same record recomputing only what was unfinished; Dask and
submitit executors give the same record as the in-process one; the plan is listed by --dry-run."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from theorylab.sweep import load_results

FAMILY = "measure"  # two tasks (a derivation, a check), seconds each: enough to kill between them
ENV = {**os.environ, "THEORYLAB_ONLY_FAMILIES": FAMILY, "PYTHONUNBUFFERED": "1"}


def _verify(path, *extra, timeout=600):
    done = subprocess.run([sys.executable, "-m", "theorylab", "verify", FAMILY, "--json", str(path), *extra],
                          capture_output=True, text=True, env=ENV, timeout=timeout)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def _records(path):
    data = json.loads(path.read_text())
    assert data["schema_version"] == 2
    return data["derivation_steps"], data["evidence"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    path = tmp_path_factory.mktemp("ref") / "ev.json"
    _verify(path, "--jobs", "1")
    return _records(path)


def test_a_killed_verify_resumes_to_the_same_record(tmp_path, reference):
    path = tmp_path / "ev.json"
    journal = tmp_path / "ev.json.tasks.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "theorylab", "verify", FAMILY, "--json", str(path), "--jobs", "1"],
                            env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline and len(load_results(journal)) < 1 and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = load_results(journal)
    assert len(finished) == 1 and not path.exists(), "the kill must land between the two tasks"
    out = _verify(path, "--jobs", "1", "--resume")
    assert "1 of 2 tasks reused from the journal" in out
    assert _records(path) == reference
    assert not journal.exists()


def test_dask_local_cluster_gives_the_same_record(tmp_path, reference):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  env={"THEORYLAB_ONLY_FAMILIES": FAMILY}) as cluster:
        path = tmp_path / "ev.json"
        out = _verify(path, "--executor", f"dask://{cluster.scheduler_address}")
    assert "tasks on dask://" in out and _records(path) == reference


def test_submitit_local_executor_gives_the_same_record(tmp_path, reference):
    pytest.importorskip("submitit")
    path = tmp_path / "ev.json"
    out = _verify(path, "--executor", "submitit-local")
    assert "tasks on submitit-local" in out and _records(path) == reference


def test_dry_run_lists_the_tasks_and_runs_nothing(tmp_path):
    out = _verify(tmp_path / "ev.json", "--dry-run")
    assert "2 tasks, profile quick" in out and not (tmp_path / "ev.json").exists()


def test_bad_executor_is_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "theorylab", "verify", FAMILY, "--json", str(tmp_path / "e.json"),
                           "--executor", "nowhere"], capture_output=True, text=True, env=ENV, timeout=120)
    assert done.returncode == 2 and done.stderr.startswith("error: --executor must be") and done.stdout == ""


def test_check_names_are_unique_across_the_catalogue():
    """verify addresses a check by its name: two papers' checks of one name would make the whole run refuse."""
    from collections import Counter

    from theorylab import catalogue

    names = Counter(c.name for c in catalogue.checks())
    assert not [n for n, k in names.items() if k > 1], names.most_common(3)
