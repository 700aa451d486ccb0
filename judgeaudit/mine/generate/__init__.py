"""Sets built from a Human-Only set with an LLM: Human+Generated pairs (`human_generated`), plan rewrites
(`plans`), and their command-line actions `mine generate` / `mine plan` (`actions`)."""

# The modules meant for use from outside this package (other packages, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = ["actions"]
