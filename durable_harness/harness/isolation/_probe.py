"""Looking at a Python candidate without running its code in the harness: a child forked from the
zygote (``_zygote``) imports it, checks that ``--candidate`` names a factory, and takes the digest
of its source.

A candidate's module may do anything when imported (``os._exit(0)``, an endless loop, patching the
harness): the harness must not be the process that imports it. The probe's answer is kept for the
life of the harness's process (what runs is what was read then, as ``candidate_digest`` says).
A driver kind whose instances are not forked from the zygote (``DH_IN_PROCESS=1``, a debugger's
mode without containment; a process, whose code the harness never imports) looks in the harness's
own process.
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass

from durable_harness.harness.isolation._pipe import HungUp, InstanceKind, PipeGarbage, Silent, recv
from durable_harness.harness.candidate._spec import (
    CandidateSpecError, candidate_digest, precheck_candidate, resolve_candidate,
)
from durable_harness.harness.isolation._zygote import zygote

__all__ = ["PROBE_TIMEOUT_S", "Probe", "probe_candidate"]

PROBE_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Probe:
    """What is known of a candidate before it runs: its source digest, or why it could not be loaded
    (``died``: its import killed, hung or broke its process, which every run will then say)."""

    digest: str | None
    died: str | None = None


_SEEN: dict[str, Probe] = {}


def probe_candidate(spec: str) -> Probe:
    """Raises ``CandidateSpecError`` when ``spec`` names no candidate (bad usage: exit 3)."""
    if spec in _SEEN:
        return _SEEN[spec]
    precheck_candidate(spec)  # a typo is refused at once, before a child starts
    from durable_harness.harness.drivers import driver_kind

    if driver_kind(spec).zygote:
        probe = _in_a_child(spec)
    else:
        resolve_candidate(spec)
        probe = Probe(candidate_digest(spec))
    _SEEN[spec] = probe
    return probe


def _network() -> str:
    from durable_harness.harness.drivers._forked_driver import network_from_environment

    try:
        return network_from_environment(os.environ)
    except ValueError:  # the CLI says so before anything runs; here, the safe choice
        return "none"


def _in_a_child(spec: str) -> Probe:
    spawner = zygote()
    pid, sock = spawner.spawn({"mode": "probe", "spec": spec, "network": _network()})
    try:
        header, _ = recv(sock, PROBE_TIMEOUT_S)
    except Silent:
        header = {"k": InstanceKind.PROBED, "died": f"importing it did not end within {PROBE_TIMEOUT_S:g} s"}
    except (HungUp, PipeGarbage, OSError):
        header = {"k": InstanceKind.PROBED, "died": "its process died while importing it (os._exit, a signal)"}
    finally:
        sock.close()
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        spawner.reap(pid)
    if header.get("spec_error"):
        raise CandidateSpecError(str(header["spec_error"]))
    if header.get("died"):
        return Probe(None, str(header["died"]))
    digest = header.get("digest")
    return Probe(str(digest) if isinstance(digest, str) else None)
