"""Test helpers: contract items built from real ICLR 2026 abstracts of the bundled corpus, and fixed embeddings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from judgeaudit.data.contract import Idea, PairItem, PointItem, Provenance
from judgeaudit.retrieval.corpus import Corpus, Document

AREAS = ("optimization", "generative models", "reinforcement learning", "learning theory")


def real_idea(doc: Document, label: str, area: str) -> Idea:
    """A human idea whose text is the document's real abstract (ids and provenance from the document)."""
    return Idea(idea_id=doc.doc_id, text=doc.abstract, format="abstract", source="human", area=area, label=label,  # type: ignore[arg-type]
                title=doc.title, provenance=Provenance(dataset="iclr2026", source_id=doc.doc_id, forum=doc.doc_id))


def real_pairs(corpus: Corpus, n: int) -> list[PairItem]:
    """n pairs: documents 2i (novel) and 2i+1 (not novel), areas in turn, gold alternating a / b."""
    out = []
    for i in range(n):
        area = AREAS[i % len(AREAS)]
        a, b = real_idea(corpus.documents[2 * i], "novel", area), real_idea(corpus.documents[2 * i + 1], "not_novel", area)
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
        out.append(PointItem(f"item{i}", "human_only", real_idea(corpus.documents[start + i], label, area), label))  # type: ignore[arg-type]
    return out


class FixedEmbedder:
    """Test embedder: unit vectors looked up by text (a stand-in for MiniLM with known geometry)."""

    name = "fixed"

    def __init__(self, table: dict[str, Sequence[float]]) -> None:
        self.table = {k: np.asarray(v, dtype=np.float64) / np.linalg.norm(v) for k, v in table.items()}

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
