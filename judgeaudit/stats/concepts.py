"""Concept-novelty statistics: crisp set difference and fuzzy membership over concept similarities.

- `absent_share(concepts, reference)`: the share of an idea's concepts not in the reference
  set, |C \\ R| / |C| (crisp set difference; duplicates in C count once).
- `fuzzy_memberships(S)`: for a similarity matrix S (rows: the idea's concepts, columns: the
  reference concepts, cosines in [-1, 1]), the membership of concept i in the reference set is
  m_i = clip(max_j S_ij, 0, 1); with no reference concept every m_i is 0.
- `fuzzy_novelty(S)`: 1 - mean_i m_i (in [0, 1]; 0 when every concept has an exact match).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np


def absent_share(concepts: Sequence[str], reference: Collection[str]) -> float:
    """|C \\ R| / |C| over the distinct concepts C; an empty concept list is an error."""
    distinct = list(dict.fromkeys(concepts))
    if not distinct:
        raise ValueError("absent_share needs at least one concept")
    absent = [c for c in distinct if c not in reference]
    return len(absent) / len(distinct)


def _matrix(similarity: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    s = np.asarray(similarity, dtype=np.float64)
    if s.ndim != 2:
        raise ValueError(
            f"similarity must be a 2-d matrix (idea concepts x reference concepts), got shape {s.shape}"
        )
    if s.shape[0] == 0:
        raise ValueError(
            "fuzzy membership needs at least one idea concept (the matrix has no rows)"
        )
    if np.isnan(s).any():
        raise ValueError("similarity matrix contains NaN")
    return s


def fuzzy_memberships(similarity: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    """Per idea concept, clip(max similarity to any reference concept, 0, 1) (0 with no reference)."""
    s = _matrix(similarity)
    if s.shape[1] == 0:
        return np.zeros(s.shape[0])
    return np.clip(s.max(axis=1), 0.0, 1.0)


def fuzzy_novelty(similarity: Sequence[Sequence[float]] | np.ndarray) -> float:
    """1 - mean fuzzy membership of the idea's concepts in the reference set."""
    return float(1.0 - fuzzy_memberships(similarity).mean())
