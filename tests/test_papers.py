"""Papers as plugins: an outside paper registers like a built-in one (--paper, THEORYLAB_PAPERS), a paper that fails
to load is a one-line error naming it, a user's own verify.py or derivations.py shadows nothing, and the evidence
record is versioned."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from theorylab._pipeline import catalogue
from theorylab._records.paper import Family, Paper
from theorylab._records.record import SCHEMA_VERSION, load

from helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]

PAPER = textwrap.dedent('''
    """An outside paper: the geometric series, one entry with a derivation step, a check and a figure."""
    import numpy as np
    import sympy as sp

    from theorylab import Derivation, Entry, Family, Paper, Source, Step
    from theorylab._records.evidence import Check, compare
    from theorylab._records.figure import Figure, Series, legend, pyplot
    from theorylab._records.params import scalar

    GAMMA = scalar("gamma", "the ratio of the series", low=-1, high=1, low_open=True, high_open=True)
    gamma = GAMMA.symbol
    SUM = 1 / (1 - gamma)
    SUMS = Series("geometric-partial-sums")

    ENTRIES = (Entry(id="geometric.series", title="Sum of the geometric series", source=Source("geometric.txt", "eq (1)"),
                     doc="sum over k >= 0 of gamma^k, for |gamma| < 1.", params=(GAMMA,), lhs=r"\\sum_{k \\ge 0} \\gamma^k",
                     formula=SUM, stable_form=-1 / (gamma - 1)),)
    DERIVATIONS = (Derivation(key="geometric.series", title="The geometric series", source="geometric.txt", where="eq (1)",
                              entries=("geometric.series",),
                              steps=(Step(label="S - 1 = gamma S", lhs=SUM - 1, rhs=gamma * SUM,
                                          why="shift the series by one term"),)),)


    def _partial_sums(ctx):
        k = np.arange(4000)
        return [compare("geometric.series", f"partial sum to 4000 terms at gamma = {g}", "numeric",
                        ENTRIES[0](gamma=g), float(np.sum(g ** k)), rtol=1e-12,
                        source="truncation: |gamma|^4000 / (1 - |gamma|) < 1e-300", extra=SUMS.tag(gamma=g))
                for g in (-0.5, 0.0, 0.5)]


    def _figure(data):
        plt = pyplot()
        g = np.linspace(-0.9, 0.9, 50)
        fig, ax = plt.subplots()
        ax.plot(g, ENTRIES[0](gamma=g), label="1/(1 - gamma)")
        pts = data.points(SUMS)
        ax.plot([p["extra"]["gamma"] for p in pts], [p["observed"] for p in pts], "o", label="partial sums")
        legend(ax)
        return fig


    CHECKS = (Check(name="partial sums", entries=("geometric.series",), kind="numeric", run=_partial_sums),)
    FIGURES = (Figure(family="geometric", name="geometric-series", caption="The geometric series and its partial sums.",
                      draw=_figure, draws=(SUMS,)),)
    PAPER = Paper(name="geometric", title="A geometric series", source="geometric.txt",
                  families=(Family(name="geometric", entries=__name__, checks=__name__),), figures=(__name__,))
''')


@pytest.fixture
def paper_file(tmp_path) -> Path:
    path = tmp_path / "elsewhere" / "geometric_paper.py"
    path.parent.mkdir()
    path.write_text(PAPER)
    return path


def _only_outside(monkeypatch):
    """The tests of the mechanism need no built-in family; THEORYLAB_ONLY_FAMILIES keeps them out when asked."""
    if os.environ.get("THEORYLAB_ONLY_FAMILIES"):
        monkeypatch.setenv("THEORYLAB_ONLY_FAMILIES", "geometric")


def _outside_paper_works(tmp_path, *register: str) -> None:
    code, out, err = run_cli("list", *register)
    assert code == 0, err
    assert "paper geometric: A geometric series [geometric.txt]; families geometric" in out
    assert "geometric.series" in out
    code, out, err = run_cli("eval", "geometric.series", "gamma=0.5", *register)
    assert code == 0 and json.loads(out) == {"id": "geometric.series", "value": 2.0}, err
    code, out, err = run_cli("check", "geometric", *register)
    assert code == 0, err
    assert "1 steps in 1 derivations: 1 hold" in out
    record = tmp_path / "ev.json"
    code, out, err = run_cli("verify", "geometric", "--json", str(record), "--device", "cpu", *register)
    assert code == 0, out + err
    data = json.loads(record.read_text())
    assert data["schema_version"] == SCHEMA_VERSION and data["papers"] == ["geometric"]
    assert data["families"] == ["geometric"] and len(data["evidence"]) == 3
    assert all(r["passed"] for r in data["evidence"])
    code, out, err = run_cli("report", "-o", str(tmp_path / "report"), "--evidence", str(record), *register)
    assert code == 0, err
    page = (tmp_path / "report" / "index.html").read_text()
    assert 'id="entry-geometric.series"' in page and 'src="figures/geometric-series.svg"' in page
    assert (tmp_path / "report" / "figures" / "geometric-series.svg").read_text().count("<path") > 3
    code, out, err = run_cli("latex", "geometric", *register)
    assert code == 0 and r"\texttt{geometric.series}" in out


def test_outside_paper_by_file(paper_file, tmp_path, monkeypatch):
    _only_outside(monkeypatch)
    _outside_paper_works(tmp_path, "--paper", str(paper_file))
    # without the option it is not registered, and says so in one line
    code, out, err = run_cli("eval", "geometric.series", "gamma=0.5")
    assert code == 2 and out == "" and err.startswith("error: ID must be one of") and err.count("\n") == 1


def test_outside_paper_by_environment(paper_file, tmp_path, monkeypatch):
    _only_outside(monkeypatch)
    monkeypatch.setenv("THEORYLAB_PAPERS", os.pathsep.join([str(paper_file), str(paper_file)]))  # twice: once
    _outside_paper_works(tmp_path)
    assert [p.name for p in catalogue.papers()].count("geometric") == 1


def test_paper_that_fails_to_import_is_named(tmp_path, monkeypatch):
    _only_outside(monkeypatch)
    bad = tmp_path / "broken_paper.py"
    bad.write_text("raise RuntimeError('this paper is broken')\n")
    for args in (("list", "--paper", str(bad)), ("eval", "geometric.series", "gamma=0.5", "--paper", str(bad))):
        code, out, err = run_cli(*args)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith("error: paper --paper ") and "broken_paper.py failed to import" in err
        assert "RuntimeError: this paper is broken" in err
    monkeypatch.setenv("THEORYLAB_PAPERS", "no_such_paper_module")
    code, _, err = run_cli("list")
    assert code == 2 and "no_such_paper_module" in err and err.count("\n") == 1
    monkeypatch.delenv("THEORYLAB_PAPERS")
    (tmp_path / "empty_paper.py").write_text("X = 1\n")
    code, _, err = run_cli("list", "--paper", str(tmp_path / "empty_paper.py"))
    assert code == 2 and "defines neither PAPER nor PAPERS" in err


def test_two_papers_claiming_one_name_or_family(paper_file, tmp_path, monkeypatch):
    _only_outside(monkeypatch)
    twin = tmp_path / "twin_paper.py"
    twin.write_text(PAPER)  # another file, the same paper name
    code, out, err = run_cli("list", "--paper", str(paper_file), "--paper", str(twin))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "both claim the name geometric" in err and "twin_paper.py" in err
    other = tmp_path / "other_paper.py"
    other.write_text(PAPER.replace('Paper(name="geometric"', 'Paper(name="other"'))
    code, _, err = run_cli("list", "--paper", str(paper_file), "--paper", str(other))
    assert code == 2 and "claims family geometric" in err and "which paper geometric" in err


def test_family_module_that_fails_is_named(tmp_path, monkeypatch):
    _only_outside(monkeypatch)
    decl = tmp_path / "lazy_paper.py"
    decl.write_text("from theorylab import Family, Paper\n"
                    "PAPER = Paper(name='lazy', title='t', source='s', families=(Family(name='lazyfam', "
                    "entries='no_such_module_for_lazyfam'),))\n")
    if os.environ.get("THEORYLAB_ONLY_FAMILIES"):
        monkeypatch.setenv("THEORYLAB_ONLY_FAMILIES", "lazyfam")
    code, out, err = run_cli("list", "--paper", str(decl))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "paper lazy: family lazyfam: module no_such_module_for_lazyfam failed to import" in err


def test_paper_record_is_checked():
    with pytest.raises(ValueError, match="families must be a non-empty tuple"):
        Paper(name="p", title="t", source="s", families=())
    with pytest.raises(ValueError, match="dotted module name"):
        Family(name="f", entries="not a module")
    with pytest.raises(ValueError, match="family names must be distinct"):
        Paper(name="p", title="t", source="s", families=(Family(name="f", entries="m"), Family(name="f", entries="n")))
    with pytest.raises(TypeError):
        Paper("p", "t", "s", ())  # keyword-only


def test_builtin_papers_register_through_the_entry_point():
    from theorylab.derivations import PAPERS

    origins = catalogue._entry_points()
    assert any(where.startswith("entry point builtin = theorylab.derivations") for where, _ in origins)
    names = [p.name for p in catalogue.papers()]
    assert names[:len(PAPERS)] == [p.name for p in PAPERS] or os.environ.get("THEORYLAB_ONLY_FAMILIES")


# -- the evidence record -----------------------------------------------------------------------------------
def test_record_versions(tmp_path):
    old = {"profile": "quick", "device": "cpu", "seed": 0, "families": [], "derivation_steps": [], "evidence": []}
    (tmp_path / "old.json").write_text(json.dumps(old))
    assert load(tmp_path / "old.json").schema_version == 1  # today's files still load
    (tmp_path / "new.json").write_text(json.dumps({**old, "schema_version": SCHEMA_VERSION + 1}))
    code, out, err = run_cli("report", "-o", str(tmp_path / "r"), "--evidence", str(tmp_path / "new.json"))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"schema_version {SCHEMA_VERSION + 1}" in err and "theorylab verify --json" in err


# -- one namespace -----------------------------------------------------------------------------------------
SHADOWS = {"verify.py": "raise RuntimeError('the user verify.py was imported')\n",
           "derivations.py": "raise RuntimeError('the user derivations.py was imported')\n"}


def _run(cwd: Path, *args: str, flags: tuple[str, ...] = (), env: dict | None = None) -> tuple[int, str, str]:
    run = subprocess.run([sys.executable, *flags, "-m", "theorylab", *args], cwd=cwd, capture_output=True, text=True,
                         timeout=600, env={**os.environ, **(env or {})})
    return run.returncode, run.stdout, run.stderr


def _shadow_test(tmp_path: Path, clean: dict, flags: tuple[str, ...] = (), env: dict | None = None) -> None:
    """`list` and `check SMALL` print, in a folder holding a verify.py and a derivations.py that raise, what they
    print in a clean folder as installed here (the `clean_outputs` fixture: computed once, every way of installing
    must print the same)."""
    shadowed = tmp_path / "shadowed"
    shadowed.mkdir()
    for name, text in SHADOWS.items():
        (shadowed / name).write_text(text)
    for args in (("list",), ("check", SMALL)):
        assert _run(shadowed, *args, flags=flags, env={**_NO_STEP_CACHE, **(env or {})}) == clean[args]


# the step cache off: a verdict read back from it says "[cached]", and one run would fill it for the next (on a
# machine whose cache starts empty, as CI's does)
_NO_STEP_CACHE = {"THEORYLAB_STEP_CACHE": "0"}


@pytest.fixture(scope="module")
def clean_outputs(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("clean")
    out = {args: _run(folder, *args, env=_NO_STEP_CACHE) for args in (("list",), ("check", SMALL))}
    for args, (code, _, err) in out.items():
        assert code == 0, (args, err)
    return out


SMALL = os.environ.get("THEORYLAB_SHADOW_FAMILY", "l12")
needs_builtins = pytest.mark.skipif(bool(os.environ.get("THEORYLAB_ONLY_FAMILIES")),
                                    reason="needs the built-in families (THEORYLAB_ONLY_FAMILIES is set)")


def _site_packages() -> list[str]:
    import sysconfig

    return list(dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]))


@needs_builtins
def test_user_verify_and_derivations_shadow_nothing(tmp_path, clean_outputs):
    """As installed here (editable): a user's own verify.py / derivations.py change nothing."""
    _shadow_test(tmp_path, clean_outputs)


@needs_builtins
def test_source_checkout_without_install(tmp_path, clean_outputs):
    """PYTHONPATH=checkout with no .pth processed (python -S): derivations/ and verify/ still load as
    theorylab.derivations / theorylab.verify, and nothing is shadowed."""
    _shadow_test(tmp_path, clean_outputs, ("-S",), {"PYTHONPATH": os.pathsep.join([str(ROOT), *_site_packages()])})


@needs_builtins
def test_regular_install(tmp_path, clean_outputs):
    """`pip install .` (into a target folder): only `theorylab` is installed on the top level, and nothing is
    shadowed."""
    import shutil

    source, target = tmp_path / "source", tmp_path / "target"
    # a copy without build outputs: setuptools would put a stale build/lib from another layout into the wheel
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".*", "build", "dist", "*.egg-info", "__pycache__",
                                                                 "out", "report", "*.json"))
    run = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                          "--target", str(target), str(source)], capture_output=True, text=True, timeout=600)
    # the project's own install is never a reason to skip (#36)
    assert run.returncode == 0, f"pip could not build the package here: {run.stderr.strip().splitlines()[-1:]}"
    top = {p.name for p in target.iterdir() if not p.name.endswith((".dist-info", ".egg-info")) and p.name != "bin"}
    assert top == {"theorylab"}
    assert (target / "theorylab" / "derivations" / "__init__.py").is_file()
    assert (target / "theorylab" / "verify" / "figures_000.py").is_file()
    eps = next(target.glob("theorylab-*.dist-info")) / "entry_points.txt"
    assert "[theorylab.papers]" in eps.read_text()
    _shadow_test(tmp_path, clean_outputs, ("-S",), {"PYTHONPATH": os.pathsep.join([str(target),
                                                                                    *_site_packages()])})


def test_checkout_pyproject_registers_the_builtins():
    assert ("builtin", "theorylab.derivations") in catalogue._checkout_entry_points()


# -- figures -------------------------------------------------------------------------------------------------
def test_a_figure_reads_only_the_series_it_declares():
    from theorylab._records.figure import Figure, FigureData, Series

    mine, other = Series("a"), Series("b")
    fig = Figure(family="f", name="n", caption="c", draw=lambda data: None, draws=(mine,))
    data = FigureData(fig, [{"extra": mine.tag(x=1)}, {"extra": other.tag(x=2)}, {"extra": {}}])
    assert data.points(mine) == [{"extra": {"figure": "a", "x": 1}}]
    with pytest.raises(ValueError, match="without declaring it"):
        data.points(other)


def test_every_builtin_series_is_recorded_by_a_check():
    """Each series a built-in figure draws is written by some check of its paper (by the shared Series object, or,
    until the checks use it, by its key)."""
    import importlib

    from theorylab.derivations import PAPERS
    from theorylab._records.figure import Series

    for paper in PAPERS:
        checks = "\n".join((ROOT / "verify").joinpath(p.name).read_text() for p in (ROOT / "verify").glob("*.py")
                           if not p.name.startswith("figures_"))
        for module in paper.figures:
            names = {v: k for k, v in vars(importlib.import_module(module)).items() if isinstance(v, Series)}
            for fig in importlib.import_module(module).FIGURES:
                for series in fig.draws:
                    assert f'"{series.key}"' in checks or f"{names.get(series)}.tag(" in checks, \
                        f"{paper.name}: figure {fig.name} draws series {series.key}, which no check records"


def test_a_folder_shadowing_an_installed_paper_is_named(tmp_path):
    """`python -m theorylab` in the parent of a project folder named like its package (what `theorylab new` makes)
    finds the folder, a namespace package, first: a one-line error says so instead of 'defines neither PAPER'."""
    (tmp_path / "nspaper").mkdir()
    done = subprocess.run([sys.executable, "-m", "theorylab", "list"], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "THEORYLAB_PAPERS": "nspaper"}, timeout=300)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert "nspaper resolved to the folder" in done.stderr and "run from another folder" in done.stderr
