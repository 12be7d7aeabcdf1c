"""A run whose candidate is in processes of its own leaves the SDK out of the harness's process:
the run's stand-ins for the SDK's clocks (its webhook check, its retry loop) are kept by the
harness and asked for over the instance's pipe. Importing the SDK would cost a harness process
half a second and a third of its memory, which every crash point's fork copies. A candidate inside
the harness's process still gets the harness's own SDK on the run's clock: the two ways give the
same history, on scenarios where the SDK checks webhooks and retries on its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from tests.e2e._processes import REPO

pytestmark = pytest.mark.e2e

_RUN = """
import json, sys
from pathlib import Path
from durable_harness.harness import load_scenarios, run_scenario
wanted = sys.argv[1].split(",")
runs = {s.id: run_scenario(s, "reference") for s in load_scenarios([Path(sys.argv[2])]) if s.id in wanted}
print(json.dumps({"runs": {k: [d["verdict"], d["history"]["digest"]] for k, d in runs.items()},
                  "sdk": sorted(m for m in sys.modules if m == "openai" or m.startswith("openai."))[:3]}))
"""

# The SDK verifies the webhooks of both; its own retry loop runs in the second (on the run's clock).
SCENARIOS = ("baseline", "sdk-retries-tool-result")


def _run(in_process: bool) -> dict[str, Any]:
    """The runs of SCENARIOS in a fresh interpreter (nothing imported before), and what of the SDK it imported."""
    env = {**os.environ, "DH_IN_PROCESS": "1" if in_process else "0"}
    argv = [sys.executable, "-c", _RUN, ",".join(SCENARIOS), str(REPO / "durable_harness" / "scenarios")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=REPO, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def test_an_isolated_candidate_leaves_the_sdk_out_of_the_harness_and_runs_as_inside() -> None:
    isolated, inside = _run(in_process=False), _run(in_process=True)
    assert isolated["sdk"] == [], f"the harness's process imported the SDK: {isolated['sdk']}"
    assert inside["sdk"] != []  # the candidate ran inside: its SDK is the harness's process's
    assert isolated["runs"] == inside["runs"] and len(isolated["runs"]) == len(SCENARIOS)
    assert all(verdict == "pass" for verdict, _ in isolated["runs"].values())
