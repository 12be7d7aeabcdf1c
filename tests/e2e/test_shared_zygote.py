"""One zygote's warm-up for many harness processes (``DH_ZYGOTE``, ``candidate._zygote``).

A harness process started with the variable forks its instances from a zygote of its own forked
from the one the variable names (warm already), when that zygote's key (interpreter, environment
passed on) is its own; each instance runs where its
requester is (working directory, search path), so a candidate module beside a command line that
the zygote's owner never saw is found. A zygote with another key, or one that is gone, is not
used: the process starts its own, and its runs are the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness import load_scenario, run_scenario
from durable_harness.harness.isolation._zygote import SHARED_ZYGOTE, Zygote

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

REPO = Path(__file__).parents[2]
BASELINE = REPO / "durable_harness" / "scenarios" / "baseline.yaml"

# Runs the baseline in a fresh harness process; prints which zygote it forked from and the run.
_PROBE = """
import json, sys
from durable_harness.harness import load_scenario, run_scenario
from durable_harness.harness.isolation._zygote import zygote
doc = run_scenario(load_scenario(sys.argv[1]), sys.argv[2])
one = zygote()
parent = int(open(f"/proc/{one.pid}/stat").read().rsplit(")", 1)[1].split()[1])
print(json.dumps({"pid": one.pid, "parent": parent, "shared": one.shared, "verdict": doc["verdict"],
                  "error": doc["error"],
                  "digest": doc["history"]["digest"]}))
"""


@pytest.fixture(scope="module")
def owner() -> Iterator[Zygote]:
    """A zygote this test process started itself, whatever the suite shares."""
    one = Zygote.start()
    one.ready()
    yield one
    one.close()


@pytest.fixture(scope="module")
def baseline_digest() -> str:
    return str(run_scenario(load_scenario(BASELINE), "reference")["history"]["digest"])


def _probe(cwd: Path, candidate: str = "reference", **env: str) -> dict[str, Any]:
    environ = {k: v for k, v in os.environ.items() if k != SHARED_ZYGOTE}
    environ.update(env)
    environ["PYTHONPATH"] = str(REPO)
    done = subprocess.run([sys.executable, "-c", _PROBE, str(BASELINE), candidate], cwd=cwd, env=environ,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_a_harness_process_forks_from_the_zygote_it_is_given(owner: Zygote, baseline_digest: str,
                                                             tmp_path: Path) -> None:
    assert owner.address is not None
    seen = _probe(tmp_path, **{SHARED_ZYGOTE: owner.address})
    assert (seen["parent"], seen["shared"]) == (owner.pid, True), seen  # a fork of it, made for this process
    assert (seen["verdict"], seen["error"], seen["digest"]) == ("pass", None, baseline_digest)


def test_an_instance_runs_where_its_requester_is(owner: Zygote, tmp_path: Path) -> None:
    """A candidate module in the requester's folder, unknown to the zygote's owner: found, and run."""
    (tmp_path / "beside_me.py").write_text(
        "from durable_harness.candidates.reference import create\n\ndef make(env):\n    return create(env)\n")
    assert owner.address is not None
    seen = _probe(tmp_path, "beside_me:make", **{SHARED_ZYGOTE: owner.address})
    assert (seen["parent"], seen["shared"], seen["verdict"], seen["error"]) == (owner.pid, True, "pass", None), seen


def test_a_zygote_with_another_environment_is_not_used(owner: Zygote, baseline_digest: str, tmp_path: Path) -> None:
    """What the zygote passes on to instances differs (a variable passed through): a zygote of its own."""
    assert owner.address is not None
    seen = _probe(tmp_path, **{SHARED_ZYGOTE: owner.address, "DH_PASS_ENV": "DH_TEST_MARK", "DH_TEST_MARK": "1"})
    assert seen["parent"] != owner.pid and seen["shared"] is False, seen
    assert (seen["verdict"], seen["digest"]) == ("pass", baseline_digest)


def test_a_zygote_that_is_gone_is_not_used(baseline_digest: str, tmp_path: Path) -> None:
    gone = Zygote.start()
    gone.ready()
    address, pid = gone.address, gone.pid
    gone.close()
    assert address is not None
    seen = _probe(tmp_path, **{SHARED_ZYGOTE: address})
    assert seen["parent"] != pid and seen["shared"] is False, seen
    assert (seen["verdict"], seen["digest"]) == ("pass", baseline_digest)


def test_run_j_and_the_plugin_share_their_zygote_with_their_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """``run -j N`` names its zygote to its workers before it starts them; not for a command's run."""
    from durable_harness.harness import _parallel
    from durable_harness.harness.isolation._zygote import zygote

    monkeypatch.delenv(SHARED_ZYGOTE, raising=False)
    _parallel._share_the_zygote("cmd:python -m durable_harness.candidates.reference.serve")
    assert SHARED_ZYGOTE not in os.environ
    _parallel._share_the_zygote("reference")
    assert os.environ[SHARED_ZYGOTE] == zygote().address


def _state(pid: int) -> str:
    """A process's state letter (``Z``: it has ended, not yet reaped), or ``gone``."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def test_a_dedicated_zygote_ends_with_its_harness_process(owner: Zygote, tmp_path: Path) -> None:
    """A harness process killed (SIGKILL: no clean-up of its own) takes its zygote along, and so the
    instances forked from it (they die with their zygote)."""
    import time

    assert owner.address is not None
    environ = {**{k: v for k, v in os.environ.items() if k != SHARED_ZYGOTE}, SHARED_ZYGOTE: owner.address,
               "PYTHONPATH": str(REPO)}
    script = ("import time; from durable_harness.harness.isolation._zygote import zygote; z = zygote(); "
              "print(z.pid, z.shared, flush=True); time.sleep(600)")
    harness = subprocess.Popen([sys.executable, "-c", script], cwd=tmp_path, env=environ, stdout=subprocess.PIPE,
                               text=True)
    try:
        assert harness.stdout is not None
        pid, shared = harness.stdout.readline().split()
        assert shared == "True" and _state(int(pid)) not in ("Z", "gone")
    finally:
        harness.kill()
        harness.wait()
        if harness.stdout is not None:
            harness.stdout.close()
    for _ in range(100):
        if _state(int(pid)) in ("Z", "gone"):
            break
        time.sleep(0.05)
    assert _state(int(pid)) in ("Z", "gone"), f"the dedicated zygote {pid} outlived its harness process"


def test_a_zygote_that_cannot_start_is_not_shared_and_nothing_breaks_there(monkeypatch: pytest.MonkeyPatch) -> None:
    """``share_zygote`` runs where a failure must not stop everything (pytest's configuration, ``run
    -j`` before its workers): a zygote that cannot start is left to each run to report."""
    from durable_harness.harness import _errors
    from durable_harness.harness.isolation import _zygote

    def cannot(cls: Any) -> Zygote:
        raise _errors.HarnessError("the harness could not start the process its candidates are forked from")

    monkeypatch.setattr(_zygote, "_ZYGOTE", [])
    monkeypatch.delenv(SHARED_ZYGOTE, raising=False)
    monkeypatch.setattr(Zygote, "start", classmethod(cannot))
    _zygote.share_zygote()
    assert SHARED_ZYGOTE not in os.environ
