"""``DriverKind``: what runs a candidate, chosen from its spec in one place (``driver_kind``).

A kind says which specs it takes and what follows from running a candidate that way: whether the
run's time is real (compressed) or virtual, whether a sweep's points can be forked from the clean
run, whether its instances are forked from a zygote, whether several workers need a database
server, whether ``run`` runs several scenarios at once by default; and it refuses a bad spec at
once, resolves it (a factory, or a stand-in that says what it is), reads its code's digest and
makes the driver. The rest of the harness asks the kind, never the spec: a new driver is one module
that registers its kind.

A kind takes the specs that start with its ``prefix`` (``cmd:``); a kind without one takes a Python
spec (one that no kind's prefix claims). ``when`` narrows it to an environment (``DH_IN_PROCESS=1``).
Exactly one kind takes each spec; two that both take one are a harness error that names them, as is
a spec none takes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from durable_harness.harness._errors import HarnessError
from durable_harness.harness._registry import Registry

if TYPE_CHECKING:
    from durable_harness.harness.candidate._driver import Driver

__all__ = ["DriverKind", "driver_kind", "driver_kinds", "register_driver_kind"]


@dataclass(frozen=True)
class DriverKind:
    name: str
    # The family a fault kind's ``drivers`` names ("python", "process"); a deploy replaces a candidate
    # by one of the same family.
    family: str
    make: Callable[[Any, str, str], Driver]  # (world, spec, worker_id)
    precheck: Callable[[str], None]  # refuses a spec at once (``CandidateSpecError``), importing no candidate code
    resolve: Callable[[str], Callable[[Any], Any]]  # the factory, or a stand-in whose docstring says what runs
    digest: Callable[[str], str | None]  # sha256 of the candidate's code (reports carry it)
    real_time: bool = False  # the run's time is compressed real time (its histories are not byte-deterministic)
    forks_sweep: bool = False  # a sweep's points can be forked from the clean run (``_sweep_fork``)
    # Its instances are forked from a zygote (that ``run -j``'s workers may share); its code is then
    # probed in such a child too, before any run, so that an import that kills its process is said once.
    zygote: bool = False
    shared_database: bool = False  # several workers are processes of their own: they share a database server
    # ``run`` runs several scenarios at once by default: one per core ("cores"), or as many as the
    # machine holds while they mostly wait, measured as they run ("use": ``_admission``).
    parallel: str = "cores"
    prefix: str | None = None  # the specs it takes start with it; None: Python specs
    when: Callable[[Mapping[str, str]], bool] = lambda environ: True  # the environments it takes them in

    def takes(self, spec: str, environ: Mapping[str, str]) -> bool:
        if self.prefix is not None:
            claimed = spec.startswith(self.prefix)
        else:
            claimed = not any(spec.startswith(k.prefix) for k in _KINDS.entries() if k.prefix is not None)
        return claimed and self.when(environ)

    @property
    def deterministic(self) -> bool:
        """The same seed gives the same history, byte for byte (``--check-determinism`` can check it)."""
        return not self.real_time


_KINDS: Registry[DriverKind] = Registry("driver kind")


def register_driver_kind(kind: DriverKind) -> DriverKind:
    return _KINDS.add(kind.name, kind, kind.make.__module__)


def driver_kinds() -> list[DriverKind]:
    _load_builtin()
    return _KINDS.entries()


def driver_kind(spec: str, environ: Mapping[str, str] = os.environ) -> DriverKind:
    """The kind that runs ``spec`` in ``environ``: the one place a spec is looked at."""
    taken = [kind for kind in driver_kinds() if kind.takes(spec, environ)]
    if len(taken) != 1:
        names = ", ".join(k.name for k in taken) or "none"
        raise HarnessError(f"--candidate {spec!r} is taken by {len(taken)} driver kinds ({names}); exactly one "
                           f"must take each spec (registered: {', '.join(_KINDS.names())})")
    return taken[0]


def _load_builtin() -> None:
    from durable_harness.harness.drivers import forked, inprocess, process  # noqa: F401  (registration)
