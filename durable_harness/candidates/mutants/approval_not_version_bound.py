"""approval-not-version-bound: approvals and work are not bound to the task version; a superseded version is still published under its old approval."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("approval-not-version-bound", approval_bound_to_version=False)
