"""Test helpers: contract items built from real ICLR 2026 abstracts of the bundled corpus, fixed embeddings,
and a small real-format search corpus with a one-pair / one-point set (fixture `search_set`)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from judgeaudit.data.contract import Idea, PairItem, PointItem, Provenance
from judgeaudit.data.jsonl import write_items
from judgeaudit.retrieval.corpus import Corpus, Document

AREAS = ("optimization", "generative models", "reinforcement learning", "learning theory")


def real_idea(doc: Document, label: str, area: str) -> Idea:
    """A human idea whose text is the document's real abstract (ids and provenance from the document)."""
    return Idea(
        idea_id=doc.doc_id,
        text=doc.abstract,
        format="abstract",
        source="human",
        area=area,
        label=label,  # type: ignore[arg-type]
        title=doc.title,
        provenance=Provenance(dataset="iclr2026", source_id=doc.doc_id, forum=doc.doc_id),
    )


def real_pairs(corpus: Corpus, n: int) -> list[PairItem]:
    """n pairs: documents 2i (novel) and 2i+1 (not novel), areas in turn, gold alternating a / b."""
    out = []
    for i in range(n):
        area = AREAS[i % len(AREAS)]
        a, b = (
            real_idea(corpus.documents[2 * i], "novel", area),
            real_idea(corpus.documents[2 * i + 1], "not_novel", area),
        )
        gold = "a" if i % 2 == 0 else "b"
        if gold == "b":
            a, b = b, a
        out.append(PairItem(f"pair{i}", "human_only", area, a, b, gold))  # type: ignore[arg-type]
    return out


def real_points(corpus: Corpus, n: int, start: int = 100) -> list[PointItem]:
    """n points from documents start.. (labels alternating novel / not novel, areas in turn)."""
    out = []
    for i in range(n):
        label = "novel" if i % 2 == 0 else "not_novel"
        area = AREAS[i % len(AREAS)]
        out.append(
            PointItem(
                f"item{i}", "human_only", real_idea(corpus.documents[start + i], label, area), label
            )
        )  # type: ignore[arg-type]
    return out


class FixedEmbedder:
    """Test embedder: unit vectors looked up by text (a stand-in for MiniLM with known geometry)."""

    name = "fixed"

    def __init__(self, table: dict[str, Sequence[float]]) -> None:
        self.table = {
            k: np.asarray(v, dtype=np.float64) / np.linalg.norm(v) for k, v in table.items()
        }

    def fit(self, texts: Sequence[str]) -> None:
        """Nothing to learn."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Rows from the table (KeyError names an unknown text)."""
        return np.stack([self.table[t] for t in texts])

    def state(self) -> dict[str, Any]:
        """No state."""
        return {}

    def load_state(self, state: dict[str, Any]) -> None:
        """No state."""


DAY = 86_400_000
T0 = 1_757_000_000_000  # submission date of the target idea n0
GRAPH = "Kestrel prunes attention heads of sparse graph transformers with a learned contrastive saliency score."
SPEECH = (
    "Dropout on recurrent state improves speech recognition models under noisy acoustic conditions."
)


def doc(doc_id: str, title: str, abstract: str, cdate: int) -> dict[str, Any]:
    return {"id": doc_id, "title": title, "abstract": abstract, "cdate": cdate}


@pytest.fixture
def search_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A corpus file and a one-pair / one-point set: n0 (graph pruning) vs p0 (speech dropout)."""
    from helpers.items import make_idea  # conftest imports this module for the fixture

    monkeypatch.setenv("JUDGEAUDIT_CACHE", str(tmp_path / "cache"))
    docs = [
        doc("n0", "Kestrel graph pruning", GRAPH, T0),  # the target itself (by id)
        *(
            doc(
                f"g{i}",
                f"Pruning graph transformers {i}",
                f"Attention head pruning for sparse graph transformers, variant {i}.",
                T0 - (i + 1) * DAY,
            )
            for i in range(4)
        ),
        doc(
            "g_late",
            "Contrastive saliency for pruning graph transformers",
            "Learned contrastive saliency prunes attention heads of sparse graph transformers.",
            T0 + 5 * DAY,
        ),
        *(
            doc(
                f"s{i}",
                f"Recurrent dropout for speech {i}",
                f"Dropout on recurrent state for noisy speech recognition, study {i}.",
                T0 - (i + 1) * DAY,
            )
            for i in range(3)
        ),
        doc(
            "dup", "A title", SPEECH, T0 - 9 * DAY
        ),  # idea p0 under another id: same title and text
        doc(
            "x1",
            "Protein folding with diffusion",
            "Diffusion models for protein structure.",
            T0 - DAY,
        ),
    ]
    corpus = tmp_path / "corpus.jsonl.gz"
    with gzip.open(corpus, "wt", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(d) + "\n" for d in docs))
    novel = make_idea("n0", "novel", text=GRAPH, title="Kestrel graph pruning")
    plain = make_idea("p0", "not_novel", text=SPEECH, title="A title")
    set_dir = tmp_path / "set"
    write_items(
        set_dir / "pairwise.jsonl",
        [
            PairItem(
                pair_id="pair0",
                setup="human_only",
                area=novel.area,
                idea_a=novel,
                idea_b=plain,
                gold="a",
            )
        ],
    )
    write_items(
        set_dir / "pointwise.jsonl",
        [PointItem(item_id="item0", setup="human_only", idea=plain, gold="not_novel")],
    )
    return {"corpus": str(corpus), "dataset": str(set_dir)}
