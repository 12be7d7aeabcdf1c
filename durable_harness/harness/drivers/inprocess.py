"""A Python candidate in the harness's own process (``DH_IN_PROCESS=1``): for a debugger, without
containment (a crash is a discarded object, not a killed process)."""

from __future__ import annotations

from typing import Any

from durable_harness.harness.candidate._spec import python_digest, python_factory, python_precheck
from durable_harness.harness.drivers._kinds import DriverKind, register_driver_kind
from durable_harness.harness.drivers.forked import contained


def _make(world: Any, spec: str, worker_id: str) -> Any:
    from durable_harness.harness.drivers._inprocess_driver import InProcessDriver

    return InProcessDriver(python_factory(spec), world.env, world.clock, world.history, worker_id=worker_id)


KIND = register_driver_kind(DriverKind("in-process", "python", _make, python_precheck, python_factory, python_digest,
                                       when=lambda environ: not contained(environ)))
