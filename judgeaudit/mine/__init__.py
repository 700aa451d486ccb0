"""judgeaudit.mine."""
