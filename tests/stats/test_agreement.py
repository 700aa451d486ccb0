"""Agreement statistics against published worked examples and hand computations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from judgeaudit.stats.agreement import (
    cohen_kappa,
    cohen_kappa_interval,
    krippendorff_alpha,
    krippendorff_alpha_interval,
    pearson,
    pearson_interval,
    spearman,
    spearman_interval,
)

NAN = float("nan")
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers,
# 12 units, values 1..5, missing entries. Published: nominal 0.743, ordinal 0.815, interval 0.849.
KRIPP_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)


@pytest.mark.parametrize(
    ("level", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)]
)
def test_krippendorff_published_example(level: str, published: float) -> None:
    assert krippendorff_alpha(KRIPP_2011, level) == pytest.approx(published, abs=5e-4)  # type: ignore[arg-type]


def test_krippendorff_by_hand_small_case() -> None:
    """Two coders, units (1,1), (1,2), (2,2). Pairable values n = 6; coincidences o11 = 2, o12 = o21 = 1, o22 = 2.
    Nominal: alpha = 1 - (n-1) * (o12 + o21) / (n1 n2 + n2 n1) = 1 - 5 * 2 / 18 = 4/9.
    Ordinal with two values: d12 = (n1 + n2 - (n1 + n2)/2)^2 = 9 on both sides, same ratio: 4/9."""
    data = np.array([[1, 1, 2], [1, 2, 2]], dtype=float)
    assert krippendorff_alpha(data, "nominal") == pytest.approx(4 / 9)
    assert krippendorff_alpha(data, "ordinal") == pytest.approx(4 / 9)
    # a unit with a single value is not pairable and changes nothing
    padded = np.c_[data, [3.0, NAN]]
    assert krippendorff_alpha(padded, "nominal", values=[1, 2, 3]) == pytest.approx(4 / 9)


def test_krippendorff_ordinal_uses_rank_distances() -> None:
    """Ordinal alpha ignores the numeric spacing of the values (only their order counts)."""
    spaced = KRIPP_2011.copy()
    spaced[spaced == 5] = 50
    assert krippendorff_alpha(spaced, "ordinal") == pytest.approx(
        krippendorff_alpha(KRIPP_2011, "ordinal")
    )
    assert krippendorff_alpha(spaced, "interval") != pytest.approx(
        krippendorff_alpha(KRIPP_2011, "interval")
    )


def test_cohen_kappa_textbook_example() -> None:
    """50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> p_o = 0.7, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa = 0.4."""
    x = ["yes"] * 25 + ["no"] * 25
    y = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(x, y) == pytest.approx(0.4)
    assert cohen_kappa(x, x) == 1.0
    assert math.isnan(cohen_kappa(["a", "a"], ["a", "a"]))
    with pytest.raises(ValueError, match="not among the categories"):
        cohen_kappa(["a", "c"], ["a", "b"], categories=["a", "b"])


def test_correlations_match_scipy_and_hand_values() -> None:
    assert pearson([1, 2, 3], [2, 4, 7]) == pytest.approx(
        0.9933992677987828
    )  # cov 2.5 / sqrt(1 * 6.333)
    assert spearman([1, 2, 3, 4], [10, 30, 20, 40]) == pytest.approx(0.8)  # 1 - 6 * 2 / (4 * 15)
    rng = np.random.default_rng(0)
    a = rng.normal(size=40)
    b = np.round(a + rng.normal(size=40))  # ties in b
    assert pearson(a, b) == pytest.approx(sps.pearsonr(a, b)[0])
    assert spearman(a, b) == pytest.approx(sps.spearmanr(a, b)[0])
    assert math.isnan(pearson([1, 1, 1], [1, 2, 3]))
    with pytest.raises(ValueError, match="finite"):
        pearson([1, NAN], [1, 2])


def test_spearman_replicates_equal_reranking_each_resample() -> None:
    """The multiplicity-matrix Spearman equals scipy's Spearman on each explicitly resampled dataset (ties included)."""
    from judgeaudit.stats.agreement import spearman_replicates
    from judgeaudit.stats.bootstrap import counts_from_indices, resample_indices

    rng = np.random.default_rng(6)
    x = rng.normal(size=100)  # 100 distinct values: the sort path
    y = np.round(
        x + rng.normal(size=100)
    )  # few distinct values, many ties: the matrix-product path
    idx = resample_indices(100, 50, 2)
    fast = spearman_replicates(x, y, counts_from_indices(idx, 100))
    slow = [sps.spearmanr(x[row], y[row])[0] for row in idx]
    assert fast == pytest.approx(slow)
    swapped = spearman_replicates(
        y, x, counts_from_indices(idx, 100)
    )  # grouped side first: the one-hot path
    assert swapped == pytest.approx(slow)


def test_spearman_interval_equals_percentiles_of_reranked_resamples() -> None:
    """The seeded, cached path: same resamples as resample_indices(n, B, seed), each re-ranked by scipy."""
    from judgeaudit.stats.bootstrap import resample_indices

    rng = np.random.default_rng(7)
    judge = rng.integers(0, 3, 40) / 2  # vote shares 0, 0.5, 1
    human = rng.normal(size=40) + judge
    iv = spearman_interval(judge, human, resamples=300, seed=4)
    reps = np.array([sps.spearmanr(judge[r], human[r])[0] for r in resample_indices(40, 300, 4)])
    reps = reps[np.isfinite(reps)]
    assert iv.low == pytest.approx(np.quantile(reps, 0.025, method="inverted_cdf"))
    assert iv.high == pytest.approx(np.quantile(reps, 0.975, method="inverted_cdf"))
    assert iv.estimate == pytest.approx(sps.spearmanr(judge, human)[0])


def test_agreement_many_equals_one_at_a_time() -> None:
    from judgeaudit.stats.agreement import agreement_many

    rng = np.random.default_rng(9)
    human = rng.normal(size=30)
    gold = ["a" if h > 0 else "b" for h in human]
    scores, labels = {}, {}
    for name, noise in (("good", 0.3), ("bad", 3.0)):
        judge = human + noise * rng.normal(size=30)
        scores[name] = (judge, human)
        labels[name] = (["a" if j > 0.5 else "b" if j < -0.5 else "tie" for j in judge], gold)
    scores["short"] = (np.array([1.0]), np.array([2.0]))
    out = agreement_many(scores, labels, ["b", "tie", "a"], resamples=400, seed=2)
    for name in ("good", "bad"):
        x, y = scores[name]
        codes = np.array(
            [[["b", "tie", "a"].index(v) for v in side] for side in labels[name]], dtype=float
        )
        singles = {
            "pearson": pearson_interval(x, y, resamples=400, seed=2),
            "spearman": spearman_interval(x, y, resamples=400, seed=2),
            "cohen_kappa": cohen_kappa_interval(
                *labels[name], ["b", "tie", "a"], resamples=400, seed=2
            ),
            "krippendorff_alpha_ordinal": krippendorff_alpha_interval(
                codes, "ordinal", [0, 1, 2], resamples=400, seed=2
            ),
        }
        for key, single in singles.items():
            assert out[name][key].to_dict() == pytest.approx(single.to_dict()), (name, key)  # type: ignore[union-attr]
    assert out["good"]["spearman"].estimate > out["bad"]["spearman"].estimate  # type: ignore[union-attr]
    assert "at least two units" in str(out["short"]["pearson"])


def test_agreement_intervals_bracket_estimates() -> None:
    rng = np.random.default_rng(4)
    a = rng.normal(size=60)
    b = a + rng.normal(size=60)
    for iv in (pearson_interval(a, b, resamples=2000), spearman_interval(a, b, resamples=2000)):
        assert iv.low < iv.estimate < iv.high and iv.resamples == 2000 and iv.method == "percentile"
        assert 0.3 < iv.low and iv.high < 0.95
    k = cohen_kappa_interval(
        ["y"] * 25 + ["n"] * 25, ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15, resamples=2000
    )
    assert k.estimate == pytest.approx(0.4) and k.low < 0.4 < k.high
    al = krippendorff_alpha_interval(KRIPP_2011, "ordinal", resamples=2000)
    assert al.estimate == pytest.approx(0.815, abs=5e-4) and al.low < al.estimate <= al.high


def test_spearman_replicates_many_by_hand() -> None:
    """Two units resampled in all four ways ((0,0), (0,1), (1,0), (1,1)): a resample holding one unit
    twice has no correlation (NaN), one holding both gives +1 or -1; all ties, one unit and no unit
    are NaN in every resample."""
    from judgeaudit.stats.agreement import spearman_replicates_many
    from judgeaudit.stats.bootstrap import counts_from_indices

    counts = counts_from_indices(np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), 2)
    x = np.array([[1.0, 2.0, 5.0], [2.0, 1.0, 5.0]])  # concordant, discordant, all ties
    reps = spearman_replicates_many(x, np.array([3.0, 7.0]), counts)
    nan = float("nan")
    expected = [[nan, nan, nan], [1.0, -1.0, nan], [1.0, -1.0, nan], [nan, nan, nan]]
    np.testing.assert_array_equal(reps, expected)
    one = spearman_replicates_many(np.array([[4.0]]), np.array([1.0]), np.full((3, 1), 1.0))
    assert one.shape == (3, 1) and np.isnan(one).all()
    none = spearman_replicates_many(np.empty((0, 2)), np.empty(0), np.empty((3, 0)))
    assert none.shape == (3, 2) and np.isnan(none).all()


def test_spearman_replicates_many_equals_one_column_at_a_time() -> None:
    """Columns ranked together (few values: one product; many values: sorted alone) give, to the
    bit, what each column gives ranked alone, and what scipy gives on each explicit resample."""
    from judgeaudit.stats.agreement import spearman_replicates, spearman_replicates_many
    from judgeaudit.stats.bootstrap import counts_from_indices, resample_indices

    rng = np.random.default_rng(11)
    n = 80
    x = np.column_stack(
        [rng.integers(0, 7, n) / 6, np.ones(n), rng.normal(size=n), rng.integers(0, 3, n) / 2]
    )
    y = np.round(rng.normal(size=n) * 2) / 2
    idx = resample_indices(n, 40, 3)
    counts = counts_from_indices(idx, n)
    many = spearman_replicates_many(x, y, counts)
    for j in range(x.shape[1]):
        np.testing.assert_array_equal(many[:, j], spearman_replicates(x[:, j], y, counts))
    slow = [sps.spearmanr(x[row, 3], y[row])[0] for row in idx]
    assert many[:, 3] == pytest.approx(slow)
