"""Deciding relations: derivation steps (equality, inequality search, intervals), entries and their kernels,
coverage accounts, the errata ledger (private; imports records, numerics, sources)."""
