"""One table of the novelty tasks' judge options and their defaults, and the errors of a bad option.

`novelty_pairwise` / `novelty_pointwise` take these options for every judge kind; a judge that
cannot honour an option refuses any value but its default, by name (which judge honours which:
`judgeaudit.judges.kinds`, its `check_options`).
"""

from __future__ import annotations

from collections.abc import Mapping
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
# Options of one task kind only. The other kind's task takes them as parameters too, so that a value
# given to it is refused by name (`refuse_other_kind`) rather than dropped with Inspect's warning;
# an eval set of both kinds (`judgeaudit.study`) passes each to the kind that takes it.
KIND_ONLY: dict[str, str] = {"both_orders": "pairwise", "split_rule": "pointwise"}
_KIND_ONLY_WHY = {
    "both_orders": "a pointwise item is shown in one order",
    "split_rule": "a pairwise verdict has no split",
}
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


def kind_own(kind: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """`options` less the other kind's own (`KIND_ONLY`): what an eval set of both kinds passes a
    task of `kind` (`-T both_orders=true` reaches the pairwise tasks only)."""
    return {k: v for k, v in options.items() if KIND_ONLY.get(k, kind) == kind}


def refuse_other_kind(kind: str, options: dict[str, Any]) -> None:
    """Remove the other kind's options (`KIND_ONLY`) left at their unset default (None) from
    `options`; refuse one given a value, by name."""
    for key, owner in KIND_ONLY.items():
        if owner != kind and options.pop(key, None) is not None:
            raise TaskOptionError(
                f"-T {key}: applies to novelty_{owner} only ({_KIND_ONLY_WHY[key]})"
            )


def check_split_rule(split_rule: str) -> None:
    """A clear error for a split rule that is not one of `SPLIT_RULES`."""
    if split_rule not in SPLIT_RULES:
        raise TaskOptionError(
            f"split_rule must be one of {', '.join(SPLIT_RULES)}, got {split_rule!r}"
        )
