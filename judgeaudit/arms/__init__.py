"""Judged arms of an item: the unperturbed arm and the perturbations bias probes apply (judges import these)."""
