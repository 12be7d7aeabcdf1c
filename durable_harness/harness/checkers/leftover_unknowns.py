"""leftover UNKNOWNs: operations the candidate still reports UNKNOWN (or SENT) after heal and
quiesce. An operation nobody can prove done or not done is the most dangerous state."""

from __future__ import annotations

from durable_harness.harness.checkers._base import CheckInput, Finding, checker, final_report_witness, listed, pluralise

_OPEN = ("UNKNOWN", "SENT")


@checker("leftover_unknowns", "safety", rank=60)
def check(inp: CheckInput) -> Finding:
    if inp.claims is None:
        return Finding("unknown", 0, "the candidate gave no final report of the job")
    ops = [op for op in inp.claims.get("operations") or [] if isinstance(op, dict)]
    left = [op for op in ops if op.get("state") in _OPEN]
    if not left:
        return Finding("pass", 0, f"{pluralise(len(ops), 'operation')} in the ledger, none UNKNOWN or SENT")
    wits = final_report_witness(inp.history, "final report: " + listed([f"{o.get('operation_key')}={o.get('state')}" for o in left]))
    keys = listed([repr(o.get("operation_key")) for o in left])
    return Finding("fail", len(left),
                       f"{pluralise(len(left), 'operation')} still UNKNOWN/SENT after quiesce: {keys}", wits)
