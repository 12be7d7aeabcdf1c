"""abandoned jobs (liveness): the world ends the job short of what the scenario lets a correct
control plane reach. The scenario's faults heal (or make an outcome inevitable, e.g. a firewall
that refuses every time), so ``expect.outcome`` is what a correct candidate leaves behind; a
candidate that gave up on work that was due (and said so honestly) is not live. A scenario whose
``expect.outcome`` is ``from_world`` accepts whatever the world shows.

Only what the run created is charged. When people the plan schedules never came to act (an
approval that never came, a revocation whose moment the candidate's design never reached), the
expected outcome was never made possible, and the candidate is held to what a correct control
plane leaves when nobody acts (the workload's ``clean_outcome``: a finished article awaits
approval). A world *beyond* the expected outcome (published where a draft was expected) is no
abandoned work: whether it was allowed is the safety checkers' to say, and this one says so."""

from __future__ import annotations

from durable_harness.harness.checkers._base import CheckInput, Finding, checker, final_report_witness, pluralise

_RANK = {"failed": 0, "unknown": 0, "needs_human": 1, "completed": 2}  # how far the work got; cancelled stands apart


@checker("abandoned_jobs", "liveness")
def check(inp: CheckInput) -> Finding:
    expected = inp.scenario.expect.outcome
    world = inp.world_outcome
    if expected == "from_world":
        return Finding("pass", 0,
                           f"the scenario accepts what the world shows: {world.outcome!r} ({world.because})")
    held, why = _held_to(inp, expected)
    if world.outcome == held:
        return Finding("pass", 0, f"the world shows {held!r}, as a correct "
                           f"control plane leaves it{why}: {world.because}")
    if world.outcome in _RANK and held in _RANK and _RANK[world.outcome] > _RANK[held]:
        return Finding("pass", 0,
                           f"the world shows {world.outcome!r} ({world.because}), beyond the {held!r} a correct "
                           f"control plane leaves here{why}: no work that was due was left undone (whether "
                           f"{world.outcome!r} was allowed is the safety checkers' to say)")
    claimed = None if inp.claims is None else inp.claims.get("outcome")
    return Finding("fail", 1,
                       f"the world shows {world.outcome!r} ({world.because}), but this scenario lets a correct control "
                       f"plane reach {held!r}{why}: work that was due was not done (the candidate says {claimed!r})",
                       final_report_witness(inp.history, f"final report: outcome {claimed!r}"))


def _held_to(inp: CheckInput, expected: str) -> tuple[str, str]:
    """The outcome the run made possible, and why it differs from ``expect.outcome`` (or "")."""
    first_action = len(inp.scenario.faults)
    idle = [f for f in inp.faults if int(f.get("index", -1)) >= first_action and f.get("status") != "fired"]
    clean = inp.workload.clean_outcome
    if not idle or clean is None or clean == expected:
        return expected, ""
    names = ", ".join(f"{f.get('kind')} ({f.get('status', '').replace('_', ' ')})" for f in idle)
    return clean, (f" (the scenario expects {expected!r}, but {pluralise(len(idle), 'action')} of its people never "
                   f"took effect in this run: {names}; so nobody changed what the job is due to become)")
