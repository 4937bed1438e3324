"""The notation of features-are-fate's Appendix B ((25)-(66): deep linear networks, their weights and singular
vectors), merged into its map by notation_002 (#24): the source's LaTeX in the symbols of the steps that cite
those labels, never its mathematics.
"""
from __future__ import annotations

__all__ = ["REWRITES", "SYMBOLS"]

REWRITES: tuple = ()
SYMBOLS: dict = {}
