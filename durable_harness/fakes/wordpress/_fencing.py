"""A fencing gateway in front of WordPress (``services.wordpress.fencing: header``).

WordPress itself knows no fencing: a site that needs it puts a gateway (a reverse proxy rule, a
must-use plugin) in front of its REST API. This one reads ``X-Fencing-Token: <job_id>:<token>`` on
every write (any method but GET, HEAD and OPTIONS) and keeps, per job, the highest token it has
let through. A write whose token is lower than that is refused before it reaches WordPress: 409
``rest_fencing_token_stale`` with the WordPress error shape. A write without the header is not
fenced (it passes, as it would through a gateway that fences only what carries a token); a
malformed header is 400 ``rest_fencing_token_invalid``. Reads are never looked at.

It deliberately does not know leases (the candidate's) or judge anything (``unauthorized_calls``
does, from the history); it forwards everything else of the ``Service`` protocol to the site.
"""

from __future__ import annotations

import json
import re
from typing import Any

from durable_harness.wire import Request, Response

__all__ = ["FENCING_HEADER", "FencingGateway"]

FENCING_HEADER = "x-fencing-token"
_TOKEN = re.compile(r"^(?P<job>[^\s:]{1,200}):(?P<token>\d{1,18})$")
_READS = ("GET", "HEAD", "OPTIONS")


class FencingGateway:
    def __init__(self, site: Any) -> None:
        self._site = site
        self.highest: dict[str, int] = {}  # per job id: the highest token let through
        self.refused = 0

    def __getattr__(self, name: str) -> Any:  # the site's name, host, root, controls and truth
        return getattr(self._site, name)

    def handle(self, request: Request) -> Response:
        method = (request.arg("_method") or request.header("x-http-method-override") or request.method).upper()
        header = request.header(FENCING_HEADER)
        if method in _READS or header is None:
            return self._site.handle(request)  # type: ignore[no-any-return]
        match = _TOKEN.match(header.strip())
        if match is None:
            return _error(400, "rest_fencing_token_invalid",
                          f"The {FENCING_HEADER} header must be <job_id>:<token>, not {header[:80]!r}.")
        job, token = match.group("job"), int(match.group("token"))
        highest = self.highest.get(job, -1)
        if token < highest:
            self.refused += 1
            return _error(409, "rest_fencing_token_stale",
                          f"Fencing token {token} for job {job} is older than {highest}: a newer writer holds the job.",
                          highest=highest)
        self.highest[job] = token
        return self._site.handle(request)  # type: ignore[no-any-return]

    def truth(self) -> dict[str, Any]:
        return {**self._site.truth(), "fencing": {"highest": dict(sorted(self.highest.items())), "refused": self.refused}}


def _error(status: int, code: str, message: str, **data: Any) -> Response:
    body = {"code": code, "message": message, "data": {"status": status, **data}}
    return Response(status=status, headers={"content-type": "application/json; charset=UTF-8"},
                    body=json.dumps(body).encode())
