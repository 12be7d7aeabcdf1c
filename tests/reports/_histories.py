"""History files for the reports tests: a synthetic history of any length, over any processes, and
a report folder written from documents and histories. Not a test module.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

Doc = dict[str, Any]
PEOPLE = ("worker-1", "worker-2", "openai-webhooks", "nemesis", "user", "reviewer", "operator", "harness")


def synthetic_history(n: int, processes: Sequence[str] = PEOPLE) -> list[Doc]:
    """``n`` entries: operations (invoke then ok, fail or info) by each process in turn, an event now
    and then, a fault every 97 entries, a crash and a restart in the middle; times never decrease."""
    entries: list[Doc] = []
    op = 0
    t = 0.0

    def add(kind: str, process: str, data: Doc, op_id: int | None = None) -> None:
        entries.append({"index": len(entries), "time_s": round(t, 3), "type": kind, "process": process, "op": op_id,
                        "data": data})

    while len(entries) < n:
        k = len(entries)
        process = processes[k % len(processes)]
        if k == n // 2:
            add("crash", "worker-1", {"because": "crashed after the fake committed, before the response"})
            add("restart", "worker-1", {"because": "crashed", "restart": 1})
        elif k % 97 == 0:
            add("fault", "nemesis", {"kind": "lose_response", "at": "POST wordpress/wp/v2/posts #1", "point": "after",
                                     "target": "worker-1"})
        elif k % 11 == 0:
            add("event", process, {"type": "agent.session.turn.item.added", "n": k})
        else:
            op += 1
            add("invoke", process, {"method": "POST", "service": "wordpress", "route": "/wp/v2/posts",
                                    "credential": f"{process}/app-password#1", "body": {"title": "x" * 80}}, op)
            t += 0.25
            outcome = ("ok", "fail", "info")[op % 3]
            add(outcome, process, {"status": 201 if outcome != "fail" else 503, "committed": outcome != "fail",
                                   "body": {"id": op}}, op)
    return entries[:n]


def write_folder(root: Path, runs: Sequence[Doc], index: Doc | None = None,
                 histories: dict[str, list[Doc]] | None = None) -> Path:
    """``root/<scenario id>/run.json`` for each run, its history (``histories[id]``, when given) and
    ``root/report.json`` for the index."""
    root.mkdir(parents=True, exist_ok=True)
    for run in runs:
        folder = root / run["scenario"]["id"]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "run.json").write_text(json.dumps(run, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        lines = (histories or {}).get(run["scenario"]["id"])
        if lines is not None:
            (folder / "history.jsonl").write_text("".join(json.dumps(e, sort_keys=True) + "\n" for e in lines),
                                                  encoding="utf-8")
    if index is not None:
        (root / "report.json").write_text(json.dumps(index, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return root
