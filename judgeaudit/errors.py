"""The base class of the errors about the user's input: the CLI prints each as one `error: ...` line."""

from __future__ import annotations


class UserError(Exception):
    """A value, option or file given by the user that cannot be used; `str()` is the one line to print."""
