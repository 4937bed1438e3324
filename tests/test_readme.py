"""The README's promises: the catalogue table equals the catalogue, .ci/run runs the README's test command."""
from __future__ import annotations

import pathlib
import re

from theorylab.cli import markdown_table

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_readme_table_is_the_catalogue():
    text = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- catalogue:start -->\n(.*?)\n<!-- catalogue:end -->", text, flags=re.S)
    assert block, "README lacks the catalogue markers"
    assert block.group(1).strip() == markdown_table().strip(), "regenerate with: theorylab list --markdown"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    command = re.search(r"<!-- test-command -->\n```bash\n(.*?)\n```", readme, flags=re.S).group(1).strip()
    ci_lines = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert command in ci_lines
    # in a fresh virtual environment, created and activated before the command runs (issue #28)
    before = ci_lines[:ci_lines.index(command)]
    created = [m.group(1) for ln in before if (m := re.fullmatch(r'python3 -m venv "?([^"\s]+)"?', ln))]
    assert created, ".ci/run must create a fresh venv before the README's test command"
    assert any(ln in (f'. "{created[-1]}/bin/activate"', f'source "{created[-1]}/bin/activate"') for ln in before)


def test_reproduce_commands_are_valid():
    """Every command of the 'Reproduce the papers' table parses, and what each selects (papers or families) exists."""
    import shlex

    from theorylab._pipeline import catalogue
    from theorylab.cli import build_parser

    text = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- reproduce:start -->\n(.*?)\n<!-- reproduce:end -->", text, flags=re.S).group(1)
    commands = re.findall(r"`(theorylab [^`]*)`", block)
    assert len(commands) >= 5
    names = {f.name for f in catalogue.families()} | {p.name for p in catalogue.papers()}
    for cmd in commands:
        for part in cmd.split("&&"):
            args = build_parser().parse_args(shlex.split(part)[1:])
            assert set(getattr(args, "select", []) or []) <= names


def test_the_steps_example_runs():
    """The README's example of an inequality, a limit and a matrix inequality runs and says what it claims."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- steps:start -->\n```python\n(.*?)\n```\n<!-- steps:end -->", text, flags=re.S).group(1)
    exec(compile(block, "README.md#steps", "exec"), {"__name__": "readme_steps"})
