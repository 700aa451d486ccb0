"""Convert the published novelty-judge-bench YAML sets (local or Hub) into contract items.

Layout read (any depth below the root): `human-only/<file>.yaml`,
`human-plus-generated/[backbone-<model>/]<file>.yaml` and `ai-only/<family>/<file>.yaml`, where
`<file>` is one of `pairwise`, `pairwise_plan`, `pointwise`, `pointwise_plan`. Every other file
is reported as skipped with its reason (`expert-annotations/judge_errors.csv` is read by
`judgeaudit adjudicate import`, not converted into a set). Pairwise files map an
instance id to `{context, expected_winners: [i], ideas: {0: text, 1: text},
metadata: {0: {...}, 1: {...}}}`; pointwise files map an id to
`{context, idea, label: POSITIVE|NEGATIVE, metadata: {...}}`. Idea metadata holds
`area, contribution, rating` (decimal strings), `title`, `type` (POSITIVE/NEGATIVE),
`positive_signals`, `negative_signals`, `similar_papers_mentioned`. In the released files ids
are quoted strings (pointwise) or ints (pairwise), scores are decimal strings, and generated
ideas carry `N/A` scores.

Rules: POSITIVE -> `novel`, NEGATIVE -> `not_novel`; idea 0 becomes `idea_a`, idea 1
`idea_b` (published positions kept); in `human-plus-generated` the `not_novel` idea is
the generated one (`source=generated`), and in `ai-only` both ideas are; an idea's generator is
its metadata's `generator`, else the `backbone-<model>` folder, else (the top-level
`human-plus-generated` files) the release's stated ideator, `RELEASE_IDEATOR`; in `ai-only` the
expected winner must be the stronger generator's idea (`STRONGER`);
idea ids are the OpenReview forum id when the metadata has one, else `njb-` + a hash
of the text; `N/A` scores are kept as missing (null), never as 0. An idea met again in the
same file keeps its first provenance. Ids are local to each published file, so a `_plan`
file is joined to its abstract sibling on titles: a plan idea takes the id of the abstract
idea with its title, a plan item the id of the abstract item with the same titles; a plan
item without an abstract counterpart whose id names another abstract item gets `plan-<id>`.
Every defect is reported as file:line, `<instance id>.<field>`.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from judgeaudit.data.contract import (
    Evidence,
    Idea,
    Item,
    PairItem,
    PointItem,
    Provenance,
    item_ideas,
)
from judgeaudit.data.jsonl import check_unique
from judgeaudit.data.validate import ContractError, Kind, Problem, parse_item, text_field
from judgeaudit.errors import UserError

DATASET_NAME = "novelty-judge-bench"
HUB_ID = "noystl/novelty-judge-bench"
FILE_STEMS: tuple[str, ...] = ("pairwise", "pairwise_plan", "pointwise", "pointwise_plan")
SETUP_DIRS: dict[str, str] = {
    "human-only": "human_only",
    "human-plus-generated": "human_generated",
    "ai-only": "ai_only",
}
# The ideator of the top-level human-plus-generated files, as the release states it (its README, and
# the `generation_model` of its expert annotations); backbone-<model> folders name their own.
RELEASE_IDEATOR = "claude-sonnet-4-5"
# The release's AI-only pairs: the stronger generator's idea is the expected (more novel) winner.
STRONGER: dict[str, str] = {"claude-opus-4-5": "claude-sonnet-4-5", "gpt-5.4": "gpt-5.1"}
ANNOTATIONS_FILE = "judge_errors.csv"
LICENSE = "cc-by-4.0"
CITATION = (
    "novelty-judge-bench (`noystl/novelty-judge-bench` on the Hugging Face Hub), the data release of "
    'the reference study "Old Ideas, Novel Problems" (2026), licensed CC BY 4.0 by its authors'
)
LABEL_MAP: dict[str, str] = {"POSITIVE": "novel", "NEGATIVE": "not_novel"}
FORUM_KEYS: tuple[str, ...] = ("forum", "forum_id", "openreview_id", "paper_id")
MISSING_SCORES: frozenset[str] = frozenset(
    {"n/a", "na"}
)  # how the release writes "no score" (generated ideas)
PLAN_ONLY_PREFIX = "plan-"
_BACKBONE = re.compile(r"^backbone-(.+)$")
# libyaml's parser when PyYAML was built with it (much faster on the large published files)
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class BenchSourceError(UserError, RuntimeError):
    """The benchmark source (local directory or Hub id) cannot be read."""


@dataclass(frozen=True)
class Skipped:
    """A file of the source that no set was made from, and why."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"skipped ({self.reason}): {self.path}"


@dataclass
class BenchFile:
    """One converted YAML file: where it goes in our layout and what it held."""

    path: Path
    relative: str
    setup: str
    generator: str | None
    stem: str
    family: str | None = None  # the ai-only/<family> folder (claude, gpt)
    items: list[Item] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    unjoined: list[str] = field(default_factory=list)  # plan items with no abstract counterpart

    @property
    def kind(self) -> Kind:
        """pairwise or pointwise."""
        return "pairwise" if self.stem.startswith("pairwise") else "pointwise"

    @property
    def set_path(self) -> str:
        """Our set directory for this file, relative to the output root (e.g. human_generated/gpt-4o,
        ai_only/claude)."""
        sub = self.generator or self.family
        return self.setup if sub is None else f"{self.setup}/{sub}"


@dataclass
class BenchConversion:
    """All converted files plus the files no set was made from, each with its reason."""

    root: Path
    files: list[BenchFile]
    skipped: list[Skipped]

    @property
    def problems(self) -> list[Problem]:
        """Every problem of every file."""
        return [p for f in self.files for p in f.problems]

    def sets(self) -> dict[str, dict[str, list[Item]]]:
        """Set path -> file stem -> items."""
        out: dict[str, dict[str, list[Item]]] = {}
        for f in self.files:
            out.setdefault(f.set_path, {})[f.stem] = f.items
        return out


def _load_yaml(path: Path, name: str) -> tuple[Any, dict[Any, int], list[Problem]]:
    """Parse a YAML file; return data, the line of each top-level key, and duplicate-key problems."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, {}, [Problem(name, 0, "", f"invalid UTF-8 at byte {exc.start}")]
    loader = _SafeLoader(text)
    problems: list[Problem] = []
    lines: dict[Any, int] = {}
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}, [Problem(name, 0, "", "file is empty")]
        if isinstance(node, yaml.MappingNode):
            for key_node, _ in node.value:
                key = loader.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                if not isinstance(key, str | int | float | bool):
                    problems.append(
                        Problem(
                            name, line, "", f"instance id must be a string or number, got {key!r}"
                        )
                    )
                elif key in lines:
                    problems.append(
                        Problem(
                            name,
                            line,
                            str(key),
                            f"duplicate instance id (first on line {lines[key]})",
                        )
                    )
                else:
                    lines[key] = line
        data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return None, {}, [Problem(name, mark.line + 1 if mark else 0, "", f"invalid YAML: {exc}")]
    finally:
        loader.dispose()
    return data, lines, problems


class _Reader:
    """Field access on one instance with problems named file:line, `<id>.<field>`."""

    def __init__(self, file: str, line: int, instance: str):
        self.file, self.line, self.instance = file, line, instance
        self.problems: list[Problem] = []

    def add(self, fieldname: str, message: str) -> None:
        where = f"{self.instance}.{fieldname}" if fieldname else self.instance
        self.problems.append(Problem(self.file, self.line, where, message))

    def text(self, obj: dict[Any, Any], key: str, path: str) -> str:
        value, problem = text_field(obj, key)
        if problem is not None:
            self.add(path, problem)
        return value

    def opt_text(self, obj: dict[Any, Any], key: str, path: str) -> str | None:
        value = obj.get(key)
        if value is None:
            return None
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            self.add(path, f"expected text, got {type(value).__name__}")
            return None
        return str(value)

    def number(self, obj: dict[Any, Any], key: str, path: str) -> float | None:
        value = obj.get(key)
        if (
            value is None
            or value == ""
            or (isinstance(value, str) and value.strip().lower() in MISSING_SCORES)
        ):
            return None  # `N/A`: no score, kept as missing (never 0)
        if isinstance(value, bool):
            self.add(path, f"expected a decimal number, got {value!r}")
            return None
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.add(path, f"expected a decimal number, got {value!r}")
            return None
        if math.isnan(number) or math.isinf(number):
            self.add(path, f"expected a finite number, got {value!r}")
            return None
        return number

    def strings(self, obj: dict[Any, Any], key: str, path: str) -> tuple[str, ...]:
        value = obj.get(key)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.add(path, "expected a list of strings")
            return ()
        return tuple(value)

    def mapping(
        self, obj: dict[Any, Any], key: str, path: str, *, required: bool = True
    ) -> dict[Any, Any]:
        value = obj.get(key)
        if value is None:
            if required:
                self.add(path, "missing field")
            return {}
        if not isinstance(value, dict):
            self.add(path, f"expected a mapping, got {type(value).__name__}")
            return {}
        return value

    def label(self, value: Any, path: str) -> str:
        if value is None:
            self.add(path, "missing field")
            return ""
        if not isinstance(value, str) or value not in LABEL_MAP:
            self.add(path, f"unknown label {value!r} (allowed: {', '.join(LABEL_MAP)})")
            return ""
        return LABEL_MAP[value]


def _index(mapping: dict[Any, Any], i: int) -> Any:
    """mapping[0] whether the YAML key was the integer 0 or the string '0'."""
    return mapping[i] if i in mapping else mapping.get(str(i))


def text_idea_id(text: str) -> str:
    """Stable id for an idea without a forum id: `njb-` + 16 hex chars of sha256(text)."""
    return "njb-" + hashlib.sha256(text.strip().encode("utf-8")).hexdigest()[:16]


def _idea(
    r: _Reader,
    text: str,
    meta: dict[Any, Any],
    mpath: str,
    *,
    label: str,
    area: str,
    fmt: str,
    setup: str,
    generator: str | None,
    source_id: str,
) -> Idea:
    forum = next((str(meta[k]) for k in FORUM_KEYS if meta.get(k)), None)
    generated = setup == "ai_only" or (setup == "human_generated" and label == "not_novel")
    named = r.opt_text(meta, "generator", f"{mpath}.generator")
    if named and generator and named != generator:
        r.add(f"{mpath}.generator", f"{named!r} contradicts the backbone-{generator} folder")
    if generated and not (named or generator) and setup == "ai_only":
        r.add(f"{mpath}.generator", "missing field (every ai-only idea names its generator)")
    return Idea(
        idea_id=forum if forum and not generated else text_idea_id(text),
        text=text,
        format=fmt,  # type: ignore[arg-type]
        source="generated" if generated else "human",
        area=r.opt_text(meta, "area", f"{mpath}.area") or area,
        label=label,  # type: ignore[arg-type]
        generator=(named or generator or RELEASE_IDEATOR) if generated else None,
        title=r.opt_text(meta, "title", f"{mpath}.title"),
        evidence=Evidence(
            rating_mean=r.number(meta, "rating", f"{mpath}.rating"),
            contribution_mean=r.number(meta, "contribution", f"{mpath}.contribution"),
            positive_signals=r.strings(meta, "positive_signals", f"{mpath}.positive_signals"),
            negative_signals=r.strings(meta, "negative_signals", f"{mpath}.negative_signals"),
            similar_papers=r.strings(
                meta, "similar_papers_mentioned", f"{mpath}.similar_papers_mentioned"
            ),
        ),
        provenance=Provenance(
            dataset=DATASET_NAME, source_id=source_id, forum=None if generated else forum
        ),
    )


def _pair(r: _Reader, raw: dict[Any, Any], bf: BenchFile, instance: str) -> PairItem | None:
    area = r.text(raw, "context", "context")
    ideas = r.mapping(raw, "ideas", "ideas")
    metas = r.mapping(raw, "metadata", "metadata", required=False)
    winners = raw.get("expected_winners")
    gold = ""
    if winners is None:
        r.add("expected_winners", "missing field")
    elif not isinstance(winners, list) or len(winners) != 1:
        r.add(
            "expected_winners", f"expected a list with exactly one index (0 or 1), got {winners!r}"
        )
    elif str(winners[0]) not in ("0", "1") or isinstance(winners[0], bool):
        r.add("expected_winners", f"winner index must be 0 or 1, got {winners[0]!r}")
    else:
        gold = "a" if str(winners[0]) == "0" else "b"
    if ideas and set(map(str, ideas)) != {"0", "1"}:
        r.add("ideas", f"expected exactly the keys 0 and 1, got {sorted(map(str, ideas))}")
    fmt = "plan" if bf.stem.endswith("_plan") else "abstract"
    built: list[Idea] = []
    for i in (0, 1):
        text = r.text({"text": _index(ideas, i)}, "text", f"ideas.{i}") if ideas else ""
        meta_raw = _index(metas, i) if metas else None
        if meta_raw is not None and not isinstance(meta_raw, dict):
            r.add(f"metadata.{i}", f"expected a mapping, got {type(meta_raw).__name__}")
            meta_raw = None
        meta = meta_raw or {}
        won = gold == ("a" if i == 0 else "b")
        label = "novel" if won else "not_novel"
        if "type" in meta:
            declared = r.label(meta["type"], f"metadata.{i}.type")
            if declared and gold and declared != label:
                r.add(
                    f"metadata.{i}.type",
                    f"type {meta['type']!r} contradicts expected_winners {winners!r}",
                )
        built.append(
            _idea(
                r,
                text,
                meta,
                f"metadata.{i}",
                label=label,
                area=area,
                fmt=fmt,
                setup=bf.setup,
                generator=bf.generator,
                source_id=f"{bf.relative}#{instance}/{i}",
            )
        )
    if bf.setup == "ai_only" and gold and not r.problems:
        _check_stronger(r, built, gold)
    if r.problems:
        return None
    return PairItem(
        pair_id=instance,
        setup=bf.setup,  # type: ignore[arg-type]
        area=area,
        idea_a=built[0],
        idea_b=built[1],
        gold=gold,  # type: ignore[arg-type]
    )


def _check_stronger(r: _Reader, ideas: Sequence[Idea], gold: str) -> None:
    """An ai-only pair whose expected winner is not the stronger of two known generators is a problem."""
    a, b = (idea.generator or "" for idea in ideas)
    winner, loser = (a, b) if gold == "a" else (b, a)
    if STRONGER.get(loser) == winner:
        r.add("expected_winners", f"names {winner!r}, the weaker generator than {loser!r}")
    elif STRONGER.get(winner) != loser and a == b:
        r.add("metadata", f"both ideas come from {a!r}: no stronger generator to expect")


def _point(r: _Reader, raw: dict[Any, Any], bf: BenchFile, instance: str) -> PointItem | None:
    area = r.text(raw, "context", "context")
    text = r.text(raw, "idea", "idea")
    label = r.label(raw.get("label"), "label")
    meta = r.mapping(raw, "metadata", "metadata", required=False)
    if "type" in meta:
        declared = r.label(meta["type"], "metadata.type")
        if declared and label and declared != label:
            r.add("metadata.type", f"type {meta['type']!r} contradicts label {raw.get('label')!r}")
    fmt = "plan" if bf.stem.endswith("_plan") else "abstract"
    idea = _idea(
        r,
        text,
        meta,
        "metadata",
        label=label or "not_novel",
        area=area,
        fmt=fmt,
        setup=bf.setup,
        generator=bf.generator,
        source_id=f"{bf.relative}#{instance}",
    )
    if r.problems:
        return None
    return PointItem(item_id=instance, setup=bf.setup, idea=idea, gold=label)  # type: ignore[arg-type]


@dataclass(frozen=True)
class _Place:
    """Where a benchmark file sits: its setup, backbone folder's model, ai-only family, stem."""

    setup: str
    generator: str | None
    family: str | None
    stem: str


def _place(path: Path, root: Path) -> _Place | None:
    """The place of a YAML file in the tree; None when it is not a benchmark file."""
    parts = path.relative_to(root).parts
    if path.suffix not in (".yaml", ".yml") or path.stem not in FILE_STEMS:
        return None
    at = next((i for i, p in enumerate(parts[:-1]) if p in SETUP_DIRS), None)
    if at is None:
        return None
    setup = SETUP_DIRS[parts[at]]
    below = parts[at + 1 : -1]
    generator = next((m.group(1) for p in below if (m := _BACKBONE.match(p))), None)
    family = None
    if setup == "ai_only":
        if len(below) != 1:
            return None  # ai-only/<family>/<file>.yaml only
        family = below[0]
    return _Place(setup, generator, family, path.stem)


def _skip_reason(path: Path, root: Path) -> str:
    """Why a file of the source makes no set (named for every such file, never dropped silently)."""
    parts = path.relative_to(root).parts
    if path.name == ANNOTATIONS_FILE:
        return "expert annotations, not a set: read it with `judgeaudit adjudicate import`"
    if path.suffix.lower() in (".md", ".txt") or path.name in (".gitattributes", "LICENSE"):
        return "documentation"
    if path.suffix not in (".yaml", ".yml"):
        return f"not a benchmark file type ({path.suffix or 'no extension'})"
    if path.stem not in FILE_STEMS:
        return f"not a benchmark file name (expected {', '.join(s + '.yaml' for s in FILE_STEMS)})"
    if "ai-only" in parts[:-1]:
        return "not in the ai-only/<family>/ layout"
    return "not under human-only/, human-plus-generated/ or ai-only/"


@dataclass
class _Join:
    """The ids of a set's abstract files by title, for its `_plan` files (published ids are file-local)."""

    ideas: dict[str, str]  # title -> idea_id (titles naming one idea only)
    items: dict[frozenset[str], Item]  # the titles of an item's ideas -> the abstract item
    by_id: dict[str, Item]

    @classmethod
    def of(cls, abstract: Sequence[BenchFile], kind: Kind) -> _Join:
        """The join over the set's abstract files (item ids from the file of the same kind)."""
        seen: dict[str, set[str]] = {}
        for bench_file in abstract:
            for item in bench_file.items:
                for idea in item_ideas(item):
                    if idea.title:
                        seen.setdefault(idea.title, set()).add(idea.idea_id)
        items = [i for f in abstract if f.kind == kind for i in f.items]
        return cls(
            ideas={t: next(iter(ids)) for t, ids in seen.items() if len(ids) == 1},
            items={key: i for i in items if (key := _titles(i)) is not None},
            by_id={i.item_id: i for i in items},
        )

    def apply(self, item: Item) -> tuple[Item, bool]:
        """The plan item with the abstract ids (idea by title, item by its ideas' titles); joined or not."""
        item = _map_ideas(
            item,
            lambda idea: (
                replace(idea, idea_id=self.ideas[idea.title]) if idea.title in self.ideas else idea
            ),
        )
        key = _titles(item)
        match = self.items.get(key) if key is not None else None
        if (
            match is None
        ):  # titles missing: the published id stands if that item agrees on area and titles
            same = self.by_id.get(item.item_id)
            titles = {i.title for i in item_ideas(same)} if same is not None else set()
            if (
                same is not None
                and same.area == item.area
                and all(i.title in titles for i in item_ideas(item) if i.title)
            ):
                match = same
        if match is not None:
            return _with_id(item, match.item_id), True
        if item.item_id in self.by_id:  # the same id names another abstract item: never pair them
            return _with_id(item, PLAN_ONLY_PREFIX + item.item_id), False
        return item, False


def _titles(item: Item) -> frozenset[str] | None:
    titles = [idea.title for idea in item_ideas(item)]
    return frozenset(t for t in titles if t) if all(titles) else None


def _with_id(item: Item, new_id: str) -> Item:
    return (
        replace(item, pair_id=new_id)
        if isinstance(item, PairItem)
        else replace(item, item_id=new_id)
    )


def _map_ideas(item: Item, fn: Callable[[Idea], Idea]) -> Item:
    if isinstance(item, PairItem):
        return replace(item, idea_a=fn(item.idea_a), idea_b=fn(item.idea_b))
    return replace(item, idea=fn(item.idea))


def _first_seen(item: Item, first: dict[str, Idea]) -> Item:
    """The item with every idea met before in the file (same id and content) as first met (its provenance)."""

    def pick(idea: Idea) -> Idea:
        prev = first.setdefault(idea.idea_id, idea)
        return prev if replace(idea, provenance=prev.provenance) == prev else idea

    return _map_ideas(item, pick)


def convert_file(path: Path, root: Path, abstract: Sequence[BenchFile] = ()) -> BenchFile | None:
    """Convert one YAML file; None when its place in the tree is not a benchmark file.

    `abstract`: the converted abstract files of the same set, which a `_plan` file is joined to.
    """
    place = _place(path, root)
    if place is None:
        return None
    stem = place.stem
    bf = BenchFile(
        path=path,
        relative=path.relative_to(root).as_posix(),
        setup=place.setup,
        generator=place.generator,
        stem=stem,
        family=place.family,
    )
    join = _Join.of(abstract, bf.kind) if stem.endswith("_plan") and abstract else None
    name = str(path)
    data, lines, problems = _load_yaml(path, name)
    bf.problems.extend(problems)
    if data is None:
        return bf
    if not isinstance(data, dict):
        bf.problems.append(
            Problem(
                name,
                1,
                "",
                f"expected a mapping of instance id -> instance, got {type(data).__name__}",
            )
        )
        return bf
    seen: set[str] = set()
    first: dict[str, Idea] = {}
    numbered: list[tuple[int, Item]] = []
    for key, raw in data.items():
        instance = str(key)
        line = lines.get(key, 0)
        if instance in seen:  # e.g. the keys 1 and '1'
            bf.problems.append(Problem(name, line, instance, "duplicate instance id"))
            continue
        seen.add(instance)
        r = _Reader(name, line, instance)
        if not isinstance(raw, dict):
            r.add("", f"expected a mapping, got {type(raw).__name__}")
            bf.problems.extend(r.problems)
            continue
        item = (
            _pair(r, raw, bf, instance) if bf.kind == "pairwise" else _point(r, raw, bf, instance)
        )
        bf.problems.extend(r.problems)
        if item is None:
            continue
        if join is not None:
            item, joined = join.apply(item)
            if not joined:
                bf.unjoined.append(instance)
        item = _first_seen(item, first)
        # the contract's own checks (identical ideas, gold vs labels, areas), named by instance
        _, contract = parse_item(item.to_dict(), bf.kind, name, line)
        bf.problems.extend(
            Problem(p.file, p.line, f"{instance}.{p.field}", p.message) for p in contract
        )
        if not contract:
            numbered.append((line, item))
    # one idea_id must mean one idea within a file (a hash or forum id reused with other content)
    bf.items, cross = check_unique(numbered, name)
    bf.problems.extend(
        Problem(p.file, p.line, f"{_instance_at(p.line, lines)}.{p.field}", p.message)
        for p in cross
    )
    bf.problems.sort(key=lambda p: p.line)
    return bf


def _instance_at(line: int, lines: dict[Any, int]) -> str:
    return next((str(k) for k, v in lines.items() if v == line), "?")


def convert_dir(root: str | Path) -> BenchConversion:
    """Convert every benchmark YAML file below `root`; every other file is skipped with its reason
    (hidden files and folders, such as a download cache, are not looked at).

    Abstract files are converted first so that each `_plan` file is joined to the abstract
    files of its own set (same setup and backbone folder).
    """
    base = Path(root)
    if not base.is_dir():
        raise BenchSourceError(f"{root} is not a directory")
    paths = sorted(
        p
        for p in base.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(base).parts)
    )
    skipped = [
        Skipped(p.relative_to(base).as_posix(), _skip_reason(p, base))
        for p in paths
        if _place(p, base) is None
    ]
    wanted = [p for p in paths if _place(p, base) is not None]
    by_set: dict[tuple[str, str | None, str], list[BenchFile]] = {}
    files: list[BenchFile] = []
    for path in sorted(
        wanted, key=lambda p: p.stem.endswith("_plan")
    ):  # stable: abstract files first
        place = _place(path, base)
        assert place is not None  # wanted holds placed files only
        group = by_set.setdefault((place.setup, place.generator, str(path.parent)), [])
        bf = convert_file(path, base, abstract=group)
        if bf is not None:
            files.append(bf)
            if not bf.stem.endswith("_plan"):
                group.append(bf)
    files.sort(key=lambda f: f.relative)
    if not files:
        raise BenchSourceError(
            f"no novelty-judge-bench files under {base}: expected human-only/, human-plus-generated/ or ai-only/ "
            f"folders holding {', '.join(s + '.yaml' for s in FILE_STEMS)}"
        )
    return BenchConversion(root=base, files=files, skipped=skipped)


def convert_strict(root: str | Path) -> BenchConversion:
    """convert_dir, raising ContractError listing every problem if there is any."""
    conv = convert_dir(root)
    if conv.problems:
        raise ContractError(conv.problems)
    return conv


def fetch_from_hub(
    hub_id: str = HUB_ID, revision: str | None = None, cache_dir: str | None = None
) -> Path:
    """Download (or reuse the cached) YAML files of a Hub dataset; clear error when offline."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import RepositoryNotFoundError

    hint = (
        f"download it where the Hub is reachable (`hf download {hub_id} --repo-type dataset "
        f"--local-dir DIR`) and pass that local directory instead"
    )
    try:
        path = snapshot_download(
            repo_id=hub_id,
            repo_type="dataset",
            revision=revision,
            cache_dir=cache_dir,
            allow_patterns=["*.yaml", "*.yml", "*.md", "*.csv"],
        )
    except RepositoryNotFoundError as exc:
        raise BenchSourceError(
            f"Hugging Face dataset {hub_id!r} not found on the Hub; {hint}"
        ) from exc
    except Exception as exc:  # offline mode, DNS/connection errors, HTTP errors: one clear message
        raise BenchSourceError(
            f"cannot download Hugging Face dataset {hub_id!r} ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else 'no detail'}); "
            f"no network here? {hint}"
        ) from exc
    return Path(path)


def resolve_source(source: str) -> tuple[Path, dict[str, Any]]:
    """A local directory for `source` (a path, or a Hub id fetched) and a description for the manifest."""
    local = Path(source)
    if local.is_dir():
        return local, {"dataset": DATASET_NAME, "kind": "local", "path": str(local.resolve())}
    if re.fullmatch(r"[\w.-]+/[\w.-]+", source) and not local.exists():
        path = fetch_from_hub(source)
        return path, {
            "dataset": DATASET_NAME,
            "kind": "huggingface_hub",
            "hub_id": source,
            "revision": path.name,
        }
    raise BenchSourceError(
        f"{source!r} is neither a local directory nor a Hugging Face dataset id (owner/name)"
    )
