"""Runs the blocks of docs/authoring.md marked `<!-- run -->` (tests/test_guide.py, and the scaffold that
tests/test_scaffold.py shares): in three independent groups, so pytest-xdist runs them side by side.

scaffold: the console block that starts with `theorylab new` (section 1: a package of its own, in its own folder);
python:   every python block, in order, in one namespace;
example:  every other console block (they install and run examples/minnorm), with the python blocks that write the
          files those commands run.
Each group runs in a fresh folder holding a copy of examples/, with a throw-away virtual environment on top of this
one (so `pip install -e` changes nothing outside it). Python blocks share one namespace; console blocks run each `$ `
line, which must exit 0; each command's output is kept."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from helpers import builds_in_place, shared_step_cache, throwaway_venv

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "authoring.md"
BLOCK = re.compile(r"<!-- run -->\s*\n```(python|console)\n(.*?)```", re.S)
GROUPS = ("scaffold", "python", "example")

DRIVER = r'''
import json, subprocess, sys, traceback
blocks = json.load(open(sys.argv[1]))
namespace = {"__name__": "__guide__"}
outputs = {}
for k, kind, text in blocks:
    print(f"=== block {k} ({kind})", flush=True)
    if kind == "python":
        try:
            exec(compile(text, f"<guide block {k}>", "exec"), namespace)
        except BaseException:
            traceback.print_exc()
            print(f"FAILED: block {k}", flush=True)
            sys.exit(1)
        continue
    for line in text.splitlines():
        if not line.startswith("$ "):
            continue
        command = line[2:].split("  #")[0]
        print(f"$ {command}", flush=True)
        run = subprocess.run(command, shell=True, capture_output=True, text=True)
        print(run.stdout[-4000:], run.stderr[-4000:], flush=True)
        outputs[command] = run.stdout
        json.dump(outputs, open(sys.argv[2], "w"))
        if run.returncode:
            print(f"FAILED: block {k}: `{command}` exited {run.returncode}", flush=True)
            sys.exit(1)
print("ALL BLOCKS RAN", flush=True)
'''


def blocks() -> list[tuple[str, str]]:
    return [(kind, text) for kind, text in BLOCK.findall(GUIDE.read_text())]


def groups(found: list[tuple[str, str]] | None = None) -> dict[str, list[int]]:
    """{group: the indices of its blocks, in the guide's order}."""
    found = blocks() if found is None else found
    out: dict[str, list[int]] = {g: [] for g in GROUPS}
    for k, (kind, text) in enumerate(found):
        if kind == "console" and text.lstrip().startswith("$ theorylab new "):
            out["scaffold"].append(k)
        elif kind == "console":
            out["example"].append(k)
        else:
            out["python"].append(k)
            if "write_text(" in text:  # a file a later command runs (the guide's own test file)
                out["example"].append(k)
    out["example"].sort()
    return out


class GuideRun:
    """One group's run: `run` (the driver's CompletedProcess), `outputs` ({command: stdout}), `work` (its folder),
    `python` (its environment's interpreter) and `env` (the environment its commands ran in)."""

    def __init__(self, group: str, tmp_path: Path, *, timeout: float = 1800):
        python = throwaway_venv(tmp_path / "venv")  # sees this environment's packages: theorylab and pip included
        bin_dir = python.parent
        # `theorylab` as the user types it, run by the environment's python (the installed script's shebang names
        # the outer interpreter, which would not see what the guide installs into the venv)
        wrapper = bin_dir / "theorylab"
        wrapper.write_text(f'#!/bin/sh\nexec "{python}" -m theorylab "$@"\n')
        wrapper.chmod(0o755)
        work = tmp_path / "work"
        work.mkdir()
        shutil.copytree(ROOT / "examples", work / "examples",
                        ignore=shutil.ignore_patterns("*.egg-info", "__pycache__", "build"))
        found = blocks()
        chosen = [(k, *found[k]) for k in groups(found)[group]]
        (tmp_path / "blocks.json").write_text(json.dumps(chosen))
        (tmp_path / "driver.py").write_text(DRIVER)
        env = {k: v for k, v in os.environ.items() if k not in ("THEORYLAB_PAPERS", "PYTHONPATH",
                                                                   "PIP_NO_BUILD_ISOLATION", "PIP_NO_INDEX")}
        env.update(PATH=os.pathsep.join([str(bin_dir), env.get("PATH", "")]),
                   THEORYLAB_ONLY_FAMILIES="my_paper,minnorm",      # the built-in papers are not needed here
                   # its own caches, but the session's step cache: minnorm's steps are decided once for the guide,
                   # the example's own tests and the notebook, not cold by each
                   XDG_CACHE_HOME=str(shared_step_cache(tmp_path / "cache")),
                   PIP_NO_DEPS="1", MPLBACKEND="Agg")
        if builds_in_place():  # offline, nothing downloaded: this environment's setuptools builds the guide's packages
            env.update(PIP_NO_BUILD_ISOLATION="0", PIP_NO_INDEX="1")  # (pip reads "0" here as: no build isolation)
        # otherwise pip builds them in isolation with setuptools from its index, never with the base interpreter's.
        # Nothing is uninstalled afterwards: pip installs into the throw-away environment's own folder only.
        self.run = subprocess.run([str(python), str(tmp_path / "driver.py"), str(tmp_path / "blocks.json"),
                                   str(tmp_path / "outputs.json")], cwd=work, env=env, capture_output=True, text=True,
                                  timeout=timeout)
        outputs = tmp_path / "outputs.json"
        self.outputs = json.loads(outputs.read_text()) if outputs.exists() else {}
        self.work, self.python, self.env = work, python, env

    def pip_failed(self) -> bool:
        out = self.run.stdout
        return "Could not" in out and "pip" in out and "FAILED" in out and "install" in out

    def ok(self) -> bool:
        return self.run.returncode == 0 and "ALL BLOCKS RAN" in self.run.stdout

    def why(self) -> str:
        return self.run.stdout[-6000:] + self.run.stderr[-3000:]
