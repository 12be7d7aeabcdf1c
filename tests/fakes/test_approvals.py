"""The approval authority over HTTP: read-only for the candidate, paged, filtered, with real errors."""

from __future__ import annotations

import httpx
import pytest

from durable_harness.fakes.approvals import ApprovalsFake
from durable_harness.harness import VirtualClock
from durable_harness.wire import Request, Response

TOKEN = "apr-secret"


def client(fake: ApprovalsFake, token: str = TOKEN) -> httpx.Client:
    def handle(raw: httpx.Request) -> httpx.Response:
        response: Response = fake.handle(Request.build(raw.method, raw.url.path, raw.url.query.decode(),
                                                        dict(raw.headers), raw.read()))
        return httpx.Response(response.status, headers=dict(response.headers), content=response.body)
    return httpx.Client(transport=httpx.MockTransport(handle), base_url="http://approvals.test/v1",
                        headers={"authorization": f"Bearer {token}"})


def grant(fake: ApprovalsFake, version: str = "1", post: int = 7, expires_in_s: float | None = None) -> str:
    return fake.state.grant(job_id="job-1", task_version=version, action="publish",
                            target={"service": "wordpress", "type": "post", "id": post}, content_sha256="ab" * 32,
                            granted_by="reviewer", expires_in_s=expires_in_s).id


def test_a_granted_approval_reads_as_the_contract_shows() -> None:
    clock = VirtualClock()
    fake = ApprovalsFake(clock, token=TOKEN)
    approval_id = grant(fake)
    page = client(fake).get("/approvals", params={"job_id": "job-1", "task_version": "1", "action": "publish"}).json()
    assert page["object"] == "list" and page["has_more"] is False and page["first_id"] == page["last_id"] == approval_id
    (one,) = page["data"]
    assert one["target"] == {"service": "wordpress", "type": "post", "id": 7} and one["status"] == "active"
    assert set(one) == {"id", "object", "job_id", "task_version", "action", "target", "content_sha256", "granted_by",
                        "granted_at", "expires_at", "revoked_at", "status"}
    assert client(fake).get(f"/approvals/{approval_id}").json() == one


def test_revocation_and_expiry_show_on_the_next_read() -> None:
    clock = VirtualClock()
    fake = ApprovalsFake(clock, token=TOKEN)
    revoked, expiring = grant(fake), grant(fake, expires_in_s=30)
    fake.state.revoke(revoked, "reviewer")
    clock.sleep(31)
    statuses = {a["id"]: a["status"] for a in client(fake).get("/approvals").json()["data"]}
    assert statuses == {revoked: "revoked", expiring: "expired"}
    assert client(fake).get("/approvals", params={"status": "active"}).json()["data"] == []


def test_paging_with_limit_and_after() -> None:
    fake = ApprovalsFake(VirtualClock(), token=TOKEN)
    ids = [grant(fake, post=n) for n in range(1, 6)]
    first = client(fake).get("/approvals", params={"limit": 2}).json()
    assert [a["id"] for a in first["data"]] == ids[:2] and first["has_more"] is True
    rest = client(fake).get("/approvals", params={"limit": 100, "after": first["last_id"]}).json()
    assert [a["id"] for a in rest["data"]] == ids[2:] and rest["has_more"] is False


@pytest.mark.parametrize(("params", "param"), [({"limit": 0}, "limit"), ({"limit": "x"}, "limit"),
                                               ({"status": "maybe"}, "status"), ({"after": "apr_9999"}, "after")])
def test_bad_parameters_are_400_naming_the_parameter(params: dict[str, object], param: str) -> None:
    response = client(ApprovalsFake(VirtualClock(), token=TOKEN)).get("/approvals", params=params)
    assert response.status_code == 400 and response.json()["error"]["param"] == param


def test_the_candidate_cannot_write_and_nothing_changes() -> None:
    fake = ApprovalsFake(VirtualClock(), token=TOKEN)
    before = fake.mutations()
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        response = client(fake).request(method, "/approvals", json={"job_id": "job-1"})
        assert response.status_code == 403 and response.json()["error"]["code"] == "read_only"
    assert fake.mutations() == before and fake.state.select() == []


def test_a_missing_wrong_or_revoked_token_is_401() -> None:
    fake = ApprovalsFake(VirtualClock(), token=TOKEN)
    assert client(fake, token="nope").get("/approvals").status_code == 401
    assert fake.credential(Request.build("GET", "/v1/approvals", headers={"authorization": "Bearer nope"})) == "unknown-token"
    fake.revoke_token()
    response = client(fake).get("/approvals")
    assert response.status_code == 401 and response.json()["error"]["code"] == "invalid_token"
    assert fake.credential(Request.build("GET", "/v1/approvals", headers={"authorization": f"Bearer {TOKEN}"})) \
        == "approvals-token#1 (revoked)"
