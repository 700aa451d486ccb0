"""The audit of a novelty judge: probe battery, applicability, readings, gates, surface ratio and the audit card."""
