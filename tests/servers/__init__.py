"""Local stand-ins for remote services used by the tests (127.0.0.1 only)."""
