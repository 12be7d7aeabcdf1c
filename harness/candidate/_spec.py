"""Resolve ``--candidate`` values to a factory.

``reference`` is the bundled correct control plane; ``mutant:NAME`` a bundled known-bad one;
``package.module:factory`` any importable callable ``factory(env) -> Candidate``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["CandidateSpecError", "resolve_candidate"]


class CandidateSpecError(ValueError):
    """A ``--candidate`` value that names nothing runnable."""


def resolve_candidate(spec: str) -> Callable[[Any], Any]:
    if spec == "reference":
        from candidates.reference import create
        return create
    if spec.startswith("mutant:"):
        from candidates.mutants import get_mutant, mutant_names
        name = spec.split(":", 1)[1]
        try:
            return get_mutant(name)
        except KeyError:
            raise CandidateSpecError(
                f"--candidate {spec!r}: unknown mutant {name!r}; known: {', '.join('mutant:' + n for n in mutant_names())}") from None
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise CandidateSpecError(
            f"--candidate {spec!r} is not 'reference', 'mutant:NAME' or 'package.module:factory'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise CandidateSpecError(f"--candidate {spec!r}: cannot import {module_name!r}: {err}") from err
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise CandidateSpecError(f"--candidate {spec!r}: {module_name}.{attr} is not a callable factory")
    return factory  # type: ignore[no-any-return]
