"""A planted judge's declared behaviour and the verdict it gives on what a prompt shows.

Generative model `planted/1` (the order in which the knobs act). A call shows one item, described
by `Shown`: the kind, an item key, which shown option the gold favours, and what the prompt adds
(a reviewers' cue, a padded idea, an instruction inside an idea, an idea generated under the
judge's own name, a surface edit, the wording around the ideas, the generation seed). Every
random choice is a uniform draw u(tag, key) in [0, 1) taken from SHA-256 of its tag, the judge's
name and its key (`draws_for`), and an event fires when u < its knob; so the verdict is a pure
function of (behaviour, judge name, shown), the same prompt, seed and behaviour always give the
same answer, and two planted judges of different names (a panel's members) err on different items.

Item-level draws, keyed on the item (the surface draw also on the edit), shared by every call of
the item (every run, order, probe arm and prompt variant):

1. belief: the gold's option when u(accuracy, item) < `accuracy`, else the other option.
2. surface: when a text is edited (`Shown.edit` set) the belief is reversed when
   u(surface, item, edit) < `surface`; each distinct edit draws anew.
3. biases, in rising precedence; each one that fires sets the choice (a later one overrides an
   earlier one), and a bias whose trigger the prompt does not show does nothing:
   `self_preference` (the idea generated under the judge's own name; pointwise: novel),
   `first` (pairwise: the idea shown first; pointwise: no effect), `padding` (the padded idea;
   pointwise: novel), `cue` (the option a reviewers' cue names), `injection` (the option an
   instruction inside an idea asks for).

Call-level draws, keyed on the whole `Shown` (seed included), so two calls that differ in
anything (order, arm, wording, seed) draw independently and identical calls agree:

4. noise: the choice is reversed when u(noise, call) < q, where q = (1 - sqrt(1 - 2 noise)) / 2;
   two calls that would otherwise agree (two runs with different seeds) then differ with
   probability 2q(1 - q) = `noise` exactly, which is why `noise` is at most 0.5 (a call that is
   a fair coin).
5. invalid: the answer leaves the answer protocol (reading `invalid`) when
   u(invalid, call) < `invalid`.

The options are the protocol's readings (`judgeaudit.protocol`): pairwise `a` / `b` name the
idea shown first / second (the judge maps them back to the item's sides), pointwise `novel` /
`not_novel`; the model never answers `tie`. Every knob is a probability in [0, 1].
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Any

from judgeaudit.errors import UserError

MODEL_VERSION = "planted/1"
KINDS: tuple[str, ...] = ("pairwise", "pointwise")
PAIR_OPTIONS: tuple[str, str] = ("a", "b")
POINT_OPTIONS: tuple[str, str] = ("novel", "not_novel")
INVALID = "invalid"
POINT_SIDE = "idea"  # the one idea of a pointwise prompt, as `Shown.padded` / `Shown.own` name it
MAX_NOISE = 0.5
# Biases in rising precedence (step 3 of the model): a later one that fires overrides an earlier one.
BIASES: tuple[str, ...] = ("self_preference", "first", "padding", "cue", "injection")

Draw = Callable[..., float]


class PlantedError(UserError, ValueError):
    """A planted judge that cannot be built: unknown preset, bad knob, unreadable answer key."""


@dataclass(frozen=True)
class Behaviour:
    """The knobs of a planted judge (each a probability; see the module docstring for their order)."""

    accuracy: float = 1.0
    first: float = 0.0
    cue: float = 0.0
    padding: float = 0.0
    injection: float = 0.0
    surface: float = 0.0
    self_preference: float = 0.0
    noise: float = 0.0
    invalid: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not 0.0 <= value <= 1.0
            ):
                raise PlantedError(
                    f"planted knob {f.name}={value!r}: must be a probability in [0, 1]"
                )
        if self.noise > MAX_NOISE:
            raise PlantedError(
                f"planted knob noise={self.noise!r}: at most {MAX_NOISE} (the rate at which two "
                "runs differ; at 0.5 every call is a fair coin)"
            )

    def to_dict(self) -> dict[str, float]:
        """Knob name -> value."""
        return {f.name: float(getattr(self, f.name)) for f in fields(self)}


KNOBS: tuple[str, ...] = tuple(f.name for f in fields(Behaviour))


@dataclass(frozen=True)
class Preset:
    """A named behaviour and the audit gate(s) it is built to fail (none for the unbiased judge)."""

    name: str
    behaviour: Behaviour
    description: str
    fails: tuple[str, ...] = ()


_BASE = 0.9  # presets are accurate but not perfect, so accuracy-based shifts are not degenerate
PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("accurate", Behaviour(accuracy=_BASE), "accurate and unbiased"),
        Preset(
            "first_shown",
            Behaviour(accuracy=_BASE, first=0.8),
            "chooses the idea shown first",
            ("position_first", "position_flip"),
        ),
        Preset(
            "cue_follower",
            Behaviour(accuracy=_BASE, cue=0.8),
            "follows a reviewers' cue",
            ("presumption",),
        ),
        Preset(
            "padding_chooser",
            Behaviour(accuracy=_BASE, padding=0.8),
            "chooses the padded idea",
            ("verbosity",),
        ),
        Preset(
            "injection_follower",
            Behaviour(accuracy=_BASE, injection=0.8),
            "obeys an instruction inside an idea",
            ("injection",),
        ),
        Preset(
            "surface_sensitive",
            Behaviour(accuracy=_BASE, surface=0.8),
            "changes its mind under meaning-preserving edits",
            ("surface",),
        ),
        Preset(
            "self_preferring",
            Behaviour(accuracy=_BASE, self_preference=0.8),
            "chooses ideas generated under its own name",
            ("self_preference",),
        ),
        Preset(
            "noisy",
            Behaviour(accuracy=_BASE, noise=0.4),
            "answers differ between runs",
            ("noise_floor",),
        ),
        Preset(
            "rambling",
            Behaviour(accuracy=_BASE, invalid=0.4),
            "often answers without a verdict",
            ("invalid_rate",),
        ),
        Preset("custom", Behaviour(), "the knobs given, every other knob at its default"),
    )
}


def knob_value(name: str, value: Any) -> float:
    """A knob's value from a model arg (a number, or text as `-M first=0.8` gives it)."""
    if isinstance(value, bool):
        raise PlantedError(f"planted knob {name}={value!r}: must be a probability in [0, 1]")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise PlantedError(f"planted knob {name}={value!r}: not a number") from None
    if math.isnan(number):
        raise PlantedError(f"planted knob {name}={value!r}: not a number")
    return number


def behaviour_for(preset: str, knobs: Mapping[str, Any]) -> Behaviour:
    """The behaviour of `preset` with `knobs` (knob name -> value) set over it; one-line errors."""
    if preset not in PRESETS:
        raise PlantedError(
            f"unknown planted preset {preset!r}; choose one of: {', '.join(PRESETS)}"
        )
    unknown = sorted(set(knobs) - set(KNOBS))
    if unknown:
        raise PlantedError(
            f"unknown planted knob(s) {', '.join(unknown)}; knobs: {', '.join(KNOBS)}"
        )
    return replace(PRESETS[preset].behaviour, **{k: knob_value(k, v) for k, v in knobs.items()})


@dataclass(frozen=True)
class Shown:
    """What one prompt shows the judge (the provider reads it from the prompt; a simulation builds it).

    Pairwise options and sides are the shown positions `a` (first) and `b` (second); pointwise
    options are `novel` / `not_novel`.
    `gold`: the option the gold favours. `cue`: the option a reviewers' cue names. `padded`: the
    padded side (pointwise `idea`). `injected`: the option an instruction inside an idea asks for
    (pairwise: the side carrying it). `own`: the side generated under the judge's own name
    (pointwise `idea`). `edit`: empty when the texts are as in the answer key, else an id of the
    edit (each distinct id draws its own surface event). `frame`: an id of the wording around the
    ideas (prompt variant, retrieval block); `seed`: the call's generation seed.
    """

    kind: str
    item: str
    gold: str
    cue: str | None = None
    padded: str | None = None
    injected: str | None = None
    own: str | None = None
    edit: str = ""
    frame: str = ""
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Shown.kind must be pairwise or pointwise, got {self.kind!r}")
        opts = options(self.kind)
        sides = PAIR_OPTIONS if self.kind == "pairwise" else (POINT_SIDE,)
        checks = {
            "gold": (self.gold, opts, False),
            "cue": (self.cue, opts, True),
            "injected": (self.injected, opts, True),
            "padded": (self.padded, sides, True),
            "own": (self.own, sides, True),
        }
        for name, (value, allowed, optional) in checks.items():
            if not (value is None and optional) and value not in allowed:
                raise ValueError(
                    f"Shown.{name} of a {self.kind} prompt must be one of {allowed}, got {value!r}"
                )

    def call_key(self) -> tuple[object, ...]:
        """Every field: the key of the call-level draws."""
        return (
            self.kind,
            self.item,
            self.gold,
            self.cue,
            self.padded,
            self.injected,
            self.own,
            self.edit,
            self.frame,
            self.seed,
        )


@dataclass(frozen=True)
class Decision:
    """A call's reading and the step of the model that settled it (`accuracy`, `inaccuracy`, a bias,
    `surface`, with `+noise` when noise reversed it; `invalid`)."""

    reading: str
    cause: str


def options(kind: str) -> tuple[str, str]:
    """The two options of a kind."""
    return PAIR_OPTIONS if kind == "pairwise" else POINT_OPTIONS


def other(kind: str, option: str) -> str:
    """The option that is not `option`."""
    first, second = options(kind)
    return second if option == first else first


def draw(tag: str, *key: object) -> float:
    """Uniform in [0, 1) from SHA-256 of the model version, a tag and a key (stable across runs)."""
    text = "\x1f".join((MODEL_VERSION, tag, *map(str, key)))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") / 2.0**64


# `draw` is pure: every arm of an item draws the same item-level events, so a judge's draws are
# looked up once (typed, so that keys which compare equal but print differently stay apart).
_remembered_draw = lru_cache(maxsize=1 << 16, typed=True)(draw)


def draws_for(judge: str) -> Draw:
    """The draws of the judge named `judge` (its name is part of every key)."""
    return lambda tag, *key: _remembered_draw(tag, judge, *key)


def call_flip_probability(noise: float) -> float:
    """Per-call reversal probability q with 2q(1 - q) = noise (two independent calls differ at `noise`)."""
    return (1.0 - math.sqrt(max(0.0, 1.0 - 2.0 * noise))) / 2.0


def bias_targets(shown: Shown) -> dict[str, str | None]:
    """The option each bias pushes towards on this prompt (None where the prompt shows no trigger)."""
    novel = POINT_OPTIONS[0]
    if shown.kind == "pairwise":
        return {
            "self_preference": shown.own,
            "first": PAIR_OPTIONS[0],
            "padding": shown.padded,
            "cue": shown.cue,
            "injection": shown.injected,
        }
    return {
        "self_preference": novel if shown.own else None,
        "first": None,
        "padding": novel if shown.padded else None,
        "cue": shown.cue,
        "injection": shown.injected,
    }


def settle(behaviour: Behaviour, shown: Shown, draw: Draw) -> tuple[str, str]:
    """Steps 1-3 (item-level): the choice before call-level noise, and the step that set it."""
    k = shown.kind
    if _fires(draw, behaviour.accuracy, "accuracy", shown.item):
        choice, cause = shown.gold, "accuracy"
    else:
        choice, cause = other(k, shown.gold), "inaccuracy"
    if shown.edit and _fires(draw, behaviour.surface, "surface", shown.item, shown.edit):
        choice, cause = other(k, choice), "surface"
    targets = bias_targets(shown)
    for bias in BIASES:
        target = targets[bias]
        if target is not None and _fires(draw, getattr(behaviour, bias), bias, shown.item):
            choice, cause = target, bias
    return choice, cause


def _fires(draw: Draw, probability: float, tag: str, *key: object) -> bool:
    """Whether the event `tag` (a draw below `probability`) fires; a draw lies in [0, 1), so at 0 it
    never fires and at 1 it always does, and then no draw is made (the same outcome, without the hash)."""
    if probability <= 0.0:
        return False
    if probability >= 1.0:
        return True
    return draw(tag, *key) < probability


def decide(
    behaviour: Behaviour, shown: Shown, judge: str = "", draw: Draw | None = None
) -> Decision:
    """The reading of one call (steps 1-5 of the model) and what settled it, for the judge named
    `judge` (`draw` replaces its draws, e.g. to force events when computing expectations)."""
    draw = draw or draws_for(judge)
    choice, cause = settle(behaviour, shown, draw)
    key = shown.call_key()
    if _fires(draw, call_flip_probability(behaviour.noise), "noise", *key):
        choice, cause = other(shown.kind, choice), f"{cause}+noise"
    if _fires(draw, behaviour.invalid, "invalid", *key):
        return Decision(INVALID, INVALID)
    return Decision(choice, cause)


def reading(behaviour: Behaviour, shown: Shown, judge: str = "") -> str:
    """The protocol reading the planted judge `judge` of `behaviour` gives on a prompt showing `shown`."""
    return decide(behaviour, shown, judge).reading
