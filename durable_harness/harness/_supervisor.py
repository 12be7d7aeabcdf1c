"""The process supervisor: start a command in its own process group, keep its output, and make
sure it dies, on every way out of the harness.

``spawn`` starts a command with an environment in a new session (so a Ctrl-C at the terminal
reaches the harness, which then kills it, and never half of it), captures stdout and stderr
together line by line into a log file (each line redacted before it is written: secrets never
reach the disk) and keeps the last lines in memory for error messages. ``Child.kill`` sends
SIGKILL to the whole group and reaps it, bounded.

Three nets catch a child the harness forgot: the run kills its children when it ends, however it
ends (normal end, error, Ctrl-C, timeout); an ``atexit`` hook kills any still alive; and a tiny
watchdog process (``_watchdog``, one per harness process, in its own session) holds a pipe from
the harness and kills every registered group when that pipe closes, which is also what happens
when the harness itself is killed with SIGKILL.

It deliberately knows nothing of the contract (environment variables, health, HTTP): the process
driver does.
"""

from __future__ import annotations

import atexit
import collections
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO

__all__ = ["Child", "SpawnError", "kill_all", "live_children", "spawn"]

KEEP_LINES = 40
MAX_LINE_BYTES = 64 * 1024
MAX_LOG_BYTES = 8 * 1024 * 1024  # of a log file, every start of the command together: the report is not a sink
REAP_TIMEOUT_S = 10.0
_WATCHDOG_SCRIPT = Path(__file__).with_name("_watchdog.py")  # run as a file: no import of the harness

_LIVE: dict[int, Child] = {}
_LIVE_LOCK = threading.Lock()
_WATCHDOG: list[subprocess.Popen[bytes]] = []


class SpawnError(OSError):
    """The command could not be started at all (no such file, not executable)."""


class Child:
    """One started command: its process group, its log, its last lines."""

    def __init__(self, popen: subprocess.Popen[bytes], log: IO[str], redact: Callable[[str], str],
                 on_exit: Callable[[], None]) -> None:
        self._popen = popen
        self.pid = popen.pid
        self._log = log
        self._redact = redact
        self._on_exit = on_exit
        self._lines: collections.deque[str] = collections.deque(maxlen=KEEP_LINES)
        self._lines_lock = threading.Lock()
        self._full = False
        self._reader = threading.Thread(target=self._read, name=f"dh-output-{self.pid}", daemon=True)
        self._reader.start()

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    def alive(self) -> bool:
        return self._popen.poll() is None

    def wait_output(self, timeout_s: float) -> None:
        """Wait (bounded) until the process has ended and its last output is read: a process that
        died says why in its last lines, which its reader may not have read yet."""
        try:
            self._popen.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return
        self._reader.join(timeout=timeout_s)

    def last_lines(self, n: int = 12) -> list[str]:
        with self._lines_lock:
            return list(self._lines)[-n:]

    def signal(self, sig: int) -> bool:
        """Send ``sig`` to the whole group (SIGSTOP, SIGCONT); False when it is gone."""
        try:
            os.killpg(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    def kill(self) -> None:
        """SIGKILL to the whole group, then reap (bounded). Idempotent."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self._popen.wait(timeout=REAP_TIMEOUT_S)
        except subprocess.TimeoutExpired:  # a process in uninterruptible sleep; the watchdog has it too
            pass
        self._reader.join(timeout=REAP_TIMEOUT_S)
        _forget(self)

    def _write(self, line: str) -> None:
        """One line into the log, up to ``MAX_LOG_BYTES`` (then one line says the rest was dropped;
        the last lines are still kept in memory, for the error that may need them)."""
        if self._full:
            return
        if self._log.tell() + len(line) + 1 > MAX_LOG_BYTES:
            self._full = True
            line = (f"--- durable-harness: this log reached {MAX_LOG_BYTES // (1024 * 1024)} MiB; the command's further "
                    "output is not kept ---")
        self._log.write(line + "\n")
        self._log.flush()

    def _read(self) -> None:
        stream = self._popen.stdout
        assert stream is not None
        try:
            for _ in range(10**9):  # bounded by the child's output: EOF ends it
                raw = stream.readline(MAX_LINE_BYTES)
                if not raw:
                    break
                line = self._redact(raw.decode("utf-8", "replace").rstrip("\r\n"))
                with self._lines_lock:
                    self._lines.append(line)
                try:
                    self._write(line)
                except (OSError, ValueError):  # the log went away (the folder was removed): keep reading
                    pass
        finally:
            stream.close()
            try:
                self._popen.wait(timeout=REAP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                pass
            try:
                self._log.close()
            except OSError:
                pass
            # On a thread of its own: the callback may wait for a lock that whoever kills us holds.
            threading.Thread(target=self._on_exit, name=f"dh-exited-{self.pid}", daemon=True).start()


def spawn(argv: Sequence[str], env: Mapping[str, str], log_path: Path, *, cwd: Path | None = None,
          redact: Callable[[str], str] = lambda line: line, on_exit: Callable[[], None] = lambda: None,
          banner: str | None = None, pass_fds: Sequence[int] = ()) -> Child:
    """Start ``argv`` in its own process group; its output goes (redacted) to ``log_path`` (appended).
    ``pass_fds``: descriptors the child keeps (every other one is closed)."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = open(log_path, "a", encoding="utf-8")
    if banner is not None:
        log.write(redact(banner) + "\n")
        log.flush()
    try:
        popen = subprocess.Popen(list(argv), env=dict(env), cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, start_new_session=True, close_fds=True,
                                 pass_fds=tuple(pass_fds))
    except OSError as err:
        log.close()
        raise SpawnError(err.errno, f"cannot start {argv[0]!r}: {err.strerror or err}") from err
    child = Child(popen, log, redact, on_exit)
    with _LIVE_LOCK:
        _LIVE[child.pid] = child
    _tell_watchdog(f"+{child.pid}")
    return child


def live_children() -> list[Child]:
    with _LIVE_LOCK:
        return list(_LIVE.values())


def kill_all() -> None:
    """Kill every child still alive (the ``atexit`` net)."""
    for child in live_children():
        child.kill()


def _forget(child: Child) -> None:
    with _LIVE_LOCK:
        if _LIVE.pop(child.pid, None) is None:
            return
    _tell_watchdog(f"-{child.pid}")


def _tell_watchdog(line: str) -> None:
    """Register (``+pgid``) or release (``-pgid``) a group with the watchdog, starting it once."""
    with _LIVE_LOCK:
        if not _WATCHDOG or _WATCHDOG[0].poll() is not None:
            _WATCHDOG[:] = [subprocess.Popen([sys.executable, "-I", str(_WATCHDOG_SCRIPT)], stdin=subprocess.PIPE,
                                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                             start_new_session=True, close_fds=True)]
            for known in _LIVE:
                _write(_WATCHDOG[0], f"+{known}")
        _write(_WATCHDOG[0], line)


def _write(watchdog: subprocess.Popen[bytes], line: str) -> None:
    assert watchdog.stdin is not None
    try:
        watchdog.stdin.write(line.encode() + b"\n")
        watchdog.stdin.flush()
    except (BrokenPipeError, OSError):  # it died: the next registration starts another
        pass


def _at_exit() -> None:
    kill_all()
    for watchdog in _WATCHDOG:
        try:
            assert watchdog.stdin is not None
            watchdog.stdin.close()  # EOF: it kills what is left (nothing) and exits
            watchdog.wait(timeout=REAP_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            pass


atexit.register(_at_exit)
