"""The catalogue: one module per family, each exporting ENTRIES and DERIVATIONS built with the engine."""
