"""The paper profile's plan, from the timings `verify --profile paper --sample 1` measured (theorylab/_pipeline/
paper_timings.json, a snapshot of the timings cache shipped as package data): every task estimated from a measured part
of its check, none above one CPU-hour, the README's "Reproduce the papers" table equal to the plan, and
`theorylab verify --profile paper --dry-run` on a machine that has measured nothing printing the same plan."""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "theorylab" / "_pipeline" / "paper_timings.json"
sys.path.insert(0, str(ROOT / "benchmarks"))


@pytest.fixture(scope="module")
def plans():
    import paper_plan

    from theorylab._pipeline import runner

    keep = runner._TIMINGS
    try:
        yield paper_plan.plans(str(SNAPSHOT))
    finally:
        runner._TIMINGS = keep


def test_every_paper_task_is_measured_and_none_exceeds_one_cpu_hour(plans):
    from theorylab._pipeline import runner

    for name, r in plans.items():
        assert r["unmeasured"] == 0, f"{name}: {r['unmeasured']} tasks not yet measured (rerun --sample 1)"
        assert r["over_bound"] == [], f"{name}: checks with a part above {runner.BOUND_SECONDS} s: {r['over_bound']}"
        assert r["largest_s"] <= runner.BOUND_SECONDS


def readme_cells(r) -> tuple[str, str]:
    """The two cells of a row of the README's table that come from the plan."""
    import paper_plan

    return (f"{r['tasks']} tasks, {paper_plan._h(r['work_s'])} of work, largest task {paper_plan._m(r['largest_s'])}",
            f"{paper_plan._h(r['wall_s'][2])} / {paper_plan._h(r['wall_s'][64])}")


def test_the_readme_table_is_the_plan(plans):
    text = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- reproduce:start -->\n(.*?)\n<!-- reproduce:end -->", text, flags=re.S).group(1)
    rows = {}
    for line in block.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0].split(" (")[0]] = cells
    assert set(rows) == set(plans)
    for name, r in plans.items():
        assert tuple(rows[name][4:6]) == readme_cells(r), (name, rows[name][4:6], readme_cells(r))
        assert rows[name][6].startswith("not measured (no GPU lent)")


def test_a_fresh_machine_plans_from_the_shipped_timings(plans, tmp_path, monkeypatch):
    """An empty cache (no timing measured here): the command a user runs plans what the README says, from the timings
    shipped with theorylab (package data, so an installed theorylab finds them), none "not yet measured".
    In-process (the CLI's main, as a process runs it): what is asserted is the plan, not the process boundary, and
    the catalogue a process would import again (every paper's checks, torch: ~14 CPU s) is loaded here already."""
    import tomllib

    import paper_plan
    from helpers import run_cli
    from theorylab._pipeline import runner
    from theorylab._shared import cache_path

    assert Path(runner.SHIPPED_TIMINGS) == SNAPSHOT
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "paper_timings.json" in data["theorylab._pipeline"]
    for name in ("THEORYLAB_PAPERS", "THEORYLAB_ONLY_FAMILIES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "empty-cache"))
    # the timings file a process started now would read: resolved from $XDG_CACHE_HOME as at import
    monkeypatch.setattr(runner, "_TIMINGS", cache_path("timings.json"))
    assert runner._TIMINGS.startswith(str(tmp_path / "empty-cache")) and not os.path.exists(runner._TIMINGS)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("verify", "--profile", "paper", "--dry-run", "--jobs", "2")
    assert code == 0, err[-3000:]
    assert "not yet measured\n" not in out and "OVER ONE CPU-HOUR" not in out, out[-3000:]
    r = plans["all"]
    summary = out.splitlines()[-4:]
    assert summary[0].startswith(f"{r['tasks']} tasks, profile paper; ") and "0 not yet measured" in summary[0], summary
    assert f"({paper_plan._h(r['work_s'])}), about" in summary[0] and f"({paper_plan._h(r['wall_s'][2])}) on 2 jobs" \
        in summary[0] and f"{r['tasks']} from the timings shipped with theorylab" in summary[0], summary
    assert summary[1].startswith("largest task: ") and summary[1].endswith(f"({paper_plan._m(r['largest_s'])})"), summary
    assert f"on 64 workers {r['wall_s'][64]:.0f} s" in summary[2], summary
    assert summary[3] == "no task is estimated above one CPU-hour (3600 s)", summary
