"""The contract suite as a library: every entry of any registered paper, tested in one line of a user's test file.

    # tests/test_mypaper.py
    from theorylab.testing import contract_tests

    TestMyPaper = contract_tests("mypaper")

pytest collects the returned class: one test per entry (and per derivation) for each contract rule below, with the
entry ID in the test ID (`TestMyPaper::test_value_matches_reference[mypaper.risk]`). The rules:

- an independent reference, whose docstring names its route;
- the float64 value against that reference over the entry's domain (Hypothesis, pinned `examples` always run, and
  joint neighbourhoods drawn: two or more parameters near their special points together, down to the smallest normal
  float and one ulp), relative error <= `entry.rtol` (1e-10 unless the entry states otherwise); a value float64
  cannot hold must be a DomainError, never inf;
- the stable form against the paper's formula (mpmath) wherever the latter is finite, to 1e-9 relative;
- broadcasting: scalar parameters given as arrays give the values at each point;
- the torch kernel against the NumPy kernel (1e-12 relative) and its gradients finite at a generic point inside
  every branch's domain;
- bad input (NaN, inf, out of the domain, excluded points, wrong shapes, arrays that do not broadcast, unknown or
  missing names) raises DomainError with one line naming the parameter, in Python and through the CLI (exit 2,
  `error:` on stderr);
- `theorylab eval` returns the value the Python call returns, bit for bit;
- LaTeX renders (balanced braces and environments);
- every derivation step as recorded: unmarked steps hold, every erratum fails at its counterexample;
- fidelity: every step citing a label of the paper declares "as printed" or an Amendment (whose printed statement
  is a step too), and every root the ledger's items name is an item of the paper.

Hypothesis uses the loaded profile's number of examples (`max_examples=` overrides), with no deadline (references
run in mpmath). Importing this module imports neither torch nor pytest; building the suite imports pytest, and only
the torch tests import torch.
"""
from __future__ import annotations

import contextlib
import io
import json
import functools
import logging
import sys
from dataclasses import replace
from typing import Any, Mapping, Sequence

import numpy as np

from ._decide.derivation import AS_PRINTED, Amendment, Derivation
from ._decide.entry import Entry
from ._numerics import kernels
from ._pipeline import catalogue
from ._records.params import DomainError

__all__ = ["contract_tests", "module_tests", "contract_entries", "cases", "close", "rel_error", "run_cli",
           "valid_example", "bad_cases", "label_status", "SUBNORMAL_FLOOR"]

_log = logging.getLogger("theorylab.testing")  # every contract comparison at DEBUG, pass or fail
_TORCH_RTOL = 1e-12    # two float64 kernels of one expression: libm ulps apart
_STABLE_RTOL = 1e-9    # the stable form against the paper's formula in mpmath (the formula may lose digits)
_BROADCAST_RTOL = 1e-12  # vectorized against pointwise NumPy: vector and scalar libm paths differ by ulps


# -- comparisons ---------------------------------------------------------------------------------------------
def rel_error(value: Any, reference: Any) -> float:
    """Max over dict keys of the relative Frobenius error ||value - reference|| / ||reference||.

    Arguments: value, reference: numbers, arrays, None, or dicts of them (compared key by key).
    Returns: a float >= 0 (inf on a shape mismatch, or where the reference is zero and the value is not).
    Example: `rel_error([1.0, 2.0], [1.0, 2.0 + 1e-12])` is about 4.5e-13."""
    if isinstance(reference, dict):
        return max((rel_error(value[k], reference[k]) for k in reference), default=0.0)
    if reference is None:
        return 0.0 if value is None else np.inf
    v = np.asarray(value, dtype=float)
    r = np.asarray(reference, dtype=float)
    if v.shape != r.shape:
        return np.inf
    big = float(np.max(np.abs(r))) if r.size else 0.0
    if big == 0.0:
        return 0.0 if not np.any(v) else np.inf
    diff = float(np.linalg.norm(((v - r) / big).ravel()))  # scaled: no overflow near 1e300
    scale = float(np.linalg.norm((r / big).ravel()))
    if scale == 0.0:
        return 0.0 if diff == 0.0 else np.inf
    return diff / scale


def close(value: Any, reference: Any, rtol: float, atol: float | None = None) -> bool:
    """The contract's comparison: `theorylab._shared.close`, the one closeness rule (elementwise relative to each
    reference element, absolute within SUBNORMAL_FLOOR where the reference is 0 or subnormal: no float64 computation
    can be 1e-10-relative below the normal range). Example: `close(1.0 + 1e-12, 1.0, 1e-10)` is True;
    `close([1, 1.001e-10], [1, 1e-10], 1e-10)` is False (a norm of the error would hide the second element)."""
    atol = SUBNORMAL_FLOOR if atol is None else atol  # an entry's Entry.atol_for(reference) where it states one
    if _log.isEnabledFor(logging.DEBUG) and not isinstance(reference, dict) and reference is not None:
        _log.debug(closeness(value, reference, rtol, atol=atol).message)
    return _close(value, reference, rtol, atol=atol)


def _why(value: Any, reference: Any, rtol: float, where: Any, atol: float | None = None) -> str:
    """The failure message of a contract comparison (scipy FuncData style): relative and absolute error, the
    tolerances and the worst point, then the inputs (`close` logs the same at DEBUG, pass or fail)."""
    atol = SUBNORMAL_FLOOR if atol is None else atol
    return (f"{closeness(value, reference, rtol, atol=atol).message}; Frobenius rel error "
            f"{rel_error(value, reference):.3g}; inputs {where}")


def run_cli(*argv: str) -> tuple[int, str, str]:
    """Run `theorylab argv...` in this process; return (exit status, stdout, stderr).

    Papers registered in this process with `theorylab._pipeline.catalogue.use([...])` (the `--paper` option) stay
    registered: they are passed on as `--paper` options of the subcommand.
    Example: `code, out, err = run_cli("eval", "mypaper.risk", "n=3")`."""
    from .cli import main  # lazy: the layer above (ALLOWED in test_structure); only run_cli needs it

    extra = [a for spec in catalogue._cli_papers for a in ("--paper", spec)]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*argv, *extra] if argv else list(argv))
    return code, out.getvalue(), err.getvalue()


# -- inputs ----------------------------------------------------------------------------------------------------
# the contract's Hypothesis settings and its generic point live beside the joint neighbourhoods (accuracy), which
# need them too: the engine then never imports this module (nor, through run_cli, the CLI)
from ._tools.accuracy import contract_phases as _phases  # noqa: E402
from ._tools.accuracy import joint_points  # noqa: E402
from ._tools.accuracy import contract_settings as _settings  # noqa: E402
from ._tools.accuracy import pinned_misses as _accuracy_misses  # noqa: E402
from ._tools.accuracy import valid_example as valid_example  # noqa: E402
from ._shared import SUBNORMAL_FLOOR as SUBNORMAL_FLOOR  # noqa: E402
from ._shared import close as _close  # noqa: E402
from ._shared import closeness  # noqa: E402
from ._shared import representable as _representable  # noqa: E402


JOINT_LEVELS, JOINT_POINTS = 3, 60  # the contract's joint neighbourhoods: approach levels, points per entry


def cases(entry, *, pinned: bool = True):
    """The entry's Hypothesis strategy with its pinned examples (hard inputs) and its joint neighbourhoods mixed in:
    points where two or more parameters approach their special points together (`accuracy.joint_points`: an
    excluded point, a bound, 0 or an unbounded end each, down to the smallest normal float and one ulp).
    pinned=False leaves the pinned examples out, for a test that runs every one of them itself."""
    from hypothesis import strategies as st  # lazy: hypothesis costs ~0.4 s; importing this module loads none of it

    base = entry.strategy()
    branches = [st.sampled_from(list(entry.examples))] if entry.examples and pinned else []
    branches.append(base)
    joint = [kw for pts in joint_points(entry, JOINT_LEVELS, JOINT_POINTS).values() for kw in pts]
    if joint:
        branches.append(st.sampled_from(joint))
    return st.one_of(*branches) if len(branches) > 1 else base


def bad_cases(entry) -> list[tuple[dict, str]]:
    """(keyword arguments, the text the error must contain: the parameter's name) for inputs the entry must refuse:
    an unknown name, each required parameter missing, each parameter's bad values (NaN, inf, wrong type or shape,
    outside its bounds, its excluded points), and two scalar parameters given arrays whose shapes do not broadcast
    (the message names both with their shapes)."""
    good = valid_example(entry)
    out = [({**good, "no_such_parameter": 1.0}, "no_such_parameter")]
    for p in entry.params:
        if not p.has_default:
            out.append(({k: v for k, v in good.items() if k != p.name}, p.name))
        for bad, _why in p.bad_values(good[p.name]):
            out.append(({**good, p.name: bad}, p.name))
    scalars = [p for p in entry.params if p.kind in ("scalar", "integer") and p.name in good]
    if len(scalars) >= 2:  # arrays of shapes that do not broadcast: a DomainError naming the parameters and shapes
        a, b = scalars[:2]
        out.append(({**good, a.name: [good[a.name]] * 2, b.name: [good[b.name]] * 3}, f"{a.name} of shape (2,)"))
    return out


def _cli_args(kwargs: dict) -> list[str]:
    out = []
    for k, v in kwargs.items():
        if isinstance(v, str):
            out.append(f"{k}={v}")
        elif isinstance(v, float) and not np.isfinite(v):
            out.append(f"{k}={v}")
        elif isinstance(v, np.ndarray):
            out.append(f"{k}=" + json.dumps(v.tolist()))  # NaN and Infinity: JSON literals Python reads
        else:
            out.append(f"{k}={json.dumps(v)}")
    return out


# -- the suite -----------------------------------------------------------------------------------------------------
def contract_entries(*select: Any) -> tuple[list, list]:
    """The entries and derivations a selection covers: paper names, family names or entry IDs, as on the command
    line (none: every registered paper), and Entry or Derivation records themselves (not yet registered: the CLI
    tests need a registered entry). An unknown name raises DomainError naming it.

    Returns: (entries, derivations) in registration order; a derivation is included when it concerns a selected
    entry."""
    records = [x for x in select if isinstance(x, (Entry, Derivation))]
    names = [x for x in select if not isinstance(x, (Entry, Derivation))]
    entries = [x for x in records if isinstance(x, Entry)]
    derivations = [x for x in records if isinstance(x, Derivation)]
    if names or not records:
        ids, fams = catalogue.select(names)
        loaded = catalogue.families(fams)
        entries += [e for f in loaded for e in f.entries if e.id in ids]
        derivations += [d for f in loaded for d in f.derivations if set(d.entries) & ids or not d.entries]
    return entries, derivations


def _broadcastable(entry) -> bool:
    return (entry.compute is None and entry.formula is not None and entry.reduce is None and bool(entry.params)
            and all(p.kind in ("scalar", "integer") for p in entry.params))


# -- the contract tests: one helper per kind (contract_tests binds each to its selection, parametrized by ID) ---------
def _every_entry_has_an_independent_reference(entry) -> None:
    """A reference that does not reuse the kernel's expression (quadrature, the defining optimization, a series,
    exact arithmetic): without one, the value test would check rounding only."""
    assert entry.reference is not None, f"{entry.id} has no independent reference"
    assert (entry.reference.__doc__ or "").strip(), f"{entry.id}: the reference's docstring must name its route"


def _stable_form_equals_the_papers_formula(entry) -> None:
    """The float64 kernel (stable form) against the paper's formula in mpmath, wherever the latter is finite."""
    from hypothesis import given  # lazy: hypothesis costs ~0.4 s; importing this module loads none of it

    @given(cases(entry))
    @_settings(max_examples=40)
    def check(kwargs):
        values = entry.validate(kwargs)
        args = [values[p.name] for p in entry.kernel_params]
        paper = np.asarray(kernels.mp_reference_array(entry.mpmath, args), dtype=float)
        if not np.all(np.isfinite(paper)):
            return
        got = entry.numpy(*args)
        assert close(got, paper, _STABLE_RTOL), (kwargs, got, paper)

    check()


def _value_matches_reference(entry, max_examples: int | None = None) -> None:
    """float64 value vs the independent high-precision reference, relative error <= entry.rtol."""
    # lazy: pytest (~80 ms) and hypothesis (~0.4 s) only once a suite runs: importing this module loads neither
    import pytest
    from hypothesis import given

    def one(kwargs):
        ref = entry.reference_value(**kwargs)
        if not _representable(ref):  # the contract: a value float64 cannot hold is a DomainError, never inf
            with pytest.raises(DomainError, match="not representable"):
                entry(**kwargs)
            return
        value = entry(**kwargs)
        atol = entry.atol_for(ref)
        assert close(value, ref, entry.rtol, atol=atol), _why(value, ref, entry.rtol, kwargs, atol)

    if callable(max_examples):  # a budget per entry (contract_tests' max_examples)
        max_examples = max_examples(entry)
    # pinned inputs always run, whatever Hypothesis draws, and so does every miss `theorylab accuracy` found (#34)
    for ex in [*entry.examples, *_accuracy_misses(entry.id)]:
        one(ex)
    # ... so Hypothesis draws from the rest (the domain and the joint neighbourhoods), never re-running a pinned one
    given(cases(entry, pinned=False))(_settings(max_examples)(one))()


def _scalar_parameters_broadcast(entry) -> None:
    """Scalar parameters given as arrays (one point per element) give the pointwise values."""
    # lazy: hypothesis costs ~0.4 s; importing this module loads none of it
    from hypothesis import assume, given
    from hypothesis import strategies as st

    @given(st.lists(entry.strategy(), min_size=2, max_size=4))
    @_settings(max_examples=20)
    def check(points):
        try:
            pointwise = np.array([entry(**kw) for kw in points], dtype=float)
        except DomainError:  # a point whose value float64 cannot hold: the value test covers it
            assume(False)
        arrays = {p.name: np.array([kw[p.name] for kw in points]) for p in entry.params if p.name in points[0]}
        got = entry(**arrays)
        assert np.shape(got) == (len(points),), (points, got)
        assert close(got, pointwise, _BROADCAST_RTOL), (points, got, pointwise)

    check()


def _torch_kernel_equals_numpy(entry) -> None:
    """Both kernels evaluate the same stable form in float64: agreement to 1e-12 relative (libm ulps)."""
    # lazy: torch costs ~1.9 s and hypothesis ~0.4 s; only the torch rule needs them
    import torch as _torch
    from hypothesis import given

    @given(entry.strategy())
    @_settings(max_examples=50)
    def check(kwargs):
        values = entry.validate(kwargs)
        args = [values[p.name] for p in entry.kernel_params]
        expected = entry.numpy(*args)
        got = entry.torch(*[_torch.as_tensor(np.asarray(a, dtype=float)) for a in args]).numpy()
        np.testing.assert_allclose(got, expected, rtol=_TORCH_RTOL, atol=0)

    check()


def _torch_kernel_is_differentiable(entry) -> None:
    """Gradients of the torch kernel exist and are finite at a generic valid point, inside every branch's domain
    (torch differentiates through the unused branches of a Piecewise too)."""
    import torch as _torch  # lazy: torch costs ~1.9 s; only the torch rule needs it

    values = entry.validate(valid_example(entry))  # a generic point: pinned examples sit at boundaries
    args = [_torch.tensor(np.asarray(values[p.name], dtype=float), requires_grad=True)
            for p in entry.kernel_params]
    entry.torch(*args).sum().backward()
    for a in args:
        assert a.grad is not None and _torch.all(_torch.isfinite(a.grad)), (values, a.grad)


def _bad_input_raises_domain_error_naming_the_parameter(entry) -> None:
    """Each bad input raises DomainError; the one-line message names the parameter."""
    import pytest  # lazy: pytest only when a suite is built: importing this module loads none of it

    for kwargs, pname in bad_cases(entry):
        with pytest.raises(DomainError) as info:
            entry(**kwargs)
        message = str(info.value)
        assert pname in message and "\n" not in message, (kwargs, message)


def _cli_bad_input_rule(entry) -> None:
    """Exit status 2, one stderr line starting `error:` that names the parameter, nothing on stdout."""
    for kwargs, pname in bad_cases(entry):
        args = _cli_args(kwargs)
        code, out, err = run_cli("eval", entry.id, *args)
        assert code == 2 and out == "", (args, code, out, err)
        assert err.startswith("error:") and err.count("\n") == 1 and pname in err, (args, err)


def _cli_eval_round_trips(entry) -> None:
    """`theorylab eval ID name=value ...` prints the value the Python call returns, bit for bit."""
    kwargs = valid_example(entry)
    code, out, err = run_cli("eval", entry.id, *_cli_args(kwargs))
    assert code == 0 and err == "", err
    record = json.loads(out)
    assert record["id"] == entry.id
    assert rel_error(record["value"], entry(**kwargs)) == 0.0


def _latex_renders(entry) -> None:
    """The entry's LaTeX is non-empty with balanced braces; its LaTeX block balances its environments."""
    # lazy: the LaTeX writer (~6 ms, 2 modules) that `theorylab eval` skips: authoring loads this module
    from ._outputs.latex import entry_block

    text = entry.latex()
    assert text and text.count("{") == text.count("}") and "None" not in text
    assert entry._repr_latex_().startswith("$$")
    block = entry_block(entry)
    assert block.count(r"\begin{") == block.count(r"\end{")


def _derivation_is_as_recorded(derivation) -> None:
    """Unmarked steps hold and every step marked as an erratum fails (the ledger cannot go stale)."""
    results = derivation.check()
    bad = [(r.step.label, r.status, r.outcome.detail) for r in results if not r.ok]
    assert not bad, bad


def _derivation_declares_fidelity(derivation, derivations: Sequence = ()) -> None:
    """Each citing step says whether it checks the print or an amendment; the ledger's roots resolve."""
    from ._decide.ledger import collect  # lazy: ~5 ms that `theorylab eval` skips (authoring loads this module)

    undeclared = [s.label for s in derivation.steps
                  if s.cites and not (s.fidelity == AS_PRINTED or isinstance(s.fidelity, Amendment))]
    assert not undeclared, f"{derivation.key}: steps citing a label without a fidelity declaration: {undeclared}"
    mine = [d for d in derivations if d.source == derivation.source]
    collect([("paper", d) for d in mine], verdict=None)  # LedgerError names an unknown root or a cycle


# (test name, helper, the records it runs over, the suite's context it takes, the option that includes it), in the
# order of the suite's class; the records: "entries", "stable" (a stable form other than the formula), "broadcast"
# (scalar parameters only), "kernel" (a formula and no custom compute) or "derivations"
_CONTRACT = (
    ("test_every_entry_has_an_independent_reference", _every_entry_has_an_independent_reference, "entries", (), None),
    ("test_stable_form_equals_the_papers_formula", _stable_form_equals_the_papers_formula, "stable", (), None),
    ("test_value_matches_reference", _value_matches_reference, "entries", ("max_examples",), None),
    ("test_scalar_parameters_broadcast", _scalar_parameters_broadcast, "broadcast", (), None),
    ("test_bad_input_raises_domain_error_naming_the_parameter", _bad_input_raises_domain_error_naming_the_parameter,
     "entries", (), None),
    ("test_latex_renders", _latex_renders, "entries", (), None),
    ("test_derivation_is_as_recorded", _derivation_is_as_recorded, "derivations", (), None),
    ("test_derivation_declares_fidelity", _derivation_declares_fidelity, "derivations", ("derivations",), None),
    ("test_torch_kernel_equals_numpy", _torch_kernel_equals_numpy, "kernel", (), "torch"),
    ("test_torch_kernel_is_differentiable", _torch_kernel_is_differentiable, "kernel", (), "torch"),
    ("test_cli_bad_input_rule", _cli_bad_input_rule, "entries", (), "cli"),
    ("test_cli_eval_round_trips", _cli_eval_round_trips, "entries", (), "cli"),
)


def _bound_test(name: str, helper: Any, arg: str, context: Mapping[str, Any]) -> Any:
    """A fresh test function `name(entry)` (or `name(derivation)`) calling `helper` with the suite's `context`: fresh
    so that each suite's parametrize marks stay its own; its docstring is the helper's."""
    if arg == "entry":
        def test(entry):
            return helper(entry, **context)
    else:
        def test(derivation):
            return helper(derivation, **context)
    test.__name__ = test.__qualname__ = name
    test.__doc__ = helper.__doc__
    return test


def _parametrize(test: Any, chosen: Sequence, arg: str, known: Mapping[str, str], used: set[str]) -> Any:
    """`test` parametrized over `chosen` by entry ID (or derivation key); an ID in `known` (`test_name[ID]`) is a
    strict xfail with its reason, and recorded in `used`."""
    import pytest  # lazy: pytest only when a suite is built: importing this module loads none of it

    params = []
    for x in chosen:
        ident = getattr(x, "id", None) or x.key
        key = f"{test.__name__}[{ident}]"
        marks = ()
        if key in known:
            used.add(key)
            marks = (pytest.mark.xfail(reason=known[key], strict=True),)
        params.append(pytest.param(x, id=ident, marks=marks))
    return pytest.mark.parametrize(arg, params)(test)


def contract_tests(*select: Any, max_examples: int | None = None, cli: bool = True, torch: bool = True,
                   known_failures: Mapping[str, str] | None = None, name: str = "TestContract") -> type:
    """A pytest test class holding the contract tests of the selected entries, parametrized by entry ID.

    Arguments:
        select: paper names, family names or entry IDs, as `theorylab verify` takes them (none: every registered
            paper), or Entry and Derivation records (then pass cli=False unless they are registered). Resolved when
            called, i.e. when pytest imports the test module: an unknown name fails the collection with a one-line
            error.
        max_examples: Hypothesis examples of the value test (default: the loaded Hypothesis profile's), or a function
            entry -> that number or None (e.g. fewer for an entry whose reference takes a second a call; its pinned
            examples always run).
        cli: include the command-line tests (bad input rule, `eval` round trip).
        torch: include the torch tests (they import torch).
        known_failures: {"test_name[ID]": reason}: tests expected to fail, marked strict xfail (so a fix shows up
            as a failure until the mark is removed); an ID that names no test here is refused.
        name: the class name (pytest collects classes whose name starts with `Test`).
    Returns:
        a class to bind to a `Test...` name in a test module; its test methods are static and may also be bound to
        module-level names (`test_value_matches_reference = suite.test_value_matches_reference`).
    Example::

        from theorylab.testing import contract_tests
        TestMyPaper = contract_tests("mypaper")
    """
    entries, derivations = contract_entries(*select)
    kernel = [e for e in entries if e.compute is None and e.formula is not None]
    records = {"entries": entries, "kernel": kernel, "derivations": derivations,
               "stable": [e for e in kernel if e.stable_form is not None and e.stable_form != e.formula],
               "broadcast": [e for e in entries if _broadcastable(e)]}
    suite_context = {"max_examples": max_examples, "derivations": derivations}
    included = {None: True, "torch": torch, "cli": cli}
    known = dict(known_failures or {})
    used: set[str] = set()
    tests: dict[str, Any] = {}
    for test_name, helper, over, needs, option in _CONTRACT:
        if included[option]:
            arg = "derivation" if over == "derivations" else "entry"
            test = _bound_test(test_name, helper, arg, {k: suite_context[k] for k in needs})
            tests[test_name] = _parametrize(test, records[over], arg, known, used)
    stale = sorted(set(known) - used)
    if stale:
        raise ValueError(f"known_failures names no test of this suite: {', '.join(stale)} (a test ID is "
                         f"'test_name[entry ID]')")
    what = ", ".join(str(getattr(x, "id", getattr(x, "key", x))) for x in select) or "every registered paper"
    doc = f"The theorylab contract of {what}: {len(entries)} entries, {len(derivations)} derivations."
    return type(name, (), {"__doc__": doc, "__module__": _caller_module(),
                           **{k: staticmethod(v) for k, v in tests.items()}})


def _caller_module() -> str:
    frame = sys._getframe(2)
    return frame.f_globals.get("__name__", __name__)


def module_tests(suite: type) -> dict[str, Any]:
    """The test functions of a suite from `contract_tests`, by name, to bind at module level:
    `globals().update(module_tests(contract_tests()))` keeps the test IDs `test_x[ID]` (no class in the path)."""
    return {k: getattr(suite, k) for k in vars(suite) if k.startswith("test_")}


@functools.lru_cache(maxsize=None)
def _printed_paper(paper_name: str):
    """A registered paper's derivations, its parsed printout and what comparing one of its labels needs (loaded once
    per process)."""
    from ._pipeline import fidelity  # lazy: fidelity + source parser ~0.27 s; only fidelity checks

    paper = next((p for p in catalogue.papers() if p.name == paper_name), None)
    if paper is None:
        raise ValueError(f"paper: {paper_name!r} is not a registered paper (theorylab papers lists them)")
    derivs = tuple(d for f in catalogue.families([f.name for f in paper.families]) for d in f.derivations)
    items = tuple(fidelity.printout_of(paper) or ())
    return derivs, items, fidelity._PaperContext.of(paper, derivs, items)


def label_status(paper_name: str, label: str, old: str | None = None, new: str | None = None) -> tuple[str, str]:
    """(status, reason) of the machine comparison of a printed label of a registered paper with the steps that cite
    it ("matches the print", "partly compared", "differs from the print", "not compared", ...), the printed display
    optionally planted: its first `old` replaced by `new`. Plant a slip in a display your steps match and assert the
    status is no longer "matches the print": the comparison must be able to fail.

        status, why = label_status("mypaper", "(3)", r"2 x y", r"3 x y")
        assert status != "matches the print", why
    """
    from ._pipeline import fidelity  # lazy: fidelity + source parser ~0.27 s; only fidelity checks

    derivs, items, context = _printed_paper(paper_name)
    p = next((q for q in items if q.label == label), None)
    if p is None:
        raise ValueError(f"label: {label!r} is not a labelled display of {paper_name}")
    text = p.text
    if old is not None:
        if old not in text:
            raise ValueError(f"old: {old!r} does not occur in the printed {label}: {text}")
        text = text.replace(old, new, 1)
    # through the parse cache: a planted display is parsed once per machine (the planted-slip suite reuses it)
    planted = replace(p, text=text, relations=fidelity.PARSES.parse(text, context.notation, lead=p.lead))
    # the comparison `theorylab coverage` makes (compare_paper's, chains and the errata's misprinted sides included)
    done = context.compare(planted)
    return done.status, done.reason
