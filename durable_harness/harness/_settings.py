"""The harness's settings read from its environment, checked together before anything runs.

A bad value is bad usage (exit 3 from the command line, a usage error from pytest), said before the
first run with the variable and the value, never discovered halfway through a catalogue: the
candidate's bounds and network (``DH_CANDIDATE_*``), where its files are kept
(``DURABLE_HARNESS_SCRATCH``) and the libraries imported ahead for it (``DH_PRELOAD``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["check_settings"]


def check_settings(environ: Mapping[str, str] = os.environ) -> None:
    """Raise ``ValueError`` naming the first variable whose value cannot be used."""
    from durable_harness.harness._coverage import strict_coverage
    from durable_harness.harness._postgres import wants_postgres
    from durable_harness.harness._scratch import scratch_root
    from durable_harness.harness.drivers._forked_driver import bounds_from_environment
    from durable_harness.harness.isolation._preload import check_preload
    from durable_harness.harness.drivers._process_env import startup_timeout_s
    from durable_harness.harness.services._upstream import upstreams

    bounds_from_environment(environ)
    scratch_root(environ)  # raises for a folder it cannot use
    check_preload(environ)
    wants_postgres(environ)
    strict_coverage(environ)
    startup_timeout_s(environ)
    upstreams(environ)  # a real service asked for with an address or credentials it cannot use
