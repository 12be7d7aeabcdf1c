"""Scenario files already found valid, kept by digest: ``list``, ``validate`` and ``run`` read a file
they have read before without parsing its YAML or checking it against the schema again.

An entry is the file's parsed YAML (as JSON), under a key made of everything that decides whether
those bytes parse to it and pass the schema:

* the file's bytes (SHA-256);
* the schema as the registries compose it now (a plugin that adds a fault kind changes it);
* the code that parses and checks: the bounded YAML reader, the fast validator, the installed
  PyYAML and jsonschema (each named by its file's size and modification time; the code that
  composes the schema needs no stamp: the schema itself is in the key).

Only a file that parsed and passed the schema is kept, so a refusal is always worded afresh. What
the schema cannot check (registered candidate names, a fault's own rules) is checked at every load,
from the entry as from the file. A missing, unreadable or corrupt entry is a miss; a folder that
cannot be written is no cache at all; neither is ever an error.

Where: ``DURABLE_HARNESS_CACHE`` (a folder; ``off`` for none), else ``$XDG_CACHE_HOME/durable-harness``
or ``~/.cache/durable-harness``. At most ``MAX_ENTRIES`` are kept: past that, the older half goes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from pathlib import Path
from typing import Any

__all__ = ["CACHE_ENV", "MAX_ENTRIES", "cache_folder", "cached", "keep"]

CACHE_ENV = "DURABLE_HARNESS_CACHE"
MAX_ENTRIES = 4096
_VERSION = "1"  # of this cache's layout
_ENGINE: dict[tuple[tuple[str, ...], ...], str] = {}  # the key's code-and-schema part, per registry state


def cache_folder() -> Path | None:
    """The folder entries are kept in, or None (``DURABLE_HARNESS_CACHE=off``)."""
    raw = os.environ.get(CACHE_ENV)
    if raw is not None and raw.strip():
        return None if raw.strip().lower() == "off" else Path(raw).expanduser() / "scenarios"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path("~/.cache").expanduser())
    return Path(base) / "durable-harness" / "scenarios"


def cached(data: bytes) -> Any | None:
    """The parsed YAML of a file with these bytes, if it was found valid before under the same schema and code."""
    entry = _entry(data)
    if entry is None:
        return None
    try:
        text = entry.read_text(encoding="utf-8")
        stored = json.loads(text)
    except (OSError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("v") != _VERSION or not isinstance(stored.get("raw"), dict):
        return None
    return stored["raw"]


def keep(data: bytes, raw: Any) -> None:
    """Keep ``raw`` (the parsed YAML of ``data``, which passed the schema) for the next load."""
    entry = _entry(data)
    if entry is None:
        return
    try:
        text = json.dumps({"v": _VERSION, "raw": raw}, allow_nan=False)
    except (TypeError, ValueError):  # not plain JSON (a YAML date, say): read from the file every time
        return
    if repr(json.loads(text)["raw"]) != repr(raw):  # a key that is not a string, say: JSON would change it
        return
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        tmp = entry.with_name(f".{entry.name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, entry)
        _prune(entry.parent)
    except OSError:
        return


def _entry(data: bytes) -> Path | None:
    folder = cache_folder()
    if folder is None:
        return None
    key = hashlib.sha256(_engine().encode() + b"\0" + data).hexdigest()
    return folder / f"{key}.json"


def _engine() -> str:
    """The part of every key that names the schema and the code that parses and checks."""
    from durable_harness.harness.scenario._schema import registry_state, scenario_schema

    state = registry_state()
    found = _ENGINE.get(state)
    if found is None:
        schema = json.dumps(scenario_schema(), sort_keys=True)
        here = Path(__file__).parent
        parts = [_VERSION, schema, *(_stamp(here / name) for name in ("_bounded.py", "_fastcheck.py")),
                 _stamp(_origin("yaml")), _stamp(_origin("jsonschema"))]
        found = _ENGINE[state] = hashlib.sha256("\n".join(parts).encode()).hexdigest()
    return found


def _origin(module: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec is not None and spec.origin else None


def _stamp(path: Path | None) -> str:
    if path is None:
        return "-"
    try:
        st = path.stat()
    except OSError:
        return f"{path}:-"
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


def _prune(folder: Path) -> None:
    """Past ``MAX_ENTRIES``, the older half of the entries goes (by modification time)."""
    try:
        entries = [p for p in folder.iterdir() if p.suffix == ".json"]
        if len(entries) <= MAX_ENTRIES:
            return
        entries.sort(key=lambda p: p.stat().st_mtime_ns)
        for old in entries[:len(entries) // 2]:
            old.unlink(missing_ok=True)
    except OSError:
        return
