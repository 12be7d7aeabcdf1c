"""The registry of fault kinds: name -> class. A duplicate name fails at import."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from durable_harness.harness._registry import Registry

if TYPE_CHECKING:
    from durable_harness.harness.faults._request_fault import RequestFault

__all__ = ["fault_kind", "fault_kinds", "get_fault_kind"]

_KINDS: Registry[type[RequestFault]] = Registry("fault kind")
T = TypeVar("T", bound="type[RequestFault]")


def fault_kind(name: str) -> Callable[[T], T]:
    def register(cls: T) -> T:
        _KINDS.add(name, cls, cls.__module__)
        cls.kind = name
        return cls
    return register


def fault_kinds() -> list[str]:
    return _KINDS.names()


def get_fault_kind(name: str) -> type[RequestFault]:
    return _KINDS.get(name)
