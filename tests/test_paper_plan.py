"""The paper profile's plan, from the timings `verify --profile paper --sample 1` measured (benchmarks/
paper_timings.json, a snapshot of the timings cache): every task estimated from a measured part of its check, none
above one CPU-hour, and the README's "Reproduce the papers" table equal to the plan."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "benchmarks" / "paper_timings.json"
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
