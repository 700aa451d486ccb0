"""Mining options for end-to-end runs over the 40-forum fixture (tests/fixtures/openreview_small).

The fixture is too small for the default rule (a single area holds at most 7 reviewed papers), so the
end-to-end runs loosen the deciles, the rating floor and ceiling, the contribution cuts and the majority;
the rule itself is tested with its defaults in tests/mine/test_select.py.
"""

from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "openreview_small"
LOOSE = [
    "--top-quantile",
    "0.6",
    "--bottom-quantile",
    "0.4",
    "--novel-min-rating",
    "none",
    "--not-novel-max-rating",
    "none",
    "--novel-min-contribution",
    "2.5",
    "--not-novel-max-contribution",
    "2.5",
    "--majority",
    "0.3",
    "--max-opposing",
    "1",
]
