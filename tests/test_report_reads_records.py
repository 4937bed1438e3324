"""Outputs read records (#23 item 3): a report built from a run record imports no torch, no check module, and
decides no derivation step; its theory curves come from the papers' entry modules."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap


def test_reporting_from_a_record_imports_no_torch_and_runs_no_check(tmp_path):
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
