"""What a candidate process is started with, as the process driver's settings say: how long a start
may take (``DH_STARTUP_TIMEOUT_S``), whether it is given the harness's clock (``DH_HARNESS_CLOCK``),
which services it is pointed at, and which of its secrets its log must never show."""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping, Sequence

from durable_harness.harness.candidate._protocol import CandidateEnv

__all__ = ["CLOCK_ENV", "MAX_STARTUP_TIMEOUT_S", "STARTUP_ENV", "STARTUP_TIMEOUT_S", "log_secrets", "offers_clock",
           "served_at", "startup_timeout_s"]

STARTUP_TIMEOUT_S = 30.0  # real seconds for GET /health to answer 200 (DH_STARTUP_TIMEOUT_S sets it)
STARTUP_ENV = "DH_STARTUP_TIMEOUT_S"
MAX_STARTUP_TIMEOUT_S = 3600.0


CLOCK_ENV = "DH_HARNESS_CLOCK"  # "0": give no candidate the harness's clock (compressed real time for all)


# Faults the harness's clock cannot skip through: a toxic delays real bytes on a real socket, and a
# worker restarted beside another comes back after its process's real start while the other works.
REAL_TIME_KINDS = ("toxic", "restart_worker")


def offers_clock(environ: Mapping[str, str] = os.environ, fault_kinds: Sequence[str] = ()) -> bool:
    """Whether candidate processes are given the harness's clock service (``HARNESS_CLOCK_URL``): not
    when ``DH_HARNESS_CLOCK=0``, nor in a run with a fault of ``REAL_TIME_KINDS``."""
    return (environ.get(CLOCK_ENV) or "1").strip() != "0" and not any(k in REAL_TIME_KINDS for k in fault_kinds)


def startup_timeout_s(environ: Mapping[str, str] = os.environ) -> float:
    """Real seconds a start may take until ``GET /health`` answers 200 (``DH_STARTUP_TIMEOUT_S``,
    default 30): a control plane on a framework with its own runtime may need more on a busy
    machine. Start-up is not the run's time (the run's clock stands still meanwhile). A bad value is
    a ``ValueError`` naming the variable and the value."""
    raw = (environ.get(STARTUP_ENV) or "").strip()
    if not raw:
        return STARTUP_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value <= MAX_STARTUP_TIMEOUT_S:
        raise ValueError(f"{STARTUP_ENV}={raw!r}: give the real seconds a start may take, from 1 to "
                         f"{MAX_STARTUP_TIMEOUT_S:g} (default {STARTUP_TIMEOUT_S:g})")
    return value


def log_secrets(secrets: tuple[str, ...], env: CandidateEnv) -> tuple[str, ...]:
    """The run's secrets, and the forms a candidate's log may show them in (a Basic auth header)."""
    derived = []
    for endpoint in env.services.values():
        user, password = endpoint.credentials.get("username"), endpoint.credentials.get("app_password")
        if user and password:
            for pw in {password, password.replace(" ", "")}:
                derived.append(base64.b64encode(f"{user}:{pw}".encode()).decode())
    return tuple(secrets) + tuple(derived)


def served_at(environ: Mapping[str, str], bases: Mapping[str, str]) -> dict[str, str]:
    """The contract's variables with each service's URL (``http://<host>...``) on its loopback server."""
    out = dict(environ)
    for host, base in bases.items():
        old = f"http://{host}"
        out = {k: base + v[len(old):] if v.startswith(old) else v for k, v in out.items()}
    return out
