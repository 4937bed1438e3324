"""Parts that follow other parts (a chain of training segments handing off their state), --sample, and the plan
--dry-run prints (largest task, critical path on N workers, a check whose part exceeds one CPU-hour), on a small
synthetic paper: seconds per test."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from theorylab._pipeline import runner
from theorylab._numerics.sweep import load_results

CHAINED = '''
import time
from theorylab import Entry, Family, Paper, Source
from theorylab._records.evidence import Check, compare
from theorylab._records.params import scalar

X = scalar("x", "a real number", low=-10, high=10)
ENTRIES = (Entry(id="chained.double", title="2x", source=Source("chained.txt", "eq (1)"), params=(X,), doc="2x.",
                 formula=2 * X.symbol),)
SLEEP = float(__import__("os").environ.get("CHAINED_SLEEP", "0"))

def _parts(ctx):
    seg = [{"stage": "segment", "id": f"s{i}", "steps": i, "after": [f"s{i - 1}"] if i else []} for i in range(3)]
    return seg + [{"stage": "final", "k": k, "after": ["s2"]} for k in (1, 2)]

def _run(ctx, part):
    time.sleep(SLEEP)
    inputs = part.get("inputs")
    if part["stage"] == "segment":
        x = 0 if not part["after"] else (1000 if inputs is None else inputs[0]["x"])   # None: a stand-in (sample)
        return {"x": x + 1, "handoff": {"x": x + 1, "big": [0.5] * 1000}}
    x = 1000 if inputs is None else inputs[0]["x"]
    return {"value": x * part["k"], "standin": inputs is None}

def _combine(ctx, results):
    finals = [r["value"] for r in results[3:]]
    return [compare("chained.double", "the chain's end, times 1 and 2", "numeric", 9.0, float(sum(finals)),
                    source="exact")]

CHECKS = [Check(name="chained", entries=("chained.double",), kind="numeric", run=_run, parts=_parts,
                combine=_combine, cost=lambda ctx, part: 2.0 if part["stage"] == "segment" else 1.0)]
PAPER = Paper(name="chained", title="Chained", source="chained.txt",
              families=(Family(name="chained", entries=__name__, checks=__name__),))
'''


@pytest.fixture
def paper(tmp_path):
    path = tmp_path / "chained_paper.py"
    path.write_text(CHAINED)
    env = {k: v for k, v in os.environ.items() if k not in ("THEORYLAB_ONLY_FAMILIES", "THEORYLAB_PAPERS")}
    env.update(THEORYLAB_ONLY_FAMILIES="chained", XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONUNBUFFERED="1")

    def run(*extra, sleep=0.0, wait=True):
        argv = [sys.executable, "-m", "theorylab", "verify", "chained", "--paper", str(path), "--json",
                str(tmp_path / "ev.json"), *extra]
        e = {**env, "CHAINED_SLEEP": str(sleep)}
        if not wait:
            return subprocess.Popen(argv, env=e, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return subprocess.run(argv, capture_output=True, text=True, env=e, timeout=300, cwd=tmp_path)

    def cli(*extra, sleep=0.0):
        """The same verify in-process (the CLI's main) for what is not about the process boundary: the plan and a
        sample run on --jobs 1 (one interpreter and SymPy less each). The module reads CHAINED_SLEEP when it is first
        imported, and runner its timings file's path (from $XDG_CACHE_HOME) when it is: both set as a process gets
        them."""
        from helpers import run_cli
        from theorylab._shared import cache_path

        with pytest.MonkeyPatch.context() as mp:
            for name in ("THEORYLAB_ONLY_FAMILIES", "XDG_CACHE_HOME"):
                mp.setenv(name, env[name])
            mp.delenv("THEORYLAB_PAPERS", raising=False)
            mp.setenv("CHAINED_SLEEP", str(sleep))
            mp.setattr(runner, "_TIMINGS", cache_path("timings.json"))
            mp.chdir(tmp_path)
            code, out, err = run_cli("verify", "chained", "--paper", str(path), "--json", str(tmp_path / "ev.json"),
                                     *extra)
        return subprocess.CompletedProcess(["theorylab", "verify", *extra], code, out, err)

    run.tmp, run.cli = tmp_path, cli
    return run


def _evidence(tmp):
    return json.loads((tmp / "ev.json").read_text())["evidence"]


def test_a_chain_hands_off_in_order_and_leaves_nothing_behind(paper):
    done = paper("--jobs", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    ev = _evidence(paper.tmp)
    assert len(ev) == 1 and ev[0]["passed"] and ev[0]["observed"] == 9.0
    assert not (paper.tmp / "ev.json.tasks.jsonl").exists() and not (paper.tmp / "ev.json.tasks.jsonl.handoff").exists()


def test_a_chain_killed_midway_resumes_from_the_last_handoff(paper):
    journal = paper.tmp / "ev.json.tasks.jsonl"
    proc = paper("--jobs", "1", sleep=1.0, wait=False)
    deadline = time.time() + 120
    while time.time() < deadline and len(load_results(journal)) < 2 and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = load_results(journal)
    assert 2 <= len(finished) < 5, "the kill must land inside the chain"
    assert all("handoff" not in r for r in finished.values()), "handoffs stay out of the journal"
    assert list((paper.tmp / "ev.json.tasks.jsonl.handoff").iterdir()), "the last segment's handoff waits beside it"
    done = paper("--jobs", "1", "--resume")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(finished)} of 5 tasks reused from the journal" in done.stdout
    assert _evidence(paper.tmp)[0]["observed"] == 9.0


def test_sample_measures_a_part_per_stage_and_the_plan_uses_it(paper):
    # sleep=0.3 throughout: the paper module reads it once, when the first run imports it (dry runs run no part)
    before = paper.cli("--dry-run", "--profile", "paper", sleep=0.3)
    assert before.returncode == 0 and "5 not yet measured" in before.stdout, before.stdout
    sample = paper.cli("--profile", "paper", "--sample", "1", "--jobs", "1", sleep=0.3)
    assert sample.returncode == 0, sample.stdout + sample.stderr
    ev = _evidence(paper.tmp)
    assert len(ev) == 1 and ev[0]["record"] == "finding" and "sampled 2 of 5 parts" in ev[0]["check"]
    assert [p["part"]["stage"] for p in ev[0]["values"]["parts"]] == ["segment", "final"]
    plan = paper.cli("--dry-run", "--profile", "paper", "--jobs", "2", sleep=0.3)
    assert plan.returncode == 0, plan.stderr
    out = plan.stdout
    assert "5 estimated from timings here, 0 not yet measured" in out and "from measured parts" in out, out
    assert "largest task:" in out and "critical path:" in out and "no task is estimated above one CPU-hour" in out


def test_the_plan_names_a_check_whose_part_exceeds_one_cpu_hour(paper):
    cache = paper.tmp / "cache" / "theorylab"
    cache.mkdir(parents=True)
    label = 'chained [{"after": [], "id": "s0", "stage": "segment", "steps": 0}]'
    (cache / "timings.json").write_text(json.dumps({f"paper|check|{label}": 5000.0}))
    out = paper.cli("--dry-run", "--profile", "paper").stdout
    assert "OVER ONE CPU-HOUR: check 'chained'" in out and "~5000 s" in out, out


def _tasks(chain: int, side: int):
    parts = [{"id": f"c{i}", "after": [f"c{i - 1}"] if i else []} for i in range(chain)] + [{"k": k} for k in range(side)]
    return [runner.Task("check", "x", ("x.y",), part=p, nparts=len(parts)) for p in parts]


def test_schedule_is_the_critical_path_with_enough_workers_and_the_work_over_one():
    tasks = _tasks(4, 6)
    est = [10.0] * 4 + [5.0] * 6
    assert runner.schedule(tasks, est, 1) == pytest.approx(70.0)
    assert runner.schedule(tasks, est, 64) == pytest.approx(40.0)    # the chain
    assert runner.schedule(tasks, est, 2) == pytest.approx(40.0)     # the side tasks fit beside the chain
    assert runner.schedule(tasks, [None] * 10, 4) == 0.0
