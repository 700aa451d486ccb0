"""Stage 4 of the miner: novelty signals per review (`base`: the definition and the records every extractor
returns; `cues`: the offline cue extractor; `stance`: the learned n-gram extractor; `llm_extractor`: the LLM
extractor; `sentences` and `guarded_regex`: the splitter and regex guard the cue extractor uses)."""

# The modules meant for use from outside this package (other packages, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = ["base", "cues", "llm_extractor", "sentences", "stance"]
