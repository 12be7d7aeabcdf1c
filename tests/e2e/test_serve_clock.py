"""The reference's process adapter (``candidates/reference/serve.py``) steps nothing before the
harness has said the run's time. The run's time stands still while a candidate starts or restarts,
so a clock that guessed it from ``HARNESS_TIME_ORIGIN`` and the wall clock would run ahead by every
start and restart so far, ``HARNESS_TIME_SCALE`` times over: the reference, restarted after a crash
right after its session create, took a listing that still lagged for one a minute old and created a
second session (``session-listing-lags``, red under load: 2 of 6 runs at scale 60 before the fix)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from durable_harness.harness.candidate._ports import listen_port
from tests.e2e._processes import REPO, kill_marked, marked, new_mark, wait_gone

pytestmark = pytest.mark.e2e


@pytest.fixture
def mark() -> Iterator[str]:
    token = new_mark()
    yield token
    left = wait_gone(token)
    kill_marked(token)
    assert left == [], f"processes left behind: {left}"


def test_the_first_step_reads_the_time_the_harness_said(tmp_path: Path, mark: str) -> None:
    probe, port = tmp_path / "first-step", listen_port()
    scale = 20.0
    env = {**os.environ, "CLOCK_PROBE_FILE": str(probe), "CANDIDATE_LISTEN": f"127.0.0.1:{port}",
           "HARNESS_TIME_SCALE": str(scale), "HARNESS_TIME_ORIGIN": str(time.time() - 1000.0),  # started long ago
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite'}", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
           "OPENAI_API_KEY": "k", "OPENAI_WEBHOOK_SECRET": "s", "WORDPRESS_URL": "http://127.0.0.1:9",
           "WORDPRESS_USERNAME": "u", "WORDPRESS_APP_PASSWORD": "p", "APPROVALS_URL": "http://127.0.0.1:9",
           "APPROVALS_TOKEN": "t"}
    command = marked(f"{sys.executable} -m durable_harness.candidates.reference.serve "
                     "--candidate tests.e2e.process_candidates.clock_probe:create", mark)
    process = subprocess.Popen(command.removeprefix("cmd:"), shell=True, cwd=REPO, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60.0
        while True:  # listening: the adapter is up, and has had a second to step if it would
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the adapter never listened"
                time.sleep(0.1)
        time.sleep(1.0)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5.0) as http:
            assert not probe.exists(), f"stepped before the harness said the time: {probe.read_text()}"
            http.get("/health", headers={"X-Harness-Time": "5.000000"})
            while not probe.exists():
                assert time.monotonic() < deadline, "never stepped after the harness said the time"
                time.sleep(0.05)
        seen = float(probe.read_text())
        assert 5.0 <= seen < 5.0 + 5.0 * scale, seen  # the said time (and what passed since), not 20,000 s
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the adapter and all it started (its own session)
        process.wait()
