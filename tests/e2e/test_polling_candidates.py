"""A control plane written from docs/contract.md alone passes the whole catalogue, in both stepping styles.

The candidate (``tests/candidates/strangers/polling``) is deliberately unlike the reference: it never opens the
event stream (it polls ``sessions.retrieve`` and waits on the virtual clock), keeps its own SQLite
store in its own shape, and comes as two factories — ``create`` (each step does what is available
now) and ``create_blocking`` (one step carries a job until it settles). A correct design must pass
every scenario; a verdict other than ``pass`` here is either a bug of that candidate or a false
alarm of the harness, and the assertion message carries the checkers' because-lines and the
reproduce command to tell which.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness import load_scenarios, run_scenario

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

REPO = Path(__file__).parents[2]
CATALOGUE = load_scenarios([REPO / "durable_harness" / "scenarios"])
FACTORIES = ("tests.candidates.strangers.polling:create", "tests.candidates.strangers.polling:create_blocking")


def _param(scenario: Any, factory: str) -> Any:
    """Slow, both styles (``make test-slow``; CI runs it): ``make test`` runs the whole catalogue for
    another design written from the contract (``test_strangers``, in-process), and this one's
    catalogue, twice over, would make it a minute longer on two cores."""
    marks = [pytest.mark.slow]
    return pytest.param(factory, scenario, marks=marks, id=f"{factory.rsplit(':', 1)[1]}-{scenario.id}")


@pytest.mark.parametrize(("factory", "scenario"), [_param(s, f) for s in CATALOGUE for f in FACTORIES])
def test_polling_control_plane_passes(factory: str, scenario: Any) -> None:
    doc = run_scenario(scenario, factory)
    failing = [{"name": c["name"], "verdict": c["verdict"], "because": c.get("because")}
               for c in doc["checkers"] if c["verdict"] != "pass"]
    assert doc["verdict"] == "pass", (f"{factory} on {scenario.id}: {doc['verdict']}"
                                      f"{' (' + str(doc['error']) + ')' if doc.get('error') else ''}\n"
                                      + json.dumps(failing, indent=1) + "\n" + str(doc.get("reproduce", "")))
