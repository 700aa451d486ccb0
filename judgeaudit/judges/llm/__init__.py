"""Prompted judges and the other LLM judges: retrieval, agentic, ai_scientist, novelty_checker, rubric, concepts."""
