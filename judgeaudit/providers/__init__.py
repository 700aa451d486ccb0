"""judgeaudit.providers."""
