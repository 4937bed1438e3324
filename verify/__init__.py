"""The built-in papers' evidence: one module per family exporting CHECKS, and one figures module per paper.

Installed as `theorylab.verify`; imported only when `theorylab verify` or `theorylab report` need it.
"""
