"""What the embedded Toxiproxy server costs on loopback: throughput and added round-trip latency of a
pass-through proxy (and of one with a noop toxic each way), against the same traffic sent direct.

Usage: python benchmarks/bench_toxiproxy.py [--megabytes N] [--round-trips N] [--repeat N]
The proxy runs in this process on a ``ToxiproxyThread``, as the harness runs it; the services (a
byte source, a sink, an echo) and the client run in a child process, so they do not share the
proxy's interpreter lock. Each throughput is the best of ``--repeat`` transfers; a round trip is 64
bytes out and back, reported as the median and the 99th percentile. Wall-clock time is measured
here, in the benchmark, never inside the harness.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).parents[1]
BLOCK = bytes(range(256)) * 256  # 64 KiB
WAIT_S = 60.0


# -- the child: services and the client -----------------------------------------------------------------
def _serve(handler: Callable[[socket.socket], None]) -> int:
    listener = socket.create_server(("127.0.0.1", 0))

    def accept() -> None:
        while True:
            conn, _ = listener.accept()
            threading.Thread(target=_run, args=(handler, conn), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return int(listener.getsockname()[1])


def _run(handler: Callable[[socket.socket], None], conn: socket.socket) -> None:
    with conn:
        handler(conn)


def _source(conn: socket.socket) -> None:
    (size,) = struct.unpack("!Q", _recv_exactly(conn, 8))
    view = memoryview(BLOCK)
    while size > 0:
        sent = conn.send(view[:min(size, len(BLOCK))])
        size -= sent


def _sink(conn: socket.socket) -> None:
    total = 0
    while data := conn.recv(1 << 16):
        total += len(data)
    conn.sendall(struct.pack("!Q", total))


def _echo(conn: socket.socket) -> None:
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while data := conn.recv(1 << 16):
        conn.sendall(data)


def _recv_exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionError(f"the peer closed after {len(data)} of {size} bytes")
        data += chunk
    return data


def _connect(address: str) -> socket.socket:
    host, port = address.rsplit(":", 1)
    conn = socket.create_connection((host, int(port)), timeout=WAIT_S)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn


def _download_s(address: str, size: int) -> float:
    with _connect(address) as conn:
        started = time.perf_counter()
        conn.sendall(struct.pack("!Q", size))
        received = 0
        while chunk := conn.recv(1 << 16):
            received += len(chunk)
        elapsed = time.perf_counter() - started
    assert received == size, f"received {received} of {size} bytes from {address}"
    return elapsed


def _upload_s(address: str, size: int) -> float:
    with _connect(address) as conn:
        started = time.perf_counter()
        left = size
        while left > 0:
            left -= conn.send(BLOCK[:min(left, len(BLOCK))])
        conn.shutdown(socket.SHUT_WR)
        (counted,) = struct.unpack("!Q", _recv_exactly(conn, 8))
        elapsed = time.perf_counter() - started
    assert counted == size, f"the sink counted {counted} of {size} bytes through {address}"
    return elapsed


def _round_trips_us(address: str, count: int) -> list[float]:
    message = b"x" * 64
    times = []
    with _connect(address) as conn:
        for _ in range(count):
            started = time.perf_counter()
            conn.sendall(message)
            _recv_exactly(conn, len(message))
            times.append((time.perf_counter() - started) * 1e6)
    return times


def child(megabytes: int, round_trips: int, repeat: int) -> None:
    ports = {"source": _serve(_source), "sink": _serve(_sink), "echo": _serve(_echo)}
    print(json.dumps(ports), flush=True)
    routes = json.loads(sys.stdin.readline())  # {"direct": {...}, "proxy": {...}, "noop": {...}}
    size = megabytes * 1_000_000
    results = {}
    for route, addresses in routes.items():
        down = min(_download_s(addresses["source"], size) for _ in range(repeat))
        up = min(_upload_s(addresses["sink"], size) for _ in range(repeat))
        rtt = _round_trips_us(addresses["echo"], round_trips)
        results[route] = {"down_mb_s": size / down / 1e6, "up_mb_s": size / up / 1e6,
                          "rtt_median_us": statistics.median(rtt),
                          "rtt_p99_us": statistics.quantiles(rtt, n=100)[98]}
    print(json.dumps(results), flush=True)


# -- the parent: the proxy ------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--round-trips", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.megabytes, args.round_trips, args.repeat)
        return
    import httpx

    sys.path.insert(0, str(REPO))
    from durable_harness.fakes.toxiproxy import ToxiproxyThread

    command = [sys.executable, __file__, "--child", "--megabytes", str(args.megabytes),
               "--round-trips", str(args.round_trips), "--repeat", str(args.repeat)]
    with ToxiproxyThread(rng=random.Random(0)) as server, httpx.Client(base_url=server.url, timeout=10) as api, \
            subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as worker:
        assert worker.stdin is not None and worker.stdout is not None
        ports = json.loads(worker.stdout.readline())
        routes: dict[str, dict[str, str]] = {"direct": {k: f"127.0.0.1:{p}" for k, p in ports.items()},
                                             "proxy": {}, "noop": {}}
        for route in ("proxy", "noop"):
            for kind, port in ports.items():
                name = f"{route}-{kind}"
                made = api.post("/proxies", json={"name": name, "upstream": f"127.0.0.1:{port}"}).json()
                routes[route][kind] = made["listen"]
                if route == "noop":
                    for stream in ("upstream", "downstream"):
                        api.post(f"/proxies/{name}/toxics", json={"type": "noop", "stream": stream})
        worker.stdin.write(json.dumps(routes) + "\n")
        worker.stdin.flush()
        results = json.loads(worker.stdout.readline())
        worker.wait(WAIT_S)
    print(f"loopback, {args.megabytes} MB per transfer (best of {args.repeat}), {args.round_trips} round trips of 64 B")
    print(f"{'route':34} {'down MB/s':>10} {'up MB/s':>9} {'rtt p50 us':>11} {'rtt p99 us':>11}")
    labels = {"direct": "direct", "proxy": "pass-through proxy", "noop": "proxy, a noop toxic each way"}
    for route, r in results.items():
        print(f"{labels[route]:34} {r['down_mb_s']:10.0f} {r['up_mb_s']:9.0f} {r['rtt_median_us']:11.0f} "
              f"{r['rtt_p99_us']:11.0f}")
    added = results["proxy"]["rtt_median_us"] - results["direct"]["rtt_median_us"]
    print(f"the proxy adds {added:.0f} us to a round trip (median) and carries "
          f"{100 * results['proxy']['down_mb_s'] / results['direct']['down_mb_s']:.0f}% of direct throughput down, "
          f"{100 * results['proxy']['up_mb_s'] / results['direct']['up_mb_s']:.0f}% up")


if __name__ == "__main__":
    main()
