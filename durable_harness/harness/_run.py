"""One run of one scenario against one candidate: chaos -> heal -> quiesce -> final reads -> check.
Returns the canonical ``run.json`` document (format ``durable-harness/run@2``).

Every loop here is bounded: by the scenario's step budget and by its deadline on the virtual
clock. The candidate is stepped; when it has nothing to do the clock jumps to the next thing
the world has scheduled (autojump), so waiting costs nothing.

A run that cannot be judged says why, in ``error``, and exits 3: ``harness`` (an error of the
harness itself, never the candidate's fault), ``candidate`` (it could not be run at all), ``setup``
(it lacks a capability the scenario needs) or ``interrupted`` (SIGINT or SIGTERM). It deliberately
knows nothing of sweeps (``_sweep`` builds on it) or of report folders beyond its own.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from durable_harness.harness._coverage import coverage, strict_coverage
from durable_harness.harness._errors import HarnessError
from durable_harness.harness._history import History
from durable_harness.harness._postgres import ScratchDatabase, admin_url, wants_postgres
from durable_harness.harness._realtime import time_scale
from durable_harness.harness._redact import redact_text
from durable_harness.harness._rundoc import FORMAT, HISTORY_FILE, harness_provenance, redact, write_run
from durable_harness.harness._scratch import scratch_folder
from durable_harness.harness._seeds import MAX_SEED
from durable_harness.harness._signals import raise_if_pending
from durable_harness.harness._workers import Workers
from durable_harness.harness._world import World
from durable_harness.harness.services._applicability import not_applicable
from durable_harness.harness.candidate import OUTCOMES, CandidateFailed, Driver
from durable_harness.harness.isolation._probe import probe_candidate
from durable_harness.harness.isolation._sdk_time import sdk_webhooks_on_virtual_time
from durable_harness.harness.checkers import CheckInput, CheckResult, run_checkers
from durable_harness.harness.drivers import driver_kind
from durable_harness.harness.faults import get_fault_kind
from durable_harness.harness.scenario import Scenario
from durable_harness.harness.verdict import Judgement

__all__ = ["KEEP_DB", "MAX_SEED", "NEXT_ENV", "RunInterrupted", "candidate_next", "keep_candidate_files",
           "reproduce_command", "run_once", "save_run", "validate_seed"]

SETTLED = tuple(o for o in OUTCOMES if o != "running")
_IDLE_POLL_S = 1.0
_QUIET_STEPS = 3


class RunInterrupted(BaseException):
    """SIGINT or SIGTERM arrived during a run; ``doc`` is the run's document, marked ``interrupted``."""

    def __init__(self, doc: dict[str, Any]) -> None:
        super().__init__("interrupted")
        self.doc = doc


def validate_seed(seed: Any) -> int:
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed {seed!r} must be an integer from 0 to 2**64-1 ({MAX_SEED})")
    return seed


NEXT_ENV = "DH_CANDIDATE_NEXT"


def candidate_next(candidate: str, environ: Mapping[str, str] = os.environ) -> str | None:
    """What a ``deploy`` action starts: ``--candidate-next`` (``DH_CANDIDATE_NEXT``), which the same
    driver must run (a process after a process, Python after Python); None when not given."""
    raw = (environ.get(NEXT_ENV) or "").strip()
    if not raw:
        return None
    family = driver_kind(candidate, environ).family
    if driver_kind(raw, environ).family != family:
        raise ValueError(f"--candidate-next {raw!r}: a deploy replaces {candidate!r} by the same driver: give "
                         f"{'a cmd: command line' if family == 'process' else 'a Python candidate'}")
    return raw


def reproduce_command(scenario: Scenario, candidate: str, seed: int) -> str:
    from durable_harness.harness.services._upstream import upstreams

    nxt = candidate_next(candidate)
    real = [f"--service {name}={shlex.quote(site.url)}" for name, site in sorted(upstreams().items())]
    return " ".join(["durable-harness", "run", "--candidate", shlex.quote(candidate),
                     *(["--candidate-next", shlex.quote(nxt)] if nxt else []), *real,
                     "--scenario", shlex.quote(str(scenario.source)), "--seed", str(seed)])


@dataclasses.dataclass
class _Execution:
    """What driving the candidate through the phases left behind."""

    claims: Mapping[str, Any] | None = None
    error: dict[str, Any] | None = None
    steps: int = 0
    restarts: int = 0
    candidate_errors: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    startups_s: list[float] = dataclasses.field(default_factory=list)  # a process's starts, in real seconds
    clocks: list[str] = dataclasses.field(default_factory=list)  # each process's clock: "harness" or "real"


def run_once(scenario: Scenario, candidate: str, seed: int | None = None, out_dir: Path | None = None, *,
             forks: Any = None, reach: set[str] | None = None) -> tuple[dict[str, Any], History]:
    """One run; returns run.json and the (unredacted: keep it in memory) history. With ``out_dir``,
    run.json and history.jsonl are written there. A sweep scenario is run as its base scenario.
    ``forks`` (``_sweep_fork.ForkedSweep``) forks a crash point at every request of this run: such
    a fork goes on as that point's run and ends in ``run_once``, which never returns in it. ``reach``
    (explore's) is filled with the lines of the candidate's code its forked instances ran."""
    seed = validate_seed(scenario.default_seed if seed is None else seed)
    why = not_applicable(scenario)
    if why is not None:  # it needs a fake that is real in this run: decided before the real site is touched
        return _not_applicable(scenario, candidate, seed, out_dir, why)
    # The candidate's database and files live in a folder of their own, never in the report (a CI
    # uploads the report; the database holds what the candidate stored, secrets included).
    with scratch_folder("durable-harness-candidate-") as tmp:
        workdir = Path(tmp)
        world: World | None = None
        interrupted = False
        try:
            world = World(scenario, seed, workdir, time_scale=time_scale() if driver_kind(candidate).real_time else None)
            world.reach = reach
            if forks is not None:
                forks.attach(world)
            with world.lock, sdk_webhooks_on_virtual_time(world.clock), world.sdk_retries():
                doc = _run(world, scenario, candidate, seed)
        except KeyboardInterrupt:
            interrupted = True
            doc = _unjudged(world, _scenario(world, scenario), candidate, seed, {
                "kind": "interrupted", "detail": None, "message": "the run was interrupted (SIGINT or SIGTERM)"})
        except HarnessError as err:
            doc = _unjudged(world, _scenario(world, scenario), candidate, seed, _harness_error(err))
        except Exception as err:  # a bug of the run loop itself: the harness's, never the candidate's
            doc = _unjudged(world, _scenario(world, scenario), candidate, seed,
                            _harness_error(HarnessError.wrap("the run loop", err)))
        finally:
            if world is not None:
                world.close()
        history = world.history if world is not None else History()
        secrets = world.secrets if world is not None else ()
        doc = dict(redact(doc, secrets))
        if world is not None and world.fork is not None:  # a sweep's crash point, forked: it ends here
            world.fork.finish(doc, history, world)
        if out_dir is not None:
            save_run(out_dir, workdir, doc, history, secrets)
        if interrupted:
            raise RunInterrupted(doc)
        return doc, history


def _not_applicable(scenario: Scenario, candidate: str, seed: int, out_dir: Path | None,
                    why: str) -> tuple[dict[str, Any], History]:
    """The run of a scenario that needs a fake which is a real service in this run: not run, and not
    the candidate's doing. No world is built for it: building one prepares the real site (its user,
    its password, its leftovers: some 400 requests, about 10 s against a real WordPress)."""
    message = f"not applicable against a real service: {why}"
    history = History()
    history.append(0.0, "note", "harness", {"because": message})
    doc = _unjudged(None, scenario, candidate, seed, {"kind": "not_applicable", "detail": None, "message": message})
    doc["history"].update(entries=len(history), digest=history.digest())
    from durable_harness.harness.services._upstream import upstreams

    secrets = tuple(site.secret for site in upstreams().values())  # none is in it; redacted as every run is
    doc = dict(redact(doc, secrets))
    if out_dir is not None:
        write_run(out_dir, doc, history.lines(), secrets)
    return doc, history


KEEP_DB = "DH_KEEP_CANDIDATE_DB"  # "1": the candidate's database is copied into the report too (debugging)


def save_run(out_dir: Path, workdir: Path, doc: dict[str, Any], history: History, secrets: tuple[str, ...]) -> None:
    """A finished run's folder: run.json, history.jsonl and the candidate's output (redacted)."""
    keep_candidate_files(workdir, out_dir, secrets)
    write_run(out_dir, doc, history.lines(), secrets)


def keep_candidate_files(workdir: Path, out_dir: Path, secrets: tuple[str, ...]) -> None:
    """Into the report: the candidate's output (``candidate-*.log``), redacted; its database only
    when asked (``DH_KEEP_CANDIDATE_DB=1``, the CLI's ``--keep-candidate-db``), as it is."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for log in sorted(workdir.glob("candidate-*.log")):
        text = log.read_text("utf-8", errors="replace")
        (out_dir / log.name).write_text(redact_text(text, secrets), encoding="utf-8")
    if os.environ.get(KEEP_DB, "") == "1":
        for db in sorted(workdir.glob("candidate.sqlite*")):
            shutil.copyfile(db, out_dir / db.name)


def _scenario(world: World | None, scenario: Scenario) -> Scenario:
    """The scenario the run is now: a sweep's fork became one of its crash points mid-run."""
    return world.scenario if world is not None else scenario


def _harness_error(err: HarnessError) -> dict[str, Any]:
    return {"kind": "harness", "message": f"an error of the harness, not of the candidate: {err.message}",
            "detail": err.detail}


def _run(world: World, scenario: Scenario, candidate: str, seed: int) -> dict[str, Any]:
    done = _execute(world, scenario, candidate)
    scenario = world.scenario  # a sweep's fork became one of its crash points meanwhile
    world.settle()
    truth = world.truth()
    faults = world.nemesis.to_json()
    world.history.append(world.clock.now(), "phase", "harness", {"phase": "check"})
    results: list[CheckResult] = []
    world_outcome = None
    if done.error is None:
        inp = CheckInput(world.history, truth, done.claims, scenario, world.job, faults,
                         strict_coverage=strict_coverage())
        results = run_checkers(inp)
        crashed = [r for r in results if r.crashed]
        if crashed:
            done.error = {"kind": "harness", "detail": None, "message": "an error of the harness, not of the candidate: "
                          + "; ".join(f"checker {r.name} crashed ({r.crashed})" for r in crashed)}
        world_outcome = world.workload.outcome(truth, world.job).outcome
    doc = _document(scenario, candidate, seed, done, results, faults)
    timings: dict[str, Any] = {"virtual_s": round(world.clock.now(), 6), "steps": done.steps,
                               "requests": world.gate.requests, "restarts": done.restarts}
    if done.startups_s:  # a process's starts: real time, outside the run's own (its clock stood still)
        timings["startup_s"] = done.startups_s
    if done.clocks:  # whose time a process run was on: the harness's (it skipped idle time) or compressed real time
        clock = world.clock
        timings["clock"] = "harness" if all(c == "harness" for c in done.clocks) else "real"
        timings["skipped_s"] = round(getattr(clock, "jumped_s", 0.0), 3)
    doc.update(truth=truth, timings=timings,
               history={"file": HISTORY_FILE, "entries": len(world.history), "digest": world.history.digest()})
    doc["outcome"]["truth"] = world_outcome
    return doc


def _document(scenario: Scenario, candidate: str, seed: int, done: _Execution, results: list[CheckResult],
              faults: list[dict[str, Any]]) -> dict[str, Any]:
    judged = Judgement.of(((r.klass, r.verdict) for r in results), done.error)
    return {
        "format": FORMAT,
        "harness": harness_provenance(),
        "scenario": {"id": scenario.id, "title": scenario.title, "path": str(scenario.source), "covers": scenario.covers},
        "candidate": {"spec": candidate, "digest": _digest(candidate),
                      **({"next": nxt} if (nxt := candidate_next(candidate)) else {})},
        "seed": seed,
        **judged.fields(),
        "checkers": [r.to_json() for r in results],
        "faults": faults,
        "coverage": {**coverage(faults), "strict": strict_coverage()},
        "counters": {r.name: r.count for r in results},
        "outcome": {"expected": scenario.expect.outcome, "truth": None,
                    "claimed": None if done.claims is None else done.claims.get("outcome")},
        "candidate_errors": done.candidate_errors,
        "determinism": None,
        "sweep": None,
        "timings": {"virtual_s": 0.0, "steps": done.steps, "requests": 0, "restarts": done.restarts},
        "history": {"file": HISTORY_FILE, "entries": 0, "digest": History().digest()},
        "truth": {},
        "claims": dict(done.claims) if done.claims is not None else None,
        "reproduce": reproduce_command(scenario, candidate, seed),
    }


def _unjudged(world: World | None, scenario: Scenario, candidate: str, seed: int, error: dict[str, Any]) -> dict[str, Any]:
    """The document of a run that stopped before it could be judged (what the world shows is kept)."""
    doc = _document(scenario, candidate, seed, _Execution(error=error), [], world.nemesis.to_json() if world else [])
    if world is not None:
        doc["timings"].update(virtual_s=round(world.clock.now(), 6), requests=world.gate.requests)
        doc["history"].update(entries=len(world.history), digest=world.history.digest())
    return doc


def harness_error_doc(scenario: Scenario, candidate: str, seed: int | None, out_dir: Path | None,
                      message: str, kept: History | None = None) -> dict[str, Any]:
    """The document of a scenario the harness could not run at all (exit 3), written like any run.
    ``kept``: a history this scenario's run wrote to ``out_dir`` already (a sweep's clean run), which
    the document describes and leaves in place; otherwise the history written is empty."""
    seed = validate_seed(scenario.default_seed if seed is None else seed)
    doc = _unjudged(None, scenario, candidate, seed, _harness_error(HarnessError(message)))
    if kept is not None:
        doc["history"].update(entries=len(kept), digest=kept.digest())
    if out_dir is not None:
        write_run(out_dir, doc, None if kept is not None else History().lines(), ())
    return doc


def _digest(candidate: str) -> str | None:
    try:
        return probe_candidate(candidate).digest
    except (Exception, HarnessError):  # no code to digest (unresolvable; no zygote): the run says why elsewhere
        return None


def _execute(world: World, scenario: Scenario, candidate: str) -> _Execution:
    """chaos -> heal -> quiesce -> final reads. A candidate that cannot be run ends it early."""
    world.candidate_next = candidate_next(candidate) or candidate  # a deploy without a next version: the same
    if scenario.workers > 1:
        return _execute_workers(world, scenario, candidate)
    history, clock = world.history, world.clock
    job_id = world.job["job_id"]
    done = _Execution()
    driver: Driver | None = None
    scratch: ScratchDatabase | None = None
    try:
        unrunnable = driver_problem(scenario, candidate)
        if unrunnable is not None:
            raise CandidateFailed(unrunnable, setup=True)
        if wants_postgres(os.environ):
            scratch = _scratch_database(world, scenario)
        driver = world.driver = _driver(world, candidate)
        history.append(clock.now(), "phase", "harness", {"phase": "chaos"})
        driver.start()
        world.check()
        missing = [need for need in scenario.needs if not driver.accepts(need)]
        if missing:
            raise CandidateFailed("the scenario needs " + ", ".join(
                f"the capability {need!r} (see docs/contract.md)" for need in missing) + ", which this candidate lacks",
                setup=True)
        history.append(clock.now(), "note", "harness", {"submitted": {
            "job_id": world.job["job_id"], "task_version": world.job["task_version"],
            "allowed_tools": list(world.job["allowed_tools"])}})
        while driver.submit(world.job) is None:  # the job as first given (a later version comes by the user)
            world.check()
            driver.restart("crashed while accepting the job")
        world.check()
        done.steps = _drive(world, driver, scenario, job_id, done.steps)
        history.append(clock.now(), "phase", "harness", {"phase": "heal"})
        world.heal()
        if not driver.alive:
            driver.restart("heal")
        history.append(clock.now(), "phase", "harness", {"phase": "quiesce"})
        done.steps = _drive(world, driver, scenario, job_id, done.steps, quiesce=True, until_s=_quiesce_until(scenario, clock))
        history.append(clock.now(), "phase", "harness", {"phase": "final_reads"})
        done.claims = driver.report(str(world.job["job_id"]))
        world.check()
    except CandidateFailed as err:
        kind = "setup" if err.setup else "candidate"
        done.error = {"kind": kind, "detail": None, "message": (
            f"the candidate could not be run: {err}" if kind == "candidate" else f"the scenario cannot run against "
            f"this candidate: {err}")}
        history.append(clock.now(), "note", "harness", {"because": done.error["message"]})
    except HarnessError as err:
        done.error = _harness_error(err)
    finally:
        if driver is not None:
            done.restarts = driver.restarts
            done.candidate_errors = driver.candidate_errors
            done.startups_s = list(getattr(driver, "startups_s", []))
            done.clocks = [driver.clock_mode] if hasattr(driver, "clock_mode") else []
            driver.close()
        _drop(scratch, done)
    return done


def _scratch_database(world: World, scenario: Scenario) -> ScratchDatabase:
    """A PostgreSQL database made for this run, given to every instance as ``DATABASE_URL``."""
    scratch = ScratchDatabase(admin_url(os.environ), scenario.id)
    world.shared_database = scratch.create()
    world.history.append(world.clock.now(), "note", "harness", {"shared_database": f"postgresql: {scratch.name}"})
    return scratch


def _drop(scratch: ScratchDatabase | None, done: _Execution) -> None:
    if scratch is not None:
        try:
            scratch.drop()
        except HarnessError as err:
            done.error = done.error or _harness_error(err)


def _execute_workers(world: World, scenario: Scenario, candidate: str) -> _Execution:
    """The phases with several workers on one database (``_workers``): each is started and given
    the job; rounds step them in a seeded order; the front worker's report is the claims."""
    history, clock = world.history, world.clock
    job_id = str(world.job["job_id"])
    done = _Execution()
    workers: Workers | None = None
    scratch: ScratchDatabase | None = None
    try:
        unrunnable = driver_problem(scenario, candidate)
        if unrunnable is not None:
            raise CandidateFailed(unrunnable, setup=True)
        if driver_kind(candidate).shared_database or wants_postgres(os.environ):  # workers share a PostgreSQL database
            scratch = _scratch_database(world, scenario)
        workers = world.workers = Workers(world, [_driver(world, candidate, f"worker-{n}")
                                                  for n in range(1, scenario.workers + 1)])
        world.driver = workers.drivers[0]
        world.gate.hold = workers.hold_hook(job_id, scenario.expect.max_steps, scenario.expect.deadline_s)
        history.append(clock.now(), "phase", "harness", {"phase": "chaos"})
        for driver in workers.drivers:
            driver.start()
            world.check()
        history.append(clock.now(), "note", "harness", {"leases": {
            d.worker_id: d.lease_ttl_s for d in workers.drivers if d.lease_ttl_s is not None}})
        missing = [need for need in scenario.needs if not all(d.accepts(need) for d in workers.drivers)]
        if missing:
            raise CandidateFailed("the scenario needs " + ", ".join(f"the capability {need!r}" for need in missing)
                                  + ", which this candidate lacks", setup=True)
        history.append(clock.now(), "note", "harness", {"submitted": {
            "job_id": job_id, "task_version": world.job["task_version"], "allowed_tools": list(world.job["allowed_tools"]),
            "workers": [d.worker_id for d in workers.drivers]}})
        for driver in workers.drivers:  # every worker is given the job
            while driver.submit(world.job) is None:
                world.check()
                driver.restart("crashed while accepting the job")
            world.check()
        done.steps = workers.drive(job_id, 0, scenario.expect.max_steps, scenario.expect.deadline_s, quiesce=False)
        history.append(clock.now(), "phase", "harness", {"phase": "heal"})
        world.heal()
        for driver in workers.drivers:
            if not driver.alive and driver.worker_id not in workers.frozen:
                driver.restart("heal")
        history.append(clock.now(), "phase", "harness", {"phase": "quiesce"})
        done.steps = workers.drive(job_id, done.steps, scenario.expect.max_steps, _quiesce_until(scenario, clock),
                                   quiesce=True)
        history.append(clock.now(), "phase", "harness", {"phase": "final_reads"})
        front = workers.front()
        done.claims = front.report(job_id) if front.alive else None
        world.check()
    except CandidateFailed as err:
        kind = "setup" if err.setup else "candidate"
        done.error = {"kind": kind, "detail": None, "message": (
            f"the candidate could not be run: {err}" if kind == "candidate" else f"the scenario cannot run against "
            f"this candidate: {err}")}
        history.append(clock.now(), "note", "harness", {"because": done.error["message"]})
    except HarnessError as err:
        done.error = _harness_error(err)
    finally:
        world.gate.hold = None
        if workers is not None:
            workers.wait_restarts()
            done.restarts = workers.restarts
            done.candidate_errors = workers.candidate_errors
            done.startups_s = [s for d in workers.drivers for s in getattr(d, "startups_s", [])]
            done.clocks = [d.clock_mode for d in workers.drivers if hasattr(d, "clock_mode")]
            for driver in workers.drivers:
                driver.close()
        _drop(scratch, done)
    return done


def driver_problem(scenario: Scenario, candidate: str) -> str | None:
    """Why the driver this candidate needs cannot run this scenario (None: it can)."""
    driver = driver_kind(candidate).family
    for i, fault in enumerate(scenario.faults):
        cls = get_fault_kind(fault.kind)
        if cls.drivers is not None and driver not in cls.drivers:
            return (f"faults[{i}].kind {fault.kind!r} acts on the network between a candidate process and the services: "
                    "it needs the process driver (--candidate 'cmd:<command line>'); a Python candidate has no such wire"
                    if cls.network else f"faults[{i}].kind {fault.kind!r} needs the {' or '.join(cls.drivers)} driver")
    if driver == "process" and scenario.workers > 1 and any(get_fault_kind(f.kind).network for f in scenario.faults):
        return (f"the scenario asks for workers: {scenario.workers} and a network fault: the process driver puts "
                "proxies in front of one worker only")
    return None


def _driver(world: World, candidate: str, worker_id: str = "worker-1") -> Driver:
    """The driver the candidate's kind makes (``harness.drivers``): a Python factory in a child
    process of its own, or in the harness's own process with ``DH_IN_PROCESS=1`` (for a debugger:
    no containment then); ``cmd:<command line>``, a process of its own making."""
    return driver_kind(candidate).make(world, candidate, worker_id)


def _quiesce_until(scenario: Scenario, clock: Any) -> float:
    """The end of the quiesce phase: the scenario's deadline, or ``expect.quiesce_s`` after the heal
    when the chaos ran that far (a fault that never let go must still leave the candidate time to
    settle once the world is whole again). Never past the deadline plus ``quiesce_s``: a candidate
    that slept the clock beyond that has had its time."""
    last = scenario.expect.deadline_s + scenario.expect.quiesce_s
    return max(scenario.expect.deadline_s, min(float(clock.now()) + scenario.expect.quiesce_s, last))


def _drive(world: World, driver: Driver, scenario: Scenario, job_id: str, steps: int, *, quiesce: bool = False,
           until_s: float | None = None) -> int:
    """Step until the job has settled and the candidate stays quiet, or a bound is reached (the
    step budget, or ``until_s``: the scenario's deadline unless given)."""
    clock = world.clock
    quiet = 0
    budget = steps + scenario.expect.max_steps
    deadline_s = scenario.expect.deadline_s if until_s is None else until_s
    while steps < budget and clock.now() < deadline_s:
        raise_if_pending()  # a SIGINT whose KeyboardInterrupt Python swallowed somewhere
        if not driver.alive:
            driver.restart("crashed")
            world.check()
        world.deploy_if_due([driver])
        fired = world.nemesis.firings
        world.begin_step()
        progressed = bool(driver.step())
        world.check()
        steps += 1
        if driver.alive and world.after_step(driver):
            progressed = True
        report = driver.report(job_id) if driver.alive else None
        world.check()
        if not driver.alive:
            quiet = 0
            continue
        settled = report is not None and report.get("outcome") in SETTLED
        quiet = 0 if progressed else quiet + 1
        if settled and quiet >= (_QUIET_STEPS if quiesce else 1) and not world.waiting() \
                and world.nemesis.firings == fired:  # (read last) a person who just acted gets the next step
            break
        if not progressed:  # autojump: to the next scheduled thing, or one idle poll ahead; never past the deadline
            nxt = clock.next_deadline()
            target = nxt if nxt is not None and nxt > clock.now() else clock.now() + _IDLE_POLL_S
            clock.jump(max(clock.now(), min(target, deadline_s)))
    return steps
