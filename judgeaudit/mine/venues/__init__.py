"""Venue profiles (one YAML file per venue and year, shipped here) and reading a venue's form by its profile."""
