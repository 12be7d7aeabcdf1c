"""The default kind for a Python candidate: each instance a child forked from a zygote, driven
over a pipe (``ForkedDriver``); deterministic, virtual time, a sweep forked from its clean run."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from durable_harness.harness.candidate._spec import python_digest, python_factory, python_precheck
from durable_harness.harness.drivers._kinds import DriverKind, register_driver_kind

IN_PROCESS = "DH_IN_PROCESS"  # "1": Python candidates in the harness's own process (``inprocess``)


def contained(environ: Mapping[str, str]) -> bool:
    """Python candidates run forked, unless ``DH_IN_PROCESS=1`` asks for the harness's own process."""
    return environ.get(IN_PROCESS, "") != "1"


def _make(world: Any, spec: str, worker_id: str) -> Any:
    from durable_harness.harness.drivers._forked_driver import ForkedDriver, bounds_from_environment

    return ForkedDriver(spec, world, worker_id=worker_id, **bounds_from_environment(os.environ))


KIND = register_driver_kind(DriverKind("forked", "python", _make, python_precheck, python_factory, python_digest,
                                       when=contained, forks_sweep=True, zygote=True))
