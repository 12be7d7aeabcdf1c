"""The suite's two drivers for tests of what is judged (``tests/e2e/_drivers.py``): a test marked
``inside`` runs its Python candidates in the harness's process, every other one forked, and each
parametrised pair is one test per driver, the forked one in ``make test-slow``."""

from __future__ import annotations

import os

import pytest

from durable_harness.harness.drivers import driver_kind
from tests.e2e._drivers import DRIVERS, driver_param


@pytest.mark.inside
def test_a_test_marked_inside_runs_its_candidates_inside() -> None:
    assert driver_kind("reference", os.environ).name == "in-process"
    assert driver_kind("tests.e2e.test_runs:idle", os.environ).name == "in-process"


_AS_STARTED = os.environ.get("DH_IN_PROCESS")  # the suite's environment, before any test's fixture


def test_an_unmarked_test_keeps_the_environments_driver() -> None:
    assert os.environ.get("DH_IN_PROCESS") == _AS_STARTED
    if _AS_STARTED is None:
        assert driver_kind("reference", os.environ).name == "forked"


@pytest.mark.parametrize("driver", [driver_param(d) for d in DRIVERS])
def test_each_driver_param_runs_in_its_driver(driver: str) -> None:
    expected = {"inside": "in-process", "forked": "forked"}[driver]
    assert driver_kind("reference", os.environ).name == expected


def test_the_forked_param_is_slow_and_the_inside_one_is_not() -> None:
    marks = {p.values[0]: {m.name for m in p.marks} for p in (driver_param(d, id="x") for d in DRIVERS)}
    assert marks == {"inside": {"inside"}, "forked": {"forked", "slow"}}
    assert [p.id for p in (driver_param(d, id="x") for d in DRIVERS)] == ["inside-x", "forked-x"]
