"""Candidates that break the process contract, one way each: ``python misbehaving.py KIND``.

``garbage-health``: answers ``GET /health`` 200 with text that is not JSON. ``exits``: prints a
line and exits with status 3 at once. ``never-healthy``: runs, prints, and never listens.
``hangs``: healthy, but never answers ``POST /jobs``. ``forks``: a healthy candidate that starts a
grandchild (``sleep``) in its process group and then never answers ``POST /jobs``: the harness must
kill the whole group. ``text-report``: healthy, takes every call, answers its first ``GET /jobs/{id}``
with text that is not JSON, and the others with a report that says it needs a human. Plain stdlib: each is what a stranger's broken control plane might do.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def serve(kind: str) -> None:
    reports: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = b"hello, I am up" if kind == "garbage-health" else b'{"ok": true}'
            if kind == "text-report" and self.path.startswith("/jobs/"):
                body = b"all good" if not reports else b'{"outcome": "needs_human"}'
                reports.append(self.path)
            self.send_response(200)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:  # noqa: N802
            if kind != "text-report":
                time.sleep(3600)  # never answers
            self.rfile.read(int(self.headers.get("content-length") or 0))
            body = b'{"accepted": true}' if self.path == "/jobs" else b'{"progressed": false}'
            self.send_response(200 if self.path != "/webhooks/openai" else 204)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    host, _, port = os.environ["CANDIDATE_LISTEN"].rpartition(":")
    server = ThreadingHTTPServer((host, int(port)), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()


def main() -> int:
    kind = sys.argv[1]
    print(f"misbehaving candidate: {kind}", flush=True)
    if kind == "exits":
        print("fatal: cannot read my configuration", flush=True)
        return 3
    if kind == "forks":
        subprocess.Popen(["sleep", "300"])
    if kind != "never-healthy":
        serve(kind)
    time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
