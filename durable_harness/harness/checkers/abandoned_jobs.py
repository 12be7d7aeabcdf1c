"""abandoned jobs (liveness): the world ends the job short of what the scenario lets a correct
control plane reach. The scenario's faults heal (or make an outcome inevitable, e.g. a firewall
that refuses every time), so ``expect.outcome`` is what a correct candidate leaves behind; a
candidate that gave up on work that was due (and said so honestly) is not live. A scenario whose
``expect.outcome`` is ``from_world`` accepts whatever the world shows."""

from __future__ import annotations

from durable_harness.harness.checkers._base import CheckInput, CheckResult, checker, final_report_witness


@checker("abandoned_jobs", "liveness")
def check(inp: CheckInput) -> CheckResult:
    expected = inp.scenario.expect.outcome
    world = inp.world_outcome
    if expected == "from_world":
        return CheckResult("abandoned_jobs", "liveness", "pass", 0,
                           f"the scenario accepts what the world shows: {world.outcome!r} ({world.because})")
    if world.outcome == expected:
        return CheckResult("abandoned_jobs", "liveness", "pass", 0, f"the world shows {expected!r}, as a correct "
                           f"control plane leaves it: {world.because}")
    claimed = None if inp.claims is None else inp.claims.get("outcome")
    return CheckResult("abandoned_jobs", "liveness", "fail", 1,
                       f"the world shows {world.outcome!r} ({world.because}), but this scenario lets a correct control "
                       f"plane reach {expected!r}: work that was due was not done (the candidate says {claimed!r})",
                       final_report_witness(inp.history, f"final report: outcome {claimed!r}"))
