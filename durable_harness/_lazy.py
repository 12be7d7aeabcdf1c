"""Names a package loads on first use: ``where`` maps each name to the module that defines it.

A package keeps its ``__all__`` and a ``_WHERE`` table and defines (PEP 562, and what mypy reads)::

    def __getattr__(name: str) -> Any:
        return load(globals(), _WHERE, name)

    def __dir__() -> list[str]:
        return names(globals())

The name's module is imported once; the value is then the package's own attribute.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

__all__ = ["load", "names"]


def load(namespace: dict[str, Any], where: Mapping[str, str], name: str) -> Any:
    module = where.get(name)
    if module is None:
        raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    namespace[name] = value
    return value


def names(namespace: Mapping[str, Any]) -> list[str]:
    return sorted([*namespace, *namespace.get("__all__", ())])
