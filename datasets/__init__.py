"""Bundled datasets built by the miner (shipped in the wheel)."""
