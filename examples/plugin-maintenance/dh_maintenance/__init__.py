"""An example plugin for durable-harness: one fault kind and one checker, each one module.

Importing the package registers both (the harness imports it when it loads its plugins: through
the ``durable_harness.plugins`` entry point once installed, or ``DH_PLUGINS=dh_maintenance``)."""

from dh_maintenance import maintenance_mode, request_budget  # noqa: F401  (registration)
