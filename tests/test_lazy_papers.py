"""A family's derivations are built only when a command needs them: `Family.derivations` names the module that holds
DERIVATIONS, imported by check/verify/show/coverage and never by eval or list (issue #36: eval's start-up)."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from theorylab._pipeline import catalogue
from theorylab._records.paper import Family

from helpers import run_cli

ENTRIES = textwrap.dedent('''
    """lazyd entries: one closed form."""
    import sympy as sp
    from theorylab.authoring import Entry, Source, scalar

    X = scalar("x", "the argument", low=-10, high=10)
    ENTRIES = (Entry(id="lazyd.square", title="x squared", source=Source("lazy.txt", "eq (1)"), doc="x^2.",
                     params=(X,), formula=X.symbol**2, stable_form=X.symbol * X.symbol),)
''')

PROOFS = textwrap.dedent('''
    """lazyd derivations: one step on the entry."""
    from theorylab.authoring import Derivation, Step
    from lazyd_entries import X

    x = X.symbol
    DERIVATIONS = (Derivation(key="lazyd.square", title="(x + 1)^2 expanded", source="lazy.txt", where="eq (1)",
                              entries=({owner!r},),
                              steps=(Step("(x + 1)^2 = x^2 + 2 x + 1", lhs=(x + 1)**2, rhs=x**2 + 2 * x + 1),)),)
''')

DECLARATION = textwrap.dedent('''
    from theorylab import Family, Paper
    PAPER = Paper(name="lazyp", title="t", source="lazy.txt",
                  families=(Family(name="lazyd", entries="lazyd_entries", derivations={proofs!r}),))
''')

PROBE = textwrap.dedent('''
    import io, json, sys, contextlib
    sys.path.insert(0, {folder!r})
    from theorylab.cli import main
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = main({args!r})
    print(json.dumps({{"code": code, "out": out.getvalue(), "proofs": "lazyd_proofs" in sys.modules,
                       "entries": "lazyd_entries" in sys.modules}}))
''')


def _paper(tmp_path, owner="lazyd.square", proofs="lazyd_proofs"):
    (tmp_path / "lazyd_entries.py").write_text(ENTRIES)
    (tmp_path / "lazyd_proofs.py").write_text(PROOFS.format(owner=owner))
    decl = tmp_path / "lazy_decl.py"
    decl.write_text(DECLARATION.format(proofs=proofs))
    return decl


def _probe(tmp_path, decl, *args):
    env_args = [*args, "--paper", str(decl)]
    out = subprocess.run([sys.executable, "-c", PROBE.format(folder=str(tmp_path), args=env_args)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path,
                         env={**__import__("os").environ, "THEORYLAB_ONLY_FAMILIES": "lazyd"})
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_eval_and_list_never_import_the_derivations_module(tmp_path):
    decl = _paper(tmp_path)
    got = _probe(tmp_path, decl, "eval", "lazyd.square", "x=3")
    assert got["code"] == 0 and json.loads(got["out"])["value"] == 9.0
    assert got["entries"] and not got["proofs"], got
    got = _probe(tmp_path, decl, "list")
    assert got["code"] == 0 and "lazyd" in got["out"] and not got["proofs"], got


def test_check_builds_the_declared_derivations(tmp_path):
    decl = _paper(tmp_path)
    got = _probe(tmp_path, decl, "check", "lazyd", "--jobs", "1")
    assert got["proofs"], got
    assert got["code"] == 0 and "1 steps in 1 derivations: 1 hold" in got["out"], got


def test_a_derivations_module_without_DERIVATIONS_is_named(tmp_path, monkeypatch):
    decl = _paper(tmp_path, proofs="lazyd_entries")  # the entries module holds no DERIVATIONS
    monkeypatch.setenv("THEORYLAB_ONLY_FAMILIES", "lazyd")
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, err = run_cli("check", "lazyd", "--jobs", "1", "--paper", str(decl))
    assert code == 2 and out == "" and "family lazyd: module lazyd_entries has no DERIVATIONS" in err, err


def test_derivations_of_another_family_are_refused_when_built(tmp_path, monkeypatch):
    decl = _paper(tmp_path, owner="other.square")
    monkeypatch.setenv("THEORYLAB_ONLY_FAMILIES", "lazyd")
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, err = run_cli("check", "lazyd", "--jobs", "1", "--paper", str(decl))
    assert code == 2 and "derivation 'lazyd.square' names entries of another family (other.square)" in err, err


def test_family_derivations_must_be_a_module_name():
    with pytest.raises(ValueError, match="Family lazyd: derivations must be a dotted module name"):
        Family(name="lazyd", entries="a.b", derivations="not a module")


@pytest.mark.parametrize("name, proofs", [("qpenalty", "theorylab.derivations.qpenalty_proofs"),
                                          ("relu", "theorylab.derivations.relu_proofs")])
def test_builtin_families_declare_their_proofs_module(name, proofs):
    fam = catalogue.family(name)
    assert fam.spec.derivations == proofs
    keys = [d.key for d in fam.derivations]
    assert keys and all(k.startswith(f"{name}.") for k in keys)
    assert tuple(__import__(proofs, fromlist=["DERIVATIONS"]).DERIVATIONS) == fam.derivations
    assert not hasattr(__import__(fam.spec.entries, fromlist=["ENTRIES"]), "DERIVATIONS")  # one place, not two
