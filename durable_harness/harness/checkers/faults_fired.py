"""faults fired: a scheduled fault that met the request it waits for and could not act on it makes
the run unknown: if the lost response never happened, a clean run proves nothing about lost
responses.

A fault the candidate's design never met is coverage, not a failure: *not exercised* (the candidate
never used its channel: a control plane that polls never opens the event stream) or *not reached*
(it used the channel but never made the request the fault waits for: it read its post back after an
error instead of sending the update again; no request came while the condition held; a sweep's
crash point lay past the end of its real-time run). The design is one the contract allows; whether
the job still got done is the liveness checkers' to say. Nothing is hidden: the because line names
every such fault and why. With ``--strict-coverage`` they make the run unknown too."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from durable_harness.harness.checkers._base import CheckInput, Finding, Witness, checker, pluralise, witness
from durable_harness.harness.faults import Trigger


@checker("faults_fired", "safety")
def check(inp: CheckInput) -> Finding:
    unfired = [f for f in inp.faults if f.get("status") == "unfired"]
    idle = [f for f in inp.faults if f.get("status") == "not_exercised"]
    past = [f for f in inp.faults if f.get("status") == "not_reached"]
    note = ("; not exercised (the candidate never used their channel): " + "; ".join(
        f"faults[{f['index']}] {f['kind']} on {f.get('channel')}" for f in idle)) if idle else ""
    if past:
        note += "; not reached (the run never came to what they wait for): " + "; ".join(
            _reach(f) for f in past)
    if unfired:
        what = "; ".join(_reach(f) for f in unfired)
        return Finding("unknown", len(unfired),
                           f"{pluralise(len(unfired), 'scheduled fault')} never fired where {'it' if len(unfired) == 1 else 'they'} "
                           f"had to, so the run proves nothing about {'it' if len(unfired) == 1 else 'them'}: {what}{note}",
                           tuple(w for f in unfired for w in _last_on_channel(inp, int(f["index"]))))
    fired = len(inp.faults) - len(idle) - len(past)
    if inp.strict_coverage and (idle or past):
        untested = idle + past
        return Finding("unknown", len(untested),
                           f"--strict-coverage: {pluralise(len(untested), 'scheduled fault')} did not fire on this "
                           f"candidate's design, so the scenario did not test all it names{note}",
                           tuple(w for f in untested for w in _last_on_channel(inp, int(f["index"]))))
    return Finding("pass", 0, f"{fired} of {pluralise(len(inp.faults), 'scheduled fault')} "
                       f"fired{note}")


def _reach(f: Mapping[str, Any]) -> str:
    head = f"faults[{f['index']}] {f['kind']} at {f['at']}"
    reach = f.get("reach") or (f"fired {f.get('fired', 0)} of {f.get('scheduled', 1)}, after "
                               f"{pluralise(int(f.get('seen', 0)), 'request')} on its channel")
    return f"{head}: {reach}"


def _entries(inp: CheckInput) -> Sequence[Any]:
    return [*inp.scenario.faults, *inp.scenario.actions]


def _last_on_channel(inp: CheckInput, index: int) -> tuple[Witness, ...]:
    """The last request on the fault's channel: where the trigger was still not reached."""
    entries = _entries(inp)
    if index >= len(entries) or entries[index].at is None:
        return ()
    at: Trigger = entries[index].at
    pattern = at.pattern()
    last = None
    for entry in inp.history.of_type("invoke"):
        d = entry.data
        service = "webhooks" if entry.process == "openai-webhooks" else d.get("service")
        route = d.get("route") if service != "webhooks" else "/" + str(d.get("type"))
        if at.service in ("*", service) and at.method in ("*", d.get("method")) and pattern.match(str(route)):
            last = entry
    if last is None:
        return ()
    return (witness(last, f"the last request on the channel of faults[{index}] ({at.describe()})"),)
