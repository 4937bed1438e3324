"""Issue #26's 'done when' for loud authoring, on a scaffolded paper as a newcomer edits it: a second entry called
with arrays of mismatched shapes, a coverage declaration citing a label the paper does not print, and a plain-string
account each give a one-line error naming what is wrong (Python: DomainError; the command line: exit 2)."""
from __future__ import annotations

import importlib
import sys

import pytest

from theorylab.testing import run_cli

EXTRA = '''

# -- added by the test: a second entry with two scalar parameters, and a step citing a label nobody printed ---
S = scalar("s", "a scale", low=0, low_open=True, high=1e3)
SCALED = Entry(id="__MODULE__.scaled", title="M(t) times a scale", source=Source(SOURCE, "eq (2)"), doc="s M(t)",
               params=(T, S), formula=S.symbol * FORMULA, stable_form=S.symbol * STABLE,
               reference=lambda t, s: s * reference(t))
ENTRIES = (*ENTRIES, SCALED)
MISCITED = Derivation(key="__MODULE__.miscited", title="a citation of no printed label", source=SOURCE,
                      where="eq (9)", entries=("__MODULE__.mgf",),
                      steps=(Step("(9) as printed", lhs=(t + 1) ** 2, rhs=t**2 + 2 * t + 1, cites=("(9)",),
                                  fidelity="as printed"),))
'''


@pytest.fixture
def scaffold(tmp_path, monkeypatch):
    code, out, err = run_cli("new", "loud-paper", str(tmp_path / "lp"))
    assert code == 0, err
    entries = tmp_path / "lp" / "loud_paper" / "entries.py"
    entries.write_text(entries.read_text() + EXTRA.replace("__MODULE__", "loud_paper"))
    monkeypatch.syspath_prepend(str(tmp_path / "lp"))
    yield tmp_path / "lp"
    for name in [m for m in sys.modules if m == "loud_paper" or m.startswith("loud_paper.")]:
        del sys.modules[name]


def test_a_scaffolded_paper_gets_one_line_errors(scaffold):
    from theorylab.authoring import Account, DomainError, check_accounts

    module = importlib.import_module("loud_paper.entries")
    scaled = module.SCALED
    assert scaled(t=[0.5, 1.0], s=2.0).shape == (2,)
    with pytest.raises(DomainError) as info:
        scaled(t=[0.5, 1.0], s=[1.0, 2.0, 3.0])
    assert str(info.value).startswith("t, s must have shapes that broadcast") and "\n" not in str(info.value)
    assert "t of shape (2,), s of shape (3,)" in str(info.value)

    init = str(scaffold / "loud_paper" / "__init__.py")
    code, out, err = run_cli("eval", "loud_paper.scaled", "t=[0.5, 1.0]", "s=[1.0, 2.0, 3.0]", "--paper", init)
    assert code == 2 and out == "" and err.count("\n") == 1 and "t of shape (2,), s of shape (3,)" in err, err

    labels = sorted({c for d in module.DERIVATIONS for s in d.steps for c in s.cites}) + ["(8)"]
    derivations = [*module.DERIVATIONS, module.MISCITED]
    assert check_accounts("loud-paper", (Account("(8)", "definition", "notation"),), labels, module.DERIVATIONS)
    with pytest.raises(DomainError) as info:                      # a plain string where an Account belongs
        check_accounts("loud-paper", ("(1)",), labels, module.DERIVATIONS)
    assert "ACCOUNTS[0] must be an Account(label, status, reason)" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(DomainError) as info:                      # a declaration that matches no printed label
        check_accounts("loud-paper", (Account("(8)", "definition", "notation"),), labels, derivations)
    assert "step '(9) as printed' of loud_paper.miscited cites (9)" in str(info.value)
