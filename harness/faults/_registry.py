"""The registry of fault kinds: name -> class. A duplicate name fails at import."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["fault_kind", "fault_kinds", "get_fault_kind"]

_KINDS: dict[str, type] = {}
T = TypeVar("T", bound=type)


def fault_kind(name: str) -> Callable[[T], T]:
    def register(cls: T) -> T:
        if name in _KINDS:
            raise RuntimeError(f"fault kind {name!r} is registered twice: {_KINDS[name].__module__} and {cls.__module__}")
        _KINDS[name] = cls
        cls.kind = name  # type: ignore[attr-defined]
        return cls
    return register


def fault_kinds() -> list[str]:
    return sorted(_KINDS)


def get_fault_kind(name: str) -> type:
    try:
        return _KINDS[name]
    except KeyError:
        raise KeyError(f"unknown fault kind {name!r}; known kinds: {', '.join(fault_kinds())}") from None
