"""The example notebook runs headless (nbclient) and every record in it renders: an entry as LaTeX, a derivation
and its step results as HTML tables, evidence with its tolerance and source, an erratum with its counterexample."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import shared_step_cache

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "minnorm"


def test_notebook_runs_headless_and_renders(monkeypatch, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(EXAMPLE), os.environ.get("PYTHONPATH", "")])))
    monkeypatch.setenv("THEORYLAB_PAPERS", "theorylab_minnorm")
    monkeypatch.setenv("THEORYLAB_ONLY_FAMILIES", "minnorm")
    # its own caches, but the session's step cache (tests/helpers.py: verdicts keyed by content and engine): the
    # derivation's verdicts are the engine's, decided once for the guide, the example's tests and this notebook
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared_step_cache(tmp_path / "cache")))
    nb = nbformat.read(EXAMPLE / "notebook.ipynb", as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
                            ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    data = [o.get("data", {}) for o in outputs]
    latex = [d["text/latex"] for d in data if "text/latex" in d]
    html = "\n".join(d["text/html"] for d in data if "text/html" in d)
    assert any(r"R(\gamma) = \begin{cases}" in t for t in latex)                        # the entry
    assert "not checked yet" in html and "<table>" in html                               # the derivation, unchecked
    assert html.count("&#10003;") >= 8 and "numeric identity test" in html               # its results
    assert "tolerance" in html and "standard errors" in html and "passed" in html        # evidence
    assert "Erratum demo-variance" in html and "erratum" in html and "n=20" in html      # the erratum and its verdict
    assert "<Derivation" not in html and "Derivation(key=" not in str(data)              # no dataclass reprs
