"""Tools over the pipeline: accuracy maps, mutation testing, engine mutants, the scaffold (private)."""
