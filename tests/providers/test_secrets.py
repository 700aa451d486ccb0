"""Argument names that may carry credentials (`providers.secrets.secret_name`): refused where arguments are logged."""

from __future__ import annotations

import pytest

from judgeaudit.providers.secrets import secret_name


@pytest.mark.parametrize(
    "name",
    [
        "api_key",
        "apikey",
        "API_KEY",
        "auth_token",
        "access_key",
        "aws_secret_access_key",
        "vertex_credentials",
        "password",
        "auth",
    ],
)
def test_credential_names(name: str) -> None:
    assert secret_name(name)


@pytest.mark.parametrize(
    "name", ["max_tokens", "top_k", "grammar", "dataset", "n_ctx", "keyfile", "monkey", "tokenizer"]
)
def test_ordinary_names(name: str) -> None:
    assert not secret_name(name)
