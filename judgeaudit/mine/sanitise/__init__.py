"""Stage 5 of the miner: evaluation claims out of the labelled ideas' abstracts (`claims`: the detector;
`abstracts`: abstract text helpers; `sanitisers`: the rule sanitiser and the LLM one)."""
