"""How many crash points a sweep forks at once (``_sweep_fork.sweep_jobs``)."""

from __future__ import annotations

import pytest

from durable_harness.harness._errors import HarnessError
from durable_harness.harness._parallel import SWEEP_JOBS, default_jobs
from durable_harness.harness._sweep_fork import sweep_jobs


def test_by_default_every_core_even_beside_other_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SWEEP_JOBS, raising=False)
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "8")
    assert sweep_jobs() == default_jobs()


def test_as_asked_and_a_bad_number_is_the_harness_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SWEEP_JOBS, "3")
    assert sweep_jobs() == 3
    monkeypatch.setenv(SWEEP_JOBS, "0")
    assert sweep_jobs() == 1
    monkeypatch.setenv(SWEEP_JOBS, "many")
    with pytest.raises(HarnessError, match="DH_SWEEP_JOBS='many'"):
        sweep_jobs()
