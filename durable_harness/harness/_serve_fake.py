"""``durable-harness serve-fake openai``: the sessions API fake on its own, as a service on loopback.

It serves the Agents sessions API with the scripted agent of every job of the scenarios it is
given (by default the bundled catalogue) to whatever connects: a control plane under development,
or a harness that puts it behind its gate as a real service (``run --service openai=URL``), which
then knows it only by its URL and key. It has no fault and no person in it (those are the
harness's to inject), and its time is the wall clock, as a real one's is (a harness in front keeps
the wall clock too, so that the timestamps it writes mean the same on both sides). A session is placed
by its ``job_id`` / ``task_version`` metadata; a job's id with a run's suffix
(``job-baseline-3f9a1c``) is that job under that id, so every run of a harness can use one server.

Its base URL is printed on stdout as ``openai: http://127.0.0.1:PORT/v1``; its API key and webhook
secret go to an env file (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``OPENAI_WEBHOOK_SECRET``, mode
0600), never to the terminal. Webhooks are not delivered (nobody told it where to). It stops on
SIGTERM or SIGINT (exit 0), or when the fake itself failed (exit 3, said on stderr).

What it deliberately does not do: record anything for a report (nothing of it is judged), or serve
the other services of a world.
"""

from __future__ import annotations

import base64
import os
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from durable_harness.harness._errors import HarnessError
from durable_harness.harness._signals import handling
from durable_harness.harness._realtime import RealTimeClock, WorldLock

__all__ = ["serve_fake"]

WORKER = "upstream"
TICK_S = 1.0  # scenario seconds the main thread waits at most between two looks at the timers


def serve_fake(paths: Sequence[Path | str], *, seed: int, env_file: Path, out: TextIO = sys.stdout,
               stop: threading.Event | None = None) -> int:
    """Serve until SIGTERM/SIGINT (or ``stop``); 0 once stopped."""
    from durable_harness.fakes.openai_agents import SessionsFake
    from durable_harness.harness._gate import Gate
    from durable_harness.harness._history import History
    from durable_harness.harness._loopback import LoopbackServers
    from durable_harness.harness._nemesis import Nemesis
    from durable_harness.harness._seeds import component_random
    from durable_harness.harness.scenario import ScenarioError, load_scenarios

    scenarios = load_scenarios(list(paths))
    if not scenarios:
        raise ScenarioError(f"no scenario files found in {', '.join(map(str, paths))}")
    brains, count = _brains(scenarios, seed)
    clock = RealTimeClock(1.0, WorldLock(), wall=True)
    history = History()
    rng = component_random(seed, "serve-fake.secrets")
    api_key = "sk-fake-" + "".join(rng.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(32))
    webhook_secret = "whsec_" + base64.b64encode(rng.randbytes(32)).decode()
    fake = SessionsFake(clock, component_random(seed, "fakes.openai_agents"), api_key=api_key, brains=brains,
                        webhook_secret=webhook_secret)
    gate = Gate(clock, history, [fake], Nemesis(clock, history))
    gate.max_requests_per_step = sys.maxsize  # no candidate steps here: its requests are everyone's, for as long as it serves
    servers = LoopbackServers(gate, clock, process=lambda: WORKER, on_crash=lambda crash: None)
    stop = stop or threading.Event()
    # SIGTERM and SIGINT stop the serving (exit 0), from before the URL is printed: a user (or a test)
    # that stops it as soon as it has read the URL must not meet the command line's own handler,
    # which says "interrupted" and exits 3 (seen once in CI).
    with handling(lambda *_: stop.set()):
        try:
            base = f"{servers.start()[fake.host]}/v1"
            _write_env(env_file, {"OPENAI_BASE_URL": base, "OPENAI_API_KEY": api_key,
                                  "OPENAI_WEBHOOK_SECRET": webhook_secret})
            print(f"openai: {base}", file=out)
            print(f"serve-fake: the sessions API of {count} jobs of {len(scenarios)} scenarios (seed {seed}, on the "
                  f"wall clock); its key and webhook secret are in {env_file}; SIGTERM or Ctrl-C stops it", file=out,
                  flush=True)
            _until_stopped(clock, stop, gate)
        finally:
            clock.stop()
            servers.stop()
    if gate.failure is not None:  # it would only reset every connection from now on: said, and stopped
        print(f"serve-fake: the fake failed, and stopped serving: {gate.failure}", file=sys.stderr)
        return 3
    return 0


def _brains(scenarios: Sequence[Any], seed: int) -> tuple[Any, int]:
    """One brain factory for every job of ``scenarios`` (every version their task changes make),
    each workload's jobs under its own brains; the number of jobs."""
    from durable_harness.fakes.openai_agents.brains._jobs import namespaced_base
    from durable_harness.harness._seeds import derive_seed
    from durable_harness.harness._world import World

    jobs: dict[str, dict[tuple[str, str], Mapping[str, Any]]] = {}
    workload_of: dict[str, str] = {}
    where: dict[tuple[str, str], str] = {}
    with tempfile.TemporaryDirectory(prefix="durable-harness-serve-fake-") as workdir:
        for scenario in scenarios:
            world = World(scenario, seed, Path(workdir))  # its jobs, as a run of it would build them
            for key, job in world.jobs.items():
                if key in where and jobs[world.workload.name].get(key) != job:
                    raise HarnessError(f"scenarios {where[key]!r} and {scenario.id!r} both have job {key[0]!r} "
                                       f"version {key[1]!r}, with different tasks: serve them apart")
                where[key] = str(scenario.id)
                jobs.setdefault(world.workload.name, {})[key] = job
                workload_of[key[0]] = world.workload.name
    from durable_harness.harness.workloads import get_workload

    factories = {name: get_workload(name).brain(found, derive_seed(seed, f"brain.{name}")) for name, found in jobs.items()}
    fallback = next(iter(factories.values()))

    def make(metadata: Mapping[str, str], first_input_text: str) -> Any:
        job_id = str(metadata.get("job_id") or "")
        name = workload_of.get(job_id) or workload_of.get(namespaced_base(job_id) or "")
        return factories.get(name or "", fallback)(metadata, first_input_text)

    return make, len(where)


def _write_env(path: Path, values: dict[str, str]) -> None:
    """``KEY=value`` lines, readable by the user only (it holds the fake's key)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("".join(f"{k}={v}\n" for k, v in values.items()))
    os.chmod(path, 0o600)


def _until_stopped(clock: RealTimeClock, stop: threading.Event, gate: Any) -> None:
    """Fire the fake's timers (the agent's thoughts) on time until asked to stop, or the fake failed."""
    while not stop.is_set() and gate.failure is None:
        with clock.lock:
            clock.wait(TICK_S)
