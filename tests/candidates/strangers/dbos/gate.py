"""The send gate: no request leaves without the authority it needs at that instant.

Two rules are enforced here, in the HTTP transport itself, so that they hold for every attempt
(the openai SDK's own retries included):

* a refused credential is never used again: once a service answered 401, every request to that
  service, a read too, is stopped before it is sent (``Refused``);
* a write for a job (anything but GET/HEAD, made inside ``guarded(job_id, check)``) is sent only
  while the job's gate lock is held and ``check`` passes (not cancelled, still the newest task
  version, still the lease holder). The lock is released as soon as the request's last byte is
  on the wire (httpcore's ``trace`` extension), not when the answer comes.

``cancel`` takes the same lock before it stores the cancellation and answers, so a cancellation
is acknowledged either before a write was checked (and the write is stopped) or after its bytes
left (and the write was sent before the acknowledgement). It never waits for an answer: the
harness may hold that answer while it calls cancel.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import httpx2

from store import Store


class Forbidden(Exception):
    """A request was stopped before it was sent; ``reason`` says which authority was missing."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Refused(Forbidden):
    """The service's credential was refused (401) earlier: it must not be used again."""


class _Guard:
    def __init__(self, job_id: str, check: Callable[[], None]) -> None:
        self.job_id = job_id
        self.check = check


_tls = threading.local()


class Authority:
    """Per-process view of the cancellations and refusals, backed by the database."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()
        self._cancelled: set[str] = set()
        self._refused: set[str] = set(store.refused_services())

    def job_lock(self, job_id: str) -> threading.Lock:
        with self._locks_lock:
            return self._locks.setdefault(job_id, threading.Lock())

    def cancel(self, job_id: str) -> None:
        """Store the cancellation durably, behind the job's gate, then let the caller answer."""
        with self.job_lock(job_id):
            self.store.cancel(job_id)
            self._cancelled.add(job_id)

    def cancelled(self, job_id: str) -> bool:
        return job_id in self._cancelled or self.store.is_cancelled(job_id)

    def refuse(self, service: str, detail: str) -> None:
        self._refused.add(service)
        self.store.refuse(service, detail)

    def check_service(self, service: str) -> None:
        if service in self._refused:
            raise Refused(f"{service} credential was refused earlier")
        if service in self.store.refused_services():
            self._refused.add(service)
            raise Refused(f"{service} credential was refused earlier")


@contextmanager
def guarded(job_id: str, check: Callable[[], None]) -> Iterator[None]:
    """Writes made by this thread inside the block are gated by ``check``."""
    previous = getattr(_tls, "guard", None)
    _tls.guard = _Guard(job_id, check)
    try:
        yield
    finally:
        _tls.guard = previous


def _send(authority: Authority, service: str, request: Any, send: Callable[[Any], Any]) -> Any:
    authority.check_service(service)
    guard: _Guard | None = getattr(_tls, "guard", None)
    if guard is None or request.method in ("GET", "HEAD"):
        return send(request)
    lock = authority.job_lock(guard.job_id)
    lock.acquire()
    state = {"held": True}

    def release() -> None:
        if state["held"]:
            state["held"] = False
            lock.release()

    try:
        guard.check()
        previous = request.extensions.get("trace")

        def trace(name: str, info: dict[str, Any]) -> None:
            if previous is not None:
                previous(name, info)
            if name.endswith("send_request_body.complete") or name.endswith(".failed"):
                release()

        request.extensions["trace"] = trace
        return send(request)
    finally:
        release()


class GatedTransport(httpx.HTTPTransport):
    """httpx transport (WordPress, approvals) that enforces the gate."""

    def __init__(self, authority: Authority, service: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.authority = authority
        self.service = service

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return _send(self.authority, self.service, request, super().handle_request)


class GatedTransport2(httpx2.HTTPTransport):
    """httpx2 transport (the openai SDK's) that enforces the gate."""

    def __init__(self, authority: Authority, service: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.authority = authority
        self.service = service

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        return _send(self.authority, self.service, request, super().handle_request)
