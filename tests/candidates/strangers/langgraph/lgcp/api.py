"""The control API over HTTP (stdlib `http.server`, one thread per call).

`GET /health`, `POST /jobs`, `POST /jobs/{id}/cancel`, `GET /jobs/{id}`, `POST /webhooks/openai`.
Every call carries the run's time (`X-Harness-Time`), which sets the process's clock. A cancel is
stored (committed) before it is acknowledged; it never waits for a write already on its way.
"""

from __future__ import annotations

import json
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

from . import webhooks
from .deps import Deps
from .leases import LEASE_TTL_S
from .report import build_report


class ControlServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, deps: Deps, graph: Any) -> None:
        self.deps = deps
        self.graph = graph
        super().__init__((deps.settings.listen_host, deps.settings.listen_port), Handler)


class Handler(BaseHTTPRequestHandler):
    server: ControlServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the harness keeps our output
        return

    def _reply(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _route(self) -> list[str]:
        self.server.deps.clock.observe(self.headers.get("X-Harness-Time"))
        return [unquote(p) for p in self.path.split("?", 1)[0].strip("/").split("/")]

    def do_GET(self) -> None:
        parts = self._route()
        deps = self.server.deps
        try:
            if parts == ["health"]:
                self._reply(200, {"ok": True, "capabilities": ["webhooks"], "lease_ttl_s": LEASE_TTL_S})
            elif len(parts) == 2 and parts[0] == "jobs":
                report = build_report(deps, self.server.graph, parts[1])
                if report is None:
                    self._reply(404, {"error": "unknown job"})
                else:
                    self._reply(200, report)
            else:
                self._reply(404, {"error": "no such route"})
        except Exception:
            traceback.print_exc()
            self._reply(500, {"error": "internal error"})

    def do_POST(self) -> None:
        parts = self._route()
        deps = self.server.deps
        body = self._body()
        try:
            if parts == ["jobs"]:
                answer = deps.store.submit(json.loads(body))
                deps.wake.set()
                self._reply(200, answer)
            elif len(parts) == 3 and parts[0] == "jobs" and parts[2] == "cancel":
                deps.store.cancel(parts[1], deps.clock.now())
                deps.wake.set()
                self._reply(200, {"job_id": parts[1], "cancelled": True})
            elif parts == ["webhooks", "openai"]:
                self._webhook(body)
            else:
                self._reply(404, {"error": "no such route"})
        except Exception:
            traceback.print_exc()
            self._reply(500, {"error": "internal error"})

    def _webhook(self, body: bytes) -> None:
        deps = self.server.deps
        headers = {k.lower(): v for k, v in self.headers.items()}
        refused = webhooks.verify(body, headers, deps.settings.openai_webhook_secret, deps.clock.unix())
        if refused is not None:
            print(f"webhook refused: {refused}", flush=True)
            self._reply(400, {"error": refused})
            return
        kind, session_id = webhooks.describe(body)
        duplicate = deps.store.webhook_seen(headers["webhook-id"], kind, session_id)
        if not duplicate:
            deps.wake.set()  # read the session again; the webhook's claim itself is not evidence
        self._reply(200, {"ok": True, "duplicate": duplicate})
