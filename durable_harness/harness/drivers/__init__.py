"""Drivers: what runs a candidate (a forked child, the harness's own process, a command of any
language), each a ``DriverKind`` registered by one module; ``driver_kind(spec)`` picks one."""

from durable_harness.harness.drivers._kinds import DriverKind, driver_kind, driver_kinds, register_driver_kind

__all__ = ["DriverKind", "driver_kind", "driver_kinds", "register_driver_kind"]
