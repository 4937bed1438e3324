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

from theorylab._records.record import SCHEMA_VERSION
from theorylab._numerics.sweep import load_results

from helpers import run_cli

FAMILY = "measure"  # two tasks (a derivation, a check), seconds each: enough to kill between them
# THEORYLAB_STEP_CACHE=0: every run checks its steps itself. With the on-disk step cache a run after the reference
# reads the reference's verdicts back and words their method "... [cached]" where the reference says e.g.
# "simplifies to 0", so the records compared here would differ by the cache's state, not by the executor.
ENV = {**os.environ, "THEORYLAB_ONLY_FAMILIES": FAMILY, "PYTHONUNBUFFERED": "1", "THEORYLAB_STEP_CACHE": "0"}


def _verify(path, *extra, timeout=600):
    done = subprocess.run([sys.executable, "-m", "theorylab", "verify", FAMILY, "--json", str(path), *extra],
                          capture_output=True, text=True, env=ENV, timeout=timeout)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def _records(path):
    data = json.loads(path.read_text())
    assert data["schema_version"] == SCHEMA_VERSION
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
                                  env={k: ENV[k] for k in ("THEORYLAB_ONLY_FAMILIES", "THEORYLAB_STEP_CACHE")}
                                  ) as cluster:  # the workers run the tasks: they need the cache off too
        path = tmp_path / "ev.json"
        out = _verify(path, "--executor", f"dask://{cluster.scheduler_address}")
    assert "tasks on dask://" in out and _records(path) == reference


def test_submitit_local_executor_gives_the_same_record(tmp_path, reference):
    pytest.importorskip("submitit")
    path = tmp_path / "ev.json"
    out = _verify(path, "--executor", "submitit-local")
    assert "tasks on submitit-local" in out and _records(path) == reference


# In-process (helpers.run_cli, the CLI's main): neither test is about the process boundary, and a process costs an
# interpreter, SymPy and the catalogue each time (2-4 CPU s); the killed and cluster runs above stay processes.
def test_dry_run_lists_the_tasks_and_runs_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("THEORYLAB_ONLY_FAMILIES", FAMILY)
    code, out, err = run_cli("verify", FAMILY, "--json", str(tmp_path / "ev.json"), "--dry-run")
    assert code == 0, err
    assert "2 tasks, profile quick" in out and not (tmp_path / "ev.json").exists()


def test_bad_executor_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("THEORYLAB_ONLY_FAMILIES", FAMILY)
    code, out, err = run_cli("verify", FAMILY, "--json", str(tmp_path / "e.json"), "--executor", "nowhere")
    assert code == 2 and err.startswith("error: --executor must be") and err.count("\n") == 1 and out == ""
    assert not (tmp_path / "e.json").exists()


def test_check_names_are_unique_across_the_catalogue():
    """verify addresses a check by its name: two papers' checks of one name would make the whole run refuse."""
    from collections import Counter

    from theorylab._pipeline import catalogue

    names = Counter(c.name for c in catalogue.checks())
    assert not [n for n, k in names.items() if k > 1], names.most_common(3)


PARTED = '''
import sympy as sp
from theorylab import Entry, Family, Paper, Source
from theorylab._records.evidence import Check, compare
from theorylab._records.params import scalar

X = scalar("x", "a real number", low=-10, high=10)
ENTRIES = (Entry(id="parted.square", title="x squared", source=Source("parted.txt", "eq (1)"), params=(X,), doc="x^2.",
                 formula=X.symbol ** 2),)

def _parts(ctx):
    return [{"x": v} for v in (1.0, 2.0, 3.0)] + ([{"x": "boom"}] if ctx.seed == 7 else [])

def _run(ctx, part):
    if part["x"] == "boom":
        raise ValueError("planted crash")
    return {"x": part["x"], "sq": part["x"] * part["x"]}

def _combine(ctx, results):
    xs = [r["x"] for r in results]
    return [compare("parted.square", "sum of squares over the parts", "numeric", sum(v * v for v in xs),
                    sum(r["sq"] for r in results), source="exact in float64")]

CHECKS = [Check(name="parted squares", entries=("parted.square",), kind="numeric", run=_run, parts=_parts,
                combine=_combine, cost=lambda ctx, part: 1.0 if part["x"] == "boom" else part["x"])]
PAPER = Paper(name="parted", title="Parted", source="parted.txt",
              families=(Family(name="parted", entries=__name__, checks=__name__),))
'''


def test_a_check_in_parts_runs_as_tasks_and_combines(tmp_path):
    """A check declared with parts becomes one task per part (listed by --dry-run, journaled one by one); its
    records come from combine() over the parts in order; a crashing part fails the check, naming the part."""
    paper = tmp_path / "parted_paper.py"
    paper.write_text(PARTED)
    env = {k: v for k, v in os.environ.items() if k not in ("THEORYLAB_ONLY_FAMILIES", "THEORYLAB_PAPERS")}
    env["THEORYLAB_ONLY_FAMILIES"] = "parted"
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")  # the timings this test makes stay in the test

    def run(*extra):
        return subprocess.run([sys.executable, "-m", "theorylab", "verify", "parted", "--paper", str(paper),
                               "--json", str(tmp_path / "ev.json"), *extra], capture_output=True, text=True,
                              env=env, timeout=300, cwd=tmp_path)

    dry = run("--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.count("parted squares [") == 3 and "3 tasks" in dry.stdout and "0 estimated" in dry.stdout
    ok = run("--jobs", "2")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    ev = json.loads((tmp_path / "ev.json").read_text())["evidence"]
    assert len(ev) == 1 and ev[0]["passed"] and ev[0]["predicted"] == 14.0 and ev[0]["observed"] == 14.0
    # a profile never run here is estimated from the quick profile's seconds per unit of declared cost
    est = run("--dry-run", "--profile", "paper")
    assert est.returncode == 0 and "3 estimated from timings here" in est.stdout, est.stdout
    bad = run("--jobs", "1", "--seed", "7")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    ev = json.loads((tmp_path / "ev.json").read_text())["evidence"]
    assert len(ev) == 1 and not ev[0]["passed"] and "planted crash" in ev[0]["detail"] and '"boom"' in ev[0]["detail"]
