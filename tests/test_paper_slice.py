"""A slice of ptft-relu's checks of relu.penalty with `--sample 1` (a part of each check stage; the per-unit deviation
check runs 1 of its seeds: 3 on the quick profile, 10 on the paper profile), end to end on cluster executors.

Default run: the quick profile's slice on submitit's local executor, killed once a task has finished and resumed:
the slice's record is whole (every planned task and derivation, the sampled part, verdicts) and `theorylab report`
renders it like any other record (about 60 CPU s; the paper profile's slice is 120-150 CPU s, most of it the sampled
training part: one seed of the paper-size networks).
`-m paper`: the same at the paper profile's sizes, and that slice through Dask's LocalCluster gives the same record
as the resumed submitit run (a second run of the slice). That any executor, Dask's included, gives the in-process
record and that a killed run resumes to the uninterrupted record is asserted in the default run on a small family
by tests/test_runner.py (test_dask_local_cluster_gives_the_same_record,
test_submitit_local_executor_gives_the_same_record, test_a_killed_verify_resumes_to_the_same_record)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from theorylab._numerics.sweep import load_results

SELECT = ["relu.penalty"]
ARGS = ["--sample", "1", "--device", "cpu"]
SEEDS = {"quick": 3, "paper": 10}  # the per-unit deviation check's parts (verify/relu_networks.py, _sizes' seeds)
FAMILIES = "relu,qpenalty"  # 'rho = 1 against seed 000's Q-penalty' calls qpenalty.q
ENV = {**{k: v for k, v in os.environ.items() if k != "THEORYLAB_PAPERS"}, "THEORYLAB_ONLY_FAMILIES": FAMILIES,
       "PYTHONUNBUFFERED": "1"}  # (plus XDG_CACHE_HOME, per test)


def _argv(profile, path, *extra):
    return [sys.executable, "-m", "theorylab", "verify", *SELECT, "--profile", profile, *ARGS, "--json", str(path),
            *extra]


def _verify(profile, path, *extra, env=ENV):
    done = subprocess.run(_argv(profile, path, *extra), capture_output=True, text=True, env=env, timeout=900)
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


@pytest.fixture(scope="module", params=["quick", pytest.param("paper", marks=pytest.mark.paper)])
def resumed(request, tmp_path_factory):
    """The slice on submitit's local executor, killed once a task has finished and resumed: (profile, record path,
    what the resumed run printed, the tasks finished before the kill, the environment)."""
    pytest.importorskip("submitit")
    profile = request.param
    tmp = tmp_path_factory.mktemp(f"slice-{profile}")
    env = {**ENV, "XDG_CACHE_HOME": str(tmp / "cache")}  # these runs' timings stay out of the cache
    # ... but not the verdicts of relu's derivations: steps are pure and keyed by content and engine, so the session's
    # step cache serves them (the records are compared by verdict, not by wording: `_record`), instead of deciding
    # them cold in each run (about 20 CPU s)
    shared = Path(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))) / "theorylab" / "steps"
    shared.mkdir(parents=True, exist_ok=True)
    (tmp / "cache" / "theorylab").mkdir(parents=True)
    (tmp / "cache" / "theorylab" / "steps").symlink_to(shared, target_is_directory=True)
    path, journal = tmp / "submitit.json", tmp / "submitit.json.tasks.jsonl"
    # its own process group: the kill takes the run's submitit jobs with it (SIGKILL to verify alone left its other
    # tasks running as orphans to the end, measured: six processes, 20+ CPU s beside the resumed run, results unused)
    proc = subprocess.Popen(_argv(profile, path, "--executor", "submitit-local"), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 600
    while time.time() < deadline and len(load_results(journal)) < 1 and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = len(load_results(journal))
    assert finished >= 1 and not path.exists(), "the kill must land before the run ends"
    out = _verify(profile, path, "--executor", "submitit-local", "--resume", env=env)
    return profile, path, out, finished, env


def test_a_sampled_slice_killed_on_submitit_resumes_whole_and_reports(resumed, tmp_path):
    profile, path, out, finished, env = resumed
    assert "tasks on submitit-local" in out
    record = _record(path)
    # whole: the resumed run ran the plan's every task (--dry-run lists them) and holds every planned derivation
    dry = _verify(profile, path.with_name("dry.json"), "--dry-run", env=env)
    tasks = int(re.search(rf"^(\d+) tasks, profile {profile}", dry, flags=re.M).group(1))
    assert re.search(rf"\b{finished} of {tasks} tasks reused from the journal", out), (finished, tasks, out[-2000:])
    planned = set(re.findall(r"^\s*derivation\s+(\S+)", dry, flags=re.M))
    assert planned and {s["derivation"] for s in record["steps"]} == planned, planned
    sampled = [r for r in record["evidence"]
               if r.get("record") == "finding" and f"sampled 1 of {SEEDS[profile]}" in r["check"]]
    assert len(sampled) == 1 and len(sampled[0]["values"]["parts"]) == 1
    assert any(r.get("passed") for r in record["evidence"])  # the slice's whole checks give verdicts
    assert record["steps"] and all(s["ok"] for s in record["steps"]), record["steps"]

    report = subprocess.run([sys.executable, "-m", "theorylab", "report", "--evidence", str(path), "-o",
                             str(tmp_path / "report")], capture_output=True, text=True, env=env, timeout=300)
    assert report.returncode == 0, report.stderr[-2000:]
    html = (tmp_path / "report" / "index.html").read_text()
    assert f"sampled 1 of {SEEDS[profile]} parts" in html and "per-unit deviation" in html


@pytest.mark.paper
def test_the_sampled_slice_on_dask_gives_the_resumed_submitit_record(resumed, tmp_path):
    distributed = pytest.importorskip("distributed")
    profile, path, _, _, env = resumed
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  env={"THEORYLAB_ONLY_FAMILIES": FAMILIES}) as cluster:
        ref = tmp_path / "dask.json"
        out = _verify(profile, ref, "--executor", f"dask://{cluster.scheduler_address}", env=env)
    assert "tasks on dask://" in out
    assert _record(path) == _record(ref)
