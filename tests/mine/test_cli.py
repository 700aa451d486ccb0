"""The `mine` command line (judgeaudit/mine/cli.py): the names its help quotes without importing the miner, and the
handler each action names."""

from __future__ import annotations

from judgeaudit.cli import build_parser
from judgeaudit.mine import cli
from judgeaudit.mine.commands import handle_answers, handle_mine, handle_units
from judgeaudit.mine.parse import TEXT_FIELDS
from judgeaudit.mine.select import OTHER_TOPICS
from judgeaudit.mine.signals.stance import DEFAULT_MODEL


def test_the_help_quotes_the_owning_modules_values() -> None:
    assert cli.STANCE_MODEL == DEFAULT_MODEL
    assert cli.OTHER_TOPICS == OTHER_TOPICS
    assert cli.TEXT_FIELDS == TEXT_FIELDS


def test_mine_and_its_llm_pass_actions_name_their_handlers() -> None:
    parser = build_parser()
    plain = parser.parse_args(["mine", "--source", "snapshot:x"])
    assert (
        plain.func.load() is handle_mine
        and plain.novel_min_rating == 6.0
        and plain.exclude_area is None
    )
    loose = parser.parse_args(["mine", "--novel-min-rating", "none", "--not-novel-max-rating", "3"])
    assert loose.novel_min_rating is None and loose.not_novel_max_rating == 3.0
    units = parser.parse_args(["mine", "--extractor", "litellm/m", "units", "--write", "u.jsonl"])
    assert (
        units.func.load() is handle_units
        and units.write == "u.jsonl"
        and units.extractor == "litellm/m"
    )
    answers = parser.parse_args(["mine", "answers", "--units", "u.jsonl", "--answers", "a.jsonl"])
    assert answers.func.load() is handle_answers and answers.answers_cache is None
