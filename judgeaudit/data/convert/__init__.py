"""Converters of published novelty-judge sets into the data contract."""

# The modules meant for use from outside this package (other packages, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = ["novelty_judge_bench"]
