"""How many crash points a sweep forks at once (``_sweep_fork.sweep_jobs``)."""

from __future__ import annotations

from pathlib import Path

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


def test_a_sweep_points_reproduce_command_is_quoted_for_a_shell() -> None:
    """A ``cmd:`` candidate has spaces: the line a user pastes must give the same arguments back."""
    import shlex

    from durable_harness.harness import load_scenario
    from durable_harness.harness._sweep import SweepPoint, point_reproduce

    base = load_scenario(Path(__file__).parents[2] / "durable_harness" / "scenarios" / "restart-at-every-io-point.yaml")
    candidate = "cmd:/opt/my venv/bin/python /srv/serve.py --mode 'naive'"
    line = point_reproduce(base, SweepPoint(3, "after", "POST wordpress/wp/v2/posts"), candidate, 7)
    argv = shlex.split(line)
    assert argv[argv.index("--candidate") + 1] == candidate and argv[argv.index("--point") + 1] == "3:after"
    assert argv[:2] == ["durable-harness", "sweep"] and argv[argv.index("--seed") + 1] == "7"
