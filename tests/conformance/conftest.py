"""The WordPress conformance suite: the same cases against the fake and against a real WordPress.

Every test takes ``site`` and runs twice: on ``fake`` (the WordPress fake in-process, through the
gate, always) and on ``real`` (a real WordPress 6.1 on loopback, found through the environment
variable ``DH_REAL_WORDPRESS=http://<user>:<application password>@<host>:<port>``, which
``.ci/run`` sets after ``.ci/real-wordpress.sh`` brought the site up). Without the variable the
real-site half is skipped, saying so.

A real site keeps what earlier runs left behind, so every case names its own content with a fresh
``site.token`` and never counts what it did not create. Where the two legitimately differ (the
fake follows WordPress 6.2+ where 6.1 lags behind), the test branches on ``site.kind`` and says why.

The real site answers two request headers its must-use plugins read (see ``.ci/real-wordpress.sh``):
``X-DH-Auth-Mode: early`` resolves the user early (bad credentials fail with 401, as with WooCommerce),
and ``X-DH-Operation-Key-Query: off`` behaves as a site without the operation-key lookup plugin. The
fake gets the same behaviours from its constructor options.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from _conformance import Site
from durable_harness.fakes.wordpress import WordPressFake
from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._gate import Gate
from durable_harness.harness._history import History

ENV = "DH_REAL_WORDPRESS"
SKIP_REASON = (f"no real WordPress: {ENV} is not set (.ci/run sets it after .ci/real-wordpress.sh brings up "
               "Debian's WordPress on loopback; run that script as root to get one locally)")
FAKE_AUTH = ("editor", "abcd EFGH ijkl MNOP qrst UVWX")
_TIMEOUT_S = 30.0


def _fake_site() -> Site:
    clock = VirtualClock()
    fakes: dict[tuple[bool, bool], WordPressFake] = {}

    def make(auth: tuple[str, str] | None, early: bool, operation_key_query: bool) -> httpx.Client:
        # Every behaviour is one fake built that way; they share nothing but the clock, so a case
        # that needs two behaviours at once builds its content on the client it asks with.
        fake = fakes.get((early, operation_key_query))
        if fake is None:
            fake = fakes[(early, operation_key_query)] = WordPressFake(
                clock, auth_mode="early" if early else "core", operation_key_query=operation_key_query)
        transport = Gate(clock, History(), [fake]).transport("conformance")
        return httpx.Client(base_url="http://wordpress.dh.test/wp-json", transport=transport, auth=auth)

    return Site("fake", "http://wordpress.dh.test/wp-json", FAKE_AUTH, make, "0")


def _real_site(url: str) -> Site:
    parts = urlsplit(url)
    if not (parts.scheme and parts.hostname and parts.username and parts.password):
        raise pytest.UsageError(f"{ENV}={url!r} must look like http://<user>:<application password>@<host>:<port>")
    origin = f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    root = origin + "/wp-json"

    def make(auth: tuple[str, str] | None, early: bool, operation_key_query: bool) -> httpx.Client:
        headers = {}
        if early:
            headers["X-DH-Auth-Mode"] = "early"
        if not operation_key_query:
            headers["X-DH-Operation-Key-Query"] = "off"
        return httpx.Client(base_url=root, auth=auth, headers=headers, timeout=_TIMEOUT_S)

    return Site("real", root, (parts.username, parts.password), make, uuid.uuid4().hex[:8])


@pytest.fixture(params=["fake", "real"])
def site(request: pytest.FixtureRequest) -> Iterator[Site]:
    if request.param == "fake":
        made = _fake_site()
    else:
        url = os.environ.get(ENV)
        if not url:
            if os.environ.get("DH_REQUIRE_REAL_WORDPRESS") == "1":  # CI: the real site is required, never skipped
                pytest.fail(f"{ENV} is not set but DH_REQUIRE_REAL_WORDPRESS=1: {SKIP_REASON}")
            pytest.skip(SKIP_REASON)
        made = _real_site(url)
    yield made
    made.close()
