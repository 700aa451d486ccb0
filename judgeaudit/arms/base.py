"""What a bias probe hands to the judge task: a (possibly transformed) item plus its arm.

Its fields keep their names end to end: sample metadata, the judged-unit record and report columns
(`probe`, `probe_variant`, `probe_target`, ...). `seed`, when set, is the generation seed of this
arm's calls: the `repeat` probe sets a different seed on `run1` and `run2` so Inspect's cache
(whose key includes the generate config) cannot serve the second run from the first one.
"""

from __future__ import annotations

from dataclasses import dataclass

from judgeaudit.data.contract import Item

ARM_SEP = "|"  # between the item id and the arm in a probe sample's id


def split_sample_id(sample_id: str) -> tuple[str, str | None]:
    """(item id, probe arm or None) of a probe run's sample id (`ProbedItem.sample_id` read back)."""
    item_id, sep, arm = sample_id.rpartition(ARM_SEP)
    return (item_id, arm) if sep and item_id and arm else (sample_id, None)


@dataclass(frozen=True)
class ProbedItem:
    """One judged unit of a probe run.

    `item` keeps the original item id and gold (texts may be transformed);
    `probe_variant` names the probe arm (e.g. `order_ba`, `pad_gold`, `cue_other`);
    `probe_target` is the item side (`a`/`b`) the perturbation favours, if any (pointwise probes:
    the label, `novel`/`not_novel`, the perturbation pushes towards);
    `orders` forces the presentation orders (e.g. `("ba",)`), None = task default;
    `cue` is framing text the judge prompt inserts at its cue slot (presumption probe);
    `prompt` overrides the prompt variant for this arm (e.g. `p3_judged_novel`);
    `seed` overrides the generation seed for this arm (repeat probe), None = task default.
    """

    item: Item
    probe: str | None = None
    probe_variant: str | None = None
    probe_target: str | None = None
    orders: tuple[str, ...] | None = None
    cue: str | None = None
    prompt: str | None = None
    seed: int | None = None

    @property
    def sample_id(self) -> str:
        """Unique Sample id within a task: item id, plus the arm when there is one."""
        return (
            self.item.item_id
            if not self.probe_variant
            else f"{self.item.item_id}{ARM_SEP}{self.probe_variant}"
        )
