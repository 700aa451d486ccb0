"""judgeaudit: study and vet novelty judges."""

__version__ = "0.1.0"
