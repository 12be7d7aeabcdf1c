"""`kill -USR1 <pid>` prints every thread's stack and never ends the harness, however busy its threads.

The stacks used to be dumped by ``faulthandler.register``: a C handler that walks the other threads'
frames at any instant, while they run. A thread that starts, ends or returns from a call while it is
being walked leaves the handler reading freed memory, and the harness died of a segmentation fault
in the middle of the dump (CPython issue 116008, on 3.11). That happened once in a whole-suite run
(the catalogue's worker threads); below, a harness whose threads churn died within 14 to 220
signals, every time.
The dump now runs from a Python-level handler, in the main thread, with the interpreter's lock held:
no other thread moves while it is written.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

_CHURN = """
import sys, threading
from durable_harness.harness import cli

def deep(n):
    return deep(n - 1) if n else sum(range(50))

def churn():
    for _ in range(100):
        deep(12)

stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
with cli._signals_as_interrupts():
    print("ready", flush=True)
    while not stop.is_set():  # threads start, call, return and end, all the time
        threads = [threading.Thread(target=churn) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
print("survived", flush=True)
"""

SIGNALS = 300


def test_stacks_are_printed_while_threads_start_and_end_and_the_harness_lives_on(tmp_path: Path) -> None:
    err = tmp_path / "stderr"  # a file, not a pipe: 300 dumps would fill a pipe nobody reads yet
    with err.open("w") as err_file, subprocess.Popen(
            [sys.executable, "-c", _CHURN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err_file,
            text=True) as process:
        assert process.stdout is not None and process.stdin is not None
        try:
            assert process.stdout.readline() == "ready\n"
            sent = 0
            while sent < SIGNALS and process.poll() is None:
                os.kill(process.pid, signal.SIGUSR1)
                sent += 1
                time.sleep(0.002)
            out, _ = process.communicate(timeout=60)  # closes its stdin: the churn stops
        finally:
            if process.poll() is None:
                process.kill()
    dumped = err.read_text()
    assert process.returncode == 0 and out == "survived\n", (
        f"the harness died of signal {-process.returncode} after {sent} of {SIGNALS} SIGUSR1"
        if process.returncode < 0 else f"exit {process.returncode}: {out}{dumped[-3000:]}")
    assert sent == SIGNALS and dumped.count("(most recent call first)") >= SIGNALS, dumped[-3000:]
    assert "Fatal Python error" not in dumped
