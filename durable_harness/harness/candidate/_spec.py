"""Resolve ``--candidate`` values to a factory, and identify a candidate's code.

Candidates register through the entry-point group ``durable_harness.candidates``, as pytest
plugins do. An entry point names either one factory (``reference = durable_harness.candidates.reference:create``:
``--candidate reference``) or a family, a mapping of names to factories (``mutant =
durable_harness.candidates.mutant_family:FAMILY``: ``--candidate mutant:blind-retry``). Any other value is an import
path, ``package.module:factory``, imported with the working directory on the import path (as
``python -m`` does), so a control plane in the current checkout needs no install.

Which driver runs a spec is its ``DriverKind``'s to say (``harness.drivers``): the functions here
ask it, and those named ``python_*`` are what the Python kinds do. ``cmd:<command line>`` names a
candidate that is a process (``_command``): it resolves to a stand-in that says so.

``candidate_digest`` is a sha256 over the source files of the factory's top-level package (or its
module, when it is not in a package): reports carry it, so runs of different code never mix.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import os
import sys
from collections.abc import Callable, Mapping
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from durable_harness.harness.drivers import DriverKind


__all__ = ["ENTRY_POINT_GROUP", "CandidateSpecError", "candidate_digest", "candidate_names", "describe_candidate",
           "precheck_candidate", "python_digest", "python_factory", "python_precheck", "resolve_candidate"]

ENTRY_POINT_GROUP = "durable_harness.candidates"
_MAX_FILES = 5000
_MAX_BYTES = 64 * 1024 * 1024


class CandidateSpecError(ValueError):
    """A ``--candidate`` value that names nothing runnable."""


@functools.cache
def _entry_points() -> dict[str, metadata.EntryPoint]:
    if _KEPT:
        return _KEPT[0]
    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


_KEPT: list[dict[str, metadata.EntryPoint]] = []  # the zygote's table, read once for its forks (``keep_entry_points``)


def keep_entry_points() -> None:
    """Read the installed candidates once and answer from that table from now on: the zygote does,
    so that every instance it forks resolves its candidate without scanning every installed
    distribution's metadata again (3 ms an instance). A zygote lives for one harness process, and
    what is installed does not change under a run."""
    _KEPT[:] = [_entry_points()]


def _load(name: str) -> Any:
    try:
        return _entry_points()[name].load()
    except Exception as err:  # a broken plugin is named, not a traceback
        raise CandidateSpecError(f"the candidate entry point {name!r} ({_entry_points()[name].value}) cannot be "
                                 f"loaded: {type(err).__name__}: {err}") from err


def candidate_names() -> list[str]:
    """Every registered candidate, as ``--candidate`` spells it (families expanded)."""
    names = []
    for name in sorted(_entry_points()):
        target = _load(name)
        if isinstance(target, Mapping):
            names += [f"{name}:{member}" for member in sorted(target)]
        else:
            names.append(name)
    return names


def resolve_candidate(spec: str) -> Callable[[Any], Any]:
    """The candidate's factory (a process's stand-in, which says it is one); ``CandidateSpecError``
    when ``spec`` names nothing runnable."""
    precheck_candidate(spec)
    return _kind(spec).resolve(spec)


def precheck_candidate(spec: str) -> None:
    """What can be refused without importing any candidate's code (at once, before a probe's child
    starts): an empty spec, and what the spec's driver kind refuses by itself."""
    if not isinstance(spec, str) or not spec:
        raise CandidateSpecError(f"--candidate {spec!r} is empty; give a registered name or package.module:factory")
    _kind(spec).precheck(spec)


@functools.cache
def candidate_digest(spec: str) -> str | None:
    """sha256 of the candidate's code, as its driver kind reads it (taken once per process, when the
    code is first read: what runs is what was read then)."""
    precheck_candidate(spec)
    return _kind(spec).digest(spec)


def _kind(spec: str) -> DriverKind:
    from durable_harness.harness.drivers import driver_kind

    return driver_kind(spec)


def python_factory(spec: str) -> Callable[[Any], Any]:
    """A Python candidate's factory: a registered name, a family's member, or ``package.module:factory``."""
    registered = _entry_points()
    family, sep, member = spec.partition(":")
    if spec in registered:
        target = _load(spec)
        if isinstance(target, Mapping):
            raise CandidateSpecError(f"--candidate {spec!r} is a family; name one: "
                                     f"{', '.join(f'{spec}:{m}' for m in sorted(target))}")
        return _callable(spec, target)
    if sep and family in registered:
        members = _load(family)
        if isinstance(members, Mapping):
            return _callable(spec, members[member])
    return _import(spec)


def python_precheck(spec: str) -> None:
    """A Python spec refused without importing its code: a name no entry point registers, a member its
    family does not have (a family lists its members without importing them), a spec that is not
    ``package.module:factory``."""
    registered = _entry_points()
    family, sep, member = spec.partition(":")
    if spec in registered:
        return
    if sep and family in registered:
        members = _load(family)
        if isinstance(members, Mapping) and member not in members:
            raise CandidateSpecError(f"--candidate {spec!r}: unknown {family} {member!r}; known: "
                                     f"{', '.join(f'{family}:{m}' for m in sorted(members))}")
        return
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        known = ", ".join(candidate_names()) or "none registered"
        raise CandidateSpecError(f"--candidate {spec!r} is neither a registered candidate ({known}) nor "
                                 "'package.module:factory'")


def _import(spec: str) -> Callable[[Any], Any]:
    module_name, _, attr = spec.partition(":")
    if "" not in sys.path and os.getcwd() not in sys.path:  # as `python -m` does: the working directory first
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise CandidateSpecError(f"--candidate {spec!r}: cannot import {module_name!r}: {err}") from err
    return _callable(spec, getattr(module, attr, None), f"{module_name}.{attr}")


def _callable(spec: str, target: Any, where: str | None = None) -> Callable[[Any], Any]:
    if not callable(target):
        raise CandidateSpecError(f"--candidate {spec!r}: {where or spec} is not a callable factory")
    return target  # type: ignore[no-any-return]


def describe_candidate(spec: str) -> str:
    """One line about a candidate: what its family says of it (a family mapping may offer
    ``describe(member)``, so that listing does not import every member), a family member's ``bug``,
    or its factory's docstring."""
    family, sep, member = spec.partition(":")
    if sep and _kind(spec).family == "python" and family in _entry_points():
        describe = getattr(_load(family), "describe", None)
        if callable(describe):
            try:
                return str(describe(member))
            except KeyError:
                pass  # resolve_candidate names what is wrong
    factory = resolve_candidate(spec)
    bug = getattr(getattr(factory, "__self__", None), "bug", None)
    if isinstance(bug, str):
        return bug
    doc = (factory.__doc__ or "").strip().splitlines()
    return doc[0] if doc else ""


def _module_of(spec: str) -> Any:
    """The module that holds a Python candidate's factory (None when it has no file)."""
    factory = python_factory(spec)
    owner = getattr(factory, "__self__", None)
    module_name = getattr(owner if owner is not None and not isinstance(owner, type) else factory, "__module__", None)
    module = sys.modules.get(str(module_name)) if module_name else None
    return module if module is not None and getattr(module, "__file__", None) is not None else None


def _code_root(module: Any) -> tuple[Path, bool]:
    """(the folder of the factory's top-level package, True) or (its module's file, False)."""
    top = sys.modules.get(str(module.__name__).split(".")[0])
    top_file = getattr(top, "__file__", None)
    if top_file is not None and Path(top_file).name == "__init__.py":
        return Path(top_file).parent, True
    return Path(str(module.__file__)), False


def python_code_roots(spec: str) -> list[str]:
    """Where a Python candidate's own code lives: its factory's top-level package, or its module file;
    for the candidates bundled with the harness, their own folder (not the harness's)."""
    module = _module_of(spec)
    if module is None:
        return []
    if str(module.__name__).startswith("durable_harness.candidates."):
        return [str(Path(__file__).resolve().parents[2] / "candidates")]
    root, package = _code_root(module)
    return [str(root.parent if not package and root.name == "__init__.py" else root)]


def python_digest(spec: str) -> str | None:
    """sha256 of a Python candidate's source: its factory's top-level package, or its module file, and
    the factory it names (two candidates of one package, the reference and a mutant, differ)."""
    module = _module_of(spec)
    if module is None:
        return None
    root, package = _code_root(module)
    if package:
        files = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)[:_MAX_FILES]
    else:
        root, files = root.parent, [root]
    h = hashlib.sha256()
    h.update(b"candidate\0" + spec.encode() + b"\0")
    total = 0
    for path in files:
        data = path.read_bytes()
        total += len(data)
        if total > _MAX_BYTES:
            break
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + data + b"\0")
    return h.hexdigest()
