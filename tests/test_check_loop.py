"""An author's edit-check loop: `theorylab check` says how many verdicts came from the step cache and decides again only
the step that changed; `check --watch` re-checks on every save and prints only what changed (benchmarks/ldyn_paper.py,
a synthetic paper of 4 steps per display)."""
from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import ldyn_paper  # noqa: E402

DISPLAYS = 3  # 12 steps: enough for a cache and an edit, cheap to decide cold


def _env(tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("THEORYLAB_PAPERS", "PYTHONPATH")}
    env.update(XDG_CACHE_HOME=str(tmp_path / "cache"), THEORYLAB_ONLY_FAMILIES="ldyn", THEORYLAB_WATCH_INTERVAL="0.1",
               PYTHONUNBUFFERED="1")
    return env


class _Lines:
    """A running process's stdout, line by line, with a deadline per wait."""

    def __init__(self, proc):
        self.proc, self.q, self.seen = proc, queue.Queue(), []
        threading.Thread(target=lambda: [self.q.put(x) for x in proc.stdout], daemon=True).start()

    def until(self, text: str, timeout: float = 120) -> list[str]:
        """The lines up to and including the first that contains `text`."""
        got, deadline = [], time.time() + timeout
        while time.time() < deadline:
            try:
                line = self.q.get(timeout=0.2)
            except queue.Empty:
                assert self.proc.poll() is None, f"the watcher ended: {''.join(self.seen)[-3000:]}"
                continue
            got.append(line)
            self.seen.append(line)
            if text in line:
                return got
        raise AssertionError(f"no line with {text!r} within {timeout} s: {''.join(self.seen)[-3000:]}")


def test_watch_rechecks_on_save_and_prints_only_what_changed(tmp_path):
    path = ldyn_paper.write(tmp_path / "paper", displays=DISPLAYS)
    n = 4 * DISPLAYS
    proc = subprocess.Popen([sys.executable, "-m", "theorylab", "check", "ldyn", "--paper", str(path), "--watch"],
                            cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        out = _Lines(proc)
        first = "".join(out.until("watching"))
        assert f"{n} steps: 0 from the step cache, {n} decided" in first, first  # an empty cache: all decided
        assert "(edited) power rule" in first and "(0a) power rule" in first  # the first run shows every step
        ldyn_paper.write(path.parent, edit=1, displays=DISPLAYS)  # the author edits one step and saves
        second = "".join(out.until("watching"))
        assert "changed: ldyn_paper.py" in second, second
        assert f"{n} steps: {n - 1} from the step cache, 1 decided" in second, second
        assert "(edited) power rule" in second and "holds (proved)" in second, second  # the changed line
        assert "(0a)" not in second and "(2d)" not in second, second  # nothing that did not change
        with open(path, "a") as fh:  # a save that does not import: one error line, and the watcher goes on
            fh.write("broken(\n")
        third = "".join(out.until("watching"))
        assert "error: paper --paper" in third and "SyntaxError" in third, third
        ldyn_paper.write(path.parent, edit=0, displays=DISPLAYS)  # undone: every verdict is in the cache again
        fourth = "".join(out.until("watching"))
        assert f"{n} steps: {n} from the step cache, 0 decided" in fourth, fourth
    finally:
        proc.kill()
        proc.wait()
    # a one-shot check after the edit decides the edited step alone and says so
    ldyn_paper.write(path.parent, edit=2, displays=DISPLAYS)
    run = subprocess.run([sys.executable, "-m", "theorylab", "check", "ldyn", "--paper", str(path)], cwd=tmp_path,
                         env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert f"{n} steps in {DISPLAYS} derivations: {n} hold" in run.stdout
    assert f"{n} steps: {n - 1} from the step cache, 1 decided" in run.stdout, run.stdout[-2000:]


def test_watch_refuses_a_misquote_as_one_line_and_goes_on(monkeypatch, capsys):
    """A saved misquote (`Step(quotes=...)` not found in the source) is the one-line error a one-shot check gives, and
    the watcher keeps watching (plant: the watch loop skipping the quote check decides the steps silently)."""
    import argparse

    from theorylab import cli

    def misquote(select):
        raise ValueError("paper toy, step s: the quoted fragment 'we shw' is not in the source")

    def decided(*a, **k):
        raise AssertionError("decided steps despite a misquote")

    def stop(_):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_check_quotes", misquote)
    monkeypatch.setattr(cli.runner, "check", decided)
    monkeypatch.setattr(cli.time, "sleep", stop)
    assert cli._watch(argparse.Namespace(select=["toy"], paper_modules=[])) == 0
    out = capsys.readouterr().out
    assert "error: paper toy, step s: the quoted fragment 'we shw' is not in the source" in out, out
    assert "watching" in out, out
