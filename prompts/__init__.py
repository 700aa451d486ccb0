"""Judge and mining prompts as plain text files (shipped in the wheel)."""
