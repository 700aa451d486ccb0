"""Judged arms of an item: the unperturbed arm and the perturbations bias probes apply (judges import these)."""

# The modules meant for use from outside this package (other packages, the CLI, tasks/, Python
# callers); the rest are this package's own parts.
__all__ = ["base", "edits", "transforms"]
