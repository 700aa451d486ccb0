"""Venue profiles (one YAML file per venue and year, shipped here) and reading a venue's form by its profile."""

# The modules meant for use from outside this package (other packages, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = ["card", "form", "profile", "setup"]
