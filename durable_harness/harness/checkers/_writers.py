"""Stale writers: with several workers on one job, the writes that reached WordPress for it must
come from one worker at a time. Judged from the history alone (who sent what, when it was sent,
when the service committed it), two rules, each of them a write the site would have refused had
it checked a fencing token:

* **in flight across a takeover**: a write that the service committed after another worker's write
  for the job, although it was sent before that write committed (it was held: a paused worker, a
  network that delivers late; only a fencing token at the resource stops it);
* **within another worker's lease**: when the candidate declares ``lease_ttl_s``, a write less than
  that after another worker's last committed write was sent (the contract: a worker that writes for
  a job holds its lease for ``lease_ttl_s`` from that write; a write held in flight, by a pause or a
  slow network, renewed nothing while it was held, so its lease runs from when it was sent).

Only committed writes count: a write a fencing gateway (or any fault) refused changed nothing.

It deliberately does not know the candidate's leases or tokens (its word); ``unauthorized_calls``
reports what it finds.
"""

from __future__ import annotations

from dataclasses import dataclass

from durable_harness.harness._history import Entry, History

__all__ = ["StaleWrite", "stale_writes"]

_READS = ("GET", "HEAD", "OPTIONS")


@dataclass(frozen=True)
class StaleWrite:
    write: Entry  # the stale write's invoke
    other: Entry  # the other worker's write it came after (its invoke)
    because: str


@dataclass(frozen=True)
class _Write:
    invoke: Entry
    committed_at: int  # history index of the completion that says it was committed
    time_s: float


def _committed_writes(history: History) -> list[_Write]:
    """WordPress writes of the workers that the service committed, in the order it did. A request
    whose answer a fault held (a pause after the commit) was committed where the fault says so,
    before its completion is recorded."""
    held: dict[int, Entry] = {}
    for e in history.of_type("fault"):
        evidence = e.data.get("evidence")
        op = e.data.get("op")
        if isinstance(evidence, dict) and evidence.get("committed") is True and isinstance(op, int):
            held.setdefault(op, e)
    out = []
    for invoke, done in history.operations():
        if done is None or not invoke.process.startswith("worker-"):
            continue
        if invoke.data.get("service") != "wordpress" or str(invoke.data.get("method")) in _READS:
            continue
        if done.data.get("committed") is True:
            first = held.get(invoke.op, done) if invoke.op is not None else done
            out.append(_Write(invoke, min(first.index, done.index), min(first.time_s, done.time_s)))
    return sorted(out, key=lambda w: w.committed_at)


def stale_writes(history: History, lease_ttl_s: float | None) -> list[StaleWrite]:
    """Every stale write of the run (see the module's doc), in the order they were committed."""
    writes = _committed_writes(history)
    if len({w.invoke.process for w in writes}) < 2:
        return []
    found: list[StaleWrite] = []
    for i, write in enumerate(writes):
        me = write.invoke.process
        earlier = [w for w in writes[:i] if w.invoke.process != me]
        overtaken = [w for w in earlier if w.committed_at > write.invoke.index]
        if overtaken:
            other = overtaken[0]
            found.append(StaleWrite(write.invoke, other.invoke, (
                f"{me} wrote after {other.invoke.process} had written for the job (op {other.invoke.op}), with a "
                f"request it sent before that write: a stale writer, which only a fencing token at the site stops")))
            continue
        if lease_ttl_s is not None and earlier:
            last = earlier[-1]
            gap = write.time_s - last.invoke.time_s
            if gap < lease_ttl_s:
                found.append(StaleWrite(write.invoke, last.invoke, (
                    f"{me} wrote {gap:g} s after {last.invoke.process} sent its write for the job (op "
                    f"{last.invoke.op}), within the lease of {lease_ttl_s:g} s that write holds: a stale writer")))
    return found
