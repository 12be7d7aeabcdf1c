"""Where a run keeps the candidate's files: its database, its working files, a sweep's copies of them.

A crash in a run is the death of a process (SIGKILL), never a power cut: whatever a candidate
wrote reaches every later process from the kernel's page cache, whether or not it was flushed to
the disk. Flushing (``fsync``) buys the candidate nothing here, yet SQLite's defaults flush at
every commit, and a control plane that commits before each side effect commits often: measured
on a candidate of that kind (``tests/candidates/strangers/polling``), its crash-point sweep of the article
took 12.9 to 14.5 s with its files on the disk and 9.8 s in memory. So by default those files live
on a memory filesystem (``/dev/shm``) when there is one with room to spare (``MIN_FREE_BYTES``),
and in the system's temporary folder otherwise (``TMPDIR``). ``DURABLE_HARNESS_SCRATCH=DIR`` puts
them in ``DIR`` instead (a folder that must exist and be writable).

What it deliberately does not do: hold anything of the report (that goes where ``--report`` says),
or keep the folders after their run (each is deleted when its run ends; a harness killed with
SIGKILL leaves its one folder behind, as it would on the disk).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

__all__ = ["MEMORY", "MIN_FREE_BYTES", "SCRATCH_ENV", "make_scratch", "scratch_folder", "scratch_root"]

SCRATCH_ENV = "DURABLE_HARNESS_SCRATCH"
MEMORY = Path("/dev/shm")  # Linux's memory filesystem, writable by every user
MIN_FREE_BYTES = 1 << 30  # room a memory filesystem must have free to be used by default


def scratch_root(environ: Mapping[str, str] = os.environ, memory: Path = MEMORY) -> str | None:
    """The folder that a run's scratch folders are made in: ``DURABLE_HARNESS_SCRATCH`` when set,
    else ``memory`` when it is a writable folder with ``MIN_FREE_BYTES`` free, else ``None`` (the
    system's temporary folder, as ``tempfile`` finds it). Raises ``ValueError`` for a setting that
    names no writable folder."""
    chosen = environ.get(SCRATCH_ENV, "").strip()
    if chosen:
        if not os.path.isdir(chosen) or not os.access(chosen, os.W_OK | os.X_OK):
            raise ValueError(f"{SCRATCH_ENV}={chosen!r} is not a writable folder (it says where the candidate's "
                             "database and files are kept during a run; leave it unset for the default)")
        return chosen
    return str(memory) if _roomy(memory) else None


def _roomy(folder: Path) -> bool:
    try:
        stats = os.statvfs(folder)
    except (OSError, AttributeError):  # no such folder, or no statvfs on this system
        return False
    return os.access(folder, os.W_OK | os.X_OK) and stats.f_bavail * stats.f_frsize >= MIN_FREE_BYTES


def scratch_folder(prefix: str) -> tempfile.TemporaryDirectory[str]:
    """A folder of a run's own, deleted when the ``with`` block ends."""
    return tempfile.TemporaryDirectory(prefix=prefix, dir=scratch_root())


def make_scratch(prefix: str) -> Path:
    """A folder of a run's own that its maker deletes."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=scratch_root()))
