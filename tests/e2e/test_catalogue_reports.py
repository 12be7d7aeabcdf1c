"""The whole catalogue of a failing mutant, as CI would run it: one run, the same run in two shards
merged back together, report.html within its budget, and the pytest plugin's Allure results.

Slow (the catalogue, the crash-point sweep included, several times); ``make test`` runs them.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).parents[2]
SCENARIOS = REPO / "durable_harness" / "scenarios"
MUTANT = "mutant:blind-retry"


Started = tuple[subprocess.Popen[bytes], Path]


def cli(*args: str, cwd: Path) -> Started:
    """The command line in the background, its output into a file (several may run side by side)."""
    log = cwd / f"cli-{len(list(cwd.glob('cli-*.log')))}.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "durable_harness.harness.cli", *args], cwd=cwd, stdout=out,
                                   stderr=subprocess.STDOUT)
    return process, log


def finish(started: Started, timeout_s: float = 900) -> tuple[int, str]:
    process, log = started
    process.wait(timeout=timeout_s)
    return process.returncode, log.read_text()


def runs_of(folder: Path) -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in folder.glob("*/run.json")}


def allure_results(folder: Path) -> dict[str, dict[str, Any]]:
    results = [json.loads(p.read_text()) for p in folder.glob("*-result.json")]
    return {r["name"]: r for r in results}


def test_two_shards_merged_equal_one_run_and_report_html_stays_in_budget(tmp_path: Path) -> None:
    # The whole catalogue and its two shards side by side (as CI jobs would run the shards), so all
    # three see the same code.
    whole_run = cli("run", "--candidate", MUTANT, "--report", "whole", "--allure", "allure", cwd=tmp_path)
    shards = [cli("run", "--candidate", MUTANT, "--shard", f"{k}/2", "--report", f"shard-{k}", cwd=tmp_path)
              for k in (1, 2)]
    code, out = finish(whole_run)
    assert code == 1, out
    assert f"report: {Path('whole') / 'report.html'}" in out and "top findings:" in out
    results = [finish(p) for p in shards]
    assert all(c in (0, 1, 2) for c, _ in results) and 1 in [c for c, _ in results], results
    code, out = finish(cli("merge", "shard-1", "shard-2", "--report", "merged", "--allure", "merged-allure",
                           cwd=tmp_path))
    assert code == 1, out

    whole, merged = tmp_path / "whole", tmp_path / "merged"
    # Every run.json alike but for provenance (a commit landing while the catalogue runs changes it):
    # the same verdicts, counters, witnesses, truth and history digests.
    assert _judged(whole) == _judged(merged)
    assert len(runs_of(whole)) == len(list(SCENARIOS.glob("*.yaml")))
    for name in ("summary.md", "junit.xml"):
        first, second = ((f / name).read_text() for f in (whole, merged))
        assert _without_header(first) == _without_header(second), name
    index = json.loads((merged / "report.json").read_text())
    assert index["partial"] is False and index["exit_code"] == 1 and index["shard"] is None
    def labelled(folder: Path) -> dict[str, Any]:
        return {n: (r["status"], [lb for lb in r["labels"] if lb["name"] != "harness"])
                for n, r in allure_results(folder).items()}

    assert labelled(tmp_path / "allure") == labelled(tmp_path / "merged-allure")

    spec = importlib.util.spec_from_file_location("bench_report", REPO / "benchmarks" / "bench_report.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    _seconds, size, entries, _cpu = bench.measure(whole, repeat=1)
    # Its size is the report's own; its speed is measured by the benchmark (benchmarks/bench_report.py),
    # never asserted here: a slower machine may make the suite slower, never red.
    assert size < bench.BUDGET_BYTES and entries > 1000


def _judged(folder: Path) -> dict[str, Any]:
    docs = {name: json.loads(text) for name, text in runs_of(folder).items()}
    for doc in docs.values():
        doc.pop("harness"), doc["candidate"].pop("digest")
    return docs


def _without_header(text: str) -> str:
    """A report without the lines that name when, how and by which code it was made."""
    return "\n".join(line for line in text.splitlines()
                     if not line.startswith(("- Started:", "- Command:", "- Harness:", "- Candidate:"))
                     and not re.search(r'name="(harness\.commit|candidate\.digest)"', line))


def test_the_plugin_writes_one_allure_test_per_scenario(tmp_path: Path) -> None:
    # pytest --dh-candidate mutant:blind-retry --alluredir=out durable_harness/scenarios/  (with -n 2: xdist spreads the scenarios)
    result = subprocess.run([sys.executable, "-m", "pytest", "--dh-candidate", MUTANT, f"--alluredir={tmp_path / 'out'}",
                             "durable_harness/scenarios/", "-n", "2", "-p", "no:cacheprovider", "-q", "--dh-report", str(tmp_path / "r")],
                            cwd=REPO, capture_output=True, text=True, timeout=900)
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    results = allure_results(tmp_path / "out")
    assert sorted(results) == sorted(p.stem for p in SCENARIOS.rglob("*.yaml"))  # one test per scenario
    network = {p.stem for p in (SCENARIOS / "network").glob("*.yaml")}
    for name, res in results.items():
        if name in network:  # a network fault needs a candidate process: skipped, and said so
            assert res["status"] == "skipped" and "process driver" in res["statusDetails"]["message"], res
            continue
        run = json.loads((tmp_path / "r" / name / "run.json").read_text())
        labels = {(label["name"], label["value"]) for label in res["labels"]}
        assert ("verdict", run["verdict"]) in labels and ("suite", MUTANT) in labels
        assert {(f"counter.{k}", str(v)) for k, v in run["counters"].items()} <= labels
        assert res["status"] == {"pass": "passed", "fail": "failed"}.get(run["verdict"], "broken"), name
        names = [a["name"] for a in res["attachments"]]
        assert names[:2] == ["verdict", "because and witnesses"] and "history.jsonl" in names
        assert "timeline.html" in names and "reproduce" in names
    failed = [n for n, r in results.items() if r["status"] == "failed"]
    assert "lost-draft-response" in failed and "baseline" not in failed


def test_the_plugin_under_xdist_and_the_command_line_agree(tmp_path: Path) -> None:
    names = ["baseline", "lost-draft-response", "lost-media-response-2"]
    for name in names:
        (tmp_path / f"{name}.yaml").write_text((SCENARIOS / f"{name}.yaml").read_text())
    plugin = subprocess.run([sys.executable, "-m", "pytest", "--dh-candidate", MUTANT, "--alluredir", "plugin",
                             "-n", "2", "-p", "no:cacheprovider", "-q", *(f"{n}.yaml" for n in names)],
                            cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert plugin.returncode == 1, plugin.stdout[-3000:]
    code, out = finish(cli("run", "--candidate", MUTANT, "--allure", "cli", "--report", "r",
                           *(a for n in names for a in ("--scenario", f"{n}.yaml")), cwd=tmp_path))
    assert code == 1, out
    ours = {"verdict", "safety", "liveness", "exit_code", "seed", "severity", "tag", "story", "suite", "parentSuite",
            "subSuite", "harness"}

    def facts(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
        return {n: (r["status"], sorted((lb["name"], lb["value"]) for lb in r["labels"]
                                        if lb["name"] in ours or lb["name"].startswith("counter.")),
                    [a["name"] for a in r["attachments"]], sorted((p["name"], p["value"]) for p in r["parameters"]))
                for n, r in results.items()}

    assert facts(allure_results(tmp_path / "plugin")) == facts(allure_results(tmp_path / "cli"))
    assert sorted(allure_results(tmp_path / "cli")) == names
