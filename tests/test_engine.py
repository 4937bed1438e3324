"""The engine on its own: parameter domains, kernel generation traps, derivation bookkeeping, CLI."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

from theorylab import DomainError
from theorylab.derivation import Derivation, Erratum, Step, check_equal
from theorylab.kernels import numpy_kernel, torch_kernel
from theorylab.params import expression, integer, scalar, vector
from helpers import run_cli

x = sp.Symbol("x", real=True)


def test_scalar_domain_messages_name_parameter_and_domain():
    gamma = scalar("gamma", low=0, low_open=True, exclude=(1.0,), exclude_why="the risk diverges there")
    assert gamma.validate(2) == 2.0
    with pytest.raises(DomainError, match=r"gamma must be a real number > 0 other than 1; got gamma=-1"):
        gamma.validate(-1)
    with pytest.raises(DomainError, match=r"gamma must not be 1 \(the risk diverges there\)"):
        gamma.validate(1.0)
    with pytest.raises(DomainError, match="finite"):
        gamma.validate(float("nan"))


def test_integer_and_vector_kinds():
    n = integer("n", low=2, low_open=True)
    assert n.validate(5.0) == 5
    with pytest.raises(DomainError, match="an integer > 2"):
        n.validate(3.5)
    v = vector("beta", "D")
    with pytest.raises(DomainError, match="beta must be a vector"):
        v.validate([[1.0]])
    with pytest.raises(DomainError, match="not empty"):
        v.validate([])


def test_expression_kind_parses_in_z_only():
    omega = expression("omega")
    assert omega.validate("(z-1)**2").free_symbols == {sp.Symbol("z", real=True)}
    with pytest.raises(DomainError, match="omega must be a SymPy expression in z alone"):
        omega.validate("z + q")
    with pytest.raises(DomainError, match="omega must be"):
        omega.validate("z +* 1")


def test_constant_kernel_broadcasts():
    f = numpy_kernel(sp.Integer(3) + 0 * x, [x])
    assert f(np.zeros((2, 3))).shape == (2, 3)


def test_piecewise_kernels_have_no_nan_from_the_unused_branch():
    expr = sp.Piecewise((sp.sqrt(x), x >= 0), (-x, True))
    xs = np.array([-4.0, 4.0])
    np.testing.assert_allclose(numpy_kernel(expr, [x])(xs), [4.0, 2.0])
    import torch

    np.testing.assert_allclose(torch_kernel(expr, [x])(torch.tensor(xs)).numpy(), [4.0, 2.0])


def test_torch_printer_handles_max_and_constants():
    import torch

    f = torch_kernel(sp.Max(x, 0) * sp.sqrt(2) + sp.pi, [x])
    got = f(torch.tensor([-1.0, 2.0], dtype=torch.float64)).numpy()
    np.testing.assert_allclose(got, [np.pi, 2 * np.sqrt(2) + np.pi])


def test_numeric_identity_test_is_labelled_and_finds_small_counterexamples():
    ok = check_equal(2 - sp.sqrt(4 + x**2), -4 * sp.sinh(sp.asinh(x / 2) / 2) ** 2)
    assert ok.holds and ok.method.startswith("numeric identity test")
    bad = check_equal(4 * sp.sinh(x), sp.exp(x) - sp.exp(-x))
    assert not bad.holds and bad.counterexample.startswith("x=1:")


def test_erratum_that_holds_is_reported_as_not_reproduced():
    e = Erratum("t-1", "seed", "eq 1", "x = x", "x = x")
    d = Derivation("t", "t", "seed", "eq 1", (), (Step("holds but marked", x, x, erratum=e),
                                                   Step("fails unmarked", x, 2 * x)))
    results = d.check()
    assert [r.ok for r in results] == [False, False]
    assert results[0].status.startswith("ERRATUM NOT REPRODUCED")


def test_console_script_runs_as_a_process():
    done = subprocess.run([sys.executable, "-m", "theorylab", "eval", "qpenalty.q", "z=1"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and '"value": 0.245143847' in done.stdout
    bad = subprocess.run([sys.executable, "-m", "theorylab", "eval", "qpenalty.q", "z=x"], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.startswith("error: z must be")


def test_unknown_id_and_usage_errors_follow_the_bad_input_rule():
    for argv in (("eval", "nope.entry"), ("eval",), ("frobnicate",), ("eval", "qpenalty.q", "z")):
        code, out, err = run_cli(*argv)
        assert code == 2 and out == "" and err.startswith("error:") and err.count("\n") == 1, (argv, err)


def test_check_lists_every_step_with_its_method():
    code, out, _ = run_cli("check", "qpenalty")
    assert code == 0
    assert "erratum confirmed" in out and "checked by sympy" in out and "numeric identity test" in out
