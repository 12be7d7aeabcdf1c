"""Building a candidate's ``env`` from plain data, in whichever process the candidate runs.

``env_data`` is what the harness knows of one instance's environment (its services' endpoints and
credentials, its database, its worker id, the SDK's retries) as JSON, so that it can be sent to a
candidate process; ``build_env`` makes the ``CandidateEnv`` of the contract from it, with clients
on the transport and the clock it is given. The in-process driver and a candidate's own process
build it the same way, so the two see the same ``env``.

It does not decide where requests go (the caller's transport does) or what the clock is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

import httpx

from durable_harness.harness.candidate._protocol import CandidateClock, CandidateEnv, ServiceEndpoint

__all__ = ["HTTP_TIMEOUT_S", "build_env", "env_data"]

HTTP_TIMEOUT_S = 30.0


def env_data(services: Mapping[str, ServiceEndpoint], database_url: str, worker_id: str, run_id: str,
             sdk_max_retries: int) -> dict[str, Any]:
    return {
        "services": {name: {"url": e.url, "credentials": dict(e.credentials), "variables": dict(e.variables)}
                     for name, e in sorted(services.items())},
        "database_url": database_url, "worker_id": worker_id, "run_id": run_id, "sdk_max_retries": sdk_max_retries,
    }


def build_env(data: Mapping[str, Any], transport: Callable[[str], httpx.BaseTransport],
              clock: CandidateClock) -> tuple[CandidateEnv, list[httpx.Client]]:
    """The ``env`` of ``data`` (see ``env_data``) and the HTTP clients made for it (to close)."""
    import openai

    worker_id = str(data["worker_id"])
    services = {str(name): ServiceEndpoint(url=str(s["url"]), credentials=dict(s["credentials"]),
                                           variables=dict(s["variables"]))
                for name, s in dict(data["services"]).items()}
    api_http = httpx.Client(transport=transport(worker_id))
    http = httpx.Client(transport=transport(worker_id), timeout=HTTP_TIMEOUT_S)
    sessions = services["openai"]
    client = openai.OpenAI(api_key=sessions.credentials["api_key"], base_url=sessions.url,
                           http_client=cast(Any, api_http),  # legacy httpx is accepted at runtime
                           max_retries=int(data["sdk_max_retries"]),
                           webhook_secret=sessions.credentials["webhook_secret"])
    env = CandidateEnv(services=services, database_url=str(data["database_url"]), worker_id=worker_id,
                       run_id=str(data["run_id"]), clock=clock, openai=client, http=http)
    return env, [api_http, http]
