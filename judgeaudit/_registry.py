"""Inspect entry point: importing this registers our tasks and model providers."""

# ruff: noqa: F401
