"""The LLM extractor's subset row (`judgeaudit.mine.crossval_llm`): the subset, the objective, quote counts, the folds."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from judgeaudit.cli import main
from judgeaudit.mine.crossval import Paper, review_matrix
from judgeaudit.mine.crossval_llm import (
    agreement,
    best_agreement_rule,
    count_quotes,
    crossvalidate_subset,
    llm_subset,
    signal_matrix,
    summarise_subset,
)
from judgeaudit.mine.signals import AFFIRM, DISPUTE, ReviewSignals, Signal

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "openreview_small"
LOOSE = ["--top-quantile", "0.6", "--bottom-quantile", "0.4", "--novel-min-contribution", "2.5",
         "--not-novel-max-contribution", "2.5", "--majority", "0.3", "--max-opposing", "1"]


def _dev(n: int = 30) -> list[Paper]:
    return [Paper(f"p{i}", f"p{i}", "novel" if i % 2 else "not_novel", "novel" if i % 2 else "not_novel",
                  fold=(i // 2) % 5, reviews=[["A sentence."]]) for i in range(n)]


def test_the_subset_is_stratified_spread_over_folds_and_deterministic() -> None:
    dev = _dev()
    dev.append(Paper("missing:x", None, None, "novel", fold=0))  # not in the snapshot: never picked
    subset = llm_subset(dev, 7)
    labels = [p.label for p in subset]
    assert labels.count("novel") == 4 and labels.count("not_novel") == 3
    assert len({p.fold for p in subset if p.label == "novel"}) == 4  # one per fold before a second from any
    assert all(p.forum for p in subset)
    assert sorted(p.key for p in subset) == sorted(p.key for p in llm_subset(list(reversed(dev)), 7))
    assert [p.key for p in subset] == [p.key for p in dev if p.key in {q.key for q in subset}]  # dev order


def test_agreement_by_hand() -> None:
    papers = [Paper("a", "a", "novel", "novel"), Paper("b", "b", "novel", "novel"),
              Paper("c", "c", "not_novel", "not_novel"), Paper("d", "d", "not_novel", "not_novel")]
    # novel: a kept (1 of 2), d swapped in -> (1 - 1) / 2 = 0; not_novel: c kept -> 1 / 2
    assert agreement(papers, np.asarray([1, 0, -1, 1])) == pytest.approx(0.25)


def _sig(*items: tuple[str, str, bool], failed: str | None = None) -> ReviewSignals:
    return ReviewSignals("r", tuple(Signal(p, q, "strengths", weak=w) for p, q, w in items), failed=failed)


def test_quote_counts_by_hand() -> None:
    p = Paper("a", "a", "novel", "novel", positive=["The idea is novel."], negative=["Limited novelty."])
    into = {"affirm": [0, 0, 0, 0], "dispute": [0, 0, 0, 0]}
    count_quotes([p], [[_sig((AFFIRM, "The idea is novel.", False), (AFFIRM, "Clear writing.", True)),
                        _sig((DISPUTE, "Limited novelty.", False))]], into)
    assert into == {"affirm": [1, 2, 1, 1], "dispute": [1, 1, 1, 1]}


def test_rules_are_picked_on_training_papers_and_failures_are_never_kept() -> None:
    # 2 folds x (novel, not_novel); every novel paper has 2 of 3 reviews affirming and one weakly disputing
    # nothing; not_novel papers have one disputing review of two (only an "at least half" majority keeps them)
    papers, signals = [], []
    for k in range(2):
        papers.append(Paper(f"n{k}", f"n{k}", "novel", "novel", fold=k, reviews=[["s"]] * 3))
        signals.append([_sig((AFFIRM, "s", False)), _sig((AFFIRM, "s", False)), _sig()])
        papers.append(Paper(f"o{k}", f"o{k}", "not_novel", "not_novel", fold=k, reviews=[["s"]] * 2))
        signals.append([_sig((DISPUTE, "s", False)), _sig()])
    m = signal_matrix(papers, signals)
    rule = best_agreement_rule(papers, m)
    assert rule.strict_majority is False  # only "at least half" keeps the not_novel papers
    cue = [[np.zeros((1, 2)) for _ in p.reviews] for p in papers]
    res = crossvalidate_subset(papers, cue, signals)
    assert res["llm"].outcome == {"n0": 1, "o0": -1, "n1": 1, "o1": -1}
    assert res["offline"].outcome == {"n0": 0, "o0": 0, "n1": 0, "o1": 0}  # no cue fired
    assert len(res["llm"].rules) == 2
    # one failed review in n1: its paper is not kept, whatever the rule
    signals[2] = [_sig((AFFIRM, "s", False)), _sig((AFFIRM, "s", False)), _sig(failed="unparsable: no JSON")]
    res = crossvalidate_subset(papers, cue, signals)
    assert res["llm"].outcome["n1"] == 0
    row = summarise_subset(res["llm"], papers, resamples=200, seed=1)
    assert row["novel"]["kept_same"] == 1 and row["novel"]["jaccard"] is None
    assert review_matrix(papers, cue).failed is None


def test_the_card_renders_the_stored_llm_row_and_its_cost(tmp_path: Path) -> None:
    """`judgeaudit mine` renders crossval.json's `llm_subset` (bench_extractor.py --llm) into the dataset card."""
    set_dir = tmp_path / "out" / "human_only"
    set_dir.mkdir(parents=True)
    llm = {"command": "python tests/benchmarks/bench_extractor.py --llm local/gemma-3-270m --llm-papers 12",
           "model": "local/gemma-3-270m", "papers": 12, "reviews": 43,
           "table_markdown": "| extractor | x |\n|---|---|\n| local/gemma-3-270m (LLM; 12 dev papers) | 0 |",
           "cost": {"reviews_sent": 43, "reviews_skipped_by_prefilter": 0, "calls": 43, "input_tokens": 40000,
                    "output_tokens": 1200, "wall_seconds": 1100.5, "seconds_per_review_sent": 25.6,
                    "model_load_seconds": 8.0, "failed_reviews": 2, "failures_by_reason": {"unparsable": 2},
                    "unparsable_rate": 0.0465, "quotes_dropped_not_verbatim": 40, "load_average_at_end": [4.0, 4.0, 3.0]}}
    (set_dir / "crossval.json").write_text(json.dumps({"table_markdown": "| cue table |", "command": "bench", "llm_subset": llm}))
    args = ["mine", "--source", f"snapshot:{FIXTURE}", "--no-progress", "--out", str(tmp_path / "out"), *LOOSE]
    assert main(args) == 0
    card = (set_dir / "README.md").read_text(encoding="utf-8")
    assert "| local/gemma-3-270m (LLM; 12 dev papers) | 0 |" in card
    assert "43 calls, 40000 input and 1200 output tokens" in card and "1100.5 s wall" in card
    assert "2 unparsable; unparsable rate" in card and "weak stand-in" in card
    assert "not in the table" not in card
    assert json.loads((set_dir / "crossval.json").read_text())["llm_subset"] == llm  # carried into the new set
