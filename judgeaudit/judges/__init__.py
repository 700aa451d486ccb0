"""Novelty judges: the public tasks, the judge catalog, one Task builder, options, verdicts, scorer; llm/ and score/ judges."""
