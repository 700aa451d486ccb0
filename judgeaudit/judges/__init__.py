"""Novelty judges: the public tasks, the judge catalog, one Task builder, options, verdicts, scorer; llm/ and score/ judges."""

# The modules meant for use from outside this package (other packages, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = [
    "build",
    "catalog",
    "kinds",
    "llm",
    "option_checks",
    "options",
    "panel_votes",
    "parse",
    "prompts",
    "score",
    "scorer",
    "tasks",
    "verdicts",
]
