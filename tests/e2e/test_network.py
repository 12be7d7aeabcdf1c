"""Network faults (``toxic``) through Toxiproxy proxies in front of the services of a candidate process.

The network scenarios (``durable_harness/scenarios/network/``) pass for the reference as a process
and catch the mutants they promise, as processes too (``serve --candidate mutant:NAME``); the
toxic's effect is in the history (a latency: the client gave up and looked the write up 30 s
later; down: nothing from the candidate for the minute). A real Toxiproxy by URL is stood in for
by a second embedded server: the run's proxies are made there and gone after it. In-process the
fault cannot run: exit 3, said as such. Every process each run starts is gone after it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from durable_harness.fakes.toxiproxy import ToxiproxyThread
from durable_harness.harness import load_scenarios, run_scenario
from durable_harness.harness.scenario import ScenarioError, load_scenario
from tests.e2e._processes import REFERENCE, REPO, as_process
from tests.e2e._shared_runs import SharedRuns

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

NETWORK = load_scenarios([REPO / "durable_harness" / "scenarios" / "network"])
BY_ID = {s.id: s for s in NETWORK}


def _rows(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "history.jsonl").read_text().splitlines()]


def test_the_network_scenarios_are_apart_from_the_default_catalogue() -> None:
    assert sorted(BY_ID) == ["sessions-api-down", "sessions-stream-reset", "wordpress-latency-beyond-timeout"]
    default = {s.id for s in load_scenarios([REPO / "durable_harness" / "scenarios"])}
    assert not default & set(BY_ID)


def test_in_process_a_toxic_cannot_run_and_says_why(tmp_path: Path) -> None:
    doc = run_scenario(BY_ID["sessions-api-down"], "reference", None, tmp_path / "run")
    assert (doc["exit_code"], doc["error"]["kind"]) == (3, "setup")
    assert "faults[0].kind 'toxic'" in doc["error"]["message"] and "process driver" in doc["error"]["message"]


@pytest.mark.parametrize(("body", "field", "words"), [
    ("  - kind: toxic\n    at: {service: wordpress, method: POST, route: /wp/v2/posts}\n", "faults[0]", "type"),
    ("  - kind: toxic\n    type: latency\n    attributes: {rate: 5}\n    at: {service: wordpress, method: POST, route: /wp/v2/posts}\n",
     "faults[0].attributes", "'rate' is not an attribute of the latency toxic"),
    ("  - kind: toxic\n    type: storm\n    at: {service: wordpress, method: POST, route: /wp/v2/posts}\n", "faults[0].type", "storm"),
])
def test_a_malformed_toxic_names_the_file_the_field_and_the_value(tmp_path: Path, body: str, field: str,
                                                                   words: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("id: bad\ntitle: A bad toxic\ncovers: what a bad toxic says\nworkload: {kind: article}\nfaults:\n" + body
                    + "expect: {outcome: needs_human}\nmust_catch: []\n")
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert str(path) in str(err.value) and field in str(err.value) and words in str(err.value)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", NETWORK, ids=lambda s: s.id)
def test_the_reference_as_a_process_passes_every_network_scenario(scenario: Any, shared_runs: SharedRuns) -> None:
    doc, _ = shared_runs.run(REFERENCE, scenario)  # the next tests read two of these runs
    assert (doc["verdict"], doc["error"]) == ("pass", None), doc["reproduce"]
    fired = [f for f in doc["faults"] if f["kind"] == "toxic"]
    assert [f["status"] for f in fired] == ["fired"], fired


@pytest.mark.slow
@pytest.mark.parametrize(("mutant", "scenario"), [(m.split(":", 1)[1], s) for s in NETWORK for m in s.must_catch],
                         ids=lambda v: v if isinstance(v, str) else v.id)
def test_every_promised_mutant_is_caught_as_a_process(mutant: str, scenario: Any) -> None:
    doc = as_process(f"{REFERENCE} --candidate mutant:{mutant}", scenario)
    assert doc["verdict"] == "fail", f"mutant:{mutant} escaped {scenario.id}: {doc['verdict']} ({doc['reproduce']})"


@pytest.mark.slow
def test_a_latency_beyond_the_client_timeout_makes_the_client_give_up_on_a_committed_write(shared_runs: SharedRuns) -> None:
    doc, out = shared_runs.run(REFERENCE, BY_ID["wordpress-latency-beyond-timeout"])
    assert doc["verdict"] == "pass"
    rows = _rows(out)
    fault = next(r for r in rows if r["type"] == "fault")
    write = next(r for r in rows if r["index"] > fault["index"] and r["type"] == "ok")
    assert write["data"]["status"] == 201  # the service committed and answered; the answer crawled
    after = next(r for r in rows if r["index"] > write["index"] and r["type"] == "invoke" and r["process"] == "worker-1")
    # The reference's client waits 30 scenario seconds, then looks the draft up instead of writing again.
    assert after["time_s"] - fault["time_s"] >= 29.0 and (after["data"]["method"], after["data"]["route"]) == (
        "GET", "/wp/v2/posts")


def test_down_refuses_the_candidate_for_the_whole_minute(shared_runs: SharedRuns) -> None:
    """Not slow: `make test`'s run of a toxic (the others are `make test-slow`'s)."""
    doc, out = shared_runs.run(REFERENCE, BY_ID["sessions-api-down"])
    assert doc["verdict"] == "pass"
    rows = _rows(out)
    fault = next(r for r in rows if r["type"] == "fault")
    later = [r for r in rows if r["index"] > fault["index"] + 1 and r["type"] == "invoke" and r["process"] == "worker-1"]
    assert later and later[0]["time_s"] >= fault["time_s"] + 59.0, later[:1]


@pytest.mark.slow
def test_a_real_toxiproxy_by_url_holds_the_proxies_and_keeps_none_after(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    with ToxiproxyThread(rng=random.Random(7)) as server:  # stands in for a real Toxiproxy server
        monkeypatch.setenv("DURABLE_HARNESS_TOXIPROXY", server.url)
        out = tmp_path / "run"
        doc = as_process(REFERENCE, BY_ID["sessions-stream-reset"], out)
        assert (doc["verdict"], doc["error"]) == ("pass", None), doc["reproduce"]
        note = next(r for r in _rows(out) if "process_driver" in r["data"])
        assert note["data"]["process_driver"]["toxiproxy"] == server.url
        evidence = next(r for r in _rows(out) if r["type"] == "fault")["data"]["evidence"]
        assert evidence["server"] == server.url
        assert server.server.proxies == {}  # destroyed at the end of the run
