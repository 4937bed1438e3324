"""Hypothesis profiles: a derandomized `ci` profile by default, `thorough` on demand.

HYPOTHESIS_PROFILE=thorough pytest  runs 20x more examples with randomization.
"""
import os

from hypothesis import HealthCheck, Phase, settings

# ci: no `explain` phase. It only annotates a failure's report (which parts of the shrunk input matter) and reruns
# the test many times to do so: 15 of the 19 s of a test that asserts a planted failure is caught. Every phase that
# finds or shrinks a failure runs.
settings.register_profile("ci", derandomize=True, deadline=None, database=None, max_examples=100,
                          print_blob=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
                          phases=[p for p in Phase if p is not Phase.explain])
settings.register_profile("thorough", deadline=None, max_examples=2000,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


import pytest


@pytest.fixture(autouse=True)
def _no_papers_left_registered():
    """A test that runs the CLI in-process with --paper registers that paper for the process (catalogue.use); forget
    it afterwards, so a later test in the same worker never sees it (which tests share a worker depends on -n)."""
    yield
    from theorylab._pipeline import catalogue

    catalogue.use(())


# Tests that share work done once per process run in one pytest-xdist worker (`--dist loadgroup`, set in
# pyproject.toml):
# - "derivations": they check every built-in derivation in-process; Derivation.check caches its results per process
#   (the steps are pure), so the derivations are checked once per run instead of once per worker that meets them;
# - "report": the module-scoped record and report of tests/test_report.py are built once;
# - "shadow": the clean outputs the install-mode tests of tests/test_papers.py compare against are computed once.
_GROUPS = {
    "derivations": ("test_derivation_is_as_recorded", "test_every_built_in_paper_is_accounted_for",
                    "test_latex_document_", "test_relu_derivations_check_as_recorded",
                    "test_check_lists_every_step_with_its_method"),
    "shadow": ("test_user_verify_and_derivations_shadow_nothing", "test_source_checkout_without_install",
               "test_regular_install"),
    # the scaffold docs/authoring.md's section 1 installs (the `guide_scaffold` fixture below) is made once
    "scaffold": ("test_guide_scaffold_runs", "test_scaffolded_paper_installs_and_passes_its_checks"),
    # ... and the example it pip-installs (`guide_example`)
    "guide-example": ("test_guide_example_runs", "test_example_installs_and_registers_by_its_entry_point"),
}
_MODULE_GROUPS = {"test_coverage_000": "derivations", "test_coverage_001": "derivations",
                  "test_coverage_002": "derivations", "test_coverage_003": "derivations",
                  "test_omega_proofs": "derivations", "test_report": "report"}


def _group_of(module: str, name: str) -> str | None:
    """The xdist group of test `name` (unparametrized) in test module `module` (its file name without .py)."""
    group = _MODULE_GROUPS.get(module)
    if name.startswith(_GROUPS["derivations"]):  # test_report's LaTeX tests check every derivation too
        group = "derivations"
    else:
        group = next((g for g in ("shadow", "scaffold", "guide-example") if name in _GROUPS[g]), group)
    return group


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks into the test IDs
def pytest_collection_modifyitems(config, items):
    for item in items:
        group = _group_of(item.module.__name__.rsplit(".", 1)[-1], getattr(item, "originalname", item.name))
        if group:
            item.add_marker(pytest.mark.xdist_group(group))


# -- the groups reach the scheduler by name (issue #36 item 3; engineer e's block) ---------------------------------
# pytest 9 derives Node.nodeid from Node._id, so pytest-xdist's loadgroup, which appends "@group" to a test's ID by
# assigning item._nodeid in the worker, no longer changes the ID (xdist 3.8, pytest 9.2): every test was a work unit
# of its own and the groups above were split over the workers, each deciding the derivations and comparing the
# print again (measured: `coverage 002` decided on both workers, 28 + 20 s; [000] and [001] ran on different
# workers). The scheduler below reads the group from the test's ID by the same rules, in the controller, whatever the
# pytest version; an ID that xdist did suffix ("...@derivations") gives the same group.
def _group_of_nodeid(nodeid: str) -> str | None:
    path, _, rest = nodeid.partition("::")
    name = rest.rsplit("::", 1)[-1].split("[", 1)[0].split("@", 1)[0]
    return _group_of(path.rsplit("/", 1)[-1].removesuffix(".py"), name)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: absent without it
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class _GroupsByName(LoadScopeScheduling):
        """loadgroup's scheduling (a group is one work unit, on one worker; any other test is a unit of its own),
        the group read from the test's ID."""

        def _split_scope(self, nodeid: str) -> str:
            group = _group_of_nodeid(nodeid)
            return f"group:{group}" if group else nodeid

    return _GroupsByName(config, log)


def pytest_configure(config):
    """Fewer garbage-collector passes: SymPy and Hypothesis allocate millions of short-lived objects (measured: 5-9%
    less CPU time on the contract tests)."""
    import gc

    gc.set_threshold(50_000, 20, 100)


def pytest_collection_finish(session):
    """What collection imported (the papers, SymPy's caches) is frozen out of the collector's full passes."""
    import gc

    gc.collect()
    gc.freeze()


# -- session fixtures of the process and install tests (tests/test_guide.py, test_scaffold.py, test_examples.py) ------


@pytest.fixture(scope="session")
def guide_scaffold(tmp_path_factory):
    """docs/authoring.md's section 1 run once (tests/guide_run.py): `theorylab new my-paper`, `pip install -e`, `check`
    and the scaffold's pytest in a throw-away environment. tests/test_guide.py asserts the run; tests/test_scaffold.py
    goes on from the same installed scaffold (verify, latex, report) instead of scaffolding and installing it again."""
    from guide_run import GuideRun

    return GuideRun("scaffold", tmp_path_factory.mktemp("guide-scaffold"))


@pytest.fixture(scope="session")
def guide_example(tmp_path_factory):
    """docs/authoring.md's commands on examples/minnorm run once (tests/guide_run.py): `pip install -e
    examples/minnorm` into a throw-away environment, then list, show, eval, check, verify, report, latex and its
    pytest. tests/test_guide.py asserts what they print and write; tests/test_examples.py asserts from the same
    install that the paper registers by its entry point alone, and uninstalls it."""
    from guide_run import GuideRun

    return GuideRun("example", tmp_path_factory.mktemp("guide-example"))
