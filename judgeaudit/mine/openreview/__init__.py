"""OpenReview: the openreview-py session (`session`), the raw shard cache on disk (`shards`) and the venue fetch (`fetch`)."""
