"""Byte code for the test run, even where the environment says not to write it.

With ``PYTHONDONTWRITEBYTECODE`` set (container images often set it), every pytest process rewrites
the asserts of about 500 modules again (pytest rewrites the whole package of every pytest plugin,
this one's included), and every process a test starts (the command line, a zygote, a candidate
served as a process) compiles the harness from source again: about 7 s of collection per pytest
process, and a fraction of a second per started process. So the test run writes byte code:

* this process's imports and pytest's rewritten modules go to ``__pycache__`` (ignored by git);
* the harness's own modules are compiled once here (``compileall`` skips those that are fresh), so
  that the processes the tests start read them compiled.

A stale cache is never used (Python compares it with its source), so this costs nothing in
correctness; it only stops redoing work.

Runs in real time (a candidate served as a process) compress the scenario's time 20 times, not the
default 10 (``DURABLE_HARNESS_TIME_SCALE``, inherited by every process a test starts, unless already
set): they take about half the real time, and every candidate of the suite is held to the tighter
budget (a lease of 10 scenario seconds is half a real second). Not more: the reference served as a
process never waits less than 2 real seconds for an answer, which at scale 30 is the minute of
latency that ``network/wordpress-latency-beyond-timeout`` puts on a write, and a mutant it must
catch then escapes (measured: the whole suite passed at 30 but for that). One test keeps the
default (``test_process_driver``).

A sweep forks one crash point at a time beside its clean run (``DH_SWEEP_JOBS=1``, inherited): the
suite already runs two workers per core, and forks on every core besides would only starve the
runs that wait in real time (a user's ``run -j`` lets its sweep take every core).

The scenario files the harness has found valid are kept in a folder of this test process's own
(``DURABLE_HARNESS_CACHE``, inherited by the processes the tests start), never in the user's.

``langsmith`` (which the ``langgraph`` test extra brings) registers a pytest plugin that nothing here
uses and every pytest process imports: about 1 s of CPU each (the controller, every xdist worker,
every pytest run a test starts). ``pyproject.toml`` leaves it out, and ``PYTEST_ADDOPTS`` (inherited)
leaves it out of the pytest runs the tests start.

The controlling pytest process starts one zygote (the process Python candidates are forked from)
and shares it (``DH_ZYGOTE``): the xdist workers and the command lines the tests start fork their
instances from it instead of warming the SDK up again in a zygote each (about 1.5 s of CPU each,
some 80 times in the whole suite). A process whose environment differs starts its own, as ever.
"""

from __future__ import annotations

import atexit
import compileall
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = False
compileall.compile_dir(Path(__file__).parents[1] / "durable_harness", quiet=2, workers=1)

_NO_LANGSMITH = "-p no:langsmith_plugin"  # see the docstring: unused here, about 1 s of CPU per pytest process

from durable_harness.harness._parallel import SWEEP_JOBS  # imported once the byte code is written
from durable_harness.harness._realtime import TIME_SCALE_ENV

os.environ.setdefault(TIME_SCALE_ENV, "20")
if _NO_LANGSMITH not in os.environ.get("PYTEST_ADDOPTS", ""):  # the pytest runs the tests start, too
    os.environ["PYTEST_ADDOPTS"] = f"{os.environ.get('PYTEST_ADDOPTS', '')} {_NO_LANGSMITH}".strip()
os.environ.setdefault(SWEEP_JOBS, "1")

if "DURABLE_HARNESS_CACHE" not in os.environ:
    _SCENARIO_CACHE = tempfile.mkdtemp(prefix="durable-harness-test-cache-")
    os.environ["DURABLE_HARNESS_CACHE"] = _SCENARIO_CACHE
    atexit.register(shutil.rmtree, _SCENARIO_CACHE, True)


def pytest_configure(config: object) -> None:
    if not hasattr(config, "workerinput"):  # the controlling process (or a run without xdist)
        from durable_harness.harness.isolation._zygote import share_zygote

        share_zygote()
