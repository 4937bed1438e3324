"""Fidelity to the printed page by machine, in single-role modules behind one narrow interface
(theorylab._pipeline.fidelity): parses, names, values, links, the comparer's parts, label status, per paper."""
