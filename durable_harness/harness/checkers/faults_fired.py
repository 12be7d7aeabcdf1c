"""faults fired: a scheduled fault whose channel the candidate used but that never fired makes the
run unknown: if the lost response never happened, a clean run proves nothing about lost responses.

A fault whose channel the candidate never used at all (a control plane that polls never opens the
event stream) was *not exercised*: coverage the report shows, not a failure, because the design is
one the contract allows. So is a sweep's crash point, run in real time, that its run never reached
(the run ended its chaos in fewer requests: ``FaultSpec.past_end_ok``). Nothing is hidden: the
because line names every such fault."""

from __future__ import annotations

from durable_harness.harness.checkers._base import CheckInput, CheckResult, Witness, checker, pluralise, witness
from durable_harness.harness.faults import Trigger


@checker("faults_fired", "safety")
def check(inp: CheckInput) -> CheckResult:
    unfired = [f for f in inp.faults if f.get("status") == "unfired"]
    idle = [f for f in inp.faults if f.get("status") == "not_exercised"]
    past = [f for f in inp.faults if f.get("status") == "not_reached"]
    note = ("; not exercised (the candidate never used their channel): " + "; ".join(
        f"faults[{f['index']}] {f['kind']} on {f.get('channel')}" for f in idle)) if idle else ""
    if past:
        note += ("; not reached (this run, in real time, ended its chaos first, so it was a clean run): " + "; ".join(
            f"faults[{f['index']}] {f['kind']} at {f['at']}, after {pluralise(int(f.get('seen', 0)), 'request')}"
            for f in past))
        idle = idle + past
    if unfired:
        what = "; ".join(f"faults[{f['index']}] {f['kind']} at {f['at']}: fired {f.get('fired', 0)} of "
                         f"{f.get('scheduled', 1)}, {f.get('seen', 0)} requests on its channel" for f in unfired)
        return CheckResult("faults_fired", "safety", "unknown", len(unfired),
                           f"{pluralise(len(unfired), 'scheduled fault')} never fired although the candidate used "
                           f"their channel, so the run proves nothing about them: {what}{note}",
                           tuple(w for f in unfired for w in _last_on_channel(inp, int(f["index"]))))
    fired = len(inp.faults) - len(idle)
    return CheckResult("faults_fired", "safety", "pass", 0, f"{fired} of {pluralise(len(inp.faults), 'scheduled fault')} "
                       f"fired{note}")


def _last_on_channel(inp: CheckInput, index: int) -> tuple[Witness, ...]:
    """The last request on the fault's channel: where the trigger was still not reached."""
    if index >= len(inp.scenario.faults):
        return ()
    at: Trigger = inp.scenario.faults[index].at
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
    return (witness(last, f"the last request on the channel of faults[{index}] ({at.describe()}); the trigger was "
                          "never reached"),)
