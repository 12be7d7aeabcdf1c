"""Reading a scenario file's bytes with bounds (see ``_bounded``, which parses them): only a regular
file, and at most ``MAX_BYTES`` of it. It imports no parser: a file found valid before is not parsed
again (``_cache``)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["BoundedYamlError", "MAX_BYTES", "read_regular"]

MAX_BYTES = 1024 * 1024  # a scenario file is a few hundred lines
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class BoundedYamlError(ValueError):
    """The file is not something the loader will parse; the message is one line, without the file's name."""


def read_regular(path: Path, max_bytes: int = MAX_BYTES) -> bytes:
    """The bytes of ``path``, if it is a regular file of at most ``max_bytes`` bytes.

    The file is opened without blocking (a FIFO with no writer would otherwise hang the open) and
    its kind is read from the open descriptor, not from the path."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = next((name for test, name in _KINDS if test(mode)), "not a regular file")
            raise BoundedYamlError(f"{what}, not a regular file; a scenario is a YAML file")
        chunks: list[bytes] = []
        left = max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 65536))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise BoundedYamlError(f"larger than {max_bytes} bytes; a scenario file is a few hundred lines")
    return data
