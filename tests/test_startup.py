"""Fast start-up: `eval`, `list` and `show` of closed-form entries import neither torch, nor matplotlib, nor any
check (verify) module, nor the families of other papers; `eval` and `list` not even scipy.special (measured in a
fresh interpreter; `show` checks the entry's derivation, whose numeric steps may use scipy)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = """
import io, json, sys, contextlib
from theorylab.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main({args!r})
heavy = sorted(m for m in sys.modules if m in ("torch", "matplotlib", "scipy.special", "sklearn")
               or m.startswith("theorylab.verify."))
families = sorted(m for m in sys.modules if m.startswith("theorylab.derivations.") and "coverage" not in m)
print(json.dumps({{"code": code, "heavy": heavy, "families": families}}))
"""


@pytest.mark.parametrize("args, families, allowed", [
    (["eval", "qpenalty.q", "z=1"], ["theorylab.derivations.qpenalty"], []),
    # show checks the entry's derivation: the family's derivations module (Family.derivations), which eval never builds
    (["show", "qpenalty.q"], ["theorylab.derivations.qpenalty", "theorylab.derivations.qpenalty_proofs"],
     ["scipy.special"]),
    (["list"], None, []),
])
def test_closed_form_commands_import_nothing_heavy(args, families, allowed):
    out = subprocess.run([sys.executable, "-c", PROBE.format(args=args)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["code"] == 0 and [m for m in got["heavy"] if m not in allowed] == [], got
    if families is not None:  # the entry's family only: no other paper's modules
        assert got["families"] == families, got
