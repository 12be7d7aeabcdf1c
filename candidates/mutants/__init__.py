"""Known-bad candidates (mutants), one module each: ``--candidate mutant:NAME``."""

from candidates.mutants import (  # noqa: F401  (registration)
    blind_retry, continue_instead_of_result, first_page_only, new_session_on_restart, no_reconcile, resubmit_on_drop, turn_done_is_success, unknown_is_failure,
    trust_environment_id, webhook_unverified,
)
from candidates.mutants._registry import MUTANTS, Mutant, get_mutant, mutant_names

__all__ = ["MUTANTS", "Mutant", "get_mutant", "mutant_names"]
