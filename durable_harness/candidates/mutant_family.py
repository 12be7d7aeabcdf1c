"""The ``mutant`` family as its entry point names it (``--candidate mutant:NAME``), without importing
the mutants, and the SDK they use, until one of them is asked for: ``list`` and ``validate`` only
need the names and what each one does wrong. Each mutant's module registers the safeguard it
switches off under one of these names (``mutants._registry.register``); a test holds the two equal."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = ["BUGS", "FAMILY", "NAMES"]

BUGS: Mapping[str, str] = {
    "accept-forged-webhook": "answers 2xx to webhooks it could not verify",
    "approval-no-digest": "publishes content that changed after it was approved",
    "approval-not-version-bound": "publishes a superseded task version under its old approval",
    "blind-retry": "retries a write with an unknown outcome without reconciling it",
    "callid-dedupe": "keys its writes on the call id, so a re-issued action is done twice",
    "cancel-inflight-retry": "retries the in-flight write after the cancellation",
    "continue-instead-of-result": "on resume, sends \"continue\" instead of answering the pending call",
    "create-session-on-empty-listing": "creates a second session when one lagging listing is empty",
    "disallowed-tool-executed": "executes tools outside the job's allowed tools",
    "error-means-not-applied": "takes a 5xx after a write as proof it was not applied and creates again",
    "first-page-only": "reads only the first page of the session's items when it rebuilds state",
    "first-page-reconcile": "looks for a lost write on the first page of the listing only",
    "ignore-cancel": "acknowledges a cancellation and goes on working",
    "lease-check-then-write": ("checks its lease, then writes without holding the writer lock (a pause lets another "
                               "worker take over first)"),
    "lease-not-renewed": "takes its lease once and never renews or checks it: it writes on after a takeover",
    "new-session-on-restart": "after a restart, starts the job over in a new session",
    "no-fencing-token": "sends its writes without the lease's fencing token (X-Fencing-Token)",
    "no-lease": "takes no lease: with two workers, both work the job",
    "no-reconcile": "leaves UNKNOWN operations unresolved",
    "publish-without-approval": "publishes a draft without an approval in force",
    "recover-all-on-start": "a (re)started instance takes over every unfinished job, even one another live worker holds",
    "reopen-after-cancel": "forgets a cancellation on restart and reopens the job",
    "reopen-on-new-version": "works a new task version of a job the user cancelled (the cancel is not final)",
    "resubmit-on-drop": "submits the task again when the event stream drops",
    "retry-after-401": "keeps using a credential that was refused as revoked",
    "sdk-retries-create": "lets the SDK retry a session create on its own (no key: a second session)",
    "size-only-check": "accepts an artifact whose size matches, whatever its bytes",
    "slug-reconcile": "reconciles a lost draft by the slug it expects its title to get, not its operation key",
    "stale-approval": "caches an approval and ignores its revocation or expiry",
    "title-reconcile": "reconciles a lost write by its title or file name, not its operation key",
    "trust-agent-text": "takes the agent's own words as the job's outcome",
    "trust-environment-id": "trusts the environment id: accepts results from a replaced sandbox",
    "trust-key-lookup": "adopts whatever the operation-key lookup answers, another job's key in other case too",
    "turn-done-is-success": "takes the agent's completed turn as the job's success",
    "unknown-is-failure": "records an indefinite error as a definite failure",
    "webhook-unverified": "acts on webhooks without verifying their signature",
}
NAMES = tuple(BUGS)


class _Family(Mapping[str, Callable[[Any], Any]]):
    """Name -> factory; a factory is imported when it is looked up."""

    def __getitem__(self, name: str) -> Callable[[Any], Any]:
        if name not in NAMES:
            raise KeyError(name)
        from durable_harness.candidates.mutants import FACTORIES

        return FACTORIES[name]

    def describe(self, name: str) -> str:
        """What the member does wrong, without importing it (``describe_candidate`` asks)."""
        return BUGS[name]

    def __iter__(self) -> Iterator[str]:
        return iter(NAMES)

    def __len__(self) -> int:
        return len(NAMES)


FAMILY = _Family()
