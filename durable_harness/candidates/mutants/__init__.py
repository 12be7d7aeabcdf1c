"""Known-bad candidates (mutants), one module each: ``--candidate mutant:NAME``."""

from durable_harness.candidates.mutants import (  # noqa: F401  (registration)
    blind_retry, continue_instead_of_result, first_page_only, new_session_on_restart, no_reconcile, resubmit_on_drop, turn_done_is_success, unknown_is_failure,
    trust_environment_id, webhook_unverified,
)
from durable_harness.candidates.mutants import (  # noqa: F401
    error_means_not_applied, first_page_reconcile, slug_reconcile, title_reconcile,
)
from durable_harness.candidates.mutants import (  # noqa: F401  (registration: authority)
    approval_no_digest, approval_not_version_bound, cancel_inflight_retry, disallowed_tool_executed, ignore_cancel,
    publish_without_approval, reopen_after_cancel, reopen_on_new_version, retry_after_401, stale_approval,
)
from durable_harness.candidates.mutants import (  # noqa: F401  (registration: an adversarial world)
    accept_forged_webhook, callid_dedupe, create_session_on_empty_listing, sdk_retries_create, size_only_check,
    trust_agent_text, trust_key_lookup,
)
from durable_harness.candidates.mutants import (  # noqa: F401  (registration: several workers)
    lease_check_then_write, lease_not_renewed, no_fencing_token, no_lease, recover_all_on_start,
)
from durable_harness.candidates.mutants._registry import MUTANTS, Mutant, get_mutant, mutant_names

__all__ = ["FACTORIES", "MUTANTS", "Mutant", "get_mutant", "mutant_names"]

# The family the entry point ``mutant`` names (``--candidate mutant:NAME``): name -> factory.
FACTORIES = {name: MUTANTS[name].create for name in mutant_names()}
