"""Libraries the zygote imports ahead, so that an instance of a candidate that uses them does not import
them again at every start and restart (``DH_PRELOAD``).

An instance is a fork of the zygote: what the zygote has imported, it has at no cost, and what it
imports itself it pays for in every instance, at every start and every crash point of a sweep. The
SDK is imported ahead already (``_warm``); a candidate's own code never is (it is imported by its
instance: it may change between runs, and it runs under the instance's bounds and without a
network). A third-party library is neither: the same in every run, and often heavy. SQLAlchemy's
ORM is about a third of a second of CPU to import, more than a whole baseline run of the reference,
and the contract hands a candidate a SQLAlchemy URL; so by default the zygote imports it, when it
is installed. ``DH_PRELOAD=name,name`` names the modules instead (an empty value: none).

What a module does when imported runs in the zygote, once, with the harness's network and without
the instance's bounds: name libraries only, never the candidate itself. A module that starts a
thread when imported cannot be imported ahead (a fork of a process with threads may inherit a lock
held forever): the zygote stops and says so, and the run is the harness's error (exit 3).
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import os
import re
import sys
from collections.abc import Mapping

__all__ = ["DEFAULT_PRELOAD", "PRELOAD_ENV", "check_preload", "preload", "preload_modules", "preload_origins"]

PRELOAD_ENV = "DH_PRELOAD"
DEFAULT_PRELOAD = ("sqlalchemy.orm",)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def preload_modules(environ: Mapping[str, str] = os.environ) -> list[str]:
    """The modules a zygote started now imports ahead: those ``DH_PRELOAD`` names, else the
    default ones that are installed. Never imports anything here."""
    raw = environ.get(PRELOAD_ENV)
    if raw is None:
        return list(_defaults())
    return [name.strip() for name in raw.split(",") if name.strip()]


@functools.lru_cache(maxsize=1)
def _defaults() -> tuple[str, ...]:
    """The default modules that are installed (looked up once: every spawn compares zygote keys)."""
    return tuple(name for name in DEFAULT_PRELOAD if _installed(name))


def check_preload(environ: Mapping[str, str] = os.environ) -> None:
    """Raise ``ValueError`` now, before any run, for a ``DH_PRELOAD`` that names no module."""
    for name in preload_modules(environ):
        if not _NAME.fullmatch(name):
            raise ValueError(f"{PRELOAD_ENV}: {name!r} is not a module name (it names the libraries the harness "
                             "imports once for every instance of a candidate, comma-separated)")
        if not _installed(name):
            raise ValueError(f"{PRELOAD_ENV}: no module named {name.split('.')[0]!r} is installed")


def preload_origins(names: list[str]) -> list[list[str | None]]:
    """Where each of ``names`` would be imported from by a zygote started here: part of its key, so
    that a harness process elsewhere (another folder, another search path) that would find another
    module of the same name does not use it."""
    return [[name, _origin(name.split(".")[0], os.getcwd(), tuple(sys.path))] for name in names]


def _installed(name: str) -> bool:
    """Whether the top-level package of ``name`` can be found where the zygote looks for it, without
    importing anything."""
    top = name.split(".")[0]
    return top in sys.modules or _origin(top, os.getcwd(), tuple(sys.path)) is not None


@functools.lru_cache(maxsize=64)
def _origin(top: str, cwd: str, path: tuple[str, ...]) -> str | None:
    """The file or folder the zygote would import ``top`` from: its search path is this process's
    (empty entries left out), then its working directory."""
    try:
        spec = importlib.machinery.PathFinder.find_spec(top, [*(p for p in path if p), cwd])
    except (ImportError, ValueError, OSError):
        return None
    if spec is None:
        return None
    return spec.origin or str(list(spec.submodule_search_locations or [""])[0])


def preload(names: list[str]) -> None:
    """In the zygote: import ``names``. One that fails to import is said (the zygote's log) and left
    to the instances that import it, whose error it is then; one that starts a thread stops the
    zygote, saying which."""
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as err:
            print(f"{PRELOAD_ENV}: importing {name} failed ({type(err).__name__}: {err}); "
                  "instances import it themselves", file=sys.stderr, flush=True)
        threads = _threads()
        if threads > 1:
            raise SystemExit(f"{PRELOAD_ENV}: importing {name} started a thread ({threads} now): a process with "
                             "threads cannot be forked safely; leave it out of DH_PRELOAD")


def _threads() -> int:
    """The threads of this process, Python's and native ones (Linux); Python's only elsewhere."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()
