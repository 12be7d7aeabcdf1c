"""A write sent before the user's cancellation was acknowledged is recorded before the
acknowledgement, as a process too, however slow either side is.

The bundled reference as a process takes a control call while its step waits for the world. It must
let the call in only once the step's request has left whole: a cancel let in while the bytes of an
upload decided before it had not left yet was acknowledged before the upload reached WordPress (a
write after the acknowledgement, as CI once judged it). And the harness reads the candidate's
requests and its control calls' answers on different threads: a request the candidate sent before
it answered is recorded before the answer, even when the harness is slow to read it.

The candidate (``process_candidates/late_cancel.py``) makes both races certain rather than rare: its
writes wait before they leave, and its cancels arrive late, while the upload is on its way.
"""

from __future__ import annotations

import json
import shlex
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness import load_scenario, run_scenario
from durable_harness.harness._loopback import LoopbackServers
from tests.e2e._processes import REPO, marked, story

pytestmark = pytest.mark.e2e

SCENARIO = REPO / "durable_harness" / "scenarios" / "cancel-before-first-write.yaml"
ATTEMPTS = 6
LATE_CANCEL = f"{shlex.quote(sys.executable)} {shlex.quote(str(REPO / 'tests' / 'e2e' / 'process_candidates' / 'late_cancel.py'))}"


def _raced(tmp_path: Path, mark: str) -> None:
    """Run until the race takes place (the upload is sent, the cancel arrives while it is on its
    way): the harness may also take the cancel's answer before it answers one of the candidate's
    reads, and then there is no upload to race. Where it took place, the upload is recorded before
    the acknowledgement and the run passes."""
    for attempt in range(1, ATTEMPTS + 1):
        out = tmp_path / f"attempt-{attempt}"
        doc = run_scenario(load_scenario(SCENARIO), marked(LATE_CANCEL, mark), None, out)
        history = [json.loads(line) for line in (out / "history.jsonl").read_text().splitlines()]
        uploads = [e["index"] for e in history if e["type"] == "invoke" and e["data"].get("route") == "/wp/v2/media"]
        acks = [e["index"] for e in history if e["type"] == "action" and e["data"].get("kind") == "cancel"
                and e["data"]["evidence"].get("acknowledged")]
        if not uploads:
            continue
        assert acks, f"the cancel was never acknowledged\n{story(out)}"
        assert uploads[0] < acks[0], (f"attempt {attempt}: the upload (#{uploads[0]}) is recorded after the "
                                      f"acknowledgement (#{acks[0]})\n{story(out)}")
        assert doc["verdict"] == "pass", story(out)
        return
    pytest.fail(f"the race did not take place in {ATTEMPTS} attempts")


def test_a_cancel_waits_until_the_write_decided_before_it_has_left(tmp_path: Path, mark: str) -> None:
    _raced(tmp_path, mark)


def test_a_request_sent_before_the_answer_is_recorded_before_it_however_late_it_is_read(
        tmp_path: Path, mark: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The harness reads the upload half a second late (its servers' threads made slow on purpose):
    the cancel's answer, read meanwhile on another thread, still waits for it."""
    dispatch = LoopbackServers._dispatch
    late: list[str] = []

    def slow_dispatch(self: LoopbackServers, raw: Any) -> Any:
        if raw.method == "POST" and raw.url.path.endswith("/wp/v2/media"):
            late.append(threading.current_thread().name)
            time.sleep(0.5)
        return dispatch(self, raw)

    monkeypatch.setattr(LoopbackServers, "_dispatch", slow_dispatch)
    _raced(tmp_path, mark)
    assert late, "the upload never reached the harness's servers"
