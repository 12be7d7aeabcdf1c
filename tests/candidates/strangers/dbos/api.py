"""The control API the harness drives, on the standard library's threading HTTP server.

``POST /jobs`` stores the job version, then starts its DBOS workflow under a fixed workflow id
(``dh:<job>:<version>``), so a repeated submit, or the same job given to a second worker, finds
the workflow that exists instead of starting another. ``POST /jobs/{id}/cancel`` stores the
cancellation behind the job's send gate before it answers. ``GET /jobs/{id}`` builds the report
from the database. Every call carries the run's time, which the run clock keeps.
"""

from __future__ import annotations

import json
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

from dbos import DBOS, SetWorkflowID

import report
import webhooks
from runtime import Runtime, rt
from workflow import job_workflow, workflow_id


def start_job(job_id: str, version: str) -> None:
    with SetWorkflowID(workflow_id(job_id, version)):
        DBOS.start_workflow(job_workflow, job_id, version)


def submit(r: Runtime, job: dict[str, Any]) -> dict[str, Any]:
    job_id, version = str(job["job_id"]), str(job["task_version"])
    job = {**job, "job_id": job_id, "task_version": version}
    status, start = r.store.submit(job, workflow_id(job_id, version))
    if start:
        start_job(job_id, version)
    return {"job_id": job_id, "task_version": version, "accepted": status != "cancelled",
            "status": status}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return

    def _reply(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _route(self, method: str) -> None:
        r = rt()
        r.clock.observe(self.headers.get("X-Harness-Time"))
        parts = [unquote(p) for p in urlsplit(self.path).path.split("/") if p]
        body = self._body() if method == "POST" else b""
        try:
            if method == "GET" and parts == ["health"]:
                self._reply(200, {"ok": True, "capabilities": ["webhooks"],
                                  "lease_ttl_s": r.settings.lease_ttl_s})
            elif method == "GET" and len(parts) == 2 and parts[0] == "jobs":
                found = report.build(r, parts[1])
                if found is None:
                    self._reply(404, {"error": "unknown job"})
                else:
                    self._reply(200, found)
            elif method == "POST" and parts == ["jobs"]:
                self._reply(200, submit(r, json.loads(body or b"{}")))
            elif method == "POST" and len(parts) == 3 and parts[0] == "jobs" \
                    and parts[2] == "cancel":
                r.authority.cancel(parts[1])
                self._reply(200, {"job_id": parts[1], "cancelled": True})
            elif method == "POST" and parts == ["webhooks", "openai"]:
                status, answer = webhooks.receive(r, dict(self.headers.items()), body)
                self._reply(status, answer)
            else:
                self._reply(404, {"error": f"no route {method} {self.path}"})
        except Exception as exc:  # noqa: BLE001 - answer, and keep the log
            print(f"{method} {self.path} failed: {exc!r}\n{traceback.format_exc()}", flush=True)
            self._reply(500, {"error": repr(exc)[:300]})

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._route("GET")

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        self._route("POST")


def serve(host: str, port: int) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server
