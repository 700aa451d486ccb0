"""Stage 5 of the miner: evaluation claims out of the labelled ideas' abstracts (`claims`: the detector;
`abstracts`: abstract text helpers; `sanitisers`: the rule sanitiser and the LLM one)."""

# The modules meant for use from outside this package (other packages, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = ["claims", "sanitisers"]
