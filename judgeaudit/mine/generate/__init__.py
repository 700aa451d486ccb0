"""Sets built from a Human-Only set with an LLM: Human+Generated pairs (`human_generated`), plan rewrites
(`plans`), and their command-line actions `mine generate` / `mine plan` (`actions`)."""
