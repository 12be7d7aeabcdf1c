"""The executor's tiny deterministic shell: just enough commands for the coding workload.

Every command runs to completion at once against the sandbox's file system (absolute path ->
bytes) and returns ``(exit_code, output)``. Relative paths resolve against ``cwd``; a path that
leaves ``/workspace`` is refused (exit 1). Directories are implicit: a directory exists while a
file lies below it.

==========================  ====================================================================
``write <path>``            write the content given separately (stdin; none means empty); exit 0
``cat <path>``              the file's text; exit 1 when missing
``ls [dir]``                the entries directly below ``dir`` (default ``cwd``), directories with
                            a trailing ``/``, sorted; exit 2 when missing
``sha256sum <path>``        ``<hex>  <path>``; exit 1 when missing
``python -m pytest [path]`` the pytest rule below
``start <name> [args]``     start a background process (a record; see the executor)
``ps``                      the running processes
==========================  ====================================================================

Anything else answers ``sh: 1: <word>: not found`` with exit 127.

**The pytest rule.** Collected: every file named ``test_<name>.py`` below ``path`` (default
``cwd``) that lies inside a directory called ``tests``. Its tests are its top-level lines
``def test_...(``. Its required names are every name imported by a ``from <name> import a, b``
line (aliases dropped; parentheses and wrapped lines are not understood). Its source is
``src/<name>.py`` beside that ``tests`` directory. A test file passes - all its tests pass - iff
its source exists and contains ``def <fn>(`` for every required name; otherwise all its tests
fail with the ``ModuleNotFoundError``/``ImportError`` a real run would show. The summary line is
``N passed in 0.01s`` (exit 0), ``F failed[, P passed] in 0.01s`` (exit 1), or
``no tests ran in 0.01s`` (exit 5, pytest's code for "nothing collected").

What it deliberately does not do: run Python, pipes, redirections, globbing, environment
variables, or take any time on the clock.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from durable_harness.fakes.executor._records import WORKSPACE, Process

__all__ = ["Outcome", "execute", "resolve"]

_TEST_DEF = re.compile(r"^def (test_\w*)\s*\(", re.MULTILINE)
_FROM_IMPORT = re.compile(r"^from\s+(\w+)\s+import\s+(.+)$", re.MULTILINE)


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    output: str
    kind: str = "shell"                     # shell | pytest | write: how long it pretends to take


def resolve(path: str, cwd: str = WORKSPACE) -> str | None:
    """The absolute, normalised path, or None when it leaves ``/workspace``."""
    joined = posixpath.normpath(posixpath.join(cwd, path))
    if joined != WORKSPACE and not joined.startswith(WORKSPACE + "/"):
        return None
    return joined


def execute(command: str, *, cwd: str, content: bytes | None, files: dict[str, bytes],
            processes: list[Process], start: Callable[[str, str], Process]) -> Outcome:
    """Run ``command``; ``files`` is changed in place by ``write``; ``start`` records a process."""
    try:
        argv = shlex.split(command)
    except ValueError as error:
        return Outcome(2, f"sh: 1: syntax error: {error}")
    if not argv:
        return Outcome(0, "")
    word, args = argv[0], argv[1:]
    if word == "python" and args[:2] == ["-m", "pytest"]:
        targets = [a for a in args[2:] if not a.startswith("-")]
        if len(targets) > 1:
            return Outcome(4, "ERROR: this sandbox's pytest takes at most one path")
        return _pytest(files, cwd, targets[0] if targets else ".")
    if word == "start":
        if not args:
            return Outcome(2, "start: usage: start <name> [args...]")
        process = start(args[0], " ".join(args))
        return Outcome(0, f"started {process.name} (pid {process.pid})")
    if word == "ps":
        lines = ["PID CMD"] + [f"{p.pid} {p.command}" for p in processes if p.status == "running"]
        return Outcome(0, "\n".join(lines))
    if word == "ls":
        return _ls(files, cwd, args)
    if word not in ("write", "cat", "sha256sum"):
        return Outcome(127, f"sh: 1: {word}: not found")
    if len(args) != 1:
        return Outcome(2, f"{word}: usage: {word} <path>")
    path = resolve(args[0], cwd)
    if path is None:
        return Outcome(1, f"{word}: {args[0]}: Permission denied (outside {WORKSPACE})")
    if word == "write":
        data = content or b""
        files[path] = data
        return Outcome(0, f"wrote {len(data)} bytes to {path}", kind="write")
    if path not in files:
        return Outcome(1, f"{word}: {args[0]}: No such file or directory")
    if word == "cat":
        return Outcome(0, files[path].decode("utf-8", errors="replace"))
    return Outcome(0, f"{hashlib.sha256(files[path]).hexdigest()}  {args[0]}")


def _ls(files: Mapping[str, bytes], cwd: str, args: list[str]) -> Outcome:
    if len(args) > 1:
        return Outcome(2, "ls: usage: ls [dir]")
    shown = args[0] if args else "."
    target = resolve(shown, cwd)
    if target is None:
        return Outcome(2, f"ls: cannot access '{shown}': Permission denied (outside {WORKSPACE})")
    if target in files:
        return Outcome(0, shown)
    prefix = target.rstrip("/") + "/"
    entries = set()
    for path in files:
        if path.startswith(prefix):
            head, _, rest = path[len(prefix):].partition("/")
            entries.add(head + "/" if rest else head)
    if not entries and target != WORKSPACE:
        return Outcome(2, f"ls: cannot access '{shown}': No such file or directory")
    return Outcome(0, "\n".join(sorted(entries)))


def _pytest(files: Mapping[str, bytes], cwd: str, target: str) -> Outcome:
    root = resolve(target, cwd)
    if root is None:
        return Outcome(4, f"ERROR: file or directory not found: {target}")
    prefix = root.rstrip("/") + "/"
    collected = sorted(p for p in files if (p == root or p.startswith(prefix)) and _is_test_file(p))
    if root != WORKSPACE and root not in files and not any(p.startswith(prefix) for p in files):
        return Outcome(4, f"ERROR: file or directory not found: {target}")
    lines: list[str] = []
    failures: list[str] = []
    passed = failed = 0
    for path in collected:
        text = files[path].decode("utf-8", errors="replace")
        tests = _TEST_DEF.findall(text)
        shown = _relative(path, cwd)
        error = _import_error(files, path, text)
        if error is None:
            passed += len(tests)
            lines.append(f"{shown} {'.' * len(tests)}")
        else:
            failed += len(tests)
            lines.append(f"{shown} {'F' * len(tests)}")
            failures += [f"FAILED {shown}::{name} - {error}" for name in tests]
    total = passed + failed
    head = [f"collected {total} item{'s' if total != 1 else ''}"]
    if total == 0:
        return Outcome(5, "\n".join(head + ["no tests ran in 0.01s"]), kind="pytest")
    if failed:
        summary = f"{failed} failed" + (f", {passed} passed" if passed else "") + " in 0.01s"
        return Outcome(1, "\n".join(head + lines + failures + [summary]), kind="pytest")
    return Outcome(0, "\n".join(head + lines + [f"{passed} passed in 0.01s"]), kind="pytest")


def _is_test_file(path: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    return name.startswith("test_") and name.endswith(".py") and "tests" in parts[:-1]


def _import_error(files: Mapping[str, bytes], test_path: str, text: str) -> str | None:
    """Why the test file cannot import its module, or None when it can."""
    parts = test_path.split("/")
    tests_dir = len(parts) - 1 - parts[:-1][::-1].index("tests") - 1
    module = parts[-1][len("test_"):-len(".py")]
    source_path = "/".join(parts[:tests_dir] + ["src", f"{module}.py"])
    source = files.get(source_path)
    if source is None:
        return f"ModuleNotFoundError: No module named '{module}'"
    body = source.decode("utf-8", errors="replace")
    for imported_module, names in _FROM_IMPORT.findall(text):
        if imported_module != module:
            continue
        for raw in names.split(","):
            name = raw.strip().split(" as ")[0].strip()
            if name and not re.search(rf"^def {re.escape(name)}\s*\(", body, re.MULTILINE):
                return f"ImportError: cannot import name '{name}' from '{module}'"
    return None


def _relative(path: str, cwd: str) -> str:
    return posixpath.relpath(path, cwd) if path.startswith(cwd.rstrip("/") + "/") else path
