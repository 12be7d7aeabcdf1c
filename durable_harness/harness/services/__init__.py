"""Simulated services, one module each, registered by name (``approvals``, ``openai``, ``wordpress``)."""

from durable_harness.harness.services import approvals, sessions_api, wordpress  # noqa: F401  (registration)
from durable_harness.harness.services._registry import (
    BuiltService, Fake, ServiceContext, ServiceSpec, get_service, register_service, service_names, services,
)

__all__ = [
    "BuiltService",
    "Fake",
    "ServiceContext",
    "ServiceSpec",
    "get_service",
    "register_service",
    "service_names",
    "services",
]
