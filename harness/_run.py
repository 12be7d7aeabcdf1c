"""One run of one scenario against one candidate, in-process: chaos -> heal -> quiesce ->
final reads -> check. Returns the canonical ``run.json`` document.

Every loop here is bounded: by the scenario's step budget and by its deadline on the virtual
clock. The candidate is stepped; when it has nothing to do the clock jumps to the next thing
the world has scheduled (autojump), so waiting costs nothing.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness._history import History
from harness._world import World
from harness.candidate import CandidateFailed, InProcessDriver, resolve_candidate
from harness.candidate._sdk_time import sdk_webhooks_on_virtual_time
from harness.checkers import CheckInput, CheckResult, combine, run_checkers
from harness.scenario import Scenario

__all__ = ["EXIT_CODES", "reproduce_command", "run_scenario", "run_with_history"]

EXIT_CODES = {"pass": 0, "safety": 1, "liveness": 2, "harness": 3}
_SETTLED = ("completed", "failed", "unknown", "needs_human", "cancelled")
_IDLE_POLL_S = 1.0
CAPABILITIES = {"webhooks": "receive_webhook"}  # scenario `needs` -> the optional control-API method
_QUIET_STEPS = 3


def reproduce_command(scenario: Scenario, candidate: str, seed: int) -> str:
    return " ".join(["durable-harness", "run", "--candidate", shlex.quote(candidate),
                     "--scenario", shlex.quote(str(scenario.source)), "--seed", str(seed)])


def run_scenario(scenario: Scenario, candidate: str, seed: int | None = None, out_dir: Path | None = None) -> dict[str, Any]:
    """Run and return run.json (also written, with history.jsonl, to ``out_dir`` when given).
    A sweep scenario runs once per crash point and returns the folded document."""
    if scenario.sweep is not None:
        from harness._sweep_scenario import run_sweep_scenario  # the sweep is built on this module
        return run_sweep_scenario(scenario, candidate, seed, out_dir)
    return run_with_history(scenario, candidate, seed, out_dir)[0]


def run_with_history(scenario: Scenario, candidate: str, seed: int | None = None,
                     out_dir: Path | None = None) -> tuple[dict[str, Any], History]:
    """``run_scenario``, also returning the history itself (unredacted: keep it in memory)."""
    seed = scenario.default_seed if seed is None else seed
    with tempfile.TemporaryDirectory(prefix="durable-harness-") as tmp:
        workdir = out_dir if out_dir is not None else Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        db = workdir / "candidate.sqlite"
        if db.exists():
            db.unlink()
        world = World(scenario, seed, workdir)
        try:
            with sdk_webhooks_on_virtual_time(world.clock):
                doc = _run(world, scenario, candidate, seed)
        finally:
            world.close()
        doc = dict(_redact(doc, world.secrets))
        if out_dir is not None:
            lines = "".join(line + "\n" for line in world.history.lines())
            (out_dir / "history.jsonl").write_text(_redact_text(lines, world.secrets), encoding="utf-8")
            (out_dir / "run.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        return doc, world.history


@dataclasses.dataclass
class _Execution:
    """What driving the candidate through the phases left behind."""

    claims: Mapping[str, Any] | None = None
    error: str | None = None
    steps: int = 0
    restarts: int = 0


def _run(world: World, scenario: Scenario, candidate: str, seed: int) -> dict[str, Any]:
    done = _execute(world, scenario, candidate)
    truth = world.truth()
    fault_docs = [{**f.describe(), "scheduled": f.scheduled, "fired": f.state.fired, "evidence": list(f.state.evidence)}
                  for f in world.faults]
    world.history.append(world.clock.now(), "phase", "harness", {"phase": "check"})
    results = [] if done.error else run_checkers(CheckInput(world.history, truth, done.claims, scenario, world.job, fault_docs))
    safety, liveness, verdict, exit_code = _verdicts(results, done.error)
    return {
        "format": "durable-harness/run@1",
        "scenario": {"id": scenario.id, "title": scenario.title, "path": str(scenario.source), "covers": scenario.covers},
        "candidate": candidate,
        "seed": seed,
        "verdict": verdict,
        "safety": safety,
        "liveness": liveness,
        "exit_code": exit_code,
        "error": done.error,
        "checkers": [r.to_json() for r in results],
        "faults": fault_docs,
        "counters": {r.name: r.count for r in results},
        "outcome": {"expected": scenario.expect.outcome, "claimed": None if done.claims is None else done.claims.get("outcome")},
        "timings": {"virtual_s": round(world.clock.now(), 6), "steps": done.steps, "requests": world.gate.requests,
                    "restarts": done.restarts},
        "history": {"file": "history.jsonl", "entries": len(world.history), "digest": world.history.digest()},
        "truth": truth,
        "claims": dict(done.claims) if done.claims is not None else None,
        "reproduce": reproduce_command(scenario, candidate, seed),
    }


def _execute(world: World, scenario: Scenario, candidate: str) -> _Execution:
    """chaos -> heal -> quiesce -> final reads. A candidate that cannot be run ends it early."""
    history, clock = world.history, world.clock
    job_id = world.job["job_id"]
    done = _Execution()
    driver: InProcessDriver | None = None
    try:
        driver = InProcessDriver(resolve_candidate(candidate), world.env, clock, history)
        history.append(clock.now(), "phase", "harness", {"phase": "chaos"})
        driver.start()
        missing = [need for need in scenario.needs if not driver.accepts(CAPABILITIES[need])]
        if missing:
            raise CandidateFailed("the scenario needs " + ", ".join(
                f"the capability {need!r} (a {CAPABILITIES[need]}() method; see docs/contract.md)" for need in missing))
        while driver.call("submit", world.job) is None:
            driver.restart("crashed while accepting the job")
        done.steps = _drive(world, driver, scenario, job_id, done.steps)
        history.append(clock.now(), "phase", "harness", {"phase": "heal"})
        world.gate.heal()
        world.webhooks.healed = True
        if not driver.alive:
            driver.restart("heal")
        history.append(clock.now(), "phase", "harness", {"phase": "quiesce"})
        done.steps = _drive(world, driver, scenario, job_id, done.steps, quiesce=True)
        history.append(clock.now(), "phase", "harness", {"phase": "final_reads"})
        done.claims = driver.sample(job_id)
    except CandidateFailed as err:
        done.error = str(err)
        history.append(clock.now(), "note", "harness", {"because": done.error})
    done.restarts = driver.restarts if driver is not None else 0
    return done


def _verdicts(results: list[CheckResult], error: str | None) -> tuple[str, str, str, int]:
    """(safety, liveness, verdict, exit code). A run that could not be made proves nothing: exit 3."""
    if error is not None:
        return "unknown", "unknown", "unknown", 3
    safety = combine([r.verdict for r in results if r.klass == "safety"])
    lively = [r.verdict for r in results if r.klass == "liveness"]
    liveness = combine(lively) if lively else "pass"
    verdict = combine([safety, liveness])
    return safety, liveness, verdict, 1 if safety == "fail" else 0 if verdict == "pass" else 2


def _drive(world: World, driver: InProcessDriver, scenario: Scenario, job_id: str, steps: int, *, quiesce: bool = False) -> int:
    """Step until the job has settled and the candidate stays quiet, or a bound is reached."""
    clock = world.clock
    quiet = 0
    budget = steps + scenario.expect.max_steps
    while steps < budget and clock.now() < scenario.expect.deadline_s:
        if not driver.alive:
            driver.restart("crashed")
        world.gate.begin_step()
        progressed = bool(driver.call("step"))
        steps += 1
        if driver.alive and world.webhooks.pump(driver):
            progressed = True
        report = driver.sample(job_id) if driver.alive else None
        if not driver.alive:
            quiet = 0
            continue
        settled = report is not None and report.get("outcome") in _SETTLED
        quiet = 0 if progressed else quiet + 1
        if settled and quiet >= (_QUIET_STEPS if quiesce else 1):
            break
        if not progressed:  # autojump: to the next scheduled thing, or one idle poll ahead
            nxt = clock.next_deadline()
            clock.jump(nxt if nxt is not None and nxt > clock.now() else clock.now() + _IDLE_POLL_S)
    return steps


def _redact(doc: Any, secrets: tuple[str, ...]) -> Any:
    return json.loads(_redact_text(json.dumps(doc, sort_keys=True), secrets))


def _redact_text(text: str, secrets: tuple[str, ...]) -> str:
    """Secrets never leave the run: whatever echoed one (a candidate may), it is replaced."""
    for secret in secrets:
        text = text.replace(secret, "<redacted>")
    return text
