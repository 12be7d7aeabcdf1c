"""Reading a scenario file with bounds: what reaches the YAML parser, and what the parser may build.

A scenario file comes from a user, a CI checkout or an exploration's export; it must not be able to
hang or exhaust the harness before it is even validated. So:

* only a regular file is read (``/dev/zero``, a FIFO, a socket or a directory given as a file is
  refused from the opened descriptor, so a file swapped after a check cannot slip through), and at
  most ``MAX_BYTES`` of it (``_read``, which imports no parser; re-exported here);
* the YAML is scanned as a stream of events first, which needs no recursion and builds nothing:
  nesting deeper than ``MAX_DEPTH`` and more than ``MAX_NODES`` nodes once every alias is expanded
  (a "billion laughs" file expands to 10**9 nodes from a few hundred bytes) are refused, as is an
  alias inside its own anchor (a structure that contains itself);
* only then is the document built, with PyYAML's safe loader (no tags that run code), and every
  number in it must be finite (``.nan`` and ``.inf`` pass a schema's ``minimum`` unnoticed).

Every refusal is a ``BoundedYamlError`` with a one-line message the loader prefixes with the file.
This module does not validate a scenario (``_loader`` and the schema do).
"""

from __future__ import annotations

import math
from typing import Any

import yaml

from durable_harness.harness.scenario._read import MAX_BYTES, BoundedYamlError, read_regular

__all__ = ["BoundedYamlError", "MAX_BYTES", "MAX_DEPTH", "MAX_NODES", "load_bounded", "read_regular"]

MAX_DEPTH = 32  # the catalogue nests 7 deep
MAX_NODES = 10_000  # the catalogue's largest file has about 100 nodes
# libyaml's parser where PyYAML was built with it: ten times faster, the same events and documents.
# Text it refuses is read again by PyYAML's own parser, whose messages are the ones users see.
_FAST: Any = getattr(yaml, "CSafeLoader", None)


def load_bounded(text: str) -> Any:
    """The YAML document in ``text``, built only if its nesting and its expanded size are bounded.

    Raises ``BoundedYamlError`` for a refused shape and ``yaml.YAMLError`` for text that is not YAML."""
    doc = _fast_load(text) if _FAST is not None else _NOT_READ
    if doc is _NOT_READ:
        doc = _load(text, yaml.SafeLoader)
    _check_finite(doc, "")
    return doc


_NOT_READ = object()


def _fast_load(text: str) -> Any:
    """The document through libyaml; ``_NOT_READ`` when libyaml refuses it (PyYAML says why then)."""
    try:
        return _load(text, _FAST)
    except yaml.YAMLError:
        return _NOT_READ


def _load(text: str, loader: Any) -> Any:
    _check_events(text, loader)
    try:
        doc = yaml.load(text, Loader=loader)  # noqa: S506  (both loaders are safe ones)
    except (RecursionError, MemoryError) as err:  # not reached after the scan; kept as a last line
        raise BoundedYamlError(f"too large to build ({type(err).__name__})") from err
    except yaml.YAMLError:
        raise
    except (ValueError, TypeError, OverflowError) as err:  # a scalar PyYAML cannot build (a 5000-digit number)
        raise BoundedYamlError(f"a value cannot be read: {_clip(str(err))}") from err
    return doc


def _check_events(text: str, loader: Any) -> None:
    """Depth and expanded size from the event stream (iterative: no recursion, nothing built)."""
    sizes: dict[str, int] = {}  # anchor -> expanded node count of the node it names
    open_nodes: list[list[Any]] = []  # [anchor, expanded count so far] of each collection still open
    total = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.AliasEvent):
            anchor = event.anchor
            if anchor not in sizes:
                if any(node[0] == anchor for node in open_nodes):
                    raise BoundedYamlError(f"{_where(event)}the alias *{anchor} is inside its own anchor &{anchor} "
                                           "(a structure that contains itself)")
                continue  # an undefined alias: the parser says so when the document is built
            count = sizes[anchor]
        elif isinstance(event, (yaml.ScalarEvent, yaml.CollectionStartEvent)):
            count = 1
        elif isinstance(event, yaml.CollectionEndEvent):
            anchor, count = open_nodes.pop()
            if anchor is not None:
                sizes[anchor] = count
            if open_nodes:
                open_nodes[-1][1] += count
            continue
        else:
            continue
        if isinstance(event, yaml.CollectionStartEvent):
            if len(open_nodes) >= MAX_DEPTH:
                raise BoundedYamlError(f"{_where(event)}nested deeper than {MAX_DEPTH} levels; a scenario nests a "
                                       "few levels deep")
            open_nodes.append([event.anchor, 1])
            total += 1
        else:
            if isinstance(event, yaml.ScalarEvent) and event.anchor is not None:
                sizes[event.anchor] = 1
            if open_nodes:
                open_nodes[-1][1] += count
            total += count
        if total > MAX_NODES:
            raise BoundedYamlError(f"{_where(event)}more than {MAX_NODES} values once its aliases are expanded; a "
                                   "scenario has a few hundred (anchors and aliases are fine, but not to multiply a "
                                   "document)")


def _check_finite(doc: Any, path: str) -> None:
    """Refuse ``.nan`` and ``.inf`` anywhere: no scenario field means them, and they slip past bounds."""
    stack: list[tuple[Any, str]] = [(doc, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            raise BoundedYamlError(f"{where or '(top level)'}: {node!r} is not a finite number")
        if isinstance(node, dict):
            stack.extend((value, f"{where}.{key}" if where else str(key)) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((value, f"{where}[{i}]") for i, value in enumerate(node))


def _where(event: Any) -> str:
    mark = getattr(event, "start_mark", None)
    return f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""


def _clip(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"
