"""The WordPress client the reference's tools use, with two brakes.

* **Refused credentials stop everything.** The first 401 (a revoked or wrong application password)
  is recorded; from then on nothing is sent with that credential (a request that would have used it
  fails at once, without I/O): trying again, or around it, is not the control plane's to do. The
  job waits for a human.
* **A stopped job sends no write.** Once the user's cancellation is acknowledged, the job may still
  read (a lookup settles an in-flight write by its operation key), but a write, a retry included,
  fails at once without I/O.
* **A write is a write entry** (``_lease``): sent under the writer lock with the lease checked and
  its fencing token in a header; a stale token refused by the site is ``LeaseLost``.

What it deliberately does not do: decide what a job does next (the plane does).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import httpx

from durable_harness.candidates.reference._lease import LeaseLost
from durable_harness.candidates.reference._wordpress import Definite, WordPress

__all__ = ["GuardedWordPress"]

_READS = ("GET", "HEAD", "OPTIONS")


class GuardedWordPress(WordPress):
    def __init__(self, http: httpx.Client, base_url: str, username: str, app_password: str, *,
                 stopped: Callable[[], str | None], refused: Callable[[str], None],
                 stop_on_refusal: bool = True, honour_stop: bool = True,
                 writing: Callable[[], AbstractContextManager[Mapping[str, str]]] | None = None) -> None:
        super().__init__(http, base_url, username, app_password)
        self._writing = writing or (lambda: nullcontext({}))
        self._stopped = stopped  # why the current job may not write now (None: it may)
        self._on_refused = refused
        self._stop_on_refusal = stop_on_refusal
        self._honour_stop = honour_stop
        self.refused: str | None = None

    def request(self, method: str, route: str, **kwargs: Any) -> httpx.Response:
        if self.refused is not None and self._stop_on_refusal:
            raise Definite(f"{method} {route}: not sent: {self.refused}", status=401)
        reason = self._stopped() if method not in _READS and self._honour_stop else None
        if reason is not None:
            raise Definite(f"{method} {route}: not sent: {reason}", status=409)
        if method in _READS:
            return self._send(method, route, **kwargs)
        with self._writing() as fencing:
            if fencing:
                kwargs["headers"] = {**kwargs.get("headers", {}), **fencing}
            return self._send(method, route, **kwargs)

    def _send(self, method: str, route: str, **kwargs: Any) -> httpx.Response:
        try:
            return super().request(method, route, **kwargs)
        except Definite as err:
            if err.status == 401:
                self.refused = f"WordPress refused the credentials ({err})"
                self._on_refused(self.refused)
            if err.status == 409 and "rest_fencing_token_stale" in str(err):
                raise LeaseLost(f"{method} {route}: the site refused our fencing token: another worker holds the job") \
                    from err
            raise
