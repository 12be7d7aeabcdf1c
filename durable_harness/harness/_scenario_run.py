"""``run_scenario``: one scenario file's result, whether it is a single run or a crash-point sweep
folded into one document. The only module that knows both; neither knows it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from durable_harness.harness._run import run_once
from durable_harness.harness._sweep_scenario import run_sweep_scenario
from durable_harness.harness.scenario import Scenario

__all__ = ["run_scenario"]


def run_scenario(scenario: Scenario, candidate: str, seed: int | None = None, out_dir: Path | None = None) -> dict[str, Any]:
    """Run and return run.json (also written, with history.jsonl, to ``out_dir`` when given)."""
    if scenario.sweep is not None:
        return run_sweep_scenario(scenario, candidate, seed, out_dir)
    return run_once(scenario, candidate, seed, out_dir)[0]
