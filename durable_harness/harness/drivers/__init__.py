"""Drivers: what runs a candidate, each a ``DriverKind`` registered by one module (``forked``: a
Python candidate in a child forked from the zygote; ``inprocess``: in the harness's own process, for
a debugger; ``process``: a command of any language over HTTP), and the drivers they make
(``_forked_driver``, ``_inprocess_driver``, ``_process_driver``, which share an ``InstanceKeeper``
where they keep instances the same way). ``driver_kind(spec)`` picks the kind; the kinds' modules
are light, and a driver's own is imported when a run makes one.
"""

from durable_harness.harness.drivers._kinds import DriverKind, driver_kind, driver_kinds, register_driver_kind

__all__ = ["DriverKind", "driver_kind", "driver_kinds", "register_driver_kind"]
