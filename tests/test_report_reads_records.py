"""Outputs read records (#23 item 3): a report built from a run record imports no torch, no check module, and
decides no derivation step; its theory curves come from the papers' entry modules."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap


def test_reporting_from_a_record_imports_no_torch_and_runs_no_check(tmp_path):
    """Every paper's figures are drawn from the record (an empty one: theory curves only, from the entry modules) with
    every step decider refusing, and the process imports no torch and no check module. Each drawn figure is closed,
    not serialised to SVG: matplotlib's SVG rendering of the 14 figures was half of this test's CPU time and decides
    nothing here; that every figure renders to an SVG is asserted by tests/test_report.py
    (test_report_has_every_entry_figure_record_and_erratum)."""
    record = {"schema_version": 3, "profile": "quick", "device": "cpu", "seed": 0, "families": [],
              "derivation_steps": [], "evidence": [], "unexpected_steps": 0, "failed_evidence": 0, "seconds": 0.0}
    path = tmp_path / "ev.json"
    path.write_text(json.dumps(record))
    script = textwrap.dedent(f"""
        import sys
        import theorylab._decide.derivation as d

        def refuse(*a, **k):
            raise AssertionError("a derivation step was decided while reporting")

        d.Step.check = d.Derivation.check = refuse
        import theorylab._outputs.report as report

        def drawn_not_rendered(fig):
            report.pyplot().close(fig)
            return '<svg xmlns="http://www.w3.org/2000/svg"/>'

        report._svg = drawn_not_rendered
        from theorylab.cli import main
        rc = main(["report", "-o", {str(tmp_path / "out")!r}, "--evidence", {str(path)!r}])
        checks = sorted(m for m in sys.modules if m.startswith("theorylab.verify.")
                        and not m.startswith("theorylab.verify.figures"))
        print("RESULT", rc, "torch" in sys.modules, checks)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    line = next((x for x in out.stdout.splitlines() if x.startswith("RESULT")), "")
    assert line == "RESULT 0 False []", (line, out.stderr[-2000:])
    assert (tmp_path / "out" / "index.html").exists()


def test_latex_errata_and_show_render_a_record_without_deciding_a_step(tmp_path, monkeypatch):
    """`latex`, `errata` and `show --record FILE` read the verdicts from a verify record: with every step decider
    refusing, they print what the same commands print after checking now, and import no torch."""
    from helpers import run_cli
    from test_latex import TOY

    toy, rec = tmp_path / "toy_paper.py", tmp_path / "rec.json"
    toy.write_text(TOY)
    monkeypatch.setenv("THEORYLAB_ONLY_FAMILIES", "toyarc")
    code, _, err = run_cli("verify", "toyarc", "--paper", str(toy), "--json", str(rec), "--jobs", "1",
                           "--device", "cpu")
    assert code == 0, err
    commands = {"latex": ["latex", "toyarc"], "errata": ["errata", "toyarc", "--json"], "show": ["show", "toyarc.f"]}
    checked = {}
    for name, argv in commands.items():  # checked now: the engine decides, the outputs render its record
        code, out, err = run_cli(*argv, "--paper", str(toy))
        assert code == 0, err
        checked[name] = out
    assert "erratum confirmed (refuted" in checked["latex"] and '"status": "confirmed"' in checked["errata"]
    assert "derivation toyarc.f: 2 steps, 1 errata of the paper, all as recorded" in checked["show"]
    script = textwrap.dedent(f"""
        import contextlib, io, json, sys
        import theorylab._decide.derivation as d

        def refuse(*a, **k):
            raise AssertionError("a derivation step was decided while rendering a record")

        d.Step.check = d.Derivation.check = refuse
        from theorylab.cli import main
        outs, codes = {{}}, []
        for name, argv in {commands!r}.items():
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                codes.append(main(argv + ["--paper", {str(toy)!r}, "--record", {str(rec)!r}]))
            outs[name] = buf.getvalue()
        checks = sorted(m for m in sys.modules if m.startswith("theorylab.verify."))
        print("RESULT " + json.dumps({{"codes": codes, "torch": "torch" in sys.modules, "checks": checks,
                                      "outs": outs}}))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    line = next((x for x in out.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line is not None, out.stderr[-2000:]
    got = json.loads(line[len("RESULT "):])
    assert got["codes"] == [0, 0, 0] and got["torch"] is False and got["checks"] == [], (got, out.stderr[-2000:])
    assert got["outs"] == checked  # the record renders exactly as the run that decided it


def test_a_record_of_other_families_is_refused(tmp_path):
    from helpers import run_cli

    record = {"schema_version": 3, "profile": "quick", "device": "cpu", "seed": 0, "families": ["qpenalty"],
              "derivation_steps": [], "evidence": [], "unexpected_steps": 0, "failed_evidence": 0, "seconds": 0.0}
    path = tmp_path / "ev.json"
    path.write_text(json.dumps(record))
    for argv in (["latex", "relu"], ["errata", "relu"], ["show", "relu.penalty"]):
        code, out, err = run_cli(*argv, "--record", str(path))
        assert code == 2 and out == "" and err.startswith("error: --record must be a run record of the selected "
                                                          "families") and "not relu" in err, (argv, err)
