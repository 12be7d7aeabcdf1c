"""The scenarios against a real WordPress behind the gate (``--service wordpress=URL``).

The site is the one ``.ci/run`` brings up (``DH_REAL_WORDPRESS=http://<user>:<password>@<host>:<port>``,
see ``tests/conformance``); without it these tests are skipped, saying so. The reference passes the
article scenarios that apply (in-process: the gate, the faults and the ground truth are what is
tested here, not the driver), the mutants the issue names are caught with witnesses naming the real
site's ids, a run leaves nothing on the site unless kept, and no credential reaches a report.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from durable_harness.harness import load_scenario, load_scenarios, run_scenario
from durable_harness.harness.services._applicability import not_applicable
from durable_harness.harness.services._upstream import Upstream
from tests.e2e._processes import REFERENCE, REPO, kill_marked, marked, new_mark, wait_gone

pytestmark = pytest.mark.e2e

ENV = "DH_REAL_WORDPRESS"
SCENARIOS = REPO / "durable_harness" / "scenarios"
_SITE = Upstream("wordpress", "http://site.invalid", "u", "p")
ARTICLE = [s for s in load_scenarios([SCENARIOS]) if s.workload.kind == "article"]
APPLICABLE = [s for s in ARTICLE if not_applicable(s, {"wordpress": _SITE}) is None]
NOT_APPLICABLE = [s for s in ARTICLE if not_applicable(s, {"wordpress": _SITE}) is not None]


def _real() -> tuple[str, str, str]:
    raw = os.environ.get(ENV)
    if not raw:
        why = f"no real WordPress: {ENV} is not set (.ci/run sets it after .ci/real-wordpress.sh)"
        if os.environ.get("DH_REQUIRE_REAL_WORDPRESS") == "1":  # CI: the real site is required, never skipped
            pytest.fail(why)
        pytest.skip(why)
    parts = urlsplit(raw)
    assert parts.hostname and parts.username and parts.password, f"{ENV} must be http://user:password@host:port"
    return f"{parts.scheme}://{parts.hostname}:{parts.port}", parts.username, parts.password


@pytest.fixture
def real(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str, str]]:
    url, user, password = _real()
    monkeypatch.setenv("DH_SERVICE_WORDPRESS", url)
    monkeypatch.setenv("DH_WORDPRESS_USER", user)
    monkeypatch.setenv("DH_WORDPRESS_APP_PASSWORD", password)
    monkeypatch.delenv("DH_KEEP_UPSTREAM", raising=False)
    yield url, user, password


def _failing(doc: dict[str, Any]) -> str:
    return json.dumps([{k: c[k] for k in ("name", "verdict", "because")} for c in doc["checkers"]
                       if c["verdict"] != "pass"], indent=1) + f"\n{doc.get('error')}\n{doc.get('reproduce')}"


def _left_on_site(url: str, user: str, password: str, job_id: str) -> list[int]:
    with httpx.Client(base_url=url, auth=(user, password), timeout=30) as http:
        posts = http.get("/wp-json/wp/v2/posts", params={"search": job_id, "status": "any", "context": "edit"}).json()
    return [p["id"] for p in posts]


def _made(out: Path) -> set[tuple[str, int]]:
    """What the site answered the run's writes with: (type, id) of every item it created."""
    made = set()
    for line in (out / "history.jsonl").read_text().splitlines():
        entry = json.loads(line)
        body = entry["data"].get("body") if entry["type"] == "ok" else None
        if isinstance(body, dict) and isinstance(body.get("id"), int) and body.get("type") in ("post", "attachment"):
            made.add((str(body["type"]), int(body["id"])))
    return made


def _withheld(out: Path) -> set[int]:
    """The ids of what the site made whose answer a fault kept from the candidate."""
    ids = set()
    for line in (out / "history.jsonl").read_text().splitlines():
        withheld = json.loads(line)["data"].get("withheld") or {}
        if isinstance(withheld.get("id"), int):
            ids.add(int(withheld["id"]))
    return ids


def _job_id(doc: dict[str, Any], out: Path) -> str:
    for line in (out / "history.jsonl").read_text().splitlines():
        entry = json.loads(line)
        submitted = (entry.get("data") or {}).get("submitted") if entry["type"] == "note" else None
        if submitted:
            return str(submitted["job_id"])
    raise AssertionError(f"{doc['scenario']['id']}: no job was submitted")


@pytest.mark.slow
@pytest.mark.parametrize("scenario", APPLICABLE, ids=lambda s: s.id)
def test_the_reference_passes_every_applicable_article_scenario(scenario: Any, real: tuple[str, str, str],
                                                                tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = run_scenario(scenario, "reference", None, tmp_path)
    if doc["verdict"] != "pass" or doc["error"] is not None:  # the fake says pass (test_runs): a fidelity finding
        with monkeypatch.context() as m:
            m.delenv("DH_SERVICE_WORDPRESS")
            fake = run_scenario(scenario, "reference", doc["seed"])
        pytest.fail(f"fidelity finding: {scenario.id} is {fake['verdict']} against the fake and {doc['verdict']} "
                    f"against the real WordPress\n{_failing(doc)}")
    job_id = _job_id(doc, tmp_path)
    assert job_id.startswith(scenario.workload.job_id + "-"), "the run's job id has no suffix of its own"
    assert _left_on_site(*real, job_id) == [], "the run left its posts on the site"


@pytest.mark.parametrize(("mutant", "scenario_id", "checker"), [
    ("blind-retry", "lost-draft-response", "duplicate_drafts"),
    ("error-means-not-applied", "media-500-after-commit", "duplicate_media"),
    ("title-reconcile", "busy-lost-draft-response", "unauthorized_calls"),
])
def test_a_mutant_is_caught_with_the_real_sites_ids(mutant: str, scenario_id: str, checker: str,
                                                    real: tuple[str, str, str], tmp_path: Path) -> None:
    doc = run_scenario(load_scenario(SCENARIOS / f"{scenario_id}.yaml"), f"mutant:{mutant}", None, tmp_path)
    assert doc["verdict"] == "fail" and doc["exit_code"] == 1, _failing(doc)
    caught = next(c for c in doc["checkers"] if c["name"] == checker)
    assert caught["verdict"] == "fail" and caught["witnesses"], _failing(doc)
    ids = {item for _, item in _made(tmp_path)} | _withheld(tmp_path)
    assert any(f" {i}" in caught["because"] for i in ids), (caught["because"], sorted(ids))
    assert _left_on_site(*real, _job_id(doc, tmp_path)) == []


def test_a_kept_run_leaves_its_posts_and_no_report_holds_a_credential(real: tuple[str, str, str], tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    url, user, password = real
    monkeypatch.setenv("DH_KEEP_UPSTREAM", "1")
    doc = run_scenario(load_scenario(SCENARIOS / "baseline.yaml"), "reference", None, tmp_path)
    assert doc["verdict"] == "pass", _failing(doc)
    job_id = _job_id(doc, tmp_path)
    kept = _left_on_site(url, user, password, job_id)
    made = _made(tmp_path)
    try:
        assert len(kept) == 1 and ("post", kept[0]) in made, (kept, made)
        assert sum(kind == "attachment" for kind, _ in made) == 3, made
    finally:
        with httpx.Client(base_url=url, auth=(user, password), timeout=30) as http:
            for kind, item in made:
                http.delete(f"/wp-json/wp/v2/{'media' if kind == 'attachment' else 'posts'}/{item}", params={"force": "true"})
    written = "\n".join(p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file())
    for secret in (password, " ".join(password[i:i + 4] for i in range(0, len(password), 4))):
        assert secret not in written
    assert "--service wordpress=" + url in doc["reproduce"]


def test_a_scenario_that_needs_the_fake_is_not_applicable_said_as_such(real: tuple[str, str, str], tmp_path: Path) -> None:
    assert NOT_APPLICABLE, "no article scenario needs the fake: this test proves nothing"
    scenario = NOT_APPLICABLE[0]
    doc = run_scenario(scenario, "reference", None, tmp_path)
    assert doc["exit_code"] == 3 and doc["verdict"] != "fail", _failing(doc)
    assert doc["error"]["kind"] == "not_applicable" and "services.wordpress." in doc["error"]["message"]


def test_the_reference_as_a_process_passes_against_the_real_site(real: tuple[str, str, str], tmp_path: Path) -> None:
    """The loopback servers hand each request to the same gate: a process reaches the real site through it."""
    mark = new_mark()
    try:
        doc = run_scenario(load_scenario(SCENARIOS / "lost-draft-response.yaml"), marked(REFERENCE, mark), None, tmp_path)
    finally:
        left = wait_gone(mark)
        kill_marked(mark)
    assert left == []
    assert doc["verdict"] == "pass" and doc["error"] is None, _failing(doc)
    assert any(kind == "post" for kind, _ in _made(tmp_path))
    assert _left_on_site(*real, _job_id(doc, tmp_path)) == []


def test_the_pytest_plugin_skips_what_is_not_applicable_and_runs_the_rest(real: tuple[str, str, str],
                                                                         pytester: pytest.Pytester) -> None:
    for name in ("baseline.yaml", "busy-reconcile-past-first-page.yaml"):
        (pytester.path / name).write_text((SCENARIOS / name).read_text())
    result = pytester.runpytest("--dh-candidate=reference", "-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*busy-reconcile-past-first-page: not applicable against a real service: "
                                 "services.wordpress.operation_key_query*"])


def test_the_report_says_what_was_real_and_what_did_not_run_for_it(real: tuple[str, str, str], tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from durable_harness.harness.cli import main

    url = real[0]
    code = main(["run", "-j", "1", "--service", f"wordpress={url}", "--scenario", str(SCENARIOS / "baseline.yaml"),
                 "--scenario", str(SCENARIOS / "busy-reconcile-past-first-page.yaml"), "--report", str(tmp_path / "r")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "not applicable: busy-reconcile-past-first-page: services.wordpress.operation_key_query" in out
    index = json.loads((tmp_path / "r" / "report.json").read_text())
    assert index["real_services"] == {"wordpress": url} and list(index["not_applicable"]) == ["busy-reconcile-past-first-page"]
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert f"- Real services: wordpress at `{url}`" in summary and "Not applicable against them (1, not run)" in summary
    assert "Real services</dt>" in (tmp_path / "r" / "report.html").read_text()
