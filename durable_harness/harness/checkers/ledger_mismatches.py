"""ledger mismatches: the candidate's side-effect ledger against the remote truth.

* a CONFIRMED creating operation whose remote effect does not exist (or is not this job's, of any
  of its task versions: a ledger may keep the earlier versions' writes);
* a FAILED operation whose effect exists (an outcome taken as failure that in fact happened);
* a remote effect of this job version that no operation of the ledger accounts for.

Which operations create which effects (``wp_create_draft`` a post) is the workload's to say.
Effects are matched by the ``operation_key`` the candidate stored on them (the site's plugin) or
by the ``remote_id`` it reports; effects are this job's by the workload's mapping of ground truth
(the brain's watermark and payloads)."""

from __future__ import annotations

from typing import Any

from durable_harness.harness.checkers._base import (
    CheckInput, Finding, checker, creation_witnesses, final_report_witness, listed, pluralise,
)


@checker("ledger_mismatches", "safety", rank=70)
def check(inp: CheckInput) -> Finding:
    if inp.claims is None:
        return Finding("unknown", 0, "the candidate gave no final report of the job")
    mine = inp.workload.job_effects(inp.truth, inp.job)
    effects = {(e.kind, e.id): e for e in mine}
    # A ledger may keep the writes of the job's earlier task versions too (the job's ledger, not the
    # version's): an operation is matched against the effects of every version of this job.
    every = [e for e in inp.workload.effects(inp.truth) if e.job_id == str(inp.job["job_id"])]
    known = {(e.kind, e.id) for e in every}
    by_key = {e.operation_key: (e.kind, e.id) for e in every if e.operation_key}

    problems: list[str] = []
    accounted: set[tuple[str, int]] = set()
    for op in inp.claims.get("operations") or []:
        if not isinstance(op, dict):
            continue
        what = inp.workload.creates.get(str(op.get("kind")))
        if what is None:
            continue
        key = str(op.get("operation_key"))
        remote = _remote(what, op.get("remote_id"))
        found = by_key.get(key) or (remote if remote in known else None)
        if found is not None:
            accounted.add(found)
        state = op.get("state")
        if state == "CONFIRMED" and found is None:
            problems.append(f"{key!r} is CONFIRMED with remote id {op.get('remote_id')!r}, but no such {what} of this job exists")
        elif state == "FAILED" and found is not None:
            problems.append(f"{key!r} is FAILED, but {found[0]} {found[1]} exists: the write happened")
    unknown = sorted(set(effects) - accounted)
    for kind, rid in unknown:
        problems.append(f"{kind} {rid} of this job exists, but no operation in the ledger accounts for it")
    if not problems:
        return Finding("pass", 0,
                           f"the ledger accounts for all {pluralise(len(effects), 'remote effect')} of the job")
    wits = list(final_report_witness(inp.history, "the final report's ledger"))
    for kind, rid in unknown:
        e = effects[(kind, rid)]
        wits += creation_witnesses(inp.history, e.service, e.route, [rid])
    return Finding("fail", len(problems), listed(problems, "; "), tuple(wits))


def _remote(what: str, remote_id: Any) -> tuple[str, int] | None:
    try:
        return (what, int(remote_id))
    except (TypeError, ValueError):
        return None
