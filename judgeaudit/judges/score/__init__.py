"""Score judges (no LLM verdict): metric, distance and concept judges with a fitted verdict rule."""

# The modules meant for use from outside this package (other packages, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = ["concepts", "distance", "metric"]
