"""``report.json``: the index of a report folder, kept true while a run goes.

Written when a run starts (``partial: true``, nothing completed), after every scenario, and when
the run ends (``partial: false``, or ``interrupted_by`` a signal). A folder whose run was killed
half-way therefore says so, and ``render`` shows a partial report as partial. It carries what
every run.json carries (harness version and commit, candidate spec and digest) and what none
does: the date the report was made, and, for ``--shard K/N``, which slice it holds.

This is the one place the harness reads the wall clock: to stamp that date. A run itself never
reads it (its time is the virtual clock's).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from durable_harness.harness._rundoc import harness_provenance

__all__ = ["INDEX_FILE", "ReportIndex"]

INDEX_FILE = "report.json"
FORMAT = "durable-harness/report@1"


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class ReportIndex:
    def __init__(self, folder: Path, candidate: str, digest: str | None, command: str, scenarios: Sequence[str],
                 shard: dict[str, int] | None = None) -> None:
        self.folder = folder
        self.data: dict[str, Any] = {
            "format": FORMAT, "harness": harness_provenance(), "candidate": {"spec": candidate, "digest": digest},
            "command": command, "started_at": _now(), "finished_at": None, "scenarios": list(scenarios),
            "completed": 0, "partial": True, "interrupted_by": None, "exit_code": None, "shard": shard,
        }
        self.write()

    def real_services(self, real: dict[str, str], not_applicable: dict[str, str]) -> None:
        """``--service``: which services were real (where), and the scenarios not run for it (why)."""
        if real:
            self.data.update(real_services=dict(real), not_applicable=dict(not_applicable))
            self.write()

    def completed_one(self) -> None:
        self.data["completed"] += 1
        self.write()

    def finish(self, exit_code: int, interrupted_by: str | None = None) -> None:
        self.data.update(finished_at=_now(), exit_code=exit_code, interrupted_by=interrupted_by,
                         partial=interrupted_by is not None or self.data["completed"] < len(self.data["scenarios"]))
        self.write()

    def write(self) -> None:
        target = self.folder / INDEX_FILE
        tmp = target.with_name(f".{INDEX_FILE}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(self.data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, target)
