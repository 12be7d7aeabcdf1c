"""Candidates shipped with the harness: the reference control plane and known-bad mutants."""
