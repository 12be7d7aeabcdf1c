"""The gate's service for a real WordPress, against a site played by an ``httpx.MockTransport``: what it
forwards (credentials mapped), what it gives back (the site's address rewritten), what it keeps as
ground truth, and what it deletes. The real site itself: ``tests/e2e/test_real_wordpress.py``."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest

from durable_harness.harness._clock import VirtualClock
from durable_harness.harness.services._upstream import Upstream, upstream, upstreams
from durable_harness.harness.services._upstream_wordpress import UpstreamWordPress
from durable_harness.harness.cli import main
from durable_harness.wire import Request

SITE = "http://127.0.0.1:8089"
MINTED = "abcd EFGH ijkl MNOP qrst UVWX"


class Site:
    """A few routes of WordPress, as the tests need them; every request it got is kept."""

    def __init__(self) -> None:
        self.got: list[httpx.Request] = []
        self.posts: dict[int, dict[str, Any]] = {7: {"id": 7, "type": "post", "status": "publish",
                                                     "content": {"raw": "someone else's"}}}
        self.next_id = 100

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.got.append(request)
        path = request.url.path
        if request.method == "POST" and path == "/wp-json/wp/v2/posts":
            body = json.loads(request.content)
            self.next_id += 1
            post = {"id": self.next_id, "type": "post", "status": body.get("status", "draft"),
                    "content": {"raw": body.get("content", "")}, "meta": {"operation_key": "k"},
                    "link": f"{SITE}/?p={self.next_id}"}
            self.posts[self.next_id] = post
            return httpx.Response(201, json=post, headers={"location": f"{SITE}/wp-json/wp/v2/posts/{self.next_id}"})
        if path.startswith("/wp-json/wp/v2/posts/"):
            post_id = int(path.rsplit("/", 1)[1])
            if post_id not in self.posts:
                return httpx.Response(404, json={"code": "rest_post_invalid_id"})
            if request.method == "DELETE":
                previous = self.posts.pop(post_id)
                return httpx.Response(200, json={"deleted": True, "previous": previous})
            if request.method == "POST":
                self.posts[post_id] = {**self.posts[post_id], **json.loads(request.content)}
            return httpx.Response(200, json=self.posts[post_id])
        if path == "/wp-json/wp/v2/posts":
            return httpx.Response(200, json=[])
        return httpx.Response(404, json={"code": "rest_no_route"})


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def _service(site: Site, clock: VirtualClock | None = None, keep: bool = False) -> UpstreamWordPress:
    return UpstreamWordPress(clock or VirtualClock(), Upstream("wordpress", SITE, "harness", "real secret"),
                             host="wordpress.dh.test", username="editor", password=MINTED, job_ids=["job-x-1a2b3c"],
                             keep=keep, transport=httpx.MockTransport(site))


def _post(service: UpstreamWordPress, body: dict[str, Any], password: str = MINTED, path: str = "/wp-json/wp/v2/posts") -> Any:
    return service.handle(Request.build("POST", path, headers={"authorization": _basic("editor", password),
                                                                "content-type": "application/json"},
                                        body=json.dumps(body).encode()))


def test_the_minted_password_is_replaced_by_the_harnesss_and_a_revoked_one_by_a_wrong_one() -> None:
    site = Site()
    service = _service(site)
    _post(service, {"content": "a"})
    assert site.got[-1].headers["authorization"] == _basic("harness", "real secret")
    service.revoke_app_password()
    _post(service, {"content": "b"})
    sent = base64.b64decode(site.got[-1].headers["authorization"][6:]).decode()
    assert sent.startswith("harness:") and "real secret" not in sent
    _post(service, {"content": "c"}, password="something else")
    assert site.got[-1].headers["authorization"] == _basic("editor", "something else")
    assert service.credential(Request.build("GET", "/wp-json/", headers={"authorization": _basic("editor", MINTED)})) \
        == "editor/app-password#1 (revoked)"


def test_the_sites_address_is_the_gates_in_what_the_candidate_reads() -> None:
    service = _service(Site())
    answer = _post(service, {"content": "a"})
    body = answer.body.decode()
    assert SITE not in body and SITE.replace("/", "\\/") not in body
    assert json.loads(body)["link"] == "http://wordpress.dh.test/?p=101"
    assert answer.headers["location"] == "http://wordpress.dh.test/wp-json/wp/v2/posts/101"


def test_ground_truth_is_what_the_site_made_when_the_gate_saw_it_and_only_that_is_deleted() -> None:
    clock = VirtualClock()
    site = Site()
    service = _service(site, clock)
    clock.sleep(5.0)
    _post(service, {"content": "mine", "status": "draft"})
    clock.sleep(2.0)
    _post(service, {"status": "private"}, path="/wp-json/wp/v2/posts/7")  # someone else's post, changed by the run
    truth = service.truth()
    mine, theirs = sorted(truth["posts"], key=lambda p: -p["id"])
    assert (mine["id"], mine["created_at"], mine["created_by"], mine["content"]) == (101, 5.0, "editor/app-password#1", "mine")
    assert (theirs["id"], theirs["created_at"], theirs["updates"]) == (7, None, 1)
    del site.posts[101]  # someone deleted it on the site: the reading at the end sees it
    clock.sleep(1.0)
    service.settle()
    assert next(p for p in service.truth()["posts"] if p["id"] == 101)["deleted_at"] == 8.0
    site.posts[101] = {"id": 101, "type": "post", "status": "draft", "content": {"raw": "mine"}}
    service.close()
    assert service.cleaned == ["posts/101"] and 7 in site.posts


def test_a_kept_run_deletes_nothing() -> None:
    site = Site()
    service = _service(site, keep=True)
    _post(service, {"content": "mine"})
    service.close()
    assert 101 in site.posts and service.cleaned == []


def test_a_site_that_does_not_answer_is_a_502_to_the_candidate() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    service = UpstreamWordPress(VirtualClock(), Upstream("wordpress", SITE, "h", "s"), host="wordpress.dh.test",
                                username="editor", password=MINTED, job_ids=[], transport=httpx.MockTransport(down))
    answer = _post(service, {"content": "a"})
    assert answer.status == 502 and json.loads(answer.body)["code"] == "upstream_unreachable"
    assert service.mutations() == 0


@pytest.mark.parametrize(("environ", "complaint"), [
    ({"DH_SERVICE_WORDPRESS": "http://u:p@127.0.0.1:8089"}, "credentials do not go in the URL"),
    ({"DH_SERVICE_WORDPRESS": "ftp://127.0.0.1"}, "is not a site address"),
    ({"DH_SERVICE_WORDPRESS": "http://127.0.0.1:8089"}, "DH_WORDPRESS_USER and DH_WORDPRESS_APP_PASSWORD are not"),
    ({"DH_SERVICE_WORDPRESS": "http://127.0.0.1:8089", "DH_WORDPRESS_USER": "u"}, "DH_WORDPRESS_APP_PASSWORD is not"),
])
def test_a_real_service_that_cannot_be_used_is_named_with_its_variable(environ: dict[str, str], complaint: str) -> None:
    with pytest.raises(ValueError, match="DH_SERVICE_WORDPRESS") as err:
        upstream("wordpress", environ)
    assert complaint in str(err.value)


def test_a_real_service_given_right_is_read_without_its_secret_in_its_repr() -> None:
    real = upstreams({"DH_SERVICE_WORDPRESS": "http://127.0.0.1:8089/blog/", "DH_WORDPRESS_USER": "u",
                      "DH_WORDPRESS_APP_PASSWORD": "ab cd"})["wordpress"]
    assert (real.url, real.user, real.secret) == ("http://127.0.0.1:8089/blog", "u", "ab cd")
    assert "ab cd" not in repr(real)


@pytest.mark.parametrize(("argv", "complaint"), [
    (["--service", "wordpress"], "give NAME=URL"),
    (["--service", "approvals=http://127.0.0.1:1"], "'approvals' cannot be real"),
    (["--service", "wordpress=http://u:p@127.0.0.1:8089"], "credentials do not go in the URL"),
])
def test_a_bad_service_option_is_bad_usage(argv: list[str], complaint: str, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("DH_WORDPRESS_USER", "u")
    monkeypatch.setenv("DH_WORDPRESS_APP_PASSWORD", "p")
    for name in ("DH_SERVICE_WORDPRESS", "DH_SERVICE_OPENAI", "DH_SERVICE_APPROVALS"):
        monkeypatch.setenv(name, "")  # what the command line sets is undone after the test
    monkeypatch.setenv("DH_KEEP_UPSTREAM", "")
    assert main(["run", *argv, "--report", str(tmp_path / "r")]) == 3
    err = capsys.readouterr().err
    assert complaint in err and err.count("\n") == 1, err


def test_a_fault_kind_that_needs_the_fake_makes_its_scenario_not_applicable(monkeypatch: pytest.MonkeyPatch) -> None:
    from durable_harness.harness import load_scenario
    from durable_harness.harness.faults import get_fault_kind
    from durable_harness.harness.services._applicability import not_applicable
    from tests.e2e._processes import REPO

    scenario = load_scenario(REPO / "durable_harness" / "scenarios" / "lost-draft-response.yaml")
    real = {"wordpress": Upstream("wordpress", SITE, "u", "p")}
    assert not_applicable(scenario, real) is None and not_applicable(scenario, {}) is None
    monkeypatch.setattr(get_fault_kind("lose_response"), "needs_fake", ("wordpress",))
    assert not_applicable(scenario, real) == "the fault 'lose_response' acts through the wordpress fake, not at the gate"


def test_a_scenario_not_applicable_asks_nothing_of_the_real_site(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """Decided before the run's world is built: building it prepares the real site (some 400 requests,
    about 10 s against a real WordPress). The site here is a port nobody answers on: a single request
    to it would end the run as the harness's error, not as not applicable."""
    import socket

    from durable_harness.harness import load_scenario, run_scenario
    from tests.e2e._processes import REPO

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("DH_SERVICE_WORDPRESS", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("DH_WORDPRESS_USER", "editor")
    monkeypatch.setenv("DH_WORDPRESS_APP_PASSWORD", MINTED)
    scenario = load_scenario(REPO / "durable_harness" / "scenarios" / "busy-reconcile-past-first-page.yaml")
    doc = run_scenario(scenario, "reference", None, tmp_path)
    assert doc["error"]["kind"] == "not_applicable", doc["error"]
    assert "services.wordpress.operation_key_query" in doc["error"]["message"] and doc["exit_code"] == 3
    history = [json.loads(line) for line in (tmp_path / "history.jsonl").read_text().splitlines()]
    assert [(e["type"], e["data"]["because"]) for e in history] == [("note", doc["error"]["message"])]
    assert MINTED not in (tmp_path / "run.json").read_text()


def test_what_cannot_be_deleted_is_said_on_stderr(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    site = Site()
    service = _service(site)
    _post(service, {"content": "mine"})
    answer = Site.__call__

    def refuse(self: Site, request: httpx.Request) -> httpx.Response:
        return httpx.Response(403, json={"code": "rest_cannot_delete"}) if request.method == "DELETE" else answer(self, request)

    monkeypatch.setattr(Site, "__call__", refuse)
    service.close()
    err = capsys.readouterr().err
    assert "could not delete posts/101 from the real wordpress at http://127.0.0.1:8089 (403)" in err


def _bare_site(request: httpx.Request) -> httpx.Response:
    """WordPress alone: no operation-key plugins, no Rank Math; a user who may only write drafts."""
    if request.url.path == "/wp-json/":
        return httpx.Response(200, json={"routes": {
            "/wp/v2/posts": {"endpoints": [{"methods": ["GET"], "args": {"search": {}}}, {"methods": ["POST"], "args": {}}]},
            "/wp/v2/media": {"endpoints": [{"methods": ["GET"], "args": {}}]}}})
    if request.url.path == "/wp-json/wp/v2/users/me":
        return httpx.Response(200, json={"id": 3, "slug": "writer", "capabilities": {"edit_posts": True}})
    if request.method == "OPTIONS":
        return httpx.Response(200, json={"schema": {"properties": {"meta": {"properties": {}}}}})
    return httpx.Response(404, json={"code": "rest_no_route"})


def test_a_site_without_what_the_scenarios_rely_on_is_named_before_anything_runs() -> None:
    from durable_harness.harness.services._upstream_preflight import wordpress_problems

    problems = wordpress_problems(Upstream("wordpress", SITE, "writer", "p"), transport=httpx.MockTransport(_bare_site))
    assert problems == [
        "the user 'writer' cannot upload_files, publish_posts, delete_posts (give it the editor role)",
        "/wp/v2/posts cannot be looked up by ?operation_key= (the must-use plugins of .ci/real-wordpress.sh: "
        "operation-key-query.php)",
        "/wp/v2/media cannot be looked up by ?operation_key= (the must-use plugins of .ci/real-wordpress.sh: "
        "operation-key-query.php)",
        "there is no POST /rankmath/v1/updateMeta (Rank Math, or the stand-in of .ci/real-wordpress.sh: "
        "rank-math-update-meta.php)",
        "posts have no operation_key meta over REST (the must-use plugins of .ci/real-wordpress.sh: operation-key-meta.php)",
        "media have no operation_key meta over REST (the must-use plugins of .ci/real-wordpress.sh: operation-key-meta.php)",
    ]


def test_a_site_that_does_not_answer_is_said_so(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Any) -> None:
    monkeypatch.setenv("DH_WORDPRESS_USER", "u")
    monkeypatch.setenv("DH_WORDPRESS_APP_PASSWORD", "p")
    monkeypatch.setenv("DH_SERVICE_WORDPRESS", "")
    assert main(["run", "--service", "wordpress=http://127.0.0.1:1", "--report", str(tmp_path / "r")]) == 3
    err = capsys.readouterr().err
    assert "it cannot run the scenarios: it does not answer (ConnectError" in err and err.count("\n") == 1, err


def test_explore_and_sweep_refuse_a_real_service(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DH_SERVICE_WORDPRESS", SITE)
    monkeypatch.setenv("DH_WORDPRESS_USER", "u")
    monkeypatch.setenv("DH_WORDPRESS_APP_PASSWORD", "p")
    assert main(["explore", "--budget", "1"]) == 3
    assert "explore cannot search against a real service (wordpress)" in capsys.readouterr().err
    assert main(["sweep", "--point", "1:after"]) == 3
    assert "a sweep cannot run against a real service (wordpress)" in capsys.readouterr().err
