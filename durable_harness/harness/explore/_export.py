"""What an exploration leaves behind: the shrunk plan as a scenario file, and a coverage report.

The scenario file is valid under the schema (it is loaded back to prove it), names the counter
that broke in ``covers``, expects whatever the world shows (``from_world``: a correct candidate
passes it whatever the plan made impossible) and has an empty ``must_catch``, ready to commit to
``durable_harness/scenarios/`` and to add the candidate that failed it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from durable_harness.harness.explore._explorer import Exploration, Finding
from durable_harness.harness.explore._plans import plan_raw
from durable_harness.harness.scenario import load_scenario

__all__ = ["coverage_lines", "export", "scenario_yaml"]


def scenario_yaml(exploration: Exploration, finding: Finding) -> tuple[str, str]:
    """(scenario id, YAML text) of a finding. It carries the exploration's seed, so it replays the
    run that found it."""
    plan = finding.plan
    scenario_id = f"found-{finding.counter.replace('_', '-')}-{plan.digest()}"
    origin = f"; a variation of the catalogue's {plan.origin}" if plan.origin else ""
    covers = (f"{finding.counter} (a plan found by durable-harness explore, seed {exploration.seed}, against "
              f"{exploration.candidate}{origin})")
    doc = plan_raw(plan, scenario_id, covers=covers, seed=exploration.seed)
    doc["title"] = f"Found by exploration: {finding.counter}"
    shard = f" --shard {exploration.shard.label}" if exploration.shard and exploration.shard.count > 1 else ""
    head = (f"# Found by `durable-harness explore --candidate {exploration.candidate} --workload {exploration.workload} "
            f"--seed {exploration.seed}{shard}` after {exploration.plans_run} plans;\n# it broke {finding.counter}: "
            f"{finding.because[:300]}\n")
    return scenario_id, head + yaml.safe_dump(doc, sort_keys=False, width=110)


def export(exploration: Exploration, finding: Finding, folder: Path) -> Path:
    """Write the finding as ``<folder>/<id>.yaml`` and prove it loads."""
    scenario_id, text = scenario_yaml(exploration, finding)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{scenario_id}.yaml"
    path.write_text(text, encoding="utf-8")
    load_scenario(path)
    return path


def coverage_lines(exploration: Exploration) -> list[str]:
    lines = [f"{exploration.plans_run} plans in {exploration.elapsed_s:g} s against {exploration.candidate} "
             f"({exploration.workload}, seed {exploration.seed})"]
    if exploration.kinds_tried:
        lines.append("kinds tried (fired): " + ", ".join(f"{k} {n} ({exploration.kinds_fired[k]})"
                                                         for k, n in sorted(exploration.kinds_tried.items())))
    if exploration.channels:
        lines.append("trigger channels: " + ", ".join(f"{c} x{n}" for c, n in sorted(exploration.channels.items())))
    if exploration.variations:
        lines.append(f"variations of {len(exploration.variations)} catalogue scenarios: "
                     f"{sum(exploration.variations.values())} plans")
    if exploration.worlds:
        lines.append("world options: " + ", ".join(f"{w} x{n}" for w, n in sorted(exploration.worlds.items())))
    if exploration.invalid_plans:
        lines.append(f"plans no scenario file could state (not run): {exploration.invalid_plans}")
    if exploration.guided:
        lines.append(f"guided: {exploration.reached} things reached ({exploration.reached_lines} lines of the candidate's "
                     f"code), by {exploration.reaching_plans} plans that each reached something new")
    lines.append("counters ever at risk: " + (", ".join(f"{c} x{n}" for c, n in sorted(exploration.at_risk.items()))
                                             or "none"))
    if exploration.harness_errors:
        lines.append(f"plans that broke the harness itself: {len(exploration.harness_errors)}; first: "
                     f"{exploration.harness_errors[0]}")
    return lines
