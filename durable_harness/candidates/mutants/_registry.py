"""Known-bad candidates: the reference with exactly one safeguard removed each."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from durable_harness.candidates.mutant_family import BUGS
from durable_harness.candidates.reference._plane import ReferencePlane
from durable_harness.candidates.reference._safeguards import Safeguards

__all__ = ["MUTANTS", "Mutant", "get_mutant", "mutant_names"]


@dataclass(frozen=True)
class Mutant:
    name: str
    bug: str
    safeguards: Safeguards

    def create(self, env: Any) -> ReferencePlane:
        return ReferencePlane(env, self.safeguards)


MUTANTS: dict[str, Mutant] = {}


def register(name: str, **switched_off: bool) -> Mutant:
    """The mutant ``name`` (declared, with its bug, in ``mutant_family.BUGS``) switches one safeguard off."""
    if name in MUTANTS:
        raise RuntimeError(f"mutant {name!r} is registered twice")
    if name not in BUGS:
        raise RuntimeError(f"mutant {name!r} is not declared in durable_harness.candidates.mutant_family.BUGS")
    if len(switched_off) != 1 or any(switched_off.values()):
        raise ValueError(f"mutant {name!r} must switch off exactly one safeguard, got {switched_off!r}")
    MUTANTS[name] = Mutant(name, BUGS[name], Safeguards(**switched_off))
    return MUTANTS[name]


def mutant_names() -> list[str]:
    return sorted(MUTANTS)


def get_mutant(name: str) -> Callable[[Any], ReferencePlane]:
    return MUTANTS[name].create
