"""Real services on loopback to put behind the embedded Toxiproxy server, and a client in front of it.

* ``HttpUpstream``: a threaded HTTP/1.1 server (the standard library's) with a few routes:
  ``GET /hello``; ``POST /write`` (stores the body, then answers 201); ``GET /stream`` (a chunked
  response whose parts wait for ``release``); ``GET /bytes/<n>`` (n bytes of a known pattern).
* ``TcpUpstream``: a raw TCP server that runs ``handler(conn)`` in a thread per connection.
* ``connect``/``recv_all``/``recv_until``: a blocking client socket with bounded waits.

Every wait here has a bound; every thread and socket is closed at ``close()``.
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WAIT_S = 10.0


def pattern(n: int) -> bytes:
    """n bytes that show any loss, duplication or reordering."""
    block = bytes(range(251))  # a prime length: no alignment with chunk sizes
    return (block * (n // len(block) + 1))[:n]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HttpServer

    def log_message(self, format: str, *args: object) -> None:
        return None

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/hello":
            self._send(200, b"hello")
        elif self.path.startswith("/bytes/"):
            self._send(200, pattern(int(self.path.rsplit("/", 1)[1])))
        elif self.path == "/stream":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for number in range(1, 4):
                if number > 1 and not self.server.release.wait(WAIT_S):
                    return
                part = f"part-{number}\n".encode()
                try:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                    self.wfile.flush()
                except OSError:
                    self.server.stream_broken.set()
                    return
            self.wfile.write(b"0\r\n\r\n")
        else:
            self._send(404, b"no such path")

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/write":
            self.server.writes.append(body)
            self.server.written.set()
            self._send(201, b"stored")
        else:
            self._send(404, b"no such path")


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.writes: list[bytes] = []
        self.written = threading.Event()
        self.release = threading.Event()
        self.stream_broken = threading.Event()
        self.errors: list[str] = []

    def handle_error(self, request: object, client_address: object) -> None:
        self.errors.append(repr(sys.exc_info()[1]))  # a reset from a toxic is expected; keep it quiet


class HttpUpstream:
    def __init__(self) -> None:
        self.server = _HttpServer()
        self.address = f"127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="http-upstream", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.server.release.set()
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(WAIT_S)
        assert not self._thread.is_alive(), "the HTTP upstream did not stop"


class TcpUpstream:
    """``handler(conn)`` runs in a thread per accepted connection; the connection is closed after it."""

    def __init__(self, handler: Callable[[socket.socket], None]) -> None:
        self._handler = handler
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self.address = f"127.0.0.1:{self._listener.getsockname()[1]}"
        self.accepted = 0
        self._conns: list[socket.socket] = []
        self._closing = threading.Event()
        self._threads: list[threading.Thread] = []
        self._acceptor = threading.Thread(target=self._accept, name="tcp-upstream", daemon=True)
        self._acceptor.start()

    def _accept(self) -> None:
        while not self._closing.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            self._conns.append(conn)
            thread = threading.Thread(target=self._run, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _run(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(WAIT_S)
            try:
                self._handler(conn)
            except OSError:
                pass

    def close(self) -> None:
        self._closing.set()
        self._acceptor.join(WAIT_S)
        self._listener.close()
        for conn in self._conns:  # unblock a handler still reading
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for thread in self._threads:
            thread.join(WAIT_S)
        assert not any(t.is_alive() for t in [self._acceptor, *self._threads]), "a TCP upstream thread is stuck"


def connect(address: str, timeout_s: float = WAIT_S) -> socket.socket:
    host, port = address.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=timeout_s)
    return sock


def recv_all(sock: socket.socket) -> bytes:
    """Everything until the peer closes (bounded by the socket's timeout per read)."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def recv_until(sock: socket.socket, marker: bytes) -> bytes:
    received = b""
    while marker not in received:
        chunk = sock.recv(65536)
        if not chunk:
            break
        received += chunk
    return received
