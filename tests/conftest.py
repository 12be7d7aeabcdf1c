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

The scenario files the harness has found valid are kept in a folder of this test process's own
(``DURABLE_HARNESS_CACHE``, inherited by the processes the tests start), never in the user's.
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

if "DURABLE_HARNESS_CACHE" not in os.environ:
    _SCENARIO_CACHE = tempfile.mkdtemp(prefix="durable-harness-test-cache-")
    os.environ["DURABLE_HARNESS_CACHE"] = _SCENARIO_CACHE
    atexit.register(shutil.rmtree, _SCENARIO_CACHE, True)
