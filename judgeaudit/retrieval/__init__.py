"""judgeaudit.retrieval."""
