"""A Toxiproxy-compatible server: TCP proxies on loopback with toxics, driven by Toxiproxy's HTTP API 2.x.

No Toxiproxy binary can be installed everywhere the harness runs, so it ships this one: any
Toxiproxy client (``toxiproxy-python`` among them) drives it unchanged. ``ToxiproxyServer`` runs on
the caller's event loop, ``ToxiproxyThread`` in a background thread; both take a seeded
``random.Random``. The toxics are ``TOXIC_TYPES``; ``VERSION`` is the Toxiproxy version it answers
as. How it differs from Toxiproxy, and why, is said where it happens: ``_link`` (half-closes are
passed on; ``reset_peer`` always resets), ``_proxy`` (loopback only), ``_toxics`` (a slicer of
average size 0 is refused).

Module map: ``_server`` (start, stop, the thread) · ``_api`` (routes) · ``_http`` (framing) ·
``_model`` (bodies, shapes, errors) · ``_proxy`` (listener, dialling) · ``_link`` (a connection's two
directions through the toxic chains) · ``_toxics`` (one class per toxic).
"""

from durable_harness.fakes.toxiproxy._model import VERSION
from durable_harness.fakes.toxiproxy._server import ToxiproxyError, ToxiproxyServer, ToxiproxyThread
from durable_harness.fakes.toxiproxy._toxics import TOXICS

TOXIC_TYPES = tuple(sorted(TOXICS))

__all__ = ["TOXIC_TYPES", "ToxiproxyError", "ToxiproxyServer", "ToxiproxyThread", "VERSION"]
