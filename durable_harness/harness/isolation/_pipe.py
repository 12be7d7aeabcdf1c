"""The pipe between the harness and a candidate in its own process: framed messages, JSON only.

A message is a JSON header (a small dict; its ``k`` says what it is: an ``InstanceKind`` between
the harness and an instance, a ``ZygoteKind`` between the harness and the zygote) and an optional
payload of raw bytes (an HTTP body, a stream's chunk), behind the two lengths (4 bytes each,
big-endian): the header's, then the payload's. Nothing from the candidate's side is ever unpickled: a hostile child
can send a malformed message (the harness reads it as the candidate's garbage) but cannot make the
harness run code.

``recv`` waits at most ``timeout_s`` for a message (``None``: for ever); a child that stays silent
longer has ``Silent`` raised, one that hung up ``HungUp``. A message costs two reads: its lengths,
then its header and payload together; it waits (``select``) only when nothing is there yet.
"""

from __future__ import annotations

import json
import select
import socket
import struct
from collections.abc import Mapping
from enum import StrEnum, unique
from typing import Any

__all__ = ["HungUp", "InstanceKind", "MAX_HEADER", "MAX_PAYLOAD", "PipeGarbage", "Silent", "ZygoteKind", "frame", "plain",
           "recv", "send"]

_LENGTHS = struct.Struct(">II")  # the header's length, the payload's
MAX_HEADER = 16 * 1024 * 1024  # a JobReport or a call's arguments: large, but not unbounded
MAX_PAYLOAD = 256 * 1024 * 1024  # an HTTP body


@unique
class InstanceKind(StrEnum):
    """What a message between the harness and an instance (``_child``) says: its ``k``. A kind is
    the bare string on the pipe (a ``str``), named once here; its value never changes."""

    # The instance to the harness: its answers (each may carry ``r``, the lines of the candidate's
    # code it reached since its last answer, when the harness asked for them: ``_reach``),
    READY = "ready"  # the instance is made: its ``methods`` and its ``lease_ttl_s`` (its first message)
    RESULT = "result"  # what the call returned (``v``)
    REFUSED_REPORT = "refused"  # report() returned no JobReport (``problem``)
    RAISED = "error"  # the call, or the factory, raised (``type``, ``message``, ``frames``)
    PROBED = "probe"  # what a probe found: the candidate's ``digest``, a ``spec_error``, or why it ``died``
    # and what it asks while a call runs.
    REQUEST = "http"  # an HTTP request for the gate (``p`` the process, ``m``, ``u``, ``h``; the body as payload)
    NEXT_CHUNK = "next"  # the next chunk of streamed answer ``s``
    STREAM_CLOSED = "close_stream"  # it closed streamed answer ``s`` (needs no answer)
    CLOCK = "clock"  # the run's clock: ``op`` now, unix or sleep (``v`` seconds)
    SDK_CLOCK = "sdk"  # the SDK's stand-in ``which``: ``op`` time, sleep or random
    # The harness to the instance: a call,
    CALL = "call"  # of the control API (``m`` the method, ``a`` its arguments; a webhook's body as payload)
    # and its answers to what the instance asks.
    RESPONSE = "response"  # the gate's answer (``status``, ``h``; its body as payload, or ``s`` a stream)
    TRANSPORT_ERROR = "http_error"  # the request failed as a transport fails (``type``, ``message``)
    CHUNK = "chunk"  # a stream's next chunk, as payload
    STREAM_END = "end"  # the stream has no more
    TIME = "time"  # the answer of the clock or of the SDK's stand-in (``v``)
    SLEPT = "slept"  # the sleep asked for is over


@unique
class ZygoteKind(StrEnum):
    """What a message between the harness and the zygote (``_zygote_process``) says: its ``k``, as
    ``InstanceKind`` (its own: ``ready`` means another thing here)."""

    READY = "ready"  # the zygote is warm (``pid``, ``key``): its first message on a pipe
    SPAWN = "spawn"  # fork an instance (the request is the instance's: ``_child.run_child``)
    SPAWNED = "spawned"  # forked (``pid``); the harness's end of its pipe follows (``SCM_RIGHTS``)
    REAP = "reap"  # wait for instance ``pid``, killed or dead
    REAPED = "reaped"  # how it ended (``status``) and its CPU time (``cpu_s``)
    CONNECT = "connect"  # another pipe to the zygote
    CONNECTED = "connected"  # the harness's end of it follows (``SCM_RIGHTS``)
    FAILED = "failed"  # a request the zygote could not serve (``message``)


class HungUp(EOFError):
    """The other end closed the pipe (the child died, or the harness did)."""


class Silent(TimeoutError):
    """No message within the wait's bound."""


class PipeGarbage(ValueError):
    """A message that is not one (the child wrote garbage on the pipe)."""


def frame(header: Mapping[str, Any], payload: bytes = b"") -> bytes:
    """One message as it goes on the pipe (several may go in one write: ``sendall`` of their sum)."""
    text = json.dumps(header, separators=(",", ":"), allow_nan=True).encode()
    return _LENGTHS.pack(len(text), len(payload)) + text + payload


def send(sock: socket.socket, header: Mapping[str, Any], payload: bytes = b"") -> None:
    sock.sendall(frame(header, payload))


def recv(sock: socket.socket, timeout_s: float | None = None) -> tuple[dict[str, Any], bytes]:
    size, length = _LENGTHS.unpack(_exactly(sock, _LENGTHS.size, timeout_s))
    if size > MAX_HEADER:
        raise PipeGarbage(f"a message header of {size} bytes (at most {MAX_HEADER})")
    if length > MAX_PAYLOAD:
        raise PipeGarbage(f"a payload of {length} bytes (at most {MAX_PAYLOAD})")
    message = _exactly(sock, size + length, timeout_s)
    try:
        header = json.loads(message[:size] if length else message)
    except ValueError as err:
        raise PipeGarbage(f"a message header that is not JSON: {err}") from None
    if not isinstance(header, dict) or not isinstance(header.get("k"), str):
        raise PipeGarbage("a message header without a kind")
    return header, message[size:] if length else b""


def _exactly(sock: socket.socket, n: int, timeout_s: float | None) -> bytes:
    """``n`` bytes from ``sock``. With a bound, a read that would wait waits in ``select`` (at most
    ``timeout_s`` for each part that arrives); what is there already is read at once."""
    chunks, left = [], n
    while left:
        try:
            if timeout_s is None:
                chunk = sock.recv(min(left, 1 << 20))
            else:
                chunk = _now_or_within(sock, min(left, 1 << 20), timeout_s)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            raise HungUp("the other end closed the pipe")
        chunks.append(chunk)
        left -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _now_or_within(sock: socket.socket, size: int, timeout_s: float) -> bytes:
    try:
        return sock.recv(size, socket.MSG_DONTWAIT)
    except BlockingIOError:
        pass
    if not select.select([sock], [], [], timeout_s)[0]:
        raise Silent(f"nothing for {timeout_s:g} s")
    return sock.recv(size)


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
