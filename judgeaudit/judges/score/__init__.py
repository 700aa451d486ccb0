"""Score judges (no LLM verdict): metric, distance and concept judges with a fitted verdict rule."""
