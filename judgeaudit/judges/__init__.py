"""Novelty judges: prompts, verdict parsing, aggregation, solvers and scorers."""
