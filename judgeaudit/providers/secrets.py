"""Keep API keys out of logs, errors and model-call records: collect known secrets and redact them."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "<redacted>"

# Environment variables whose values are treated as secrets (provider keys, tokens, passwords).
_SECRET_ENV = re.compile(
    r"(API_KEY|APIKEY|_TOKEN|SECRET|PASSWORD|ACCESS_KEY|CREDENTIALS?)$|^OPENREVIEW_PASSWORD$", re.I
)
# Request keys that carry credentials and are never recorded, whatever their value.
SECRET_PARAM_NAMES = frozenset(
    {
        "api_key",
        "azure_ad_token",
        "aws_secret_access_key",
        "aws_session_token",
        "vertex_credentials",
    }
)
# Argument names that look like credentials (`secret_name`): one of these words between underscores
# (`api_key`, `auth_token`; not `max_tokens`).
_SECRET_NAME = re.compile(
    r"(^|_)(api_?key|key|token|secret|password|passwd|credentials?|auth)(_|$)", re.I
)
# Shorter strings are too likely to occur by chance in ordinary text to be worth redacting.
_MIN_SECRET_LEN = 8


def secret_name(name: str) -> bool:
    """Whether an argument of this name may carry a credential (`api_key`, `auth_token`, ...)."""
    return name in SECRET_PARAM_NAMES or bool(_SECRET_NAME.search(name))


def env_secrets(environ: Mapping[str, str] | None = None) -> set[str]:
    """Values of environment variables whose names mark them as credentials."""
    env = os.environ if environ is None else environ
    return {v for k, v in env.items() if _SECRET_ENV.search(k) and len(v) >= _MIN_SECRET_LEN}


class Redactor:
    """Replaces every known secret in text (and in nested JSON-like data) with `<redacted>`."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self._secrets: set[str] = set()
        self.add(*secrets)

    def add(self, *secrets: str | None) -> None:
        """Register more secret values (None and short strings are ignored)."""
        for s in secrets:
            if s and len(s) >= _MIN_SECRET_LEN:
                self._secrets.add(s)

    def text(self, value: str) -> str:
        """`value` with every known secret replaced (longest first, so overlapping keys stay hidden)."""
        for s in sorted(self._secrets, key=len, reverse=True):
            if s in value:
                value = value.replace(s, REDACTED)
        return value

    def data(self, value: Any) -> Any:
        """Deep copy of JSON-like `value` with secret strings redacted and credential keys masked."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {
                k: (REDACTED if k in SECRET_PARAM_NAMES and v is not None else self.data(v))
                for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return [self.data(v) for v in value]
        return value


class RedactingFilter(logging.Filter):
    """Logging filter that redacts secrets from a record's rendered message."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        """Render the message, redact it, and drop the args so nothing unredacted survives."""
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: keep only its template
            message = str(record.msg)
        record.msg = self.redactor.text(message)
        record.args = None
        return True


def install_log_filter(redactor: Redactor, logger_names: Iterable[str]) -> None:
    """Attach one redacting filter per named logger (idempotent for the same redactor)."""
    for name in logger_names:
        logger = logging.getLogger(name)
        if not any(
            isinstance(f, RedactingFilter) and f.redactor is redactor for f in logger.filters
        ):
            logger.addFilter(RedactingFilter(redactor))
