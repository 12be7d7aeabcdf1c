"""The reference control plane as a process: the process driver's HTTP control API around it.

    python -m durable_harness.candidates.reference.serve [--candidate reference | mutant:NAME | package.module:factory]

It reads the contract's environment (``OPENAI_BASE_URL`` ..., ``DATABASE_URL``, ``WORKER_ID``,
``CANDIDATE_LISTEN``, ``HARNESS_TIME_SCALE``, ``HARNESS_TIME_ORIGIN``), builds the environment an
in-process candidate gets (an ``openai.OpenAI`` client, an ``httpx.Client``, a clock) from it, makes
the candidate with its factory, and serves ``GET /health``, ``POST /jobs``, ``POST /jobs/{id}/cancel``,
``GET /jobs/{id}`` and ``POST /webhooks/openai`` on ``CANDIDATE_LISTEN``. The main thread steps the
candidate, from the moment the harness's first call (its health check) has said the run's time; when
a step finds nothing to do it waits one scenario second, or until the harness posts work (a job, a
cancel, a webhook); while steps go on finding nothing, twice as long each time, up to four seconds
and a third of its lease (``Idle``).

With ``--clock harness`` it takes its time from the harness (``"clock": "harness"`` in its health
answer, when the harness gives ``HARNESS_CLOCK_URL``): every answer of the harness says the run's time, and it waits only on
the harness (a request, a stream, ``GET /wait`` of the clock service), so the harness skips the
time it would otherwise sleep through. Its code computes only on the main thread, right after
something reached it, and on a control call's thread while the harness waits for the answer.

The candidate object is only ever touched by one thread at a time, as in-process: a step runs on
the main thread; a ``submit``, a ``cancel`` or a webhook runs on its HTTP thread when no candidate
code runs, or while the code that runs waits for I/O (a request, a stream, a sleep): a cancel that
arrives while a write is in flight runs to its end before the step goes on, exactly where the
in-process driver would deliver it (the *baton*). ``report`` is answered between steps only, as
the in-process driver calls it (mid-step, an object may be between two writes of its own). So any
in-process candidate runs here unchanged.

A control call that raises answers 500 (the harness counts it as the candidate's crash); a step
that raises ends the process with status 70 and its traceback on stderr. SIGKILL is the harness's
crash; a restart runs this again on the same database. It deliberately adds no behaviour of its
own: the verdicts are the candidate's.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

import httpx
import openai

__all__ = ["main"]

POLL_S = 1.0  # scenario seconds after a step that found nothing to do (doubled while steps find nothing)
IDLE_MAX_S = 4.0  # scenario seconds: the longest wait between two steps that found nothing to do
HARNESS_CLIENT_TIMEOUT_S = 60.0  # real seconds a request may take on the harness's clock (see Env)
WAIT_TIMEOUT_S = 3600.0  # real seconds a wait on the harness's clock may take (it ends on the run's time)
CLIENT_TIMEOUT_S = 30.0  # scenario seconds: the clients' timeout (at least 2 real seconds)
CALL_TIMEOUT_S = 60.0  # real seconds a control call may wait for the main thread at scale 10 (the harness gives up first)
SYNC_WAIT_S = 60.0  # real seconds to wait for the harness's first call (its health check) before stepping


@dataclass(frozen=True)
class Endpoint:
    url: str
    credentials: Mapping[str, str]
    variables: Mapping[str, str]


class Baton:
    """Who runs the candidate's code now. A step runs on the main thread; a control call runs on its
    HTTP thread, when nobody runs candidate code or when whoever does waits for I/O (a request, a
    stream, a sleep). Nested so, a call that arrives during a step's request runs to its end before
    the step goes on, as a call made during a request does in-process. ``report`` (not ``anytime``)
    waits for the step to end, as the in-process driver calls it only between steps."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._stack: list[int] = []  # threads inside candidate code, outermost first
        self._in_io: set[int] = set()  # of those, the ones waiting for I/O
        self._stepping = False
        self._nudged = False
        self._waiting = 0  # control calls waiting for their turn: a step waits for them (no starving them)
        self.call_timeout_s = CALL_TIMEOUT_S  # longer at a slower time scale (``main``)

    def _free(self, anytime: bool) -> bool:
        return (not self._stack or self._stack[-1] in self._in_io) and (anytime or not self._stepping)

    def call(self, fn: Callable[[], Any], *, anytime: bool = True, work: bool = True) -> Any:
        """From an HTTP thread: run ``fn`` as soon as the candidate may take the call; ``work`` (a job,
        a cancel, a webhook: not a report) ends the main thread's wait between two steps."""
        me = threading.get_ident()
        with self._cond:
            self._waiting += 1
            try:
                if not self._cond.wait_for(lambda: self._free(anytime), self.call_timeout_s):
                    raise TimeoutError(f"the control plane was busy for {self.call_timeout_s:g} s")
            finally:
                self._waiting -= 1
            self._stack.append(me)
        try:
            return fn()
        except Exception:
            traceback.print_exc()
            raise
        finally:
            with self._cond:
                self._stack.remove(me)
                self._nudged = self._nudged or work
                self._cond.notify_all()

    @contextlib.contextmanager
    def step(self) -> Iterator[None]:
        """The main thread runs a step."""
        me = threading.get_ident()
        with self._cond:
            # Calls that wait go first: a step that always finds work (returns True at once) must not
            # keep the report from being answered between its steps.
            self._cond.wait_for(lambda: not self._stack and self._waiting == 0)
            self._stack.append(me)
            self._stepping, self._nudged = True, False
        try:
            yield
        finally:
            with self._cond:
                self._stack.remove(me)
                self._stepping = False
                self._cond.notify_all()

    def wait_io(self, fn: Callable[[], Any]) -> Any:
        """I/O on this very thread; meanwhile calls may run. Afterwards, wait until they are done."""
        with self.io() as waiting:
            waiting()
            return fn()

    @contextlib.contextmanager
    def io(self) -> Iterator[Callable[[], None]]:
        """I/O on this very thread, which lets calls in from when it calls what this yields (it waits
        for the world from then on) to its end; afterwards, wait until they are done."""
        me = threading.get_ident()
        with self._cond:
            inside = me in self._stack

        def waiting() -> None:
            if inside:
                with self._cond:
                    self._in_io.add(me)
                    self._cond.notify_all()
        try:
            yield waiting
        finally:
            if inside:
                with self._cond:
                    self._in_io.discard(me)
                    self._cond.wait_for(lambda: self._stack[-1] == me)

    def idle_until_called(self, real_s: float) -> bool:
        """Between steps: wait at most ``real_s`` seconds, or until a control call has run (True)."""
        with self._cond:
            called = self._cond.wait_for(lambda: self._nudged, real_s)
            self._nudged = False
            return called


class Idle:
    """How long to wait after a step that found nothing to do: one scenario second, doubled after each
    further step that found nothing, up to ``IDLE_MAX_S`` (and a third of the candidate's lease, so
    that a job it holds while it waits, for an approval say, keeps its lease); back to one second as
    soon as a step did something or the harness posted work. A job that waits on the world (a person,
    a peer's lease) is looked at a few times, not once a scenario second for the whole wait: each
    look is a step, often a request. On the harness's clock every call of the harness ends a wait
    that asked to be woken (a report too), so there it looks about once a scenario second still."""

    def __init__(self, lease_s: float | None) -> None:
        self.max_s = max(POLL_S, min(IDLE_MAX_S, lease_s / 3) if lease_s else IDLE_MAX_S)
        self._wait_s = POLL_S

    def next(self) -> float:
        wait_s = self._wait_s
        self._wait_s = min(self._wait_s * 2, self.max_s)
        return wait_s

    def reset(self) -> None:
        self._wait_s = POLL_S


class BatonTransport(httpx.BaseTransport):
    """The candidate's HTTP: every network wait (the answer, each chunk of a stream) lets calls in."""

    def __init__(self, baton: Baton, clock: Clock) -> None:
        self._baton = baton
        self._clock = clock
        self._inner = httpx.HTTPTransport(retries=0)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        # Calls come in only once the request has left whole, while it waits for the answer: a write
        # decided before a cancel reaches the world before the cancel is acknowledged, never after.
        # (Letting them in before its bytes leave, a cancel taken meanwhile was acknowledged before
        # the write it could no longer stop arrived.)
        with self._baton.io() as waiting:
            request.extensions = {**request.extensions, "trace": _when_sent(waiting, request.extensions.get("trace"))}
            response = self._inner.handle_request(request)
        self._clock.sync_from(response.headers)
        return httpx.Response(response.status_code, headers=response.headers, extensions=response.extensions,
                              stream=_BatonStream(response.stream, self._baton, self._clock))

    def close(self) -> None:
        self._inner.close()


def _when_sent(waiting: Callable[[], None], then: Callable[[str, Any], Any] | None) -> Callable[[str, Any], Any]:
    """An httpcore ``trace`` that calls ``waiting`` once the request is sent and its answer awaited."""

    def trace(event: str, info: Any) -> None:
        if event.endswith(".receive_response_headers.started"):
            waiting()
        if then is not None:
            then(event, info)
    return trace


class _BatonStream(httpx.SyncByteStream):
    def __init__(self, stream: Any, baton: Baton, clock: Clock) -> None:
        self._stream = stream
        self._baton = baton
        self._clock = clock

    def __iter__(self) -> Iterator[bytes]:
        chunks = iter(self._stream)
        end = b""

        def read() -> bytes:
            self._clock.idle()  # it waits for the next event now: the harness may skip to it
            return next(chunks, end)

        for _ in range(10**9):  # bounded by the stream: its end, or the client's read timeout
            chunk = self._baton.wait_io(read)
            if chunk is end:
                return
            self._clock.received += len(chunk)
            yield chunk

    def close(self) -> None:
        self._stream.close()


class Clock:
    """The run's time as the candidate sees it: scenario seconds, advancing ``HARNESS_TIME_SCALE`` times
    as fast as the wall clock from the last ``X-Harness-Time`` the harness sent (the run's time stands
    still while a candidate restarts); Unix seconds on the same time, from ``HARNESS_TIME_ORIGIN``.

    Until the first header it is only a guess (the wall clock since ``HARNESS_TIME_ORIGIN``, which
    counts every start and restart the run's time stood still for, ``scale`` times over): nothing is
    stepped until the harness's first call has said the time (``wait_synced``)."""

    def __init__(self, scale: float, origin: float, baton: Baton, harness_url: str | None = None) -> None:
        self.scale = scale
        self._origin = origin
        self._baton = baton
        self._base = (0.0, origin)  # (the run's time, the wall clock) at the last sync
        self._synced = threading.Event()
        self.harness_url = harness_url  # the harness's clock service: its waits end on the run's time
        self._harness = httpx.Client(timeout=WAIT_TIMEOUT_S) if harness_url else None
        self.received = 0  # bytes of streamed answers read so far (the harness counts what it sent)

    def sync(self, run_s: float) -> None:
        if run_s >= self._base[0] or not self._synced.is_set():
            self._base = (run_s, time.time())
        self._synced.set()

    def sync_from(self, headers: Mapping[str, str]) -> None:
        """The run's time an answer of the harness said, if it said one."""
        raw = headers.get("x-harness-time")
        try:
            self.sync(float(raw)) if raw else None
        except ValueError:
            pass

    def wait_synced(self, timeout_s: float) -> bool:
        """Wait (in real seconds, at most ``timeout_s``) for the harness's first word on the time."""
        return self._synced.wait(timeout_s)

    def now(self) -> float:
        run_s, wall = self._base
        return run_s + (time.time() - wall) * self.scale

    def unix(self) -> int:
        return int(self._origin + self.now())

    def time(self) -> float:  # stands in for the ``time`` module in the SDK's webhook check (see main)
        return self._origin + self.now()

    def sleep(self, seconds: float) -> None:
        if self._harness is not None:
            self._baton.wait_io(lambda: self.wait_until(self.now() + max(0.0, seconds)))
        else:
            self._baton.wait_io(lambda: time.sleep(max(0.0, seconds) / self.scale))

    def idle(self) -> None:
        """Tell the harness it waits for what is in flight, having read ``received`` bytes of streams."""
        if self._harness is not None:
            response = self._harness.post(f"{self.harness_url}/idle", params={"received": str(self.received)})
            self.sync_from(response.headers)

    def wait_until(self, until_s: float, *, wake: bool = False) -> bool:
        """On the harness's clock: until the run's time is ``until_s`` (``wake``: or a control call came,
        which is when it returns True)."""
        assert self._harness is not None and self.harness_url is not None
        params = {"until": f"{until_s:.6f}", **({"wake": "1"} if wake else {})}
        response = self._harness.get(f"{self.harness_url}/wait", params=params)
        self.sync_from(response.headers)
        return wake and float(response.json().get("now", until_s)) < until_s


class Env:
    """What an in-process candidate is given, built from the process environment."""

    def __init__(self, environ: Mapping[str, str], baton: Baton, *, harness_clock: bool = False) -> None:
        scale = float(environ.get("HARNESS_TIME_SCALE") or 1.0)
        self.clock = Clock(scale, float(environ.get("HARNESS_TIME_ORIGIN") or time.time()), baton,
                           (environ.get("HARNESS_CLOCK_URL") or None) if harness_clock else None)
        self.database_url = environ["DATABASE_URL"]
        self.worker_id = environ.get("WORKER_ID", "worker-1")
        self.run_id = environ.get("HARNESS_RUN_ID", "")
        self.services = {
            "openai": Endpoint(environ["OPENAI_BASE_URL"], {"api_key": environ["OPENAI_API_KEY"],
                                                            "webhook_secret": environ["OPENAI_WEBHOOK_SECRET"]}, {}),
            "wordpress": Endpoint(environ["WORDPRESS_URL"], {"username": environ["WORDPRESS_USERNAME"],
                                                             "app_password": environ["WORDPRESS_APP_PASSWORD"]}, {}),
            "approvals": Endpoint(environ["APPROVALS_URL"], {"token": environ["APPROVALS_TOKEN"]}, {}),
        }
        # On the harness's clock a lost answer ends on the run's time (the harness drops the connection),
        # so the client's own bound, in real seconds, is only for a harness gone quiet: a short one would
        # be a timeout no scenario asked for on a busy machine.
        timeout = HARNESS_CLIENT_TIMEOUT_S if self.clock.harness_url else max(CLIENT_TIMEOUT_S / scale, 2.0)
        self.http = httpx.Client(transport=BatonTransport(baton, self.clock), timeout=timeout)
        retries = int(environ.get("OPENAI_MAX_RETRIES") or 0)  # the SDK retries the scenario gives a client
        self.openai = openai.OpenAI(api_key=self.openai_api_key, base_url=self.openai_base_url, max_retries=retries,
                                    webhook_secret=self.openai_webhook_secret, timeout=timeout,
                                    http_client=httpx.Client(transport=BatonTransport(baton, self.clock), timeout=timeout))

    openai_base_url = property(lambda self: self.services["openai"].url)
    openai_api_key = property(lambda self: self.services["openai"].credentials["api_key"])
    openai_webhook_secret = property(lambda self: self.services["openai"].credentials["webhook_secret"])
    wordpress_url = property(lambda self: self.services["wordpress"].url)
    wordpress_username = property(lambda self: self.services["wordpress"].credentials["username"])
    wordpress_app_password = property(lambda self: self.services["wordpress"].credentials["app_password"])
    approvals_url = property(lambda self: self.services["approvals"].url)
    approvals_token = property(lambda self: self.services["approvals"].credentials["token"])


def resolve(spec: str) -> Callable[[Any], Any]:
    """``reference``, ``mutant:NAME`` or ``package.module:factory``."""
    if spec == "reference":
        from durable_harness.candidates.reference import create
        return create
    family, _, name = spec.partition(":")
    if family == "mutant":
        from durable_harness.candidates.mutants import FACTORIES
        if name not in FACTORIES:
            raise SystemExit(f"serve: unknown mutant {name!r}; known: {', '.join(sorted(FACTORIES))}")
        return FACTORIES[name]  # type: ignore[no-any-return]
    if not name:
        raise SystemExit(f"serve: --candidate {spec!r} must be reference, mutant:NAME or package.module:factory")
    sys.path.insert(0, os.getcwd())
    factory = getattr(importlib.import_module(family), name)
    return factory  # type: ignore[no-any-return]


def handler(plane: Any, baton: Baton, clock: Clock, health: Mapping[str, Any]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go in two writes: without this each answer waits 40 ms

        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            self._sync()
            parts = self._parts()
            if parts == ["health"]:
                self._json(200, health)
            elif len(parts) == 2 and parts[0] == "jobs":
                self._control(lambda: plane.report(parts[1]), anytime=False, work=False)
            else:
                self._json(404, {"error": f"no route GET {self.path}"})

        def do_POST(self) -> None:  # noqa: N802
            self._sync()
            parts, body = self._parts(), self.rfile.read(int(self.headers.get("content-length") or 0))
            if parts == ["jobs"]:
                self._control(lambda: plane.submit(json.loads(body)))
            elif len(parts) == 3 and parts[0] == "jobs" and parts[2] == "cancel":
                self._control(lambda: plane.cancel(parts[1]))
            elif parts == ["webhooks", "openai"] and callable(getattr(plane, "receive_webhook", None)):
                headers = {k.lower(): v for k, v in self.headers.items()}
                try:
                    status = baton.call(lambda: plane.receive_webhook(headers, body))
                except Exception as err:
                    self._json(500, {"error": f"{type(err).__name__}: {err}"})
                    return
                self._json(int(status), {})
            else:
                self._json(404, {"error": f"no route POST {self.path}"})

        def _sync(self) -> None:
            run_s = self.headers.get("x-harness-time")
            if run_s:
                clock.sync(float(run_s))

        def _parts(self) -> list[str]:
            return [unquote(p) for p in self.path.split("?", 1)[0].split("/") if p]

        def _control(self, fn: Callable[[], Any], anytime: bool = True, work: bool = True) -> None:
            try:
                self._json(200, baton.call(fn, anytime=anytime, work=work))
            except Exception as err:
                self._json(500, {"error": f"{type(err).__name__}: {err}"})

        def _json(self, status: int, value: Any) -> None:
            data = json.dumps(value, default=str).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # the harness samples often: no access log
            pass

    return Handler


def warm_up(env: Env) -> None:
    """Load what the SDK loads on first use (its beta resources take a second or more): before the
    process says it is healthy, while the run's time stands still, not in the middle of the run."""
    sessions = env.openai.beta.agents.sessions
    for name in ("events", "items", "turns", "artifacts"):
        getattr(sessions, name, None)
    getattr(env.openai.beta.agents, "environments", None)
    try:
        env.openai.webhooks.verify_signature(b"{}", {"webhook-id": "warm-up", "webhook-timestamp": "0",
                                                     "webhook-signature": "v1,warm-up"})
    except Exception:  # it refuses the warm-up, as it should: only its imports were wanted
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m durable_harness.candidates.reference.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidate", default="reference", help="reference | mutant:NAME | package.module:factory")
    parser.add_argument("--clock", choices=("real", "harness"), default="real",
                        help="harness: take the run's time from the harness, which skips what it is idle for; "
                             "real (default): keep the compressed real time")
    args = parser.parse_args(argv)
    baton = Baton()
    env = Env(os.environ, baton, harness_clock=args.clock == "harness")
    baton.call_timeout_s = CALL_TIMEOUT_S * max(1.0, 10.0 / env.clock.scale)  # a step's waits last scenario seconds
    # Webhook timestamps are on the run's time, as in-process, where the SDK's check runs on the
    # virtual clock: the SDK's webhook module reads only time.time(), so it gets the run's clock.
    from openai.lib import _webhooks
    setattr(_webhooks, "time", env.clock)
    plane = resolve(args.candidate)(env)
    warm_up(env)
    host, _, port = os.environ.get("CANDIDATE_LISTEN", "127.0.0.1:8700").rpartition(":")
    health = {"ok": True, "candidate": args.candidate, "worker_id": env.worker_id,
              "capabilities": ["webhooks"] if callable(getattr(plane, "receive_webhook", None)) else []}
    if env.clock.harness_url:
        health["clock"] = "harness"  # it waits only on the harness: the harness may skip its idle time
    lease = getattr(plane, "lease_ttl_s", None)
    if isinstance(lease, (int, float)) and lease > 0:
        health["lease_ttl_s"] = lease  # declared to the harness: a pause can be made to outlast it
    server = ThreadingHTTPServer((host or "127.0.0.1", int(port)), handler(plane, baton, env.clock, health))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="control-api", daemon=True).start()
    print(f"serve: {args.candidate} listening on {host}:{port} (time scale {env.clock.scale:g})", flush=True)
    if not env.clock.wait_synced(SYNC_WAIT_S):  # the harness's GET /health says the run's time first
        print(f"serve: no call from the harness within {SYNC_WAIT_S:g} s: stepping on the wall clock's time", flush=True)
    idle = Idle(health.get("lease_ttl_s"))  # the lease it declared, if any
    while True:
        try:
            with baton.step():
                progressed = plane.step()
        except Exception:
            traceback.print_exc()
            os._exit(70)  # a step that raises is this process's crash; the harness restarts it
        if progressed:
            idle.reset()
            continue
        wait_s = idle.next()
        if env.clock.harness_url:  # the wait, or until a control call brought work
            called = env.clock.wait_until(env.clock.now() + wait_s, wake=True)
        else:
            called = baton.idle_until_called(wait_s / env.clock.scale)
        if called:
            idle.reset()


if __name__ == "__main__":
    sys.exit(main())
