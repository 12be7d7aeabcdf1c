"""A candidate for ``serve --candidate tests.e2e.process_candidates.clock_probe:create``: at its
first step it writes the run's time as its clock reads it (``env.clock.now()``) to the file named
by ``CLOCK_PROBE_FILE``, and does nothing else."""

from __future__ import annotations

import os
from typing import Any


class ClockProbe:
    def __init__(self, env: Any) -> None:
        self.env = env
        self.path = os.environ["CLOCK_PROBE_FILE"]
        self.stepped = False

    def submit(self, job: Any) -> dict[str, Any]:
        return {}

    def cancel(self, job_id: str) -> dict[str, Any]:
        return {}

    def report(self, job_id: str) -> Any:
        return None

    def step(self) -> bool:
        if not self.stepped:
            self.stepped = True
            with open(self.path, "w", encoding="utf-8") as out:
                out.write(repr(self.env.clock.now()))
        return False


def create(env: Any) -> ClockProbe:
    return ClockProbe(env)
