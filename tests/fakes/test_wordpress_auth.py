"""Application passwords in both auth modes: core alone (bad credentials run anonymously) and early."""

from __future__ import annotations

import httpx
import pytest

from durable_harness.wire import Request
from durable_harness.fakes.wordpress import WordPressFake
from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._gate import Gate
from durable_harness.harness._history import History

PASSWORD = "abcd EFGH ijkl MNOP qrst UVWX"
ROOT = "http://wordpress.dh.test/wp-json"


def _world(auth_mode: str) -> tuple[WordPressFake, History, Gate]:
    clock = VirtualClock()
    fake = WordPressFake(clock, auth_mode=auth_mode)
    history = History()
    return fake, history, Gate(clock, history, [fake])


def _client(gate: Gate, auth: tuple[str, str] | None) -> httpx.Client:
    return httpx.Client(base_url=ROOT, transport=gate.transport("test"), auth=auth)


def _seed_posts(gate: Gate) -> tuple[int, int]:
    with _client(gate, ("editor", PASSWORD)) as c:
        published = c.post("/wp/v2/posts", json={"title": "Public", "status": "publish"}).json()["id"]
        draft = c.post("/wp/v2/posts", json={"title": "Secret"}).json()["id"]
    return published, draft


@pytest.mark.parametrize("password", [PASSWORD, PASSWORD.replace(" ", ""), "abcd-EFGH-ijkl-MNOP-qrst-UVWX"])
def test_spaces_and_separators_in_the_password_are_optional(password: str) -> None:
    _, _, gate = _world("core")
    with _client(gate, ("editor", password)) as c:
        me = c.get("/wp/v2/users/me")
    assert me.status_code == 200 and me.json()["id"] == 1 and me.json()["slug"] == "editor"


def test_login_by_email_works() -> None:
    _, _, gate = _world("early")
    with _client(gate, ("editor@wordpress.dh.test", PASSWORD)) as c:
        assert c.get("/wp/v2/users/me", params={"context": "edit"}).json()["roles"] == ["editor"]


@pytest.mark.parametrize("auth", [("editor", "wrong wrong wrong"), ("nobody", PASSWORD), None])
def test_core_mode_runs_bad_credentials_anonymously(auth: tuple[str, str] | None) -> None:
    fake, _, gate = _world("core")
    published, draft = _seed_posts(gate)
    with _client(gate, auth) as c:
        assert c.get(f"/wp/v2/posts/{published}").status_code == 200
        assert [p["id"] for p in c.get("/wp/v2/posts").json()] == [published]  # drafts invisible
        hidden = c.get(f"/wp/v2/posts/{draft}")
        assert (hidden.status_code, hidden.json()["code"]) == (401, "rest_forbidden")
        create = c.post("/wp/v2/posts", json={"title": "x"})
        assert (create.status_code, create.json()["code"]) == (401, "rest_cannot_create")
        assert create.json()["message"] == "Sorry, you are not allowed to create posts as this user."
        edit = c.post(f"/wp/v2/posts/{published}", json={"title": "x"})
        assert (edit.status_code, edit.json()["code"]) == (401, "rest_cannot_edit")
        delete = c.delete(f"/wp/v2/posts/{published}")
        assert (delete.status_code, delete.json()["code"]) == (401, "rest_cannot_delete")
        context = c.get(f"/wp/v2/posts/{published}", params={"context": "edit"})
        assert (context.status_code, context.json()["code"]) == (401, "rest_forbidden_context")
        me = c.get("/wp/v2/users/me")
        assert (me.status_code, me.json()["code"]) == (401, "rest_not_logged_in")
        assert "cache-control" not in me.headers  # no-cache headers are for logged-in users
    assert fake.mutations() == 2


@pytest.mark.parametrize(("auth", "code"), [
    (("editor", "wrong wrong wrong"), "incorrect_password"),
    (("nobody", PASSWORD), "invalid_username"),
    (("nobody@example.test", PASSWORD), "invalid_email"),
])
def test_early_mode_fails_every_request_with_bad_credentials(auth: tuple[str, str], code: str) -> None:
    _, _, gate = _world("early")
    published, _ = _seed_posts(gate)
    with _client(gate, auth) as c:
        for response in (c.get(f"/wp/v2/posts/{published}"), c.get("/wp/v2/posts"),
                         c.post("/wp/v2/posts", json={"title": "x"}), c.get("/wp/v2/nothing")):
            assert response.status_code == 401
            assert response.json() == {"code": code, "message": response.json()["message"], "data": {"status": 401}}
    if code == "incorrect_password":
        assert response.json()["message"] == "The provided password is an invalid application password."
    else:
        assert response.json()["message"].startswith("<strong>Error</strong>: Unknown")


def test_early_mode_lets_visitors_without_credentials_through() -> None:
    _, _, gate = _world("early")
    published, _ = _seed_posts(gate)
    with _client(gate, None) as c:
        assert c.get(f"/wp/v2/posts/{published}").status_code == 200
        assert c.post("/wp/v2/posts", json={"title": "x"}).json()["code"] == "rest_cannot_create"


def test_revoke_and_issue_in_early_mode_and_labels_in_the_history() -> None:
    fake, history, gate = _world("early")
    with _client(gate, ("editor", PASSWORD)) as c:
        assert c.post("/wp/v2/posts", json={"title": "before"}).status_code == 201
        assert fake.revoke_app_password() == [1]
        refused = c.post("/wp/v2/posts", json={"title": "after"})
        assert (refused.status_code, refused.json()["code"]) == (401, "incorrect_password")
    new_password = fake.issue_app_password()
    assert len(new_password.replace(" ", "")) == 24 and new_password != PASSWORD
    with _client(gate, ("editor", new_password)) as c:
        assert c.post("/wp/v2/posts", json={"title": "with #2"}).status_code == 201
    labels = [e.data.get("credential") for e in history if e.type == "invoke"]
    assert labels == ["editor/app-password#1", "editor/app-password#1 (revoked)", "editor/app-password#2"]
    assert [p["created_by"] for p in fake.truth()["posts"]] == ["editor/app-password#1", "editor/app-password#2"]
    assert [pw["revoked_at"] is not None for pw in fake.truth()["app_passwords"]] == [True, False]


def test_revoke_in_core_mode_makes_writes_anonymous() -> None:
    fake, _, gate = _world("core")
    published, _ = _seed_posts(gate)
    fake.revoke_app_password(1)
    with _client(gate, ("editor", PASSWORD)) as c:
        assert c.get(f"/wp/v2/posts/{published}").status_code == 200
        assert c.post("/wp/v2/posts", json={"title": "x"}).json()["code"] == "rest_cannot_create"
        assert c.get("/wp/v2/users/me").json()["code"] == "rest_not_logged_in"


def test_credential_labels() -> None:
    fake = WordPressFake(VirtualClock())

    def label(header: str | None) -> str | None:
        return fake.credential(Request.build("GET", "/wp-json/", headers={"authorization": header} if header else {}))

    basic = httpx.BasicAuth("editor", PASSWORD)
    request = basic.auth_flow(httpx.Request("GET", "http://x")).__next__()
    assert label(request.headers["authorization"]) == "editor/app-password#1"
    assert label(None) == "anonymous"
    assert label("Bearer abc") == "anonymous"
    wrong = next(httpx.BasicAuth("editor", "nope nope").auth_flow(httpx.Request("GET", "http://x")))
    assert label(wrong.headers["authorization"]) == "editor/wrong-password"
    unknown = next(httpx.BasicAuth("ghost", PASSWORD).auth_flow(httpx.Request("GET", "http://x")))
    assert label(unknown.headers["authorization"]) == "unknown-user"
    assert PASSWORD.replace(" ", "") not in repr(fake.truth())  # secrets never enter the truth


def test_constructor_validates_its_arguments() -> None:
    with pytest.raises(ValueError, match="auth_mode='strict'"):
        WordPressFake(VirtualClock(), auth_mode="strict")
    with pytest.raises(ValueError, match="site_url="):
        WordPressFake(VirtualClock(), site_url="wordpress.dh.test/blog")
    with pytest.raises(ValueError, match="app_password="):
        WordPressFake(VirtualClock(), app_password="short")
    with pytest.raises(ValueError, match="revoke_app_password"):
        WordPressFake(VirtualClock()).revoke_app_password(7)
