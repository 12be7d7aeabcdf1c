"""Simulated services, one module each, registered by name (``approvals``, ``openai``, ``wordpress``)."""

from durable_harness.harness.services import approvals, sessions_api, wordpress  # noqa: F401  (registration)
from durable_harness.harness.services._registry import (
    BuiltService, Classify, Fake, RoleOf, ServiceContext, ServiceSpec, get_service, register_service, service_names,
    services,
)

__all__ = [
    "BuiltService",
    "Classify",
    "Fake",
    "RoleOf",
    "ServiceContext",
    "ServiceSpec",
    "get_service",
    "register_service",
    "service_names",
    "services",
]
