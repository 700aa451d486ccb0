"""The audit of a novelty judge: probe battery, applicability, readings, gates, surface ratio and the audit card."""

# The modules meant for use from outside this package (other packages, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = ["battery", "card", "cli", "run"]
