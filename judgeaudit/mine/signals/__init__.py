"""Stage 4 of the miner: novelty signals per review (`base`: the definition and the records every extractor
returns; `cues`: the offline cue extractor; `stance`: the learned n-gram extractor; `llm_extractor`: the LLM
extractor; `sentences` and `guarded_regex`: the splitter and regex guard the cue extractor uses)."""
