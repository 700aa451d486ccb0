"""The reference study's protocol as one eval set: its cells, their options, a cost estimate, a runner."""

DEFAULT_OUTPUT_TOKENS = 1000  # output tokens (reasoning + verdict) assumed per call by the estimate
