"""Shared test helpers: the contract suite's relative-error comparisons (from theorylab.testing: one copy, the one a
paper author's tests use) and a stateless in-process CLI runner (theorylab.testing.run_cli keeps papers registered
by earlier calls for an author's convenience; the project's tests of registration need each call on its own)."""
from __future__ import annotations

import contextlib
import io

from theorylab.cli import main
from theorylab.testing import SUBNORMAL_FLOOR, close, rel_error

__all__ = ["SUBNORMAL_FLOOR", "close", "rel_error", "run_cli"]


def run_cli(*argv: str) -> tuple[int, str, str]:
    """Run `theorylab argv...` in this process; return (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()
