"""The pipe between the harness and a candidate in its own process: framed messages, JSON only.

A message is a JSON header (a small dict; its ``k`` says what it is) and an optional payload of raw
bytes (an HTTP body, a stream's chunk), each behind a 4-byte big-endian length. Nothing from the
candidate's side is ever unpickled: a hostile child can send a malformed message (the harness
reads it as the candidate's garbage) but cannot make the harness run code.

``recv`` waits at most ``timeout_s`` for a message (``None``: for ever); a child that stays silent
longer has ``Silent`` raised, one that hung up ``HungUp``.
"""

from __future__ import annotations

import json
import select
import socket
import struct
from collections.abc import Mapping
from typing import Any

__all__ = ["HungUp", "MAX_HEADER", "MAX_PAYLOAD", "PipeGarbage", "Silent", "plain", "recv", "send"]

_LEN = struct.Struct(">I")
MAX_HEADER = 16 * 1024 * 1024  # a JobReport or a call's arguments: large, but not unbounded
MAX_PAYLOAD = 256 * 1024 * 1024  # an HTTP body


class HungUp(EOFError):
    """The other end closed the pipe (the child died, or the harness did)."""


class Silent(TimeoutError):
    """No message within the wait's bound."""


class PipeGarbage(ValueError):
    """A message that is not one (the child wrote garbage on the pipe)."""


def send(sock: socket.socket, header: Mapping[str, Any], payload: bytes = b"") -> None:
    text = json.dumps(header, separators=(",", ":"), allow_nan=True).encode()
    sock.sendall(_LEN.pack(len(text)) + text + _LEN.pack(len(payload)) + payload)


def recv(sock: socket.socket, timeout_s: float | None = None) -> tuple[dict[str, Any], bytes]:
    size = _LEN.unpack(_exactly(sock, _LEN.size, timeout_s))[0]
    if size > MAX_HEADER:
        raise PipeGarbage(f"a message header of {size} bytes (at most {MAX_HEADER})")
    try:
        header = json.loads(_exactly(sock, size, timeout_s))
    except ValueError as err:
        raise PipeGarbage(f"a message header that is not JSON: {err}") from None
    if not isinstance(header, dict) or not isinstance(header.get("k"), str):
        raise PipeGarbage("a message header without a kind")
    length = _LEN.unpack(_exactly(sock, _LEN.size, timeout_s))[0]
    if length > MAX_PAYLOAD:
        raise PipeGarbage(f"a payload of {length} bytes (at most {MAX_PAYLOAD})")
    return header, _exactly(sock, length, timeout_s) if length else b""


def _exactly(sock: socket.socket, n: int, timeout_s: float | None) -> bytes:
    chunks, left = [], n
    while left:
        if timeout_s is not None and not select.select([sock], [], [], timeout_s)[0]:
            raise Silent(f"nothing for {timeout_s:g} s")
        try:
            chunk = sock.recv(min(left, 1 << 20))
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            raise HungUp("the other end closed the pipe")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON data, as the in-process driver would record it: mappings become
    dicts (keys as strings), sequences lists, numbers stay numbers (NaN included), and anything
    else becomes its ``str`` (as ``json.dumps(default=str)`` does)."""
    if depth > 64:
        return "<nested too deep>"
    if value is None or isinstance(value, (bool, str, int, float)):
        return value  # NaN and infinities too: the header's JSON allows them, as json.dumps does
    if isinstance(value, Mapping):
        return {k if isinstance(k, str) else str(k): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, depth + 1) for v in value]
    try:
        return str(value)
    except Exception as err:  # a __str__ that raises: say so rather than fail the call
        return f"<unprintable {type(value).__name__}: {type(err).__name__}>"
