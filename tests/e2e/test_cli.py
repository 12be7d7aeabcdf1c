"""The command line end to end, as a user types it (a real subprocess for the exit codes)."""

from __future__ import annotations

import json
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

REPO = Path(__file__).parents[2]
SCENARIOS = REPO / "durable_harness" / "scenarios"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "durable_harness.harness.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.slow  # the whole catalogue, the crash-point sweep included
def test_reference_passes_the_catalogue(tmp_path: Path) -> None:
    result = cli("run", "--report", str(tmp_path / "r"), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    n = len(list(SCENARIOS.glob("*.yaml")))
    assert f"{n} of {n} scenarios ran for reference, {n} passed" in result.stdout
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert "baseline" in summary and "lost-draft-response" in summary
    assert (tmp_path / "r" / "junit.xml").exists()
    doc = json.loads((tmp_path / "r" / "lost-draft-response" / "run.json").read_text())
    assert doc["verdict"] == "pass" and doc["faults"][0]["fired"] == 1


def test_blind_retry_is_caught_with_witness_and_reproduce_command(tmp_path: Path) -> None:
    # -j 1: one after the other, so the progress lines come in the catalogue's order (with workers,
    # as each finishes; test_parallel holds that output)
    result = cli("run", "-j", "1", "--candidate", "mutant:blind-retry", "--scenario",
                 str(SCENARIOS / "lost-draft-response.yaml"), "--scenario", str(SCENARIOS / "lost-media-response-2.yaml"),
                 "--report", str(tmp_path / "r"), cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "duplicate_drafts=1" in result.stdout and "duplicate_media=1" in result.stdout
    assert "witness history.jsonl #" in result.stdout
    assert f"reproduce: durable-harness run --candidate mutant:blind-retry --scenario {SCENARIOS / 'lost-draft-response.yaml'} --seed" in result.stdout
    doc = json.loads((tmp_path / "r" / "lost-draft-response" / "run.json").read_text())
    dup = next(c for c in doc["checkers"] if c["name"] == "duplicate_drafts")
    assert dup["verdict"] == "fail" and dup["count"] >= 1 and dup["witnesses"]
    # Not a terminal: a plain line per scenario; then the top findings and where report.html is.
    assert result.stdout.startswith("[1/2] FAIL     lost-draft-response")
    assert "\n[2/2] FAIL     lost-media-response-2" in result.stdout and "\r" not in result.stdout
    tail = result.stdout.split("2 of 2 scenarios ran for mutant:blind-retry, 0 passed; exit 1 (a safety violation)")[1]
    assert "top findings:\n  1. duplicate_drafts (safety fail) in 1 scenario: lost-draft-response" in tail
    assert tail.rstrip().endswith(f"report: {tmp_path / 'r' / 'report.html'}")
    html = (tmp_path / "r" / "report.html").read_text()
    assert "durable-harness: fail, exit code 1" in html and 'class="finding v-fail"' in html


def test_reproduce_command_reproduces_the_same_history(tmp_path: Path) -> None:
    first = cli("run", "--candidate", "mutant:blind-retry", "--scenario", str(SCENARIOS / "lost-draft-response.yaml"),
                "--report", str(tmp_path / "a"), cwd=tmp_path)
    doc = json.loads((tmp_path / "a" / "lost-draft-response" / "run.json").read_text())
    command = doc["reproduce"].split()[1:] + ["--report", str(tmp_path / "b")]
    second = cli(*command, cwd=tmp_path)
    assert first.returncode == second.returncode == 1
    a = (tmp_path / "a" / "lost-draft-response" / "history.jsonl").read_bytes()
    b = (tmp_path / "b" / "lost-draft-response" / "history.jsonl").read_bytes()
    assert a == b


def test_malformed_scenario_is_one_line_exit_3_no_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text((SCENARIOS / "lost-draft-response.yaml").read_text().replace("nth: 1", "nth: 0"))
    for command in (["run", "--scenario", str(bad)], ["validate", str(bad)]):
        result = cli(*command, cwd=tmp_path)
        assert result.returncode == 3
        assert result.stderr.strip().count("\n") == 0, result.stderr
        assert f"{bad}: faults[0].at.nth: 0 is invalid" in result.stderr
        assert "Traceback" not in result.stderr


@pytest.mark.parametrize("spec", ["mutant:nope", "no_such_module:create", "bogus"])
def test_bad_candidate_is_exit_3(tmp_path: Path, spec: str) -> None:
    result = cli("run", "--candidate", spec, "--scenario", str(SCENARIOS / "baseline.yaml"), cwd=tmp_path)
    assert result.returncode == 3 and "--candidate" in result.stderr and "Traceback" not in result.stderr


def test_validate_and_list(tmp_path: Path) -> None:
    result = cli("validate", cwd=tmp_path)
    assert result.returncode == 0 and "scenario file(s) valid" in result.stdout
    listing = cli("list", cwd=tmp_path)
    assert listing.returncode == 0
    for word in ("lost-draft-response", "mutant:blind-retry", "lose_response", "duplicate_drafts"):
        assert word in listing.stdout


def test_render_rebuilds_outputs_without_rerunning(tmp_path: Path) -> None:
    cli("run", "--scenario", str(SCENARIOS / "baseline.yaml"), "--report", str(tmp_path / "r"), cwd=tmp_path)
    html = (tmp_path / "r" / "report.html").read_bytes()
    for name in ("summary.md", "report.html"):
        (tmp_path / "r" / name).unlink()
    result = cli("render", str(tmp_path / "r"), "--allure", str(tmp_path / "allure"), cwd=tmp_path)
    assert result.returncode == 0 and (tmp_path / "r" / "summary.md").exists()
    assert (tmp_path / "r" / "report.html").read_bytes() == html
    assert len(list((tmp_path / "allure").glob("*-result.json"))) == 1


@pytest.mark.parametrize("args", [
    ["run", "--shard", "3/2"], ["run", "--shard", "a/b"], ["sweep", "--shard", "0/1"], ["render", "."],
    ["merge", "nowhere"], ["run", "--shard", "99/99", "--scenario", str(SCENARIOS / "baseline.yaml")],
])
def test_bad_shards_and_report_folders_are_one_line_exit_3(tmp_path: Path, args: list[str]) -> None:
    result = cli(*args, cwd=tmp_path)
    assert result.returncode == 3, result.stdout + result.stderr
    assert result.stderr.strip().count("\n") == 0 and result.stderr.startswith("durable-harness: error: "), result.stderr
    assert not (tmp_path / "harness-report").exists()  # refused before anything was written


@pytest.mark.parametrize("args", [
    ["run", "--report", "/proc/durable-harness-nope", "--scenario", str(SCENARIOS / "baseline.yaml")],
    ["run", "--seed", "abc"], ["run", "--seed", "-1"], ["run", "--seed", str(2**64)], ["frobnicate"],
    ["sweep", "--point", "17:sideways"], ["run", "--no-such-flag"],
])
def test_every_harness_side_failure_is_exit_3_without_a_traceback(tmp_path: Path, args: list[str]) -> None:
    result = cli(*args, cwd=tmp_path)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "durable-harness" in result.stderr


def test_an_unwritable_report_folder_is_one_line(tmp_path: Path) -> None:
    result = cli("run", "--report", "/proc/durable-harness-nope", "--scenario", str(SCENARIOS / "baseline.yaml"), cwd=tmp_path)
    assert result.returncode == 3 and result.stderr.strip().count("\n") == 0, result.stderr
    assert "/proc/durable-harness-nope" in result.stderr


def test_a_point_beyond_the_clean_run_is_a_clear_error(tmp_path: Path) -> None:
    result = cli("sweep", "--point", "9999:after", "--report", str(tmp_path / "s"), cwd=tmp_path)
    assert result.returncode == 3 and "K must be 1 to" in result.stderr, result.stderr


def test_an_unexpected_error_is_one_line_and_a_kept_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from durable_harness.harness import cli as module

    def explode(args: object) -> int:
        raise RuntimeError("a bug of the harness")

    monkeypatch.setattr(module, "_cmd_run", explode)
    code = module.main(["run", "--report", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 3 and err.count("\n") == 1
    assert "internal error: RuntimeError: a bug of the harness" in err and str(tmp_path / "r" / "harness-error.txt") in err
    assert "Traceback" in (tmp_path / "r" / "harness-error.txt").read_text()


def _answered(process: subprocess.Popen[str], timeout_s: float = 120) -> tuple[str, str]:
    """What a signalled harness printed once it stopped; killed (and the test failed, saying so)
    if it did not stop in time, never left running into the next test."""
    try:
        return process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGUSR1)  # every thread's stack on its stderr, to see where it waits
        time.sleep(2.0)
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"the harness did not stop within {timeout_s:g} s of the signal:\n{out[-2000:]}\n{err[-12000:]}")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_mid_catalogue_leaves_a_valid_partial_report(tmp_path: Path, sig: signal.Signals) -> None:
    report = tmp_path / "r"
    process = subprocess.Popen([sys.executable, "-m", "durable_harness.harness.cli", "run", "--report", str(report)], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    first = process.stdout.readline()  # one scenario has finished
    process.send_signal(sig)
    out, err = _answered(process)
    assert process.returncode == 3, first + out + err
    assert "INTERRUPTED" in out and "the report is partial" in out and "Traceback" not in err
    index = json.loads((report / "report.json").read_text())
    assert index["partial"] is True and index["interrupted_by"] == sig.name and index["completed"] >= 1
    summary = (report / "summary.md").read_text()
    assert "PARTIAL REPORT" in summary and sig.name in summary
    rendered = cli("render", str(report), cwd=tmp_path)
    assert rendered.returncode == 0, rendered.stderr
    assert "PARTIAL REPORT" in (report / "summary.md").read_text()


def test_sigusr1_prints_every_threads_stack_and_the_run_goes_on(tmp_path: Path) -> None:
    """For a harness that seems stuck: `kill -USR1` shows where each thread waits, and stops nothing."""
    report = tmp_path / "r"
    process = subprocess.Popen([sys.executable, "-m", "durable_harness.harness.cli", "run", "--report", str(report)], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    first = process.stdout.readline()
    process.send_signal(signal.SIGUSR1)
    second = process.stdout.readline()  # the run went on: another scenario finished
    process.send_signal(signal.SIGINT)
    out, err = _answered(process)
    assert first and second and process.returncode == 3, first + second + out + err
    assert "(most recent call first)" in err and "Traceback" not in err, err


@pytest.mark.slow
def test_a_signal_in_the_middle_of_a_sweep_leaves_the_sweeps_own_partial_report(tmp_path: Path) -> None:
    """The candidate as a process, so its points run one after the other in real time: interrupted at
    a crash point, the report is the sweep's (its id, interrupted), never a point's run mistaken for
    a stale run of another report."""
    report = tmp_path / "r"
    serve = f"cmd:{shlex.quote(sys.executable)} -m durable_harness.candidates.reference.serve"
    process = subprocess.Popen([sys.executable, "-m", "durable_harness.harness.cli", "run", "-j", "1", "--candidate", serve,
                                "--scenario", str(SCENARIOS / "restart-at-every-io-point.yaml"), "--report", str(report)],
                               cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(600):  # until a crash point has run (bounded: a point takes seconds)
        if (report / "restart-at-every-io-point" / "points").is_dir() and any((report / "restart-at-every-io-point" / "points").iterdir()):
            break
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    out, err = _answered(process)
    assert process.returncode == 3 and "internal error" not in err and "Traceback" not in err, out + err
    doc = json.loads((report / "restart-at-every-io-point" / "run.json").read_text())
    assert doc["scenario"]["id"] == "restart-at-every-io-point" and doc["error"]["kind"] == "interrupted"
    assert json.loads((report / "report.json").read_text())["partial"] is True


def test_render_refuses_a_folder_that_mixes_candidates(tmp_path: Path) -> None:
    cli("run", "--scenario", str(SCENARIOS / "baseline.yaml"), "--report", str(tmp_path / "a"), cwd=tmp_path)
    cli("run", "--candidate", "mutant:blind-retry", "--scenario", str(SCENARIOS / "lost-draft-response.yaml"),
        "--report", str(tmp_path / "b"), cwd=tmp_path)
    shutil.copytree(tmp_path / "b" / "lost-draft-response", tmp_path / "a" / "lost-draft-response")
    result = cli("render", str(tmp_path / "a"), cwd=tmp_path)
    assert result.returncode == 3 and "mutant:blind-retry" in result.stderr and "reference" in result.stderr
    assert "Traceback" not in result.stderr


def test_folders_of_the_users_with_our_old_names_shadow_nothing(tmp_path: Path) -> None:
    """A user's own packages named reports, scenarios, harness, fakes, wire or candidates, in the
    folder the command runs from and on PYTHONPATH: the harness imports none of them."""
    for name in ("reports", "scenarios", "harness", "fakes", "wire", "candidates"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"raise RuntimeError('the user\\'s own {name} package was imported')\n")
    (tmp_path / "scenarios" / "mine.yaml").write_text("not: a scenario of the catalogue\n")
    env = {**__import__("os").environ, "PYTHONPATH": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "durable_harness.harness.cli", "run", "--scenario",
                             str(SCENARIOS / "baseline.yaml"), "--report", str(tmp_path / "r")],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    listed = subprocess.run([sys.executable, "-m", "durable_harness.harness.cli", "list"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0 and "lost-draft-response" in listed.stdout and "mine" not in listed.stdout
