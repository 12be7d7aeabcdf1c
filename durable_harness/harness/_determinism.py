"""``--check-determinism``: run a scenario's seed twice and show where the histories part.

A run must be a function of (scenario, seed, candidate code). The second run goes to
``<scenario>/determinism-check/``; when the digests differ, the document gains ``determinism`` with
the first differing entry of each history in full, side by side, and the JSON paths that differ,
plus a ``determinism`` checker (liveness, unknown: the run proves nothing if it cannot be
reproduced). Verdicts and the exit code are recomputed by ``durable_harness.harness.verdict``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from durable_harness.harness._rundoc import HISTORY_FILE, write_run
from durable_harness.harness._scenario_run import run_scenario
from durable_harness.harness.scenario import Scenario
from durable_harness.harness.verdict import Judgement

__all__ = ["AGAIN_DIR", "check_determinism", "differing_paths"]

AGAIN_DIR = "determinism-check"
_MAX_PATHS = 20


def check_determinism(doc: dict[str, Any], scenario: Scenario, candidate: str, out: Path) -> dict[str, Any]:
    """Run ``doc``'s seed again into ``out/determinism-check`` and return ``doc`` with the verdict."""
    again = run_scenario(scenario, candidate, int(doc["seed"]), out / AGAIN_DIR)
    digests = [doc["history"]["digest"], again["history"]["digest"]]
    doc = dict(doc)
    if digests[0] == digests[1]:
        doc["determinism"] = {"same": True, "digests": digests, "entry": None, "first": None, "second": None, "differs": []}
        write_run(out, doc)
        return doc
    first = (out / HISTORY_FILE).read_text("utf-8").splitlines()
    second = (out / AGAIN_DIR / HISTORY_FILE).read_text("utf-8").splitlines()
    n = next((i for i, (a, b) in enumerate(zip(first, second)) if a != b), min(len(first), len(second)))
    a = first[n] if n < len(first) else None
    b = second[n] if n < len(second) else None
    differs = differing_paths(json.loads(a) if a else None, json.loads(b) if b else None)
    doc["determinism"] = {"same": False, "digests": digests, "entry": n, "first": a, "second": b, "differs": differs}
    because = (f"the same seed gave two different histories; they part at entry {n}"
               + (f", in {', '.join(differs)}" if differs else "") + f" (see {HISTORY_FILE} and {AGAIN_DIR}/{HISTORY_FILE})")
    witnesses = []
    for entry, file in ((a, HISTORY_FILE), (b, f"{AGAIN_DIR}/{HISTORY_FILE}")):
        if entry is not None:
            raw = json.loads(entry)
            witnesses.append({"index": n, "type": raw.get("type", "?"), "time_s": raw.get("time_s", 0.0),
                              "process": raw.get("process", "?"), "summary": f"entry {n} of {file}", "file": file})
    doc["checkers"] = [*doc["checkers"], {"name": "determinism", "class": "liveness", "verdict": "unknown", "count": 1,
                                          "because": because, "witnesses": witnesses}]
    doc["counters"] = {**doc["counters"], "determinism": 1}
    doc.update(Judgement(doc["safety"], doc["liveness"], doc["error"]).with_liveness("unknown").fields())
    write_run(out, doc)
    return doc


def differing_paths(a: Any, b: Any, path: str = "") -> list[str]:
    """JSON paths (``data.body.id``) where ``a`` and ``b`` differ, at most 20."""
    out: list[str] = []
    _diff(a, b, path, out)
    return out[:_MAX_PATHS]


def _diff(a: Any, b: Any, path: str, out: list[str]) -> None:
    if len(out) >= _MAX_PATHS or a == b:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            _diff(a.get(key), b.get(key), f"{path}.{key}" if path else str(key), out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _diff(x, y, f"{path}[{i}]", out)
    else:
        out.append(path or "(the whole entry)")
