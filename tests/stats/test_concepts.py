"""Concept-novelty statistics against hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest

from judgeaudit.stats import absent_share, fuzzy_memberships, fuzzy_novelty


def test_absent_share_counts_distinct_concepts() -> None:
    assert absent_share(["a", "b", "c", "d"], {"b", "x"}) == pytest.approx(3 / 4)
    assert absent_share(["a", "a", "b"], {"a"}) == pytest.approx(1 / 2)  # duplicates count once
    assert absent_share(["a"], set()) == 1.0 and absent_share(["a"], ["a"]) == 0.0
    with pytest.raises(ValueError, match="at least one concept"):
        absent_share([], {"a"})


def test_fuzzy_membership_is_the_clipped_row_maximum() -> None:
    s = [
        [0.2, 0.9, -0.1],  # best match 0.9
        [-0.3, -0.5, -0.2],  # nothing similar: clipped to 0
        [1.0000001, 0.4, 0.1],
    ]  # float noise above 1: clipped to 1
    assert fuzzy_memberships(s) == pytest.approx([0.9, 0.0, 1.0])
    # 1 - (0.9 + 0 + 1) / 3
    assert fuzzy_novelty(s) == pytest.approx(1 - 1.9 / 3)
    assert fuzzy_novelty([[0.5], [0.25]]) == pytest.approx(0.625)


def test_fuzzy_edge_cases_are_defined_or_rejected() -> None:
    assert fuzzy_novelty(np.zeros((2, 0))) == 1.0  # no reference concept: nothing is a member
    with pytest.raises(ValueError, match="at least one idea concept"):
        fuzzy_novelty(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="2-d"):
        fuzzy_novelty([0.1, 0.2])
    with pytest.raises(ValueError, match="NaN"):
        fuzzy_memberships([[float("nan")]])
