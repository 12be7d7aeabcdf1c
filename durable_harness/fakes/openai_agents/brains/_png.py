"""Tiny, valid, deterministic PNG images for the brains' media payloads.

An 8x8 RGB image whose pixels come from a SHA-256 of the caller's seed string, encoded with only
``zlib`` and ``struct``: signature, IHDR, one IDAT, IEND, each chunk with its CRC. Different
seeds give different bytes (so each image has its own digest); the same seed gives the same bytes
in every run and on every machine.

What it deliberately does not do: compress well, draw anything meaningful, or decode images.
"""

from __future__ import annotations

import hashlib
import struct
import zlib

__all__ = ["tiny_png"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def tiny_png(seed: str, size: int = 8) -> bytes:
    """A ``size`` x ``size`` RGB PNG whose pixels are derived from ``seed``."""
    if not 1 <= size <= 64:
        raise ValueError(f"tiny_png(size={size!r}) must be between 1 and 64")
    needed = size * size * 3
    stream = b""
    counter = 0
    while len(stream) < needed:
        stream += hashlib.sha256(f"{seed}/{counter}".encode()).digest()
        counter += 1
    rows = b"".join(b"\x00" + stream[y * size * 3:(y + 1) * size * 3] for y in range(size))
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows, 9)) + _chunk(b"IEND", b"")
