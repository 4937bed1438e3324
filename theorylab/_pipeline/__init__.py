"""The pipeline: the registry of papers (catalogue), the runner (plan, executors), fidelity to the printed page
(private; imports the layers below)."""
