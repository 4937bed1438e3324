"""The LaTeX document and the offline HTML report: they build, compile or are well formed, and show what they
claim to (MathML for every entry, every figure, every evidence record, every erratum) -- in a real browser where
Chromium is installed."""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from theorylab._pipeline import catalogue
from theorylab._records.evidence import Evidence, compare, compare_mc
from theorylab._outputs.latex import well_formed
from theorylab._outputs.report import build, figures
from theorylab.verify.figures_002 import FIG1C, FIG2C, FIG6

from helpers import run_cli

FAMILIES = [f.name for f in catalogue.families()]
FIGURES = figures(FAMILIES)


@pytest.fixture(scope="module")
def evidence_file(tmp_path_factory) -> Path:
    """A small evidence record in the format `theorylab verify` writes: one record per kind, figure points for
    Fig. 1(c)/2(c)/6, one failing record, and derivation steps with an erratum (nothing heavy is rerun)."""
    recs = [
        compare("qpenalty.q", "a numeric check", "numeric", [1.0, 2.0], [1.0, 2.0 + 1e-12], rtol=1e-10,
                source="contract"),
        compare("omega.tilde", "a failing check <b>escaped</b>", "numeric", 1.0, 1.5, atol=0.1, source="test"),
    ]
    for gamma in (0.25, 0.5, 1.5):
        recs.append(compare_mc("transfer.linear_transferability", f"point {gamma}", 0.3, 0.31, 0.01, 100,
                               extra=FIG1C.tag(source="monte-carlo", gamma=gamma, theta=math.pi / 4, sigma=0.2,
                                               d=100)))
        recs.append(compare_mc("transfer.finetune_transferability", f"trained {gamma}", 0.2, 0.21, 0.02, 10,
                               extra=FIG2C.tag(source="trained", gamma=gamma, theta=math.pi / 8, sigma=0.2, d=20)))
    for lam in (0.0, 0.5):
        recs.append(compare_mc("transfer.ridge_transfer_risk", f"ridge {lam}", 0.5, 0.5, 0.001, 1000,
                               extra=FIG6.tag(source="monte-carlo", lam=lam)))
    steps = [
        {"derivation": "qpenalty.penalty", "title": "Q", "where": "eq (23)", "step": "s1", "status": "holds",
         "method": "sympy", "detail": "", "ok": True},
        {"derivation": "qpenalty.penalty", "title": "Q", "where": "eq (23)", "step": "s2",
         "status": "erratum confirmed", "method": "numeric", "detail": "", "ok": True,
         "erratum": {"key": "000-test-key", "seed": "000", "where": "eq (1)", "says": "a < b & c",
                     "truth": "a > b", "note": "", "counterexample": "a = 2, b = 1"}},
    ]
    data = {"profile": "quick", "device": "cpu", "seed": 0, "families": FAMILIES, "derivation_steps": steps,
            "evidence": [r.to_json() for r in recs], "unexpected_steps": 0, "failed_evidence": 1, "seconds": 1.0}
    path = tmp_path_factory.mktemp("ev") / "evidence.json"
    path.write_text(json.dumps(data))
    return path


_REPORTS: dict[str, Path] = {}  # record text -> its report, kept for the process: pytest-xdist may run this
# module's tests around other modules' (the LaTeX tests are in the "derivations" group), which tears the module
# fixture down; the report of the same record is then not built again


@pytest.fixture(scope="module")
def report_dir(evidence_file, tmp_path_factory) -> Path:
    key = evidence_file.read_text()
    if key in _REPORTS:
        return _REPORTS[key]
    out = tmp_path_factory.mktemp("report") / "out"
    code, stdout, stderr = run_cli("report", "-o", str(out), "--evidence", str(evidence_file))
    assert code == 0, stderr
    assert f"{len(FIGURES)} figures" in stdout
    _REPORTS[key] = out
    return out


def test_report_has_every_entry_figure_record_and_erratum(report_dir, evidence_file):
    page = (report_dir / "index.html").read_text()
    data = json.loads(evidence_file.read_text())
    # no JavaScript and nothing fetched from the network
    assert "<script" not in page.lower()
    assert not re.search(r"""(src|href)=["']https?://""", page)
    # every entry's closed form as MathML
    for e in catalogue.entries():
        assert f'id="entry-{e.id}"' in page
    assert page.count("<math") >= len(list(catalogue.entries()))
    # every figure, as an SVG file that parses as XML
    for f in FIGURES:
        assert f'src="figures/{f.name}.svg"' in page
        root = ET.parse(report_dir / "figures" / f"{f.name}.svg").getroot()
        assert root.tag.endswith("svg")
    # every evidence record is a row, the failing one marked, its HTML escaped
    assert page.count("<tr><td><code>") >= len(data["evidence"])
    assert "FAIL" in page and "&lt;b&gt;escaped&lt;/b&gt;" in page
    # the erratum with its counterexample
    assert 'id="erratum-000-test-key"' in page and "a = 2, b = 1" in page and "a &lt; b &amp; c" in page


def test_figure_points_come_from_the_record(evidence_file, tmp_path):
    """The slice figure draws the record's points: removing them changes the SVG (nothing is recomputed). Both
    records cover the transfer family alone, so only its figures are drawn (the whole report is built above)."""
    data = json.loads(evidence_file.read_text())
    data["families"] = ["transfer"]
    full, stripped = tmp_path / "full.json", tmp_path / "stripped.json"
    full.write_text(json.dumps(data))
    with_points = build(full, tmp_path / "a")
    data["evidence"] = [r for r in data["evidence"] if not FIG1C.holds(r)]
    stripped.write_text(json.dumps(data))
    build(stripped, tmp_path / "b")
    a = (tmp_path / "a" / "figures" / "transfer-fig1c.svg").read_text()
    b = (tmp_path / "b" / "figures" / "transfer-fig1c.svg").read_text()
    assert a != b and a.count("<path") > b.count("<path")
    assert with_points["errata"] == 1 and with_points["failed"] == 1


def test_report_bad_input_is_one_line(tmp_path):
    code, out, err = run_cli("report", "-o", str(tmp_path / "r"), "--evidence", str(tmp_path / "missing.json"))
    assert code == 2 and out == "" and err.count("\n") == 1 and "evidence must be a JSON file" in err
    (tmp_path / "bad.json").write_text("{not json")
    code, _, err = run_cli("report", "-o", str(tmp_path / "r"), "--evidence", str(tmp_path / "bad.json"))
    assert code == 2 and "not JSON" in err and err.count("\n") == 1
    (tmp_path / "other.json").write_text('{"a": 1}')
    code, _, err = run_cli("report", "-o", str(tmp_path / "r"), "--evidence", str(tmp_path / "other.json"))
    assert code == 2 and "missing" in err
    assert not (tmp_path / "r" / "index.html").exists()  # nothing written that looks complete


def test_report_output_must_be_a_folder(evidence_file, tmp_path):
    (tmp_path / "file").write_text("x")
    code, _, err = run_cli("report", "-o", str(tmp_path / "file"), "--evidence", str(evidence_file))
    assert code == 2 and "-o must be a directory" in err


# -- LaTeX -------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def catalogue_tex(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tex") / "catalogue.tex"
    # --jobs 1: the derivations are decided in this process, where the contract tests (same xdist group,
    # "derivations") already checked them (Derivation.check caches per process); the default, a spawn pool on a
    # machine with no timings yet, decided them all again in fresh processes (27 s of the suite's slowest setup)
    code, out, err = run_cli("latex", "-o", str(path), "--jobs", "1")
    assert code == 0, err
    return path


def test_latex_document_is_well_formed(catalogue_tex):
    tex = catalogue_tex.read_text()
    assert well_formed(tex) == []
    assert tex.count(r"\subsection*") == len(list(catalogue.entries()))
    assert r"\section*{Errata}" in tex
    # the checker finds what it claims to find
    assert well_formed(tex + "}") and well_formed(tex.replace(r"\end{itemize}", "", 1))


def test_latex_document_compiles(catalogue_tex):
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        pytest.skip("pdflatex is not on the PATH: test_latex_document_is_well_formed checked the structure instead")
    run = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", catalogue_tex.name],
                         cwd=catalogue_tex.parent, capture_output=True, text=True, timeout=300)
    log = run.stdout
    assert run.returncode == 0, log[-3000:]
    assert (catalogue_tex.parent / "catalogue.pdf").stat().st_size > 10_000
    assert "Undefined control sequence" not in log and "Missing $ inserted" not in log


# -- the report in a real browser ----------------------------------------------------------------------------
def _chromium():
    browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)),
                   None)
    driver = shutil.which("chromedriver")
    return browser, driver


@pytest.mark.browser
def test_report_renders_in_headless_chromium(report_dir, tmp_path):
    browser, driver = _chromium()
    if not (browser and driver):
        reason = "Chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
        if os.environ.get("THEORYLAB_BROWSER_REQUIRED"):
            pytest.fail(reason + ", but THEORYLAB_BROWSER_REQUIRED is set")
        pytest.skip(reason)
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium must not try to download a driver
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,2000"):
        opts.add_argument(flag)
    drv = webdriver.Chrome(service=Service(executable_path=driver), options=opts)
    try:
        drv.set_page_load_timeout(60)
        drv.get((report_dir / "index.html").as_uri())
        images = drv.execute_script(
            "return Array.from(document.images).map(i => [i.getAttribute('src'), i.complete, i.naturalWidth,"
            " i.getBoundingClientRect().width])")
        maths = drv.execute_script(
            "return Array.from(document.getElementsByTagName('math')).map(m => {const r = m.getBoundingClientRect();"
            " return [r.width, r.height, m.namespaceURI];})")
        shot = tmp_path / "report.png"
        drv.save_screenshot(str(shot))
        keep = os.environ.get("THEORYLAB_SCREENSHOT_DIR")
        if keep:  # for a person to look at
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, Path(keep) / "report.png")
    finally:
        drv.quit()
    srcs = {src for src, *_ in images}
    assert srcs == {f"figures/{f.name}.svg" for f in FIGURES}
    broken = [src for src, complete, natural, width in images if not (complete and natural > 0 and width > 0)]
    assert not broken, f"figures that did not render: {broken}"
    assert len(maths) >= len(list(catalogue.entries()))
    assert all(ns == "http://www.w3.org/1998/Math/MathML" for *_, ns in maths)
    empty = [i for i, (w, h, _) in enumerate(maths) if not (w > 0 and h > 0)]
    assert not empty, f"MathML elements with an empty box: {empty[:10]}"
    assert shot.stat().st_size > 20_000  # a rendered page, not a blank one


def test_verify_writes_its_record_into_new_folders(tmp_path):
    target = tmp_path / "a" / "b" / "record.json"
    # --jobs 1: in-process; what is tested is where the record is written, not the pool (tests/test_runner.py's)
    code, out, err = run_cli("verify", "measure.participation_ratio", "--json", str(target), "--jobs", "1")
    assert code == 0, err
    data = json.loads(target.read_text())
    assert data["evidence"] and data["families"] == ["measure"]
    assert not list(target.parent.glob(".evidence-*"))  # no temporary file left behind
    code, out, err = run_cli("verify", "measure", "--json", str(tmp_path))
    assert code == 2 and "--json must be a file path" in err and err.count("\n") == 1


def test_report_rerun_verifies_the_selection_first(tmp_path):
    record, out = tmp_path / "rec" / "evidence.json", tmp_path / "site"
    code, stdout, err = run_cli("report", "measure.participation_ratio", "--rerun", "--evidence", str(record),
                                "-o", str(out))
    assert code == 0, err
    assert json.loads(record.read_text())["families"] == ["measure"]
    page = (out / "index.html").read_text()
    assert 'id="family-measure"' in page and 'id="family-omega"' not in page  # only what was verified
    code, _, err = run_cli("report", "measure", "--evidence", str(record), "-o", str(out))
    assert code == 2 and "needs --rerun" in err and err.count("\n") == 1


def test_report_draws_scaling_fits_and_shows_mutation_score_and_accuracy(tmp_path):
    import json

    import numpy as np

    from theorylab._records.evidence import compare_scaling

    rng = np.random.default_rng(0)
    N = np.array([50, 100, 200, 400.0])
    se = np.full(4, 0.002)
    recs = [r.to_json() for r in compare_scaling("measure.ensd", "toy limit", N, 1 + 0.8 / N + rng.normal(0, se), se,
                                                 theory=1.0, order=1)]
    ev = tmp_path / "ev.json"
    ev.write_text(json.dumps({"schema_version": 2, "profile": "quick", "device": "cpu", "seed": 0,
                              "families": ["measure"], "derivation_steps": [], "evidence": recs,
                              "unexpected_steps": 0, "failed_evidence": 0, "seconds": 1}))
    mut = tmp_path / "mut.json"
    mut.write_text(json.dumps({"profile": "quick", "mutants": [
        {"entry": "measure.ensd", "target": "compute", "op": "sign flip", "description": "negated",
         "caught_by": ["contract"], "equivalent": False, "survived": False},
        {"entry": "measure.ensd", "target": "compute", "op": "factor 2", "description": "doubled (planted survivor)",
         "caught_by": [], "equivalent": False, "survived": True}]}))
    acc = tmp_path / "acc.json"
    acc.write_text(json.dumps({"profile": "quick", "entries": [{"entry": "measure.ensd", "rtol": 1e-10, "rows": [
        {"output": "value", "region": "bulk", "rel_error": 3e-16, "ulps": 2, "point": "X=..."}]}]}))
    code, out, err = run_cli("report", "--evidence", str(ev), "-o", str(tmp_path / "r"), "--mutants", str(mut),
                             "--accuracy", str(acc))
    assert code == 0, err
    page = (tmp_path / "r" / "index.html").read_text()
    assert "scaling-measure-ensd-toy-limit.svg" in page and (tmp_path / "r" / "figures" /
                                                               "scaling-measure-ensd-toy-limit.svg").exists()
    assert "1/2" in page and "doubled (planted survivor)" in page  # the score and the survivor
    assert "Accuracy</h2>" in page and "3e-16" in page
    bad = run_cli("report", "--evidence", str(ev), "-o", str(tmp_path / "r2"), "--mutants", str(ev))
    assert bad[0] == 2 and bad[2].startswith("error: --mutants must be")
