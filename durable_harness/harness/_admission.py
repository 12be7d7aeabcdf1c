"""How many runs of a process candidate ``run`` keeps going at once: as many as the machine holds
while they mostly wait.

A process candidate on compressed real time spends most of a run waiting (for the run's time, for
its own timers), so one run per core leaves the cores idle; on the harness's clock it waits less.
Either way the measure is the same: each finished run says how busy it kept the CPU (the CPU
seconds of the worker and of the candidate processes it reaped, over its wall seconds: its *busy
share* of one core). The runs in flight are then as many as fit in ``HEADROOM`` of the cores at the
mean share so far, rounded to the nearest (two runs that keep a core busy each go two at once on
two cores), between one and ``cap``. It starts at one per core, before anything is measured.

This measures wall and CPU time, which the harness's core never reads: it decides only how many
runs go at once, never what a run does or concludes (each run is judged on its own clock).
"""

from __future__ import annotations

import resource
import time

__all__ = ["HEADROOM", "Admission", "usage"]

HEADROOM = 0.8  # of the cores: what the runs in flight may keep busy together
MIN_SHARE = 0.02  # a run measured below this is taken as this much (a run is never free)


class Admission:
    """``limit()`` runs at once, from the busy shares ``finished`` was told."""

    def __init__(self, cores: int, cap: int) -> None:
        self.cores = max(1, cores)
        self.cap = max(1, cap)
        self._shares: list[float] = []

    def finished(self, cpu_s: float, wall_s: float) -> None:
        if wall_s > 0 and cpu_s >= 0:
            self._shares.append(cpu_s / wall_s)

    def share(self) -> float | None:
        """The mean busy share of the runs finished so far (None before the first)."""
        return sum(self._shares) / len(self._shares) if self._shares else None

    def limit(self) -> int:
        share = self.share()
        if share is None:
            return min(self.cores, self.cap)
        return max(1, min(self.cap, round(self.cores * HEADROOM / max(share, MIN_SHARE))))

    def describe(self) -> str:
        share = self.share()
        if share is None:
            return f"{self.limit()} at once"
        return f"{self.limit()} at once (a run keeps {share:.0%} of a core busy)"


def usage() -> tuple[float, float]:
    """(CPU seconds of this process and of the processes it started and reaped, the wall clock): two
    readings, before and after a run, give what it used."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime, time.monotonic()
