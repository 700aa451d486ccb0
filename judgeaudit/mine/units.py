"""An LLM pass as work units: every prompt the LLM extractor would send for the current candidates, and its answers.

`work_units` lists, for the candidates of a corpus under a rule, every review whose answer can matter
to a label, with the exact rendered extractor prompt and the id under which its answer is cached
(`LLMExtractor.cache_key`). A review is left out, the same way the miner leaves it out, when
- its candidate cannot be labelled whatever the answers (its readable reviews cannot make a majority,
  `pipeline.reachable_forums`),
- it has an empty signal field (it gives no signal, `select.readable`),
- the extractor's pre-filter does not send it (no originality or prior-work vocabulary; part of the
  LLM extractor's definition, `LLMExtractor.sends`).
So a run of `judgeaudit mine --extractor SAME --llm-replay` after the answers are imported reads every
answer it needs from the cache, and needs no other.

`import_answers` writes answers (`id`, `answer`: the raw answer text, `model`, `date`) into the
extractor's cache format (`llm.AnswerCache`, one record per id with its provenance: model, prompt hash
of the unit, date). An id no unit names, a row missing a field, or an id whose cache record already
holds another answer is an error naming the file and line; nothing is written then.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from judgeaudit.errors import UserError
from judgeaudit.files import atomic_open
from judgeaudit.mine.json_rows import json_rows
from judgeaudit.mine.llm import AnswerCache, LLMResponseError, parse_json_object, prompt_sha256
from judgeaudit.mine.parse import Corpus
from judgeaudit.mine.pipeline import candidate_pool, reachable_forums
from judgeaudit.mine.select import SIDES, Thresholds, readable
from judgeaudit.mine.signals.llm_extractor import LLMExtractor, parse_answer

CHARS_PER_TOKEN = 4
"""The rough prompt-size estimate: characters / 4 tokens."""
ANSWER_FIELDS: tuple[str, ...] = ("id", "answer", "model", "date")


class UnitsError(UserError):
    """A units or answers file that cannot be used (the message names the file and line)."""


@dataclass(frozen=True)
class WorkUnit:
    """One review to be answered: the cache id of its answer, where it comes from, and the exact prompt."""

    id: str
    forum: str
    review_id: str
    side: str
    model: str
    prompt_sha256: str
    prompt: str


def work_units(
    corpus: Corpus, th: Thresholds, extractor: LLMExtractor, *, venue_id: str = ""
) -> tuple[list[WorkUnit], dict[str, Any]]:
    """The work units of the candidates (see module doc) and the counts of what was left out and why."""
    pool = candidate_pool(corpus, th, venue_id)
    forums = sorted(pool.candidates)
    reachable, unread = reachable_forums(corpus, forums, th)
    units: dict[str, WorkUnit] = {}
    prefiltered = 0
    for forum in reachable:
        for review in corpus.reviews[forum]:
            if not readable(review, th):
                continue
            if not extractor.sends(review):
                prefiltered += 1
                continue
            prompt = extractor.prompt(review)
            key = extractor.llm.key(prompt)
            units.setdefault(
                key,
                WorkUnit(
                    key,
                    forum,
                    review.review_id,
                    pool.candidates[forum],
                    extractor.name,
                    prompt_sha256(prompt),
                    prompt,
                ),
            )
    out = sorted(units.values(), key=lambda u: (u.forum, u.review_id))
    chars = sum(len(u.prompt) for u in out)
    counts = {
        "candidates": {
            side: sum(1 for s in pool.candidates.values() if s == side) for side in SIDES
        },
        "candidates_decided_unread": len(forums) - len(reachable),
        "reviews_of_candidates": sum(len(corpus.reviews[f]) for f in forums),
        "reviews_with_an_empty_signal_field": unread,
        "reviews_not_sent_by_the_prefilter": prefiltered,
        "units": len(out),
        "units_by_side": {side: sum(1 for u in out if u.side == side) for side in SIDES},
        "prompt_chars": chars,
        "prompt_tokens_estimate": chars // CHARS_PER_TOKEN,
        "decisions_applied": pool.decisions_applied,
    }
    return out, counts


def write_units(path: Path, units: list[WorkUnit]) -> None:
    """The units as JSONL, one object per line (atomic)."""
    with atomic_open(path, "w") as fh:
        for unit in units:
            fh.write(json.dumps(asdict(unit), ensure_ascii=False, sort_keys=True) + "\n")


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        yield from json_rows(path)
    except ValueError as exc:
        raise UnitsError(str(exc)) from None
    except OSError as exc:
        raise UnitsError(f"{path}: {exc.strerror or exc}") from None


def read_units(path: Path) -> dict[str, dict[str, Any]]:
    """Units by id from a units file (UnitsError naming the line of a row without an id or prompt hash)."""
    out: dict[str, dict[str, Any]] = {}
    for line, row in _rows(path):
        if not isinstance(row.get("id"), str) or not isinstance(row.get("prompt_sha256"), str):
            raise UnitsError(f"{path}:{line}: a unit needs a string id and prompt_sha256")
        out[row["id"]] = row
    return out


def import_answers(answers: Path, units_file: Path, cache_dir: Path) -> dict[str, int]:
    """Write every answer of `answers` into the answer cache at `cache_dir` (see module doc); returns counts."""
    units = read_units(units_file)
    cache = AnswerCache(cache_dir)
    records: dict[str, dict[str, Any]] = {}
    counts: Counter[str] = Counter()
    for line, row in _rows(answers):
        where = f"{answers}:{line}"
        missing = [
            k for k in ANSWER_FIELDS if not isinstance(row.get(k), str) or not row[k].strip()
        ]
        if missing:
            raise UnitsError(
                f"{where}: missing or empty field(s) {', '.join(missing)} (needs {', '.join(ANSWER_FIELDS)})"
            )
        unit = units.get(row["id"])
        if unit is None:
            raise UnitsError(f"{where}: id {row['id'][:16]}... is not a unit of {units_file}")
        record = {
            "model": row["model"],
            "response": row["answer"],
            "prompt_sha256": unit["prompt_sha256"],
            "date": row["date"],
        }
        earlier = records.get(row["id"]) or cache.get(row["id"])
        if earlier is not None and earlier.get("response") != row["answer"]:
            raise UnitsError(
                f"{where}: id {row['id'][:16]}... already has another answer (in this file or the cache)"
            )
        if row["id"] in records:
            counts["repeated rows (same answer)"] += 1
            continue
        counts["already cached" if earlier is not None else "imported"] += 1
        try:
            parse_answer(parse_json_object(row["answer"]))
        except LLMResponseError:
            counts["not in the answer format (the miner counts them as unparsable)"] += 1
        records[row["id"]] = record
    for key, record in records.items():
        cache.put(key, record)
    counts["units without an answer"] = len(
        set(units) - set(records) - {k for k in units if cache.get(k)}
    )
    return dict(sorted(counts.items()))
