"""Which driver a test's Python candidates run in, when the test is about what the harness judges.

A run of a Python candidate forks each instance from the zygote (the default, and what users
get): a crash is a killed process. The same run with the candidate inside the harness's process
(``DH_IN_PROCESS=1``) gives the same history byte for byte (``test_containment``) at about half the
CPU, and a test candidate defined in a test module costs nothing to import there (forked, every
instance imports its module, pytest with it: about 0.3 s each). So a test whose subject is what is
judged runs once per driver: ``inside`` in ``make test``, ``forked`` in ``make test-slow``; CI runs
both, and no assertion is left out of either driver.
"""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["DRIVERS", "driver_param", "drivers_for"]

DRIVERS = ("inside", "forked")


def drivers_for(scenario: Any) -> tuple[str, ...]:
    """The drivers a test of what is judged runs ``scenario`` in: both, but a sweep (many runs, slow
    either way) only forked, where its crash points fork from its clean run."""
    return ("forked",) if scenario.sweep else DRIVERS


def driver_param(driver: str, *values: Any, marks: tuple[Any, ...] = (), id: str | None = None) -> Any:
    """``values`` for ``driver`` (``inside``: for ``make test``; ``forked``: slow, and forked whatever
    ``DH_IN_PROCESS`` says)."""
    driven = [pytest.mark.inside] if driver == "inside" else [pytest.mark.forked, pytest.mark.slow]
    return pytest.param(driver, *values, marks=[*driven, *marks], id="-".join(filter(None, [driver, id])))
