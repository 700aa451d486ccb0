"""judgeaudit.probes."""
