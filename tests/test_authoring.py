"""The authoring kit: the public API in one lazy import, the contract suite as a library (theorylab.testing), default
strategies that reach the hard points of a domain, and Paper records that display without importing their modules."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings

import theorylab.authoring as authoring
from theorylab.authoring import DomainError, Entry, Family, Paper, Source, integer, scalar, vector
from theorylab.testing import contract_tests, module_tests


def test_importing_the_kit_imports_neither_torch_nor_matplotlib():
    code = ("import sys, theorylab.authoring, theorylab.testing; "
            "print(sorted(m for m in ('torch', 'matplotlib', 'pytest') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_authoring_name_resolves_and_unknown_names_say_what_exists():
    for name in authoring.__all__:
        assert getattr(authoring, name) is not None, name
    assert set(dir(authoring)) == set(authoring.__all__)
    with pytest.raises(AttributeError, match="the authoring API is: .*compare_mc"):
        authoring.montecarlo_helpers  # noqa: B018 - the attribute access is the test


def test_the_documented_single_file_paper_runs():
    """The module docstring's example is code, not prose: it declares, evaluates and checks."""
    source = authoring.__doc__.split("writes the same as a package)::")[1]
    namespace: dict = {"__name__": "doc_example"}
    exec(compile("\n".join(line[4:] for line in source.splitlines()), "authoring-doc", "exec"), namespace)
    entry = namespace["ENTRIES"][0]
    assert abs(entry(t=1e-12) - entry.reference(1e-12)) <= 1e-15
    assert [r.strength for r in namespace["DERIVATIONS"][0].check()] == ["proved"]
    assert namespace["PAPER"].name == "mgf"


def test_a_formula_symbol_that_is_no_parameter_is_refused_at_declaration():
    t = scalar("t", low=0).symbol
    with pytest.raises(ValueError, match="uses s, which is not a declared parameter"):
        Entry(id="x.y", title="", source=Source("p", "(1)"), doc="", params=(scalar("t", low=0),),
              formula=t + sp.Symbol("s"))


# -- default strategies ------------------------------------------------------------------------------------------------
def _draws(param, n=500, dims=None):
    out = []

    @given(param.strategy(dims or {}))
    @settings(max_examples=n, database=None, derandomize=True)
    def grab(x):
        out.append(x)

    grab()
    return np.array(out, dtype=float)


def test_default_strategy_reaches_an_excluded_point_from_both_sides():
    """The issue's case: gamma in (0, inf) other than 1, where formulas cancel near 1, must be drawn near 1."""
    gamma = scalar("gamma", low=0, low_open=True, exclude=(1.0,))
    v = _draws(gamma)
    assert np.all(v > 0) and not np.any(v == 1.0)
    d = v - 1.0
    near = (np.abs(d) >= 1e-12) & (np.abs(d) <= 1e-3)
    assert near.sum() >= 25, near.sum()  # of 500: the bulk strategy alone drew 1
    assert np.any(near & (d < 0)) and np.any(near & (d > 0))
    assert np.sum(np.abs(d) < 1e-9) >= 5  # a few ulps to 1e-9 away
    assert np.sum(v < 1e-100) >= 5 and np.sum(v > 1e5) >= 5  # tiny and large magnitudes (unbounded: to 1e6)


def test_default_strategy_reaches_the_bounds():
    t = scalar("t", low=-100, high=100, exclude=(0,))
    v = _draws(t)
    assert np.all(np.abs(v) <= 100) and not np.any(v == 0)
    assert np.sum(np.abs(v) == 100) >= 3 and np.sum((np.abs(v) > 100 * (1 - 1e-3)) & (np.abs(v) < 100)) >= 10
    assert np.sum((np.abs(v) < 1e-3)) >= 25
    n = integer("n", low=2, low_open=True, high=10**9)
    k = _draws(n, 200)
    assert {3, 4, 10**9, 10**9 - 1} <= set(k.astype(int).tolist())


def test_strategy_fn_replaces_the_default():
    from hypothesis import strategies as st

    p = scalar("p", low=0, high=1, strategy_fn=lambda dims: st.just(0.25))
    assert set(_draws(p, 20).tolist()) == {0.25}


# -- the contract suite as a library -----------------------------------------------------------------------------
def _ratio_entry(stable: bool) -> Entry:
    """(gamma^2 - 1)/(gamma - 1): loses digits as gamma -> 1 unless evaluated as gamma + 1."""
    p = scalar("gamma", "a ratio", low=0, low_open=True, high=10, exclude=(1.0,), exclude_why="0/0")
    g = p.symbol

    def reference(gamma):
        """Route: the factored form gamma + 1, exact in mpmath."""
        import mpmath

        return float(mpmath.mpf(gamma) + 1)

    return Entry(id="toy.ratio", title="a ratio", source=Source("toy.pdf", "(1)"), doc="", params=(p,),
                 formula=(g**2 - 1) / (g - 1), stable_form=g + 1 if stable else None, reference=reference)


def test_the_contract_catches_a_cancellation_next_to_an_excluded_point():
    naive = _ratio_entry(stable=False)
    suite = contract_tests(naive, cli=False, torch=False, max_examples=200)
    with pytest.raises(AssertionError):
        suite.test_value_matches_reference(naive)
    fixed = _ratio_entry(stable=True)
    contract_tests(fixed, cli=False, torch=False, max_examples=200).test_value_matches_reference(fixed)


def test_the_contract_catches_a_bad_domain_error_and_broken_broadcasting():
    good = _ratio_entry(stable=True)
    suite = contract_tests(good, cli=False, torch=False)
    suite.test_bad_input_raises_domain_error_naming_the_parameter(good)
    suite.test_scalar_parameters_broadcast(good)
    suite.test_latex_renders(good)
    from theorylab._decide.entry import Constraint

    scalar_only = Constraint(lambda v: None if float(v["gamma"]) != 5.0 else "gamma must not be 5", "not 5")
    import dataclasses

    broken = dataclasses.replace(good, constraints=(scalar_only,))
    with pytest.raises(TypeError):  # float() of an array: the constraint is not written for arrays
        suite.test_scalar_parameters_broadcast(broken)


def test_suite_names_tests_by_entry_and_refuses_stale_known_failures():
    suite = contract_tests("qpenalty.q", cli=False, torch=False)
    tests = module_tests(suite)
    assert "test_value_matches_reference" in tests and "test_torch_kernel_equals_numpy" not in tests
    marks = [m for m in tests["test_value_matches_reference"].pytestmark if m.name == "parametrize"]
    assert [p.id for p in marks[0].args[1]] == ["qpenalty.q"]
    with pytest.raises(ValueError, match="known_failures names no test"):
        contract_tests("qpenalty.q", known_failures={"test_value_matches_reference[qpenalty.nothing]": "x"})
    with pytest.raises(DomainError, match="got 'no-such-paper'"):
        contract_tests("no-such-paper")


# -- Paper records in Jupyter ----------------------------------------------------------------------------------------
def test_paper_displays_its_families_without_importing_them():
    paper = Paper(name="unimported", title="A paper", source="a.pdf",
                  families=(Family(name="unimported_fam", entries="unimported_paper_module.entries"),))
    md = paper._repr_markdown_()
    assert "`unimported_fam`" in md and "not imported yet" in md
    assert "unimported_paper_module.entries" not in sys.modules
    assert "<code>unimported_fam</code>" in paper._repr_html_()
    import theorylab

    theorylab.get("qpenalty.q")
    builtin = next(p for p in theorylab.papers() if p.family("qpenalty"))
    assert "`qpenalty.q`" in builtin._repr_markdown_()


# -- loud authoring (#26): help, types, shapes, assumptions, generic points ------------------------------------------
def test_help_of_a_parameter_kind_lists_every_argument():
    import inspect

    for kind in (authoring.scalar, authoring.integer, authoring.vector, authoring.matrix):
        signature = inspect.signature(kind)
        assert {"low", "high", "low_open", "high_open", "exclude", "exclude_why", "default", "tex",
                "strategy_fn"} <= set(signature.parameters), kind
        assert "exclude:" in kind.__doc__ and "tex:" in kind.__doc__ and "assumptions" in kind.__doc__
    assert "<required>" in str(inspect.signature(authoring.scalar))   # `default` shows what leaving it out means


def _one_line(exc, *words):
    text = str(exc.value)
    assert "\n" not in text and all(w in text for w in words), text


def test_wrong_types_are_one_line_errors_naming_the_argument():
    g = scalar("gamma", low=0, low_open=True)
    ok = dict(id="toy.x", title="", source=Source("p", "(1)"), doc="", params=(g,), formula=g.symbol)
    Entry(**ok)
    for change, words in (({"source": "paper.pdf"}, ("source must be a Source", "str 'paper.pdf'")),
                          ({"params": g}, ("params must be a tuple",)),
                          ({"params": (g, "lam")}, ("params[1]", "str 'lam'")),
                          ({"formula": "gamma**2"}, ("formula must be a SymPy expression",)),
                          ({"reference": 3.0}, ("reference must be a callable",)),
                          ({"examples": {"gamma": 1.0}}, ("examples must be a tuple of dicts",)),
                          ({"id": "no_family"}, ("id must be 'family.name'",))):
        with pytest.raises(TypeError) as info:
            Entry(**{**ok, **change})
        _one_line(info, *words)
    for call, words in ((lambda: scalar("x", exclude=1.0), ("exclude must be a tuple", "float 1.0")),
                        (lambda: scalar("x", low="0"), ("low must be a finite real number", "str '0'")),
                        (lambda: vector("x", 3), ("dimension names", "(3,)")),
                        (lambda: scalar("lambda"), ("Python identifier",))):
        with pytest.raises(TypeError) as info:
            call()
        _one_line(info, *words)


def test_a_plain_string_account_and_a_citation_of_no_label_are_one_line_errors():
    from theorylab.authoring import Account, Derivation, Step, check_accounts

    labels = ["(1)", "(2)", "Theorem 1"]
    with pytest.raises(DomainError) as info:
        check_accounts("mini", ("(1)",), labels)
    _one_line(info, "ACCOUNTS[0] must be an Account", "str '(1)'")
    with pytest.raises(DomainError) as info:
        check_accounts("mini", "(1)", labels)
    _one_line(info, "ACCOUNTS must be a tuple")
    with pytest.raises(DomainError) as info:
        Account("(1)", "definition", 3)
    _one_line(info, "reason must be a string")
    with pytest.raises(DomainError) as info:
        check_accounts("mini", (Account("(9)", "definition", "notation"),), labels)
    _one_line(info, "ACCOUNTS names (9)", "does not list")
    x = sp.Symbol("x", positive=True)
    d = Derivation(key="mini.d", title="t", source="mini.pdf", where="Sec. 1", entries=("mini.e",),
                   steps=(Step("(3) as printed", lhs=(x + 1) ** 2, rhs=x**2 + 2 * x + 1, cites=("(3)",),
                               fidelity="as printed"),))
    with pytest.raises(DomainError) as info:
        check_accounts("mini", (), labels, [d])
    _one_line(info, "step '(3) as printed' of mini.d cites (3)", "does not list")
    d2 = Derivation(key="mini.d", title="t", source="mini.pdf", where="Sec. 1", entries=("mini.e",),
                    steps=(Step("(1) as printed", lhs=(x + 1) ** 2, rhs=x**2 + 2 * x + 1, cites=("(1)",),
                                fidelity="as printed"),))
    with pytest.raises(DomainError) as info:
        check_accounts("mini", (Account("(1)", "definition", "notation"),), labels, [d2])
    _one_line(info, "(1) is both accounted for", "step '(1) as printed' of mini.d")
    assert check_accounts("mini", [Account("(2)", "not-checkable", "a picture")], labels, [d2])[0].label == "(2)"


def _two_scalars() -> Entry:
    g = scalar("gamma", "a ratio", low=0, low_open=True, high=10)
    lam = scalar("lam", "a penalty", low=0, low_open=True, high=10)

    def reference(gamma, lam):
        """Route: mpmath at 30 digits."""
        import mpmath

        with mpmath.workdps(30):
            return float(mpmath.mpf(gamma) / (1 + mpmath.mpf(lam)))

    return Entry(id="toy.two", title="", source=Source("toy", "(1)"), doc="", params=(g, lam),
                 formula=g.symbol / (1 + lam.symbol), reference=reference)


def test_mismatched_shapes_are_a_domain_error_naming_the_parameters_and_shapes():
    entry = _two_scalars()
    assert entry(gamma=[1.0, 2.0], lam=1.0).shape == (2,) and entry(gamma=[[1.0], [2.0]], lam=[1.0, 3.0]).shape == (2, 2)
    with pytest.raises(DomainError) as info:
        entry(gamma=[1.0, 2.0], lam=[1.0, 2.0, 3.0])
    _one_line(info, "gamma, lam must have shapes that broadcast", "gamma of shape (2,)", "lam of shape (3,)")
    suite = contract_tests(entry, cli=False, torch=False)
    suite.test_bad_input_raises_domain_error_naming_the_parameter(entry)  # the generated rule includes shapes


def test_mismatched_shapes_exit_2_on_the_command_line():
    from theorylab.testing import run_cli

    code, out, err = run_cli("eval", "relu.penalty", "m=[1, 2]", "m0=[1, 2, 3]", "rho=0.5", "gamma=1")
    assert code == 2 and out == "" and err.startswith("error: m, m0 must have shapes that broadcast"), err
    assert err.count("\n") == 1 and "m of shape (2,), m0 of shape (3,)" in err


def test_parameter_symbols_carry_the_assumptions_of_their_domain():
    assert scalar("a", low=0, low_open=True, high=5).symbol.is_positive
    nonneg = scalar("b", low=0, high=5).symbol
    assert nonneg.is_nonnegative and nonneg.is_positive is None
    assert scalar("c", low=-1, high=0, high_open=True).symbol.is_negative
    assert scalar("d", high=0).symbol.is_nonpositive
    assert scalar("e", exclude=(0,)).symbol.is_nonzero
    assert integer("n", low=1, high=10).symbol.is_positive and integer("n", low=1, high=10).symbol.is_integer
    plain = scalar("f", low=-1, high=1).symbol
    assert plain.is_real and plain.is_positive is None
    x = scalar("x", low=0, low_open=True, high=1e6).symbol
    assert sp.sqrt(x**2) == x and sp.Abs(x) == x       # SymPy simplifies with them


def test_tex_changes_only_printing():
    lam = scalar("lam", "ridge penalty", low=0, low_open=True, tex=r"\lambda")
    g = scalar("gamma", low=0, low_open=True)
    expr = g.symbol * lam.symbol
    assert lam.symbol.name == "lam" and sorted(str(expr).split("*")) == ["gamma", "lam"]
    assert sorted(sp.latex(expr).split()) == [r"\gamma", r"\lambda"] and "\\" not in sp.pretty(expr)  # show: names
    assert "L" in sp.latex(expr, symbol_names={lam.symbol: "L"}).split()           # a printer setting still wins
    entry = Entry(id="toy.t", title="", source=Source("p", "(1)"), doc="", params=(g, lam), formula=expr)
    assert r"\lambda" in entry.latex() and "λ" in entry.unicode() and "\\" not in entry.unicode()   # show: Unicode
    assert scalar("m0", low=0, tex="m_0").symbol == scalar("m0", low=0).symbol  # the same LaTeX: a plain symbol


def test_the_generic_point_is_inside_every_branch():
    """The issue's case: both parameters' bulk starts at the smallest normal float, where the unused branch
    lam/(gamma - lam) is 0/0 and torch's gradient of the whole Piecewise is NaN."""
    from theorylab.testing import valid_example

    lam = scalar("lam", low=0, low_open=True, high=1e12)
    g = scalar("gamma", low=0, low_open=True, high=1e12)
    formula = sp.Piecewise((lam.symbol / (g.symbol - lam.symbol), g.symbol > 2 * lam.symbol), (g.symbol, True))

    def reference(lam, gamma):
        """Route: the same branches in mpmath."""
        return lam / (gamma - lam) if gamma > 2 * lam else gamma

    entry = Entry(id="toy.branches", title="", source=Source("p", "(1)"), doc="", params=(lam, g), formula=formula,
                  reference=reference)
    point = valid_example(entry)
    assert 1e-3 < point["lam"] < 1e3 and 1e-3 < point["gamma"] < 1e3 and point["lam"] != point["gamma"], point
    contract_tests(entry, cli=False).test_torch_kernel_is_differentiable(entry)
