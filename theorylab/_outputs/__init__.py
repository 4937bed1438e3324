"""Outputs: LaTeX and the HTML report, which read records and entries (private)."""
