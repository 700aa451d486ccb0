"""The reference study's protocol as one eval set: its cells, their options, a cost estimate, a runner."""

DEFAULT_OUTPUT_TOKENS = 1000  # output tokens (reasoning + verdict) assumed per call by the estimate

# The modules meant for use from outside this package (the registry, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = ["DEFAULT_OUTPUT_TOKENS", "cells", "cli", "estimate", "protocol"]
