"""``cmd:<command line>``: a candidate in any language, a process of its own driven over HTTP
(``ProcessDriver``), on compressed real time; several workers share a PostgreSQL database, and
``run`` runs as many scenarios at once as the machine holds while they mostly wait (``_admission``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from durable_harness.harness.candidate._command import PREFIX, command_digest, parse_command
from durable_harness.harness.candidate._spec import CandidateSpecError
from durable_harness.harness.drivers._kinds import DriverKind, register_driver_kind


def _precheck(spec: str) -> None:
    """The program exists and the time scale it would run at is valid."""
    from durable_harness.harness._realtime import time_scale

    try:
        parse_command(spec)
        time_scale()
    except ValueError as err:
        raise CandidateSpecError(str(err)) from None


def _stand_in(spec: str) -> Callable[[Any], Any]:
    """What resolving a ``cmd:`` spec gives: proof that the command can start, not a factory."""
    command = parse_command(spec)

    def process(env: Any) -> Any:
        raise CandidateSpecError(f"--candidate {spec!r} is a process; the process driver runs it, not a factory")

    process.__doc__ = f"a process: {command.line}"
    return process


def _make(world: Any, spec: str, worker_id: str) -> Any:
    from durable_harness.harness.drivers._process_driver import ProcessDriver

    return ProcessDriver(parse_command(spec), world, worker_id=worker_id)


KIND = register_driver_kind(DriverKind("process", "process", _make, _precheck, _stand_in, command_digest,
                                       prefix=PREFIX, real_time=True, shared_database=True, parallel="use"))
