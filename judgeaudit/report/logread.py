"""A fast reader of the fields the report uses from a local `.eval` log, without model validation.

An Inspect `.eval` log is a zip archive of JSON members: `header.json` (status, eval spec,
results, error), `reductions.json` (per-sample scores reduced over epochs) and one
`samples/<id>_epoch_<n>.json` per sample. Inspect's `read_eval_log` validates every sample
into its models, which costs far more than reading the few fields the report uses. This reader
parses the members with `orjson` and hands back plain objects carrying only those fields, under
the same attribute names as Inspect's `EvalLog` (`eval.task`, `samples[i].scores`, ...), so the
report reads either kind of log the same way.

It reads only what it knows: a local `.eval` file with a `header.json` of a log schema version in
`KNOWN_VERSIONS`. Anything else (a `.json` log, a remote log, a log still being written, an
unknown version, a member it cannot parse) raises `NotFast`, and the caller reads that log with
Inspect's `read_eval_log` instead.
"""

from __future__ import annotations

import json
import sys
import zipfile
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson

if sys.version_info < (
    3,
    14,
):  # Inspect writes zstd members; its own dependency teaches zipfile them
    import zipfile_zstd  # type: ignore[import-not-found, import-untyped]  # noqa: F401

KNOWN_VERSIONS: frozenset[int] = frozenset({2})  # Inspect's `.eval` log schema versions read here
HEADER = "header.json"
REDUCTIONS = "reductions.json"
SAMPLES_DIR = "samples/"
USAGE_FIELDS: tuple[str, ...] = ("input_tokens", "output_tokens", "total_tokens")


class NotFast(Exception):
    """A log this reader does not read (the caller reads it with Inspect instead); the message says why."""


class GenerateConfigFields(dict[str, Any]):
    """A log's generation config as read: a dict with `model_dump` like Inspect's `GenerateConfig`."""

    def model_dump(self) -> dict[str, Any]:
        """The settings as a plain dict."""
        return dict(self)


def local_path(name: str) -> Path:
    """The local file of a log location (`file:///...` or a path); `NotFast` for a remote one."""
    if name.startswith("file://"):
        name = name.removeprefix("file://")
    elif "://" in name:
        raise NotFast("not a local file")
    return Path(name)


def _error(data: Mapping[str, Any] | None) -> SimpleNamespace | None:
    return None if data is None else SimpleNamespace(message=data.get("message", ""))


def _usage(data: Mapping[str, Any] | None) -> dict[str, SimpleNamespace]:
    """Model usage by model (or role): tokens (0 when absent) and the cost (None when absent)."""
    return {
        key: SimpleNamespace(
            **{f: u.get(f) or 0 for f in USAGE_FIELDS}, total_cost=u.get("total_cost")
        )
        for key, u in (data or {}).items()
    }


def _score(data: Mapping[str, Any]) -> SimpleNamespace:
    return SimpleNamespace(
        value=data.get("value"),
        answer=data.get("answer"),
        metadata=data.get("metadata"),
        sample_id=data.get("sample_id"),
    )


def _sample(data: Mapping[str, Any]) -> SimpleNamespace:
    return SimpleNamespace(
        id=data["id"],
        epoch=data["epoch"],
        target=data.get("target", ""),
        scores={name: _score(s) for name, s in (data.get("scores") or {}).items()},
        metadata=data.get("metadata") or {},
        error=_error(data.get("error")),
        model_usage=_usage(data.get("model_usage")),
        role_usage=_usage(data.get("role_usage")),
    )


def _eval(data: Mapping[str, Any]) -> SimpleNamespace:
    generate = data.get("model_generate_config")
    return SimpleNamespace(
        task=data["task"],
        task_args=data.get("task_args") or {},
        task_args_passed=data.get("task_args_passed"),
        model=data["model"],
        model_generate_config=None if generate is None else GenerateConfigFields(generate),
        metadata=data.get("metadata"),
        eval_id=data.get("eval_id"),
        created=data.get("created"),
        config=SimpleNamespace(epochs=(data.get("config") or {}).get("epochs")),
        dataset=SimpleNamespace(sample_ids=(data.get("dataset") or {}).get("sample_ids")),
    )


def sample_order(sample: SimpleNamespace) -> tuple[int, str]:
    """Inspect's order of a log's samples: by epoch, then id (numbers zero-padded to sort as numbers)."""
    sid = sample.id
    return sample.epoch, sid if isinstance(sid, str) else str(sid).zfill(20)


def _json(archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> Any:
    """A member's JSON: by `orjson`, else (NaN or Infinity, which Inspect writes for undefined
    metrics and orjson refuses) by the standard library."""
    data = archive.read(member)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


def read_fast(name: str, header_only: bool = False) -> SimpleNamespace:
    """The report's fields of one local `.eval` log (`header_only`: without samples or reductions);
    `NotFast` when this reader does not read it (see the module docstring)."""
    path = local_path(name)
    if path.suffix != ".eval":
        raise NotFast("not an .eval log")
    try:
        with zipfile.ZipFile(path) as archive:
            members = {
                info.filename: info for info in archive.infolist()
            }  # the last of a name wins
            if HEADER not in members:
                raise NotFast(f"no {HEADER} (a log still being written)")
            header = _json(archive, members[HEADER])
            if header.get("version") not in KNOWN_VERSIONS:
                raise NotFast(f"log schema version {header.get('version')!r}")
            log = SimpleNamespace(
                location=name,
                version=header["version"],
                status=header["status"],
                eval=_eval(header["eval"]),
                error=_error(header.get("error")),
                reductions=None,
                samples=None,
            )
            if header_only:
                return log
            if REDUCTIONS in members and header.get("results") is not None:
                log.reductions = [
                    SimpleNamespace(
                        scorer=r["scorer"],
                        reducer=r.get("reducer"),
                        samples=[_score(s) for s in r["samples"]],
                    )
                    for r in _json(archive, members[REDUCTIONS])
                ]
            samples = [
                _sample(_json(archive, info))
                for member, info in members.items()
                if member.startswith(SAMPLES_DIR) and member.endswith(".json")
            ]
    except NotFast:
        raise
    except (OSError, zipfile.BadZipFile, ValueError, KeyError, TypeError) as exc:
        raise NotFast(f"{type(exc).__name__}: {exc}"[:200]) from exc
    samples.sort(key=sample_order)
    log.samples = samples
    return log
