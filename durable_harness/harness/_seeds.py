"""Seed derivation: one root seed per run, one independent stream per component.

Each component asks for ``component_random(root_seed, "fakes.wordpress")`` and gets a
``random.Random`` whose stream depends only on the root seed and that stable name, so adding a
component never shifts another's stream. This module never touches the global ``random``.
"""

from __future__ import annotations

import hashlib
import random

__all__ = ["MAX_SEED", "component_random", "derive_seed", "scenario_seed"]

MAX_SEED = 2**64 - 1  # a seed is 0 to 2**64-1


def derive_seed(root_seed: int, component: str) -> int:
    """Return a 64-bit seed for ``component`` derived from ``root_seed``."""
    if not isinstance(root_seed, int) or isinstance(root_seed, bool):
        raise TypeError(f"root_seed must be an int, got {root_seed!r}")
    if not component:
        raise ValueError("component must be a non-empty name, e.g. 'durable_harness.fakes.wordpress'")
    digest = hashlib.sha256(f"{root_seed}/{component}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def component_random(root_seed: int, component: str) -> random.Random:
    """A private ``random.Random`` for one component of one run."""
    return random.Random(derive_seed(root_seed, component))


def scenario_seed(scenario_id: str) -> int:
    """The default seed of a scenario: a function of its id only (never of the test worker)."""
    digest = hashlib.sha256(f"scenario/{scenario_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big")
