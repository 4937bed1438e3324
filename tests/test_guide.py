"""docs/authoring.md runs: every block marked `<!-- run -->` is executed in order, in a fresh folder holding a copy of
examples/, with a throw-away virtual environment on top of this one (so `pip install -e` changes nothing outside it).
Python blocks share one namespace; console blocks run each `$ ` line, which must exit 0; each command's output is
kept, and what the guide's commands print and write about the example paper is asserted here (this run is the
example's end-to-end test through its entry point: tests/test_examples.py keeps what the guide does not run)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import builds_in_place, throwaway_venv

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "authoring.md"
BLOCK = re.compile(r"<!-- run -->\s*\n```(python|console)\n(.*?)```", re.S)

DRIVER = r'''
import json, subprocess, sys, traceback
blocks = json.load(open(sys.argv[1]))
namespace = {"__name__": "__guide__"}
outputs = {}
for k, (kind, text) in enumerate(blocks):
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


def test_guide_marks_its_blocks():
    found = blocks()
    assert len(found) >= 10
    text = GUIDE.read_text()
    # every python/console block of the guide is run (none shown that is not executed)
    assert len(re.findall(r"```(?:python|console)\n", text)) == len(found)


def test_guide_runs(tmp_path):
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
    (tmp_path / "blocks.json").write_text(json.dumps(blocks()))
    (tmp_path / "driver.py").write_text(DRIVER)
    env = {k: v for k, v in os.environ.items() if k not in ("THEORYLAB_PAPERS", "PYTHONPATH", "PIP_NO_BUILD_ISOLATION",
                                                               "PIP_NO_INDEX")}
    env.update(PATH=os.pathsep.join([str(bin_dir), env.get("PATH", "")]),
               THEORYLAB_ONLY_FAMILIES="my_paper,minnorm",      # the built-in papers are not needed here
               XDG_CACHE_HOME=str(tmp_path / "cache"),           # steps are checked, not read from a cache
               PIP_NO_DEPS="1", MPLBACKEND="Agg")
    if builds_in_place():  # offline, nothing downloaded: this environment's setuptools builds the guide's packages
        env.update(PIP_NO_BUILD_ISOLATION="0", PIP_NO_INDEX="1")  # (pip reads "0" here as: no build isolation)
    # otherwise pip builds them in isolation with setuptools from its index, never with the base interpreter's
    try:
        run = subprocess.run([str(python), str(tmp_path / "driver.py"), str(tmp_path / "blocks.json"),
                              str(tmp_path / "outputs.json")], cwd=work, env=env, capture_output=True, text=True,
                             timeout=1800)
    finally:
        for dist in ("my-paper", "theorylab-minnorm"):
            subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "uninstall", "-q", "-y", dist],
                           capture_output=True, timeout=600)
    if "Could not" in run.stdout and "pip" in run.stdout and "FAILED" in run.stdout and "install" in run.stdout:
        pytest.skip(f"pip could not install into a virtual environment here: {run.stdout[-500:]}")
    assert run.returncode == 0 and "ALL BLOCKS RAN" in run.stdout, run.stdout[-6000:] + run.stderr[-3000:]
    out = json.loads((tmp_path / "outputs.json").read_text())
    # the example paper, registered by its entry point alone (the guide pip-installs it): listed, evaluated, checked
    assert "paper minnorm: Minimum-norm least squares in the proportional limit" in out["theorylab list"]
    assert json.loads(out["theorylab eval minnorm.risk gamma=2 r=1 sigma=1"])["value"] == pytest.approx(1.5, rel=1e-15)
    assert "14 steps in 2 derivations: 14 hold" in out["theorylab check minnorm"]
    record = json.loads((work / "minnorm.json").read_text())
    assert record["papers"] == ["minnorm"] and len(record["evidence"]) == 11
    assert all(r["passed"] for r in record["evidence"])
    assert (work / "report" / "index.html").is_file()
    assert (work / "report" / "figures" / "minnorm-double-descent.svg").read_text().count("<path") > 10
    tex = (work / "minnorm.tex").read_text()
    assert r"\title{Minimum-norm least squares in the proportional limit}" in tex and r"\texttt{minnorm.risk}" in tex
