"""Prompted judges and the other LLM judges: retrieval, agentic, ai_scientist, novelty_checker, rubric, concepts."""

# The modules meant for use from outside this package (other packages, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = ["agentic", "ai_scientist", "concepts", "novelty_checker", "panel", "prompted", "rubric"]
