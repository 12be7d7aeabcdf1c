"""run.json documents for the reports tests, built as plain dicts: one builder per kind of run.

Not a test module; ``conftest.py`` turns these into fixtures and tests import them directly.
"""

from __future__ import annotations

import copy
from typing import Any

DIGEST = "ab" * 32


def build_run(scenario_id: str, *, candidate: str = "reference", seed: int = 7) -> dict[str, Any]:
    """A valid, passing run.json document; tests change what they need."""
    return {
        "format": "durable-harness/run@1",
        "scenario": {
            "id": scenario_id,
            "title": f"Title of {scenario_id}",
            "path": f"scenarios/{scenario_id}.yaml",
            "covers": "R1",
        },
        "candidate": candidate,
        "seed": seed,
        "verdict": "pass",
        "safety": "pass",
        "liveness": "pass",
        "exit_code": 0,
        "error": None,
        "checkers": [
            _checker("duplicate_drafts", "safety"),
            _checker("duplicate_media", "safety"),
            _checker("no_stuck_jobs", "liveness"),
        ],
        "faults": [
            {"index": 0, "kind": "lose_response", "at": "nth POST /wp/v2/posts = 1", "point": "after_commit",
             "params": {"mode": "timeout"}, "scheduled": 1, "fired": 1, "evidence": [{"entry": 12}]},
        ],
        "counters": {"duplicate_drafts": 0, "duplicate_media": 0, "leftover_unknowns": 0},
        "outcome": {"expected": "completed", "claimed": "completed"},
        "timings": {"virtual_s": 12.5, "steps": 40, "requests": 31, "restarts": 1},
        "history": {"file": "history.jsonl", "entries": 80, "digest": DIGEST},
        "truth": {"posts": [{"id": 7, "status": "draft"}]},
        "claims": {"phase": "done"},
        "reproduce": f"durable-harness run --candidate {candidate} --scenario scenarios/{scenario_id}.yaml "
                     f"--seed {seed}",
    }


def _checker(name: str, cls: str) -> dict[str, Any]:
    return {"name": name, "class": cls, "verdict": "pass", "count": 0, "because": "nothing wrong",
            "witnesses": []}


def failing(run: dict[str, Any]) -> dict[str, Any]:
    """``run`` turned into a safety failure: two drafts were created for one job version."""
    run = copy.deepcopy(run)
    run.update(verdict="fail", safety="fail", exit_code=1)
    run["counters"]["duplicate_drafts"] = 1
    run["checkers"][0].update(
        verdict="fail", count=1, because="2 drafts for (job 1, v1, article); expected 1",
        witnesses=[
            {"index": 12, "type": "info", "time_s": 3.25, "process": "worker-1", "summary": "POST /wp/v2/posts lost"},
            {"index": 19, "type": "ok", "time_s": 4.5, "process": "worker-1",
             "summary": "POST /wp/v2/posts -> 201 id=8"},
        ],
    )
    return run


def unknown(run: dict[str, Any]) -> dict[str, Any]:
    """``run`` turned into an unknown: its scheduled fault never fired."""
    run = copy.deepcopy(run)
    run.update(verdict="unknown", exit_code=2)
    run["faults"][0]["fired"] = 0
    return run


def broken(run: dict[str, Any]) -> dict[str, Any]:
    """``run`` turned into a harness error: the candidate would not start."""
    run = copy.deepcopy(run)
    run.update(verdict="unknown", safety="unknown", liveness="unknown", exit_code=3, checkers=[], counters={},
               error="candidate 'pkg.mod:factory' would not start:\nImportError: no module named 'pkg'")
    run["faults"][0]["fired"] = 0
    return run
