"""The comparison's thresholds and versions, in one place: agreement (RTOL), decisiveness (DECISIVE,
MARGIN), sample sizes (POINTS, QUAD_POINTS), the cache versions and the relations' LaTeX."""
from __future__ import annotations

from .._decide.derivation import RELATION_TEX as _STEP_TEX


PARSE_CACHE_VERSION = "theorylab-parses-1"   # bump when what a cached parse means changes
COMPARE_CACHE_VERSION = "theorylab-compared-2"
RTOL = 1e-9          # two sides agree at a point when |a - b| <= RTOL * max(1, |a|, |b|) (30-digit evaluation)
DECISIVE = 1e-6      # a relation fails decisively at a point when it misses by more than DECISIVE * max(1, |a|, |b|)
POINTS = 12          # sampled points per comparison
MARGIN = 1e3         # a difference from a step with a stated tolerance is decisive only beyond MARGIN times it
QUAD_POINTS = 4      # ... where a printed side has an integral only quadrature evaluates (~0.4 s a side and point)
_DPS = 30
RELATION_TEX = {**_STEP_TEX, "approx": r"\approx", "propto": r"\propto"}
_SYMMETRIC = ("==", "approx", "propto")      # a op b is b op a
