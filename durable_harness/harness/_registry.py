"""``Registry``: name -> entry, for every seam that is "one module plus a registration" (fault
kinds, checkers, workloads, services). A duplicate name fails at import; an unknown name is an
error that lists the known ones."""

from __future__ import annotations

from typing import Generic, TypeVar

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(self, noun: str) -> None:
        self._noun = noun
        self._entries: dict[str, T] = {}

    def add(self, name: str, entry: T, where: str = "") -> T:
        if name in self._entries:
            raise RuntimeError(f"{self._noun} {name!r} is registered twice{f' ({where})' if where else ''}")
        self._entries[name] = entry
        return entry

    def names(self) -> list[str]:
        return sorted(self._entries)

    def entries(self) -> list[T]:
        return [self._entries[n] for n in self.names()]

    def get(self, name: str) -> T:
        try:
            return self._entries[name]
        except KeyError:
            raise KeyError(f"unknown {self._noun} {name!r}; known: {', '.join(self.names()) or 'none'}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._entries
