"""judgeaudit.report."""
