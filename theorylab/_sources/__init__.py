"""A paper's source text: labels, printed displays, notation maps, LaTeX parsing (private; imports nothing of ours)."""
