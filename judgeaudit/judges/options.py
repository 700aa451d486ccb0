"""One table of the novelty tasks' judge options and their defaults, and the errors of a bad option.

`novelty_pairwise` / `novelty_pointwise` take these options for every judge kind; a judge that
cannot honour an option refuses any value but its default, by name (which judge honours which:
`judgeaudit.judges.kinds`, its `check_options`).
"""

from __future__ import annotations

from typing import Any

from judgeaudit.errors import UserError
from judgeaudit.judges.panel_votes import DEFAULT_RULE
from judgeaudit.judges.verdicts import DEFAULT_SPLIT_RULE
from judgeaudit.retrieval.corpus import BUNDLED_CORPUS


class TaskOptionError(UserError, ValueError):
    """A task option (`-T key=value`) with a value the task cannot use; the message is one line."""


class TaskDatasetError(TaskOptionError, FileNotFoundError):
    """`-T dataset=...` names no set or file the task can read (also a FileNotFoundError)."""


DEFAULT_CONCEPTS = "keyphrase"
SPLIT_RULES: tuple[str, ...] = ("not_novel", "novel", "invalid")
OPTION_DEFAULTS: dict[str, Any] = {
    "prompt": "reference",
    "k": 1,
    "both_orders": False,
    "cache": True,
    "split_rule": DEFAULT_SPLIT_RULE,
    "retrieval": 0,
    "retrieval_corpus": BUNDLED_CORPUS,
    "max_searches": 0,
    "max_turns": 0,
    "concepts": DEFAULT_CONCEPTS,
    "panel": None,
    "panel_rule": DEFAULT_RULE,
    "panel_quorum": 0,
}
# Options only `novelty_pairwise` has (a pointwise call has one order).
PAIRWISE_ONLY: frozenset[str] = frozenset({"both_orders"})


def check_split_rule(split_rule: str) -> None:
    """A clear error for a split rule that is not one of `SPLIT_RULES`."""
    if split_rule not in SPLIT_RULES:
        raise TaskOptionError(
            f"split_rule must be one of {', '.join(SPLIT_RULES)}, got {split_rule!r}"
        )
