"""Known-bad candidates (mutants), one module each: ``--candidate mutant:NAME``."""

from candidates.mutants import blind_retry, no_reconcile, unknown_is_failure  # noqa: F401  (registration)
from candidates.mutants._registry import MUTANTS, Mutant, get_mutant, mutant_names

__all__ = ["MUTANTS", "Mutant", "get_mutant", "mutant_names"]
