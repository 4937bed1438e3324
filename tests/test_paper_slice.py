"""A slice of one paper's paper profile, end to end on cluster executors: ptft-relu's checks of relu.penalty at the
paper's sizes with `--sample 1` (a part of each check stage; the per-unit deviation check runs 1 of its 10 seeds),
through Dask's LocalCluster and through submitit's local executor: the same record from both, a submitit run killed
midway resumes to it, and `theorylab report` renders it like any other record (~160 CPU s on a loaded 2-core
machine: 3 runs of the slice)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from theorylab._numerics.sweep import load_results

SELECT = ["relu.penalty"]
ARGS = ["--profile", "paper", "--sample", "1", "--device", "cpu"]
FAMILIES = "relu,qpenalty"  # 'rho = 1 against seed 000's Q-penalty' calls qpenalty.q
ENV = {**{k: v for k, v in os.environ.items() if k != "THEORYLAB_PAPERS"}, "THEORYLAB_ONLY_FAMILIES": FAMILIES,
       "PYTHONUNBUFFERED": "1"}  # (plus XDG_CACHE_HOME, per test)


def _argv(path, *extra):
    return [sys.executable, "-m", "theorylab", "verify", *SELECT, *ARGS, "--json", str(path), *extra]


def _verify(path, *extra):
    done = subprocess.run(_argv(path, *extra), capture_output=True, text=True, env=ENV, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def _timeless(x):
    """The record without what differs between runs: seconds."""
    if isinstance(x, dict):
        return {k: _timeless(v) for k, v in x.items() if k != "seconds"}
    if isinstance(x, list):
        return [_timeless(v) for v in x]
    if isinstance(x, str):
        return re.sub(r"\d+(\.\d+)? s\b", "# s", x)
    return x


def _record(path):
    """The record less what may differ between runs: seconds, and of a derivation step anything but its verdict
    (a search's points and wording depend on its time budget and on the step cache)."""
    data = json.loads(path.read_text())
    steps = [{k: r[k] for k in ("derivation", "step", "status", "ok")} for r in data["derivation_steps"]]
    return _timeless({"steps": steps, **{k: data[k] for k in ("profile", "families", "evidence")}})


def test_a_sampled_paper_slice_runs_on_dask_and_submitit_resumes_and_reports(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    pytest.importorskip("submitit")
    monkeypatch.setitem(ENV, "XDG_CACHE_HOME", str(tmp_path / "cache"))  # these runs' timings stay out of the cache
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  env={"THEORYLAB_ONLY_FAMILIES": FAMILIES}) as cluster:
        ref = tmp_path / "dask.json"
        out = _verify(ref, "--executor", f"dask://{cluster.scheduler_address}")
    assert "tasks on dask://" in out
    reference = _record(ref)
    sampled = [r for r in reference["evidence"] if r.get("record") == "finding" and "sampled 1 of 10" in r["check"]]
    assert len(sampled) == 1 and len(sampled[0]["values"]["parts"]) == 1
    assert any(r.get("passed") for r in reference["evidence"])  # the slice's whole checks give verdicts

    # on submitit's local executor, killed once a task has finished and resumed: the same record
    path, journal = tmp_path / "submitit.json", tmp_path / "submitit.json.tasks.jsonl"
    proc = subprocess.Popen(_argv(path, "--executor", "submitit-local"), env=ENV, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 600
    while time.time() < deadline and len(load_results(journal)) < 1 and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = len(load_results(journal))
    assert finished >= 1 and not path.exists(), "the kill must land before the run ends"
    out = _verify(path, "--executor", "submitit-local", "--resume")
    assert "tasks on submitit-local" in out and re.search(rf"{finished} of \d+ tasks reused from the journal", out)
    assert _record(path) == reference

    report = subprocess.run([sys.executable, "-m", "theorylab", "report", "--evidence", str(path), "-o",
                             str(tmp_path / "report")], capture_output=True, text=True, env=ENV, timeout=300)
    assert report.returncode == 0, report.stderr[-2000:]
    html = (tmp_path / "report" / "index.html").read_text()
    assert "sampled 1 of 10 parts" in html and "per-unit deviation" in html
