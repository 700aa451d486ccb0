"""Planted-bias judges: the Inspect provider `planted/<preset>[/<name>]` for testing and measuring
audits without a model (it is not a judge).

- `behaviour.py`: the declared behaviour (knobs, presets), what a prompt shows (`Shown`) and the
  pure function from the two to a verdict (`decide`, `reading`); its docstring is the generative model.
- `key.py`: the answer key (contract sets) that recognises shown ideas and knows their gold.
- `prompt.py`: reads a rendered judge prompt into a `Shown`.
- `api.py`: the `ModelAPI`.

The true value of each audit figure for a behaviour, and simulated verdict frames, are in
`judgeaudit.audit.planted`.
"""

# The modules meant for use from outside this package (other packages, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = ["api", "behaviour", "key", "prompt"]
