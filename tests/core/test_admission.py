"""How many runs of a process candidate go at once: one per core before anything is measured, then
as many as fit in the cores' headroom at the busy share its runs measured, between one and the cap."""

from __future__ import annotations

import io

from durable_harness.harness._admission import HEADROOM, Admission
from durable_harness.harness._progress import Progress


def test_one_per_core_until_a_run_has_finished() -> None:
    admission = Admission(2, 8)
    assert admission.limit() == 2 and admission.share() is None and admission.describe() == "2 at once"


def test_runs_that_mostly_wait_go_several_per_core_up_to_the_cap() -> None:
    admission = Admission(2, 8)
    admission.finished(cpu_s=1.0, wall_s=10.0)  # a tenth of a core
    assert int(2 * HEADROOM / 0.1) == 16 and admission.limit() == 8  # the cap
    admission.finished(cpu_s=7.0, wall_s=10.0)  # the mean share is now 0.4
    assert admission.limit() == round(2 * HEADROOM / 0.4) == 4
    assert admission.describe() == "4 at once (a run keeps 40% of a core busy)"


def test_runs_that_keep_a_core_busy_go_one_per_core() -> None:
    admission = Admission(2, 8)
    admission.finished(cpu_s=9.4, wall_s=10.0)  # measured: a process run on the harness's clock
    assert admission.limit() == 2


def test_busy_runs_go_one_at_a_time_and_never_none() -> None:
    admission = Admission(2, 8)
    admission.finished(cpu_s=30.0, wall_s=10.0)  # three cores' worth (a run of several processes)
    assert admission.limit() == 1
    admission.finished(cpu_s=0.0, wall_s=0.0)  # no wall time: not counted
    assert admission.share() == 3.0


def test_the_progress_line_says_how_many_run_at_once() -> None:
    out = io.StringIO()
    progress = Progress(3, stream=out, tty=False)
    progress.note("4 at once (a run keeps 40% of a core busy)")
    assert out.getvalue() == "(4 at once (a run keeps 40% of a core busy))\n"
    tty = io.StringIO()
    progress = Progress(3, stream=tty, tty=True)
    progress.note("2 at once")
    assert "| 2 at once" in progress.status("") and "2 at once" in tty.getvalue()
