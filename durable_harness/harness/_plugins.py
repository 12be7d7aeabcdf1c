"""Plugins: a team's own fault kinds, checkers, services and workloads, shipped as a package.

A plugin is a module that registers what it brings when it is imported (``@fault_kind``,
``@checker``, ``register_service``, ``register_workload``: the same calls the harness's own modules
make), or a callable that does when called. It is found two ways:

* an entry point in the group ``durable_harness.plugins`` of an installed distribution
  (``[project.entry-points."durable_harness.plugins"] notifier = "acme_harness.notifier"``);
* ``DH_PLUGINS``: module names separated by commas, for a plugin not installed as a distribution
  (a folder of the repository on ``PYTHONPATH``).

The command line loads them before it reads a scenario file, the pytest plugin when it starts, and
every worker process of ``run -j`` before its scenario (workers inherit the environment). Loading is
idempotent. A plugin that cannot be loaded is named with why (``PluginError``: bad usage, exit 3),
never a traceback, and never a silently smaller harness.

What it deliberately does not do: sandbox a plugin (it runs in the harness's process, as the
harness's own code does: install only plugins you trust) or load candidates (those are the
``durable_harness.candidates`` entry points).
"""

from __future__ import annotations

import importlib
import os
from importlib import metadata
from typing import Any

__all__ = ["ENTRY_POINT_GROUP", "PLUGINS_ENV", "PluginError", "load_plugins", "loaded_plugins"]

ENTRY_POINT_GROUP = "durable_harness.plugins"
PLUGINS_ENV = "DH_PLUGINS"
_LOADED: dict[str, str] = {}  # what was loaded: name -> where it came from
_SCANNED: list[bool] = []  # the installed entry points were read (once a process: they do not change)


class PluginError(ValueError):
    """A plugin that cannot be loaded: which one, from where, and why (one line)."""


def load_plugins(environ: dict[str, str] | None = None) -> dict[str, str]:
    """Load every plugin once (entry points, then ``DH_PLUGINS``); returns them, name -> source."""
    env = os.environ if environ is None else environ
    if not _SCANNED:
        for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
            if ep.name not in _LOADED:
                _load(ep.name, f"entry point {ep.name} = {ep.value}", ep.load)
        _SCANNED.append(True)
    for name in [n.strip() for n in (env.get(PLUGINS_ENV) or "").split(",") if n.strip()]:
        if name not in _LOADED:
            _load(name, f"{PLUGINS_ENV} module {name}", lambda name=name: importlib.import_module(name))
    return dict(_LOADED)


def loaded_plugins() -> dict[str, str]:
    return dict(_LOADED)


def _load(name: str, where: str, load: Any) -> None:
    try:
        target = load()
        if callable(target) and not isinstance(target, type):
            target()
    except Exception as err:  # a plugin's own error, said as such
        raise PluginError(f"plugin {where} cannot be loaded: {type(err).__name__}: {err}") from err
    _LOADED[name] = where
