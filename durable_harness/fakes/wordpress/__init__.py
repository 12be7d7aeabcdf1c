"""A fake WordPress site: core's REST API for posts and media, application passwords, the
``operation_key`` must-use plugins and Rank Math's meta endpoint, with ground truth.

``WordPressFake(clock)`` is a gate ``Service``; see ``_service`` for the front door and
``specs/wordpress-rest.md`` for the behaviour it copies. ``seed_site`` and ``Colleague`` make it a
busy site (``_busy``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from durable_harness._lazy import load, names

if TYPE_CHECKING:
    from durable_harness.fakes.wordpress._busy import EDITOR_ACTIONS, Colleague, Lookalikes, seed_site
    from durable_harness.fakes.wordpress._errors import WPError
    from durable_harness.fakes.wordpress._fencing import FENCING_HEADER, FencingGateway
    from durable_harness.fakes.wordpress._service import WordPressFake

__all__ = ["Colleague", "EDITOR_ACTIONS", "FENCING_HEADER", "FencingGateway", "Lookalikes", "WPError", "WordPressFake",
           "seed_site"]

_WHERE = {
    **dict.fromkeys(("EDITOR_ACTIONS", "Colleague", "Lookalikes", "seed_site"), "durable_harness.fakes.wordpress._busy"),
    "WPError": "durable_harness.fakes.wordpress._errors",
    **dict.fromkeys(("FENCING_HEADER", "FencingGateway"), "durable_harness.fakes.wordpress._fencing"),
    "WordPressFake": "durable_harness.fakes.wordpress._service",
}


def __getattr__(name: str) -> Any:
    return load(globals(), _WHERE, name)


def __dir__() -> list[str]:
    return names(globals())
