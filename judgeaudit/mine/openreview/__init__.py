"""OpenReview: the openreview-py session (`session`), the raw shard cache on disk (`shards`) and the venue fetch (`fetch`)."""

# The modules meant for use from outside this package (other packages, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = ["fetch", "shards"]
