"""The registry of simulated services: name -> ``ServiceSpec``. A duplicate name fails at import.

A service spec knows how to build its fake for one run (``build``), what a candidate needs to
reach it (an endpoint: URL, credentials, environment variables), what an injected error looks
like on it, which options a scenario may set for it (``services: {wordpress: {auth_mode: early}}``),
which conditions of the world fault triggers may name (``while: agent_working``), which world
effects faults may ask of it (``replace_executor``), and what each request does to the world
(``targets``: ``update:article``, ``tool_result:wp_create_draft``), so that a trigger names the
work it breaks, not the ordinal of a request in one design's sequence. Adding a service is one module here plus its
registration; the World, the scenario schema and the candidate's environment follow.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from durable_harness.harness._registry import Registry
from durable_harness.harness._service_protocol import Service

if TYPE_CHECKING:  # the light commands (list, validate) read the specs, never build a service
    from durable_harness.harness._clock import VirtualClock
    from durable_harness.harness._history import History
    from durable_harness.harness.candidate import ServiceEndpoint
    from durable_harness.wire import Request, Response

__all__ = ["BuiltService", "Classify", "Fake", "RoleOf", "ServiceContext", "ServiceSpec", "get_service", "register_service",
           "service_names", "services"]

Effect = Callable[[Mapping[str, Any]], "dict[str, Any] | None"]
# (kind of record: "post" | "media", the record as ground truth shows it) -> the job's role it is
# (``article``, ``image:2``), or None when it is not this run's job's: the workload knows.
RoleOf = Callable[[str, Mapping[str, Any]], "str | None"]
# (request, route below the service's root, role_of) -> what the request does: ``verb`` and
# ``verb:object`` names (``update``, ``update:article``), as trigger targets name them.
Classify = Callable[["Request", str, RoleOf], frozenset[str]]


class Fake(Service, Protocol):
    """A fake as the World sees it: what the gate needs, and its ground truth."""

    def truth(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class ServiceContext:
    """What a service needs to build its fake for one run."""

    clock: VirtualClock
    history: History
    seed: int
    jobs: Mapping[tuple[str, str], Mapping[str, Any]]  # (job_id, task_version) -> job
    workload: Any  # durable_harness.harness.workloads.Workload (its brain factory)
    options: Mapping[str, Any]  # the scenario's ``services.<name>`` block


@dataclass
class BuiltService:
    fake: Fake
    endpoint: ServiceEndpoint
    secrets: tuple[str, ...]
    error_response: Callable[[int, Mapping[str, str]], Response]
    conditions: Mapping[str, Callable[[str | None], bool]] = field(default_factory=dict)
    effects: Mapping[str, Effect] = field(default_factory=dict)
    classify: Classify | None = None  # what each request does (trigger targets); None: no targets


@dataclass(frozen=True)
class ServiceSpec:
    name: str
    build: Callable[[ServiceContext], BuiltService]
    options_schema: Mapping[str, Any] = field(default_factory=dict)  # JSON Schema properties of its options
    conditions: Mapping[str, str] = field(default_factory=dict)  # name -> what it means (for docs and schema)
    channels: tuple[str, ...] = ()  # trigger names beyond the service's own (the sessions API's ``webhooks``)
    # Trigger targets: verb -> what a request that does it is (``update``: a write to an existing
    # post; ``update:article``, the job's article). A verb may take an object after ``:``.
    targets: Mapping[str, str] = field(default_factory=dict)


_SERVICES: Registry[ServiceSpec] = Registry("service")


def register_service(spec: ServiceSpec) -> ServiceSpec:
    return _SERVICES.add(spec.name, spec)


def service_names() -> list[str]:
    return _SERVICES.names()


def services() -> list[ServiceSpec]:
    return _SERVICES.entries()


def get_service(name: str) -> ServiceSpec:
    return _SERVICES.get(name)
