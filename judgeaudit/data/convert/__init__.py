"""Converters of published novelty-judge sets into the data contract."""
