"""The process driver end to end: real processes, real sockets on loopback, real (compressed) time.

The reference as a process passes and survives a crash point, and its adapter steps only once the
harness has said the run's time; the JavaScript example passes the baseline and is caught by a lost
response; a candidate that cannot be run is exit 3 with its last lines and leaves no process behind,
however the run ends (a test counts the marked processes after every test, and kills the harness
itself in the middle of a run).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from durable_harness.harness import load_scenario, run_scenario
from durable_harness.harness._realtime import TIME_SCALE_ENV
from durable_harness.harness.drivers._ports import listen_port
from durable_harness.harness.cli import main
from tests.e2e._processes import (
    MISBEHAVING, NODE_EXAMPLE, REFERENCE, REPO, marked, survivors, wait_gone, wait_present,
)

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

BASELINE = REPO / "durable_harness" / "scenarios" / "baseline.yaml"


def run(path: Path, candidate: str, out: Path, **changes: Any) -> dict[str, Any]:
    scenario = load_scenario(path)
    if changes:
        scenario = dataclasses.replace(scenario, **changes)
    return run_scenario(scenario, candidate, None, out)


def failing(doc: dict[str, Any]) -> str:
    return json.dumps([c for c in doc["checkers"] if c["verdict"] != "pass"], indent=1) + f"\n{doc['error']}"


def test_the_reference_as_a_process_passes_the_baseline(tmp_path: Path, mark: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TIME_SCALE_ENV)  # the suite compresses time more (tests/conftest.py): here, the default
    doc = run(BASELINE, marked(REFERENCE, mark), tmp_path)
    assert doc["verdict"] == "pass", failing(doc)
    history = [json.loads(line) for line in (tmp_path / "history.jsonl").read_text().splitlines()]
    note = next(e["data"]["process_driver"] for e in history if "process_driver" in e["data"])
    assert note["time_scale"] == 10
    assert any(e["type"] == "report" and e["process"] == "worker-1" for e in history)
    log = (tmp_path / "candidate-worker-1.log").read_text()
    assert "listening on 127.0.0.1:" in log and "durable-harness: start 1 of worker-1" in log


def test_a_step_that_always_says_it_worked_still_lets_the_report_through(tmp_path: Path, mark: str) -> None:
    """The generic wrapper steps an in-process candidate in a loop; one whose step never says "idle"
    must not starve the harness's calls (they go first between two steps)."""
    doc = run(BASELINE, marked(f"{REFERENCE} --candidate tests.candidates.spinning:make", mark), tmp_path)
    assert doc["error"] is None and doc["verdict"] == "pass", failing(doc)


def test_secrets_never_reach_the_candidates_log(tmp_path: Path, mark: str) -> None:
    """A candidate that prints its environment (and its Basic auth header) has it redacted in the log."""
    echo = (f"{sys.executable} -c \"import os, base64; print(os.environ['WORDPRESS_APP_PASSWORD'], "
            "os.environ['OPENAI_API_KEY'], base64.b64encode(('editor:' + os.environ['WORDPRESS_APP_PASSWORD'])"
            ".encode()).decode(), flush=True); import durable_harness.candidates.reference.serve as s; s.main()\"")
    doc = run(BASELINE, marked(echo, mark), tmp_path)
    assert doc["verdict"] == "pass", failing(doc)
    from durable_harness.harness._world import World

    world = World(load_scenario(BASELINE), doc["seed"], tmp_path / "w")
    log = (tmp_path / "candidate-worker-1.log").read_text()
    assert log.count("<redacted>") >= 3
    for secret in world.secrets:
        assert secret not in log
    world.close()


def test_a_crash_is_a_sigkill_at_the_io_point_then_a_restart_on_the_same_database(tmp_path: Path, mark: str) -> None:
    doc = run(REPO / "durable_harness" / "scenarios" / "crash-after-draft-commit.yaml", marked(REFERENCE, mark), tmp_path)
    assert doc["verdict"] == "pass", failing(doc)
    assert doc["timings"]["restarts"] >= 1
    history = [json.loads(line) for line in (tmp_path / "history.jsonl").read_text().splitlines()]
    crash = next(e for e in history if e["type"] == "crash")
    assert "after the fake committed" in crash["data"]["because"]
    assert (tmp_path / "candidate-worker-1.log").read_text().count("durable-harness: start") >= 2


def test_each_start_is_told_the_runs_time_it_began_at(tmp_path: Path, mark: str) -> None:
    """``HARNESS_TIME_START``: the run's time when a start began, which stands still until the process
    answers its health check (one worker): 0 at the first start, the crash's time at the restart."""
    echo = (f"{sys.executable} -c \"import os; print('time-start', os.environ['HARNESS_TIME_START'], flush=True); "
            "import durable_harness.candidates.reference.serve as s; s.main()\"")
    doc = run(REPO / "durable_harness" / "scenarios" / "crash-after-draft-commit.yaml", marked(echo, mark), tmp_path)
    assert doc["verdict"] == "pass", failing(doc)
    starts = [float(line.split()[1]) for line in (tmp_path / "candidate-worker-1.log").read_text().splitlines()
              if line.startswith("time-start ")]
    history = [json.loads(line) for line in (tmp_path / "history.jsonl").read_text().splitlines()]
    crash_s = next(e["time_s"] for e in history if e["type"] == "crash")
    started_s = [e["time_s"] for e in history if e["type"] == "note" and "started" in e["data"]]
    assert len(starts) == 2 and starts[0] < 0.01, starts
    assert crash_s <= starts[1] <= started_s[1] and started_s[1] - starts[1] < 0.01, (starts, crash_s, started_s)


def test_the_crash_point_sweep_runs_in_the_process_driver(tmp_path: Path, mark: str) -> None:
    from durable_harness.harness._sweep import SweepPoint, run_point

    base = load_scenario(BASELINE)
    for point in (SweepPoint(6, "before", "request 6"), SweepPoint(9, "after", "request 9")):
        doc = run_point(base, point, marked(REFERENCE, mark), None, tmp_path)
        assert doc["verdict"] == "pass", failing(doc)
        assert doc["timings"]["restarts"] == 1
        assert doc["faults"][0]["fired"] == 1


def readme_commands() -> list[tuple[list[str], int]]:
    """The README's commands for the JavaScript example, with the exit code each one's comment promises."""
    found = []
    for line in (REPO / "README.md").read_text().splitlines():
        if "cmd:node examples/node-control-plane/server.js" in line and "# exit " in line:
            command, _, comment = line.partition("#")
            found.append((shlex.split(command), int(comment.split()[1].rstrip(":"))))
    return found


def test_the_javascript_example_runs_from_the_readme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    commands = readme_commands()
    assert [code for _, code in commands] == [0, 1]
    monkeypatch.chdir(REPO)
    for n, (argv, promised) in enumerate(commands):
        assert argv[0] == ".venv/bin/durable-harness" and argv[1] == "run"
        code = main([*argv[1:], "--report", str(tmp_path / str(n))])
        out = capsys.readouterr().out
        assert code == promised, out
    assert "duplicate_drafts: fail" in out and "reproduce: durable-harness run --candidate 'cmd:node " in out


def test_the_javascript_example_is_caught_by_a_lost_response(tmp_path: Path, mark: str) -> None:
    doc = run(REPO / "durable_harness" / "scenarios" / "lost-draft-response.yaml", marked(NODE_EXAMPLE, mark), tmp_path)
    assert doc["exit_code"] == 1, failing(doc)
    duplicates = next(c for c in doc["checkers"] if c["name"] == "duplicate_drafts")
    assert duplicates["verdict"] == "fail" and duplicates["count"] == 1
    assert len(duplicates["witnesses"]) == 2
    assert doc["reproduce"].startswith("durable-harness run --candidate 'cmd:env ")
    assert "--scenario" in doc["reproduce"] and "--seed" in doc["reproduce"]


# -- a candidate that cannot be run: exit 3, kind candidate, its last lines, one line, nothing left --

def cannot_run(doc: dict[str, Any], *fragments: str) -> None:
    assert doc["exit_code"] == 3, failing(doc)
    assert doc["error"]["kind"] == "candidate"
    message = doc["error"]["message"]
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


def test_a_command_that_does_not_exist_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--candidate", "cmd:no-such-control-plane --port 1", "--scenario", str(BASELINE),
                 "--report", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 3
    assert err == "durable-harness: error: --candidate 'cmd:no-such-control-plane --port 1': the program " \
                  "'no-such-control-plane' is not on PATH\n"


def test_garbage_on_health_is_exit_3_at_once(tmp_path: Path, mark: str) -> None:
    doc = run(BASELINE, marked(f"{MISBEHAVING} garbage-health", mark), tmp_path)
    cannot_run(doc, "answered GET /health with 'hello, I am up'", "misbehaving candidate: garbage-health")


def test_a_candidate_that_exits_at_start_shows_its_last_lines(tmp_path: Path, mark: str) -> None:
    doc = run(BASELINE, marked(f"{MISBEHAVING} exits", mark), tmp_path)
    cannot_run(doc, "exited at start with status 3", "fatal: cannot read my configuration")


def test_a_candidate_that_never_becomes_healthy_is_given_up_on(tmp_path: Path, mark: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("durable_harness.harness.drivers._process_env.STARTUP_TIMEOUT_S", 2.0)
    doc = run(BASELINE, marked(f"{MISBEHAVING} never-healthy", mark), tmp_path)
    cannot_run(doc, "did not answer GET /health with 200 within 2 s", "CANDIDATE_LISTEN=127.0.0.1:")


def test_a_candidate_that_stops_answering_is_given_up_on(tmp_path: Path, mark: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("durable_harness.harness.drivers._process_driver.CALL_TIMEOUT_S", 2.0)
    doc = run(BASELINE, marked(f"{MISBEHAVING} hangs", mark), tmp_path)
    cannot_run(doc, "did not answer POST /jobs within 2 s (it stopped answering)")


def test_the_whole_process_group_is_killed(tmp_path: Path, mark: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The candidate started a child of its own: it dies with it (the mark fixture counts them)."""
    monkeypatch.setattr("durable_harness.harness.drivers._process_driver.CALL_TIMEOUT_S", 2.0)
    doc = run(BASELINE, marked(f"{MISBEHAVING} forks", mark), tmp_path)
    cannot_run(doc, "stopped answering")


def test_a_port_in_use_is_exit_3_with_the_candidates_complaint(tmp_path: Path, mark: str) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        doc = run(BASELINE, marked(REFERENCE, mark, CANDIDATE_LISTEN=f"127.0.0.1:{port}"), tmp_path)
    cannot_run(doc, "exited at start with status 1", "Address already in use")


def test_a_port_taken_by_another_process_before_the_candidate_binds_it_is_the_harness_loss(
        tmp_path: Path, mark: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The harness names a port that is free when it looks; another process takes it before the
    candidate binds it. Not the candidate's fault: it is started again on another port, and passes."""
    from durable_harness.harness.drivers import _ports

    with socket.socket() as thief:
        thief.bind(("127.0.0.1", 0))
        thief.listen(1)
        stolen = thief.getsockname()[1]
        named: list[int] = []

        def listen_port() -> int:
            named.append(stolen if not named else _ports.listen_port())
            return named[-1]

        monkeypatch.setattr("durable_harness.harness.drivers._process_driver.listen_port", listen_port)
        doc = run(BASELINE, marked(REFERENCE, mark), tmp_path)
    assert doc["verdict"] == "pass", failing(doc)
    assert named[0] == stolen and len(named) == 2 and named[1] != stolen
    log = (tmp_path / "candidate-worker-1.log").read_text()
    assert "Address already in use" in log
    assert f"CANDIDATE_LISTEN=127.0.0.1:{named[1]}; the last start lost its port" in log


# Another harness's candidate: answers GET /health on the port it was named (it listens at once)
_IMPOSTER = """
import http.server, os, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{"ok": true, "capabilities": []}'
        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
        self.wfile.write(body)
    do_POST = do_GET
    def log_message(self, *args): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""


def _imposter(port: int, mark: str) -> subprocess.Popen[bytes]:
    from durable_harness.harness.drivers._ports import START_VARIABLE

    child = subprocess.Popen([sys.executable, "-c", _IMPOSTER, str(port)],
                             env={**os.environ, START_VARIABLE: "another-harness", "DH_PROCESS_MARK": mark})
    for _ in range(200):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1.0).status_code == 200:
                return child
        except httpx.TransportError:
            time.sleep(0.05)
    child.kill()
    raise AssertionError("the imposter never listened")


def test_a_port_answered_by_another_harnesss_candidate_is_the_harness_loss(
        tmp_path: Path, mark: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another harness's candidate took the named port first and answers GET /health at once, before
    this candidate (still importing) fails its bind. The harness must not drive the stranger: it sees
    who holds the port, starts its own candidate again on another port, and the run passes."""
    from durable_harness.harness.drivers import _ports

    taken = _ports.listen_port()
    imposter = _imposter(taken, mark)
    try:
        named: list[int] = []

        def listen_port() -> int:
            named.append(taken if not named else _ports.listen_port())
            return named[-1]

        monkeypatch.setattr("durable_harness.harness.drivers._process_driver.listen_port", listen_port)
        doc = run(BASELINE, marked(REFERENCE, mark), tmp_path)
    finally:
        imposter.kill()
        imposter.wait()
    assert doc["verdict"] == "pass", failing(doc)
    assert named[0] == taken and len(named) == 2 and named[1] != taken
    log = (tmp_path / "candidate-worker-1.log").read_text()
    assert f"CANDIDATE_LISTEN=127.0.0.1:{named[1]}; the last start lost its port" in log


def test_a_port_always_answered_by_another_harnesss_candidate_is_exit_3(
        tmp_path: Path, mark: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every start finds the port taken by another harness's candidate: an error of the harness (exit 3,
    said as such), never a verdict on a candidate that was not the one answering."""
    from durable_harness.harness.drivers import _ports

    taken = _ports.listen_port()
    imposter = _imposter(taken, mark)
    try:
        monkeypatch.setattr("durable_harness.harness.drivers._process_driver.listen_port", lambda: taken)
        doc = run(BASELINE, marked(REFERENCE, mark), tmp_path)
    finally:
        imposter.kill()
        imposter.wait()
    assert doc["exit_code"] == 3, failing(doc)
    assert doc["error"]["kind"] == "harness", doc["error"]
    assert "taken by a process another harness started" in doc["error"]["message"]


def test_the_port_named_to_a_candidate_is_free_and_below_the_ephemeral_range() -> None:
    from durable_harness.harness.drivers import _ports

    top = _ports._ephemeral_start()
    ports = [_ports.listen_port() for _ in range(50)]
    try:
        assert all(not _ports.lost(p) for p in ports)
        if top - _ports._LOWEST >= 1000:
            assert all(_ports._LOWEST <= p < top for p in ports) and len(set(ports)) == 50  # each held: none twice
    finally:
        for port in ports:
            _ports.release(port)

def test_a_workers_scenario_with_a_network_fault_cannot_run_in_the_process_driver(tmp_path: Path, mark: str) -> None:
    scenario = load_scenario(REPO / "durable_harness" / "scenarios" / "network" / "sessions-api-down.yaml")
    object.__setattr__(scenario, "workers", 2)  # proxies are put in front of one worker only
    doc = run_scenario(scenario, marked(REFERENCE, mark), None, tmp_path)
    assert doc["exit_code"] == 3 and doc["error"]["kind"] == "setup"
    assert "workers: 2" in doc["error"]["message"] and "\n" not in doc["error"]["message"]
    assert survivors(mark) == []


# -- the harness itself dies mid-run ---------------------------------------------------------------

@pytest.mark.parametrize(("sig", "scenario"), [(signal.SIGTERM, "lost-draft-response"), (signal.SIGINT, "lost-draft-response"),
                                             (signal.SIGKILL, "lost-draft-response"),
                                             (signal.SIGTERM, "lease-holder-paused-mid-write")],
                         ids=lambda v: v.name if isinstance(v, signal.Signals) else v)
def test_killing_the_harness_mid_run_leaves_no_process_behind(tmp_path: Path, mark: str, sig: signal.Signals,
                                                              scenario: str) -> None:
    """Candidates, workers (two, one of them stopped by SIGSTOP) and servers: none outlives the harness."""
    harness = subprocess.Popen([sys.executable, "-m", "durable_harness.harness.cli", "run", "--candidate", marked(REFERENCE, mark),
                                "--scenario", str(REPO / "durable_harness" / "scenarios" / f"{scenario}.yaml"),
                                "--report", str(tmp_path)], cwd=REPO, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               # in compressed real time, so that the run is still under way when the signal comes
                               env={**os.environ, "DH_HARNESS_CLOCK": "0"})
    try:
        assert wait_present(mark), "the candidate never started"
        time.sleep(2.0 if scenario == "lost-draft-response" else 3.5)  # in the middle of the run (of a pause)
        harness.send_signal(sig)
        out, _ = harness.communicate(timeout=60)
    finally:
        if harness.poll() is None:
            harness.kill()
            harness.communicate()
    assert wait_gone(mark) == [], "the candidate survived the harness"
    if sig != signal.SIGKILL:
        assert harness.returncode == 3, out
        assert f"INTERRUPTED ({sig.name})" in out


def test_the_pytest_plugin_runs_a_process_candidate(pytester: pytest.Pytester, mark: str) -> None:
    for name in ("baseline.yaml", "lost-draft-response.yaml"):
        (pytester.path / name).write_text((REPO / "durable_harness" / "scenarios" / name).read_text())
    result = pytester.runpytest(f"--dh-candidate={marked(NODE_EXAMPLE, mark)}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*duplicate_drafts: fail*", "*reproduce: durable-harness run --candidate 'cmd:env *"])


def test_check_determinism_is_refused_for_a_process_in_one_line(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--candidate", f"cmd:{NODE_EXAMPLE}", "--check-determinism", "--scenario", str(BASELINE),
                 "--report", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 3 and err.count("\n") == 1 and "--check-determinism needs a deterministic driver" in err
    assert "on the process driver, in real time" in err


def test_the_first_step_reads_the_time_the_harness_said(tmp_path: Path, mark: str) -> None:
    """The reference's process adapter (``serve.py``) steps nothing before the harness has said the
    run's time. The run's time stands still while a candidate starts or restarts, so a clock guessed
    from ``HARNESS_TIME_ORIGIN`` and the wall clock runs ahead by every start and restart so far,
    ``scale`` times over: the reference, restarted after a crash right after its session create,
    took a listing that still lagged for one a minute old and created a second session
    (``session-listing-lags``, red under load: 2 of 6 runs at scale 60 before the fix)."""
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
