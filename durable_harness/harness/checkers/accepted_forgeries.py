"""accepted forgeries: the candidate answered 2xx to a webhook that was not the sessions API's (a
bad signature, or a correctly signed one too old to be fresh). Whatever it then did, it took a
forgery as genuine: an authenticity finding. A replayed genuine webhook (same ``webhook-id``) may
be answered 2xx: deduplicating it is correct. Ground truth: the delivery history the harness
records (which deliveries were forged, and how the candidate answered each)."""

from __future__ import annotations

from durable_harness.harness.checkers._base import CheckInput, Finding, checker, pluralise, witness

FORGERIES = ("bad_signature", "stale_timestamp")


@checker("accepted_forgeries", "safety")
def check(inp: CheckInput) -> Finding:
    forged = [(i, d) for i, d in inp.history.operations() if i.data.get("forged") in FORGERIES]
    accepted = [(i, d) for i, d in forged if d is not None and d.type == "ok" and int(d.data.get("status") or 0) < 300]
    if not accepted:
        return Finding("pass", 0,
                           f"{pluralise(len(forged), 'forged webhook')} delivered, none accepted")
    what = "; ".join(f"{i.data.get('forged')} {i.data.get('type')} ({i.data.get('webhook_id')}) answered "
                     f"{d.data.get('status')}" for i, d in accepted)
    return Finding("fail", len(accepted),
                       f"{pluralise(len(accepted), 'forged webhook')} accepted as genuine: {what}",
                       tuple(witness(d, f"answered {d.data.get('status')} to a {i.data.get('forged')} forgery "
                                        f"claiming {i.data.get('type')}") for i, d in accepted))
