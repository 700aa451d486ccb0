"""The `judgeaudit mine` command line (`mine` and its actions `generate`, `plan`, `units`, `answers`): arguments and help.

The handlers (`mine.commands`, `mine.generate.actions`) load when a command runs, so `--help` and
argument errors do not import the miner.
"""

from __future__ import annotations

import argparse
from typing import Any

from judgeaudit.cli_args import Handler

# Names the help quotes, kept here so that the help imports none of the miner (which loads numpy);
# tests/mine/test_cli.py checks each against the module that owns it.
STANCE_MODEL = (
    "ngram"  # the learned stance model shipped in the package: mine.signals.stance.DEFAULT_MODEL
)
OTHER_TOPICS = (
    "other topics in machine learning (i.e., none of the above)"  # mine.select.OTHER_TOPICS
)
TEXT_FIELDS: tuple[
    str, ...
] = (  # mine.parse.TEXT_FIELDS: the review fields --signal-fields may name
    "summary",
    "summary_of_the_paper",
    "strengths",
    "weaknesses",
    "questions",
    "strengths_and_weaknesses",
    "main_review",
    "review",
    "summary_of_the_review",
)

DEFAULT_VENUE = "ICLR.cc/2026/Conference"
DEFAULT_OUT = "datasets/iclr2026"
DEFAULT_LLM_CACHE = ".cache/judgeaudit/mining-llm"
DEFAULT_EXTRACTOR = "offline"

DESCRIPTION = """\
Mine Human-Only gold labels from a venue's OpenReview reviews with the reference study's selection
(the set's dataset card, datasets/iclr2026/human_only/README.md, states every rule and the counts
after every step).
Every step is an option below whose default is the study's value.

Stages: read submissions and official reviews (from the live API into a raw cache, or from an
existing cache/snapshot) -> per-area rating deciles, rating floor/ceiling, contribution cuts and the
decision filter (when the source carries decisions) pick candidates -> novelty signals in each
review's strengths and weaknesses (explicit statements that the contribution is new, or is not) ->
label a candidate when no review opposes and more than half of all its reviews agree -> strip
evaluation sentences from abstracts -> <out>/human_only/labelled.jsonl (every labelled idea) ->
seeded same-area pairs -> pairwise.jsonl, pointwise.jsonl (the ideas of the pairs), manifest.json,
README.md.
"""

EPILOG = """\
examples:
  # offline, from a raw snapshot of the venue's notes (how the bundled data was built)
  judgeaudit mine --source snapshot:SNAPSHOT --reviews-as-of 2025-11-13T08:00Z

  # live API into a resumable raw cache, then mine
  judgeaudit mine --venue ICLR.cc/2026/Conference --cache .cache/openreview/iclr2026

  # an LLM signal extractor through litellm (responses cached; re-runs are free)
  judgeaudit mine --source snapshot:PATH --extractor litellm/openai/gpt-4o-mini --out /tmp/iclr-llm

  # an LLM pass done elsewhere: export its work units, import the answers, replay them offline
  judgeaudit mine --source snapshot:PATH --extractor litellm/MODEL units --write units.jsonl
  judgeaudit mine answers --units units.jsonl --answers answers.jsonl --to CACHE/signals
  judgeaudit mine --source snapshot:PATH --extractor litellm/MODEL --llm-cache CACHE --llm-replay
"""


def _rating(value: str) -> float | None:
    """A rating bound, or None for 'none' (no bound)."""
    return None if value.strip().lower() == "none" else float(value)


def register(subparsers: Any) -> None:
    """Add the `mine` subcommand (and its `units` / `answers` actions)."""
    p = subparsers.add_parser(
        "mine",
        help="mine Human-Only novel/not_novel ideas and pairs from OpenReview reviews",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    src = p.add_argument_group("input (one of)")
    src.add_argument(
        "--source",
        metavar="snapshot:PATH",
        help="read an existing raw cache / snapshot directory of notes-*.jsonl.gz instead of fetching",
    )
    src.add_argument(
        "--venue",
        default=DEFAULT_VENUE,
        help=f"OpenReview venue id; also picks the venue's packaged review-form profile (ICLR 2023-2026, "
        f"NeurIPS 2023-2025, ICML 2025, TMLR) (default: {DEFAULT_VENUE})",
    )
    src.add_argument(
        "--profile",
        metavar="FILE",
        default=None,
        help="a venue profile YAML file (how the venue's review form is read) instead of the packaged one "
        "of --venue (docs/guides/venues.md)",
    )
    src.add_argument(
        "--cache",
        metavar="DIR",
        help="raw cache directory for a live fetch (default: .cache/openreview/<venue>); "
        "an interrupted fetch resumes, a complete one makes no request",
    )
    src.add_argument(
        "--baseurl", default=None, help="OpenReview API base URL (default: the live API v2)"
    )
    out = p.add_argument_group("output")
    out.add_argument(
        "--out",
        default=DEFAULT_OUT,
        help=f"set root; files go to <out>/human_only/ (default: {DEFAULT_OUT})",
    )
    out.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of every pairing draw (partners and a/b positions) (default: 0)",
    )
    out.add_argument(
        "--point-set",
        default="pairs",
        metavar="{pairs,labelled}",
        help="pointwise.jsonl holds the ideas of the pairs, each once ('pairs', the reference's), or every "
        "labelled idea ('labelled': a larger set for pointwise statistics) (default: pairs)",
    )
    out.add_argument(
        "--positions",
        default="random",
        metavar="{random,balanced}",
        help="the novel idea's position in a pair: drawn at random per pair ('random', the reference's) or "
        "exactly half at a ('balanced', the earlier rule) (default: random)",
    )
    ex = p.add_argument_group("signals and sanitising")
    ex.add_argument(
        "--extractor",
        default=DEFAULT_EXTRACTOR,
        help="'offline' (default: the rule-based cue extractor), "
        f"'{STANCE_MODEL}' (the learned n-gram stance model shipped in the package), a stance "
        "model file PATH.json, 'litellm/<model>' (e.g. litellm/openai/gpt-4o-mini), or any "
        "Inspect model name (e.g. local/gemma-3-270m); an LLM reply that does not follow the "
        "format, or a failed call, is counted and its paper not labelled",
    )
    ex.add_argument(
        "--signal-fields",
        default=None,
        metavar="FIELDS",
        help="comma-separated review fields signals are read from (default: the venue profile's, "
        f"strengths,weaknesses on ICLR 2026's form; known: {','.join(TEXT_FIELDS)} and the profile's)",
    )
    ex.add_argument(
        "--gold-labels",
        default="signals",
        metavar="{signals,scores}",
        help="'signals': labels from the novelty statements in the reviews' text (the study's); 'scores': "
        "from a direct originality score, where the venue's form has one (NeurIPS 2025) (default: signals)",
    )
    ex.add_argument(
        "--empty-fields",
        default="no-signal",
        metavar="{no-signal,read}",
        help="'no-signal': a review with any signal field empty gives no signal (still counted among all "
        "reviews); 'read': read what it holds (default: no-signal)",
    )
    ex.add_argument(
        "--weak-affirmations",
        default="ignore",
        metavar="{ignore,oppose,support,count}",
        help="hedged or merely descriptive affirmations ('relatively novel', 'proposes a new framework'): "
        "'ignore' (no signal, the reference's definition), 'oppose' (they block a not_novel label, "
        "the earlier rule), 'support' (they count towards a novel majority only) or 'count' (as "
        "explicit affirmations, both ways) (default: ignore)",
    )
    ex.add_argument(
        "--weak-disputes",
        default="ignore",
        metavar="{ignore,count}",
        help="hedged uncertainty about originality ('unclear what is new'): 'ignore' (no signal, the "
        "reference's definition) or 'count' (as a dispute, the earlier rule) (default: ignore)",
    )
    ex.add_argument(
        "--no-prefilter",
        action="store_true",
        help="with an LLM extractor, send every readable review (default: only reviews with originality "
        "or prior-work vocabulary, the offline cue pre-filter)",
    )
    ex.add_argument(
        "--sanitiser", default="rules", help="'rules' (default, offline) or 'litellm/<model>'"
    )
    ex.add_argument(
        "--llm-cache",
        default=DEFAULT_LLM_CACHE,
        help=f"cache of LLM answers (default: {DEFAULT_LLM_CACHE})",
    )
    ex.add_argument(
        "--llm-replay",
        action="store_true",
        help="with an LLM extractor, make no model call: read every answer from --llm-cache (a review "
        "without one is an error, nothing written); rebuilds a set from an LLM pass offline",
    )
    ex.add_argument(
        "--api-base",
        default=None,
        help="base URL of an OpenAI-compatible server for litellm models",
    )
    ex.add_argument(
        "--workers", type=int, default=2, help="processes for the offline extractor (default: 2)"
    )
    th = p.add_argument_group("selection (defaults: the reference study's rule)")
    th.add_argument(
        "--min-reviews",
        type=int,
        default=1,
        help="minimum official reviews per candidate (default: 1)",
    )
    th.add_argument(
        "--top-quantile",
        type=float,
        default=0.9,
        help="top-decile cut as a quantile of the area's mean ratings (default: 0.9)",
    )
    th.add_argument(
        "--bottom-quantile", type=float, default=0.1, help="bottom-decile cut (default: 0.1)"
    )
    th.add_argument(
        "--novel-min-rating",
        type=_rating,
        default=6.0,
        metavar="RATING",
        help="novel candidates need mean rating >= this as well as the top decile ('none': no floor; on "
        "ICLR 2026's 0-10 scale, mapped linearly to the venue's) (default: 6)",
    )
    th.add_argument(
        "--not-novel-max-rating",
        type=_rating,
        default=3.5,
        metavar="RATING",
        help="not_novel candidates need mean rating <= this as well as the bottom decile ('none') (default: 3.5)",
    )
    th.add_argument(
        "--novel-min-contribution",
        type=float,
        default=3.0,
        help="novel candidates need mean contribution >= this (on ICLR 2026's 1-4 scale, mapped to the "
        "venue's novelty-related score) (default: 3)",
    )
    th.add_argument(
        "--not-novel-max-contribution",
        type=float,
        default=2.0,
        help="not_novel candidates need mean contribution <= this (default: 2)",
    )
    th.add_argument(
        "--majority",
        type=float,
        default=0.5,
        help="label when MORE than this share of ALL reviews agree (default: 0.5)",
    )
    th.add_argument(
        "--majority-rule",
        default="strict",
        metavar="{strict,inclusive}",
        help="'strict': more than --majority of the reviews must agree; 'inclusive': at least that share "
        "(and one review), the earlier option (default: strict)",
    )
    th.add_argument(
        "--max-opposing",
        type=int,
        default=0,
        help="largest number of opposing reviews a labelled idea may have (default: 0)",
    )
    th.add_argument(
        "--exclude-area",
        action="append",
        default=None,
        metavar="AREA",
        help=f"leave an ICLR primary area out (repeatable; given, it replaces the default: {OTHER_TOPICS!r})",
    )
    th.add_argument("--keep-all-areas", action="store_true", help="exclude no area")
    th.add_argument(
        "--blocklist",
        metavar="FILE",
        default=None,
        help="a file of titles to leave out, one per line ('#' comments; matched ignoring case and "
        "punctuation) (default: none)",
    )
    th.add_argument(
        "--decisions",
        default="auto",
        metavar="{auto,ignore}",
        help="'auto': novel needs an accepted paper and not_novel a rejected or withdrawn one when the source "
        "carries decisions (venue fields or Decision notes; the card says whether it did); 'ignore': "
        "never filter on decisions (default: auto)",
    )
    th.add_argument(
        "--exclude-withdrawn",
        action="store_true",
        help="leave withdrawn papers out of the candidates (default: kept)",
    )
    th.add_argument(
        "--reviews-as-of",
        metavar="TIME",
        default=None,
        help="read every official review as it stood at TIME (ISO 8601 with zone, e.g. 2025-11-13T08:00Z): "
        "later versions are skipped (counted), a review first posted later is left out; "
        "default: each review's latest version",
    )
    misc = p.add_argument_group("measurement and display")
    misc.add_argument(
        "--dev",
        metavar="PATH",
        help="reference dev labels (human_only_dev.jsonl) to measure the extractor; figures go to the card and manifest",
    )
    misc.add_argument("--no-progress", action="store_true", help="hide progress bars")
    p.set_defaults(func=Handler("judgeaudit.mine.commands", "handle_mine"))
    actions = register_actions(
        p
    )  # `mine generate` and `mine plan`; plain `mine --source ...` is unchanged
    u = actions.add_parser(
        "units",
        help="write the work units of an LLM pass over the current candidates",
        description="Write, for every candidate review whose answer can matter to a label, the exact "
        "prompt of the LLM extractor (--extractor, before the action) and the id its "
        "answer is cached under. Options before `units` are "
        "the mining options: the same source, rule and extractor as the run to replay.",
    )
    u.add_argument(
        "--write", required=True, metavar="FILE", help="units JSONL to write (one object per line)"
    )
    u.set_defaults(func=Handler("judgeaudit.mine.commands", "handle_units"))
    a = actions.add_parser(
        "answers",
        help="import an LLM pass's answers into the extractor's answer cache",
        description="Read a JSONL of answers (id, answer: the raw answer text, model, date) to the "
        "units of a units file and write them into the answer cache with their "
        "provenance (model, date).",
    )
    a.add_argument(
        "--units", required=True, metavar="FILE", help="the units file the answers belong to"
    )
    a.add_argument("--answers", required=True, metavar="FILE", help="answers JSONL")
    a.add_argument(
        "--to",
        dest="answers_cache",
        default=None,
        metavar="DIR",
        help=f"answer cache to write into (default: --llm-cache's signals cache, {DEFAULT_LLM_CACHE}/signals)",
    )
    a.set_defaults(func=Handler("judgeaudit.mine.commands", "handle_answers"))


GENERATE_DESCRIPTION = """\
Build a Human+Generated set: the Human-Only `novel` side of each pair against a `not_novel` idea
written by a plain LLM ideator (any Inspect model; answers cached, so a re-run or resume is free).
"""

PLAN_DESCRIPTION = """\
Rewrite every idea of a set into a two-field plan (purpose, mechanism) with an LLM, for the
idea-format ablation (`-T idea_format=plan`). Writes pairwise_plan.jsonl / pointwise_plan.jsonl
next to the set's abstract files (same item ids, positions and gold) and updates its manifest
and card; an idea that cannot be rewritten leaves its items out, and every failure is reported
with its reason. The set is replaced as a whole: a failed or interrupted run leaves it as it was.
"""

GENERATE_EPILOG = """\
examples:
  # a runnable example with the bundled local model (weak: for trying the pipeline only)
  judgeaudit mine generate --model local/gemma-3-270m --limit 10 --max-tokens 120
  # a real backbone through litellm; answers are cached, so a re-run or resume is free
  judgeaudit mine generate --model litellm/openai/gpt-4o-mini
  # then rewrite that set's ideas as plans
  judgeaudit mine plan --model litellm/openai/gpt-4o-mini --dataset datasets/iclr2026/human_generated/gpt-4o-mini
"""


def _model_options(p: Any, *, temperature: float) -> None:
    p.add_argument(
        "--model",
        required=True,
        help="Inspect model id, e.g. local/gemma-3-270m, litellm/openai/gpt-4o-mini",
    )
    p.add_argument(
        "-M",
        dest="model_args",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="model argument passed to get_model (repeatable)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="base seed (attempt i uses seed+i; also the a/b shuffle) (default: 0)",
    )
    p.add_argument("--max-tokens", type=int, default=256, help="answer length cap (default: 256)")
    p.add_argument(
        "--temperature",
        type=float,
        default=temperature,
        help=f"sampling temperature (default: {temperature})",
    )
    p.add_argument(
        "--attempts",
        type=int,
        default=3,
        help="attempts per idea before it counts as failed (default: 3)",
    )
    p.add_argument(
        "--max-connections", type=int, default=4, help="concurrent model calls (default: 4)"
    )
    p.add_argument(
        "--cache",
        default=None,
        help="answer cache directory (default: .cache/judgeaudit/mining-llm/<action>)",
    )
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")


def register_actions(mine_parser: Any) -> Any:
    """Add the `generate` and `plan` actions under `judgeaudit mine`; returns the actions' subparsers (for more)."""
    actions = mine_parser.add_subparsers(
        dest="mine_action",
        metavar="ACTION",
        required=False,
        title="actions (optional; without one, `mine` mines Human-Only labels)",
    )
    g = actions.add_parser(
        "generate",
        help="build a Human+Generated set with an LLM ideator",
        description=GENERATE_DESCRIPTION,
        epilog=GENERATE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    g.add_argument(
        "--dataset",
        default="iclr2026/human_only",
        help="Human-Only set (name or path) (default: iclr2026/human_only)",
    )
    g.add_argument(
        "--out",
        default="datasets/iclr2026",
        help="set root; files go to <out>/human_generated/<backbone>/ (default: datasets/iclr2026)",
    )
    g.add_argument(
        "--backbone",
        default=None,
        help="directory name of the generator (default: last part of --model)",
    )
    g.add_argument(
        "--limit",
        type=int,
        default=None,
        help="use a seeded sample of this many source pairs (default: all)",
    )
    _model_options(g, temperature=0.7)
    g.set_defaults(func=Handler("judgeaudit.mine.generate.actions", "handle_generate"))
    pl = actions.add_parser(
        "plan",
        help="rewrite a set's ideas as two-field plans (purpose, mechanism)",
        description=PLAN_DESCRIPTION,
        epilog=GENERATE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pl.add_argument(
        "--dataset", required=True, help="set directory holding pairwise.jsonl / pointwise.jsonl"
    )
    pl.add_argument(
        "--structured",
        action="store_true",
        help="ask for a JSON {purpose, mechanism} answer through the provider's structured output "
        "(a grammar for local/ models); use it for models that ignore the text format",
    )
    _model_options(pl, temperature=0.3)
    pl.set_defaults(func=Handler("judgeaudit.mine.generate.actions", "handle_plan"))
    return actions
