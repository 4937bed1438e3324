"""Shared test helpers: the contract suite's relative-error comparisons (from theorylab.testing: one copy, the one a
paper author's tests use) and a stateless in-process CLI runner (theorylab.testing.run_cli keeps papers registered
by earlier calls for an author's convenience; the project's tests of registration need each call on its own), and the
throw-away virtual environments of the scaffold and guide tests."""
from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import io
import os
import re
import site
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

from theorylab.cli import main
from theorylab.testing import SUBNORMAL_FLOOR, close, rel_error

__all__ = ["SUBNORMAL_FLOOR", "builds_in_place", "close", "rel_error", "run_cli", "shared_step_cache", "throwaway_venv"]


def run_cli(*argv: str) -> tuple[int, str, str]:
    """Run `theorylab argv...` in this process; return (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _site_dirs() -> list[str]:
    """This interpreter's site-packages folders, as on its sys.path (base interpreter, venv or conda env alike): where
    theorylab, its dependencies and its editable-install finder are."""
    candidates = [*site.getsitepackages(), sysconfig.get_path("purelib"), sysconfig.get_path("platlib")]
    if site.ENABLE_USER_SITE:
        candidates.append(site.getusersitepackages())
    on_path = [os.path.normcase(os.path.realpath(p)) for p in sys.path if p]
    found = {os.path.normcase(os.path.realpath(c)): c for c in candidates if c and os.path.isdir(c)}
    ordered = [found[p] for p in dict.fromkeys(on_path) if p in found]
    return ordered or list(dict.fromkeys(found.values()))


def throwaway_venv(env_dir: Path) -> Path:
    """A virtual environment at env_dir, without pip of its own, that sees this interpreter's packages (theorylab
    included, however it is installed) and installs into its own folder; returns its python.

    `--system-site-packages` is not used: it exposes the BASE interpreter's site-packages, not those of the venv or
    conda env running the tests. A .pth file lists this interpreter's site folders instead (plain lines, so pip's
    build isolation recognises and drops them), then processes the .pth files in them (setuptools' editable finders)."""
    import theorylab

    env_dir = Path(env_dir)
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    own = Path(sysconfig.get_path("purelib", scheme="venv", vars={"base": str(env_dir), "platbase": str(env_dir)}))
    dirs = _site_dirs()
    lines = [*dirs, f"import site; list(map(site.addsitedir, {dirs!r}))"]
    (own / "_theorylab_outer_env.pth").write_text("\n".join(lines) + "\n")
    # the theorylab these tests import is not the one installed here (a source checkout on sys.path, as with
    # python -m pytest run in a checkout that is not installed): put that checkout first
    probe = "import importlib.util, sys; s = importlib.util.find_spec('theorylab'); print(s and s.origin)"
    seen = subprocess.run([str(python), "-c", probe], cwd=env_dir, capture_output=True, text=True, timeout=120)
    if os.path.realpath(seen.stdout.strip()) != os.path.realpath(theorylab.__file__):
        checkout = str(Path(theorylab.__file__).resolve().parents[1])
        (own / "_theorylab_outer_env.pth").write_text("\n".join([checkout, *lines]) + "\n")
    return python


def _version(dist: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in re.findall(r"\d+", importlib.metadata.version(dist))[:3])
    except importlib.metadata.PackageNotFoundError:
        return ()


def builds_in_place() -> bool:
    """Whether a scaffold (build-system: setuptools>=68, setuptools.build_meta) can be built without pip's build
    isolation, offline, by what this environment provides: setuptools>=68 and a bdist_wheel (setuptools>=70.1 has its
    own; older ones need the wheel package). Otherwise pip must build it in isolation, fetching setuptools."""
    setuptools = _version("setuptools")
    return setuptools >= (68,) and (setuptools >= (70, 1) or importlib.util.find_spec("wheel") is not None)


def shared_step_cache(cache_home: Path) -> Path:
    """cache_home (a test's own $XDG_CACHE_HOME: its timings, parses and Matplotlib's caches stay its own) with the
    session's step cache linked in as theorylab/steps, so the verdicts one test's processes decide serve the others
    instead of each deciding every step of its paper cold. Verdicts are keyed by the step's content and the engine
    (theorylab._decide.cache), so a shared one is the verdict this engine gives that step; returns cache_home."""
    cache_home = Path(cache_home)
    shared = Path(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))) / "theorylab" / "steps"
    shared.mkdir(parents=True, exist_ok=True)
    (cache_home / "theorylab").mkdir(parents=True, exist_ok=True)
    (cache_home / "theorylab" / "steps").symlink_to(shared, target_is_directory=True)
    return cache_home
