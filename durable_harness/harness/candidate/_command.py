"""``--candidate 'cmd:<command line>'``: a candidate that is a process, in any language.

``parse_command`` splits the command line as a POSIX shell would (``shlex``; no shell runs it)
and checks that its program exists, so a typo is one line at the command line rather than a run
that cannot start. ``command_digest`` identifies the candidate's code for reports: the command
line, plus the source files it names (a script and the files of its kind beside it, or the
package of ``python -m PACKAGE``), so runs of different code never mix.

It deliberately does not start anything (``drivers._process_driver`` does).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PREFIX", "CandidateCommand", "command_digest", "is_command", "parse_command"]

PREFIX = "cmd:"
_MAX_FILES = 500
_MAX_BYTES = 16 * 1024 * 1024
_SOURCE_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".go", ".sh", ".php", ".java", ".rs")


@dataclass(frozen=True)
class CandidateCommand:
    spec: str  # as given: "cmd:node examples/node-control-plane/server.js"
    argv: tuple[str, ...]

    @property
    def line(self) -> str:
        return self.spec[len(PREFIX):].strip()


def is_command(spec: object) -> bool:
    return isinstance(spec, str) and spec.startswith(PREFIX)


def parse_command(spec: str) -> CandidateCommand:
    """The command of a ``cmd:`` spec; ``ValueError`` (one line, how to fix it) when it cannot run."""
    if not is_command(spec):
        raise ValueError(f"--candidate {spec!r} is not a process candidate; write cmd:<command line>")
    try:
        argv = tuple(shlex.split(spec[len(PREFIX):]))
    except ValueError as err:
        raise ValueError(f"--candidate {spec!r}: the command line cannot be split ({err}); check its quotes") from None
    if not argv:
        raise ValueError(f"--candidate {spec!r} names no command; write e.g. "
                         "--candidate 'cmd:python -m durable_harness.candidates.reference.serve'")
    if _program(argv[0]) is None:
        where = "is not an executable file" if os.sep in argv[0] else "is not on PATH"
        raise ValueError(f"--candidate {spec!r}: the program {argv[0]!r} {where}")
    return CandidateCommand(spec, argv)


def _program(name: str) -> str | None:
    if os.sep in name:
        return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
    return shutil.which(name)


def command_digest(spec: str) -> str:
    """sha256 over the command line and the source files it names (bounded)."""
    command = parse_command(spec)
    h = hashlib.sha256()
    h.update("\0".join(command.argv).encode() + b"\0")
    total = 0
    for label, path in _sources(command.argv)[:_MAX_FILES]:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        total += len(data)
        if total > _MAX_BYTES:
            break
        h.update(label.encode() + b"\0" + data + b"\0")
    return h.hexdigest()


def _sources(argv: tuple[str, ...]) -> list[tuple[str, Path]]:
    """(label, path) of each source file: labels are relative, so a digest is the same in any checkout."""
    files: dict[str, Path] = {}
    for i, arg in enumerate(argv[1:], 1):
        if argv[i - 1] == "-m":
            files.update(_package_files(arg))
            continue
        path = Path(arg)
        if path.suffix in _SOURCE_SUFFIXES and path.is_file():
            files.update({p.name: p for p in path.parent.iterdir() if p.is_file() and p.suffix == path.suffix})
    return sorted(files.items())


def _package_files(module: str) -> dict[str, Path]:
    """The source files of the top-level package of ``module`` (found without importing it)."""
    top = module.split(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return {}
    if spec is None or spec.origin is None:
        return {}
    origin = Path(spec.origin)
    if origin.name != "__init__.py":
        return {origin.name: origin} if origin.is_file() else {}
    root = origin.parent
    return {f"{top}/{p.relative_to(root).as_posix()}": p for p in root.rglob("*.py") if "__pycache__" not in p.parts}
