"""What a candidate's ``report()`` may be: the one check every driver applies to a JobReport.

``check_report(obj)`` returns ``(claims, None)`` for a valid JobReport, where ``claims`` is a plain
JSON copy (dicts with string keys, lists, strings, finite numbers, booleans, None) that shares
nothing with the candidate's object, or ``(None, problem)`` with a one-line ``problem`` naming the
field and the value. A report is read within bounds (``MAX_CHARS`` of text, ``MAX_DEPTH`` levels,
``MAX_VALUES`` values), so a report of a gigabyte or one that contains itself costs nothing.

Valid means the contract's JobReport (``docs/contract.md``): a JSON object whose ``outcome`` is one of
``OUTCOMES``; and where present, ``job_id``, ``session_id`` and ``worker_id`` strings, ``task_version``
a string or an integer, ``resume_attempts`` a non-negative integer, ``checkpoint`` an object (its
``phase`` and ``approval_status`` strings, ``remote`` an object with ``wordpress_post_id`` an id and
``media_ids`` a list of ids, ``artifacts`` a list of objects whose ``role``, ``uri`` and ``sha256``
are strings), ``operations`` a list of objects each with an ``operation_key`` and a ``kind``
(strings) and a ``state`` of ``OP_STATES`` (``remote_id`` an id, ``request_hash`` a string). An id is
a string or an integer; ``null`` stands for an absent field. Other keys are recorded, not judged.

``ReportSampler`` is the one place a report is checked and recorded, whatever driver brought it
(in-process, forked, a process's ``GET /jobs/{id}``): a valid report is recorded as a ``report``
entry when it changed; a problem as a ``note`` of the worker whose ``data`` holds ``INVALID_REPORT``
(the problem), and the sample is no report; the ``invalid_reports`` checker judges those notes.
Drivers only hand over what the candidate said. This module does not judge a run.
"""

from __future__ import annotations

import itertools
import json
import math
import reprlib
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from durable_harness.harness.candidate._protocol import OP_STATES, OUTCOMES

__all__ = ["INVALID_REPORT", "MAX_CHARS", "MAX_DEPTH", "MAX_VALUES", "RefusedReport", "ReportSampler", "check_report"]

INVALID_REPORT = "invalid_report"  # the key of the history note a driver records for a refused report
MAX_CHARS = 1024 * 1024  # characters of every string and key together
MAX_DEPTH = 32
MAX_VALUES = 100_000
_MAX_INT = 2**64
_SHOWN = 80
_REPR = reprlib.Repr()
_REPR.maxstring, _REPR.maxlong = _SHOWN, _SHOWN


class _Refused(Exception):
    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{_clip(where)}: {problem}")


class RefusedReport:
    """A report already read and refused where it was made (a candidate in its own process reads its
    answer before it crosses the pipe, since what is not JSON cannot cross it): ``problem`` says why.
    ``check_report`` passes the problem on; the harness trusts it no more than any report, because a
    refusal can only cost the candidate."""

    __slots__ = ("problem",)

    def __init__(self, problem: str) -> None:
        self.problem = problem


class _Recorder(Protocol):
    def append(self, time_s: float, type_: str, process: str, data: Mapping[str, Any] | None = ...) -> Any: ...


class ReportSampler:
    """One worker's reports, checked and recorded (each change once): ``sample(obj)`` is the claims
    of a valid JobReport, or None (a problem, recorded as such). ``last`` is what was last recorded
    (the report's JSON text, or the problem): a driver watching for change reads it."""

    def __init__(self, history: _Recorder, now: Callable[[], float], worker_id: str) -> None:
        self._history = history
        self._now = now
        self.worker_id = worker_id
        self.last: str | None = None

    def sample(self, obj: object) -> dict[str, Any] | None:
        claims, problem = check_report(obj)
        if claims is None:
            if problem != self.last:
                self.last = problem
                self._history.append(self._now(), "note", self.worker_id, {INVALID_REPORT: problem})
            return None
        text = json.dumps(claims, sort_keys=True)
        if text != self.last:
            self.last = text
            self._history.append(self._now(), "report", self.worker_id, claims)
        return claims


def check_report(obj: object) -> tuple[dict[str, Any] | None, str | None]:
    """``(claims, None)`` for a valid JobReport, else ``(None, problem)``; never raises an
    ``Exception`` (a candidate's mapping that raises when read is a problem too)."""
    if isinstance(obj, RefusedReport):
        return None, obj.problem
    if obj is None:
        return None, "report() returned None, not a JobReport (a JSON object with an outcome)"
    if not isinstance(obj, Mapping):
        return None, f"report() returned {_show(obj)}, not a JobReport (a JSON object)"
    try:
        plain = _fast_copy(obj)
        if plain is None:  # something to say about it, or a type of the candidate's own: the careful copy
            plain = _Plain().copy(obj)
        _check_shape(plain)
    except _Refused as refused:
        return None, f"report() returned an invalid JobReport: {refused}"
    except Exception as err:  # the candidate's own mapping raised while being read
        return None, f"report() returned a mapping that raised {type(err).__name__} when read: {_clip(str(err))}"
    return plain, None


class _Unusual(Exception):
    """The fast copy met something it leaves to the careful one."""


def _fast_copy(report: Mapping[str, Any]) -> dict[str, Any] | None:
    """The copy ``_Plain`` makes, for a report of plain dicts, lists and scalars within every bound
    (what a report nearly always is), without naming where each value is; None for anything else,
    which ``_Plain`` copies or refuses with its message."""
    if type(report) is not dict:
        return None
    budget = [MAX_VALUES, MAX_CHARS]

    def text(value: str) -> str:
        budget[1] -= len(value)
        if budget[1] < 0:
            raise _Unusual
        value.encode("utf-8")  # a lone surrogate raises UnicodeEncodeError
        return value

    def copy(value: Any, depth: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_DEPTH:
            raise _Unusual
        kind = type(value)
        if value is None or kind is bool:
            return value
        if kind is int:
            if not -_MAX_INT < value < _MAX_INT:
                raise _Unusual
            return value
        if kind is float:
            if not math.isfinite(value):
                raise _Unusual
            return value
        if kind is str:
            return text(value)
        if kind is dict:
            out = {}
            for key, item in value.items():
                if type(key) is not str:
                    raise _Unusual
                out[text(key)] = copy(item, depth + 1)
            return out
        if kind is list or kind is tuple:
            return [copy(item, depth + 1) for item in value]
        raise _Unusual

    try:
        result: dict[str, Any] = copy(report, 0)
    except (_Unusual, UnicodeEncodeError, RecursionError):
        return None
    return result


class _Plain:
    """A bounded, iterative-in-spirit copy into plain JSON values (recursion bounded by MAX_DEPTH)."""

    def __init__(self) -> None:
        self.chars = 0
        self.values = 0

    def copy(self, value: Any, where: str = "$", depth: int = 0) -> Any:
        self.values += 1
        if self.values > MAX_VALUES:
            raise _Refused(where, f"more than {MAX_VALUES} values in one report")
        if depth > MAX_DEPTH:
            raise _Refused(where, f"nested deeper than {MAX_DEPTH} levels")
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int):
            number = int.__int__(value)
            if not -_MAX_INT < number < _MAX_INT:
                raise _Refused(where, "an integer beyond 64 bits is not a JSON number a reader can keep")
            return number
        if isinstance(value, float):
            real = float.__float__(value)
            if not math.isfinite(real):
                raise _Refused(where, f"{real!r} is not a JSON number")
            return real
        if isinstance(value, str):
            return self._text(str.__str__(value), where)
        if isinstance(value, Mapping):
            out: dict[str, Any] = {}
            for key, item in itertools.islice(value.items(), MAX_VALUES + 1):
                if not isinstance(key, str):
                    raise _Refused(where, f"key {_show(key)} is not a string (JSON keys are strings)")
                name = self._text(str.__str__(key), where)
                out[name] = self.copy(item, _child(where, name), depth + 1)
            return out
        if isinstance(value, (list, tuple)):
            items = itertools.islice(iter(value), MAX_VALUES + 1)
            return [self.copy(item, f"{where}[{i}]", depth + 1) for i, item in enumerate(items)]
        raise _Refused(where, f"{_show(value)} is not a JSON value")

    def _text(self, text: str, where: str) -> str:
        self.chars += len(text)
        if self.chars > MAX_CHARS:
            raise _Refused(where, f"more than {MAX_CHARS} characters of text in one report")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise _Refused(where, f"{_show(text)} is not valid Unicode (a lone surrogate)") from None
        return text


def _check_shape(report: dict[str, Any]) -> None:
    if "outcome" not in report:
        raise _Refused("$", "no outcome (one of " + ", ".join(OUTCOMES) + ")")
    _one_of(report, "outcome", OUTCOMES, "$")
    for name in ("job_id", "session_id", "worker_id"):
        _typed(report, name, (str,), "a string", "$")
    _typed(report, "task_version", (str, int), "a string", "$")
    attempts = report.get("resume_attempts")
    if attempts is not None and (not isinstance(attempts, int) or isinstance(attempts, bool) or attempts < 0):
        raise _Refused("$.resume_attempts", f"{_show(attempts)} is not a non-negative integer")
    checkpoint = _typed(report, "checkpoint", (dict,), "an object", "$")
    if checkpoint is not None:
        _check_checkpoint(checkpoint)
    operations = _typed(report, "operations", (list,), "a list", "$")
    for i, op in enumerate(operations or []):
        where = f"$.operations[{i}]"
        if not isinstance(op, dict):
            raise _Refused(where, f"{_show(op)} is not an object")
        for name in ("operation_key", "kind"):
            if not isinstance(op.get(name), str):
                raise _Refused(f"{where}.{name}", f"{_show(op.get(name))} is not a string")
        if "state" not in op:
            raise _Refused(f"{where}.state", "missing (one of " + ", ".join(OP_STATES) + ")")
        _one_of(op, "state", OP_STATES, where)
        _typed(op, "remote_id", (str, int), "an id (a string or an integer)", where)
        _typed(op, "request_hash", (str,), "a string", where)


def _check_checkpoint(checkpoint: dict[str, Any]) -> None:
    where = "$.checkpoint"
    for name in ("phase", "approval_status"):
        _typed(checkpoint, name, (str,), "a string", where)
    _typed(checkpoint, "next_allowed_actions", (list,), "a list", where)
    remote = _typed(checkpoint, "remote", (dict,), "an object", where)
    if remote is not None:
        _typed(remote, "wordpress_post_id", (str, int), "an id (a string or an integer)", f"{where}.remote")
        ids = _typed(remote, "media_ids", (list,), "a list of ids", f"{where}.remote")
        for i, mid in enumerate(ids or []):
            if not isinstance(mid, (str, int)) or isinstance(mid, bool):
                raise _Refused(f"{where}.remote.media_ids[{i}]", f"{_show(mid)} is not an id (a string or an integer)")
    artifacts = _typed(checkpoint, "artifacts", (list,), "a list", where)
    for i, artifact in enumerate(artifacts or []):
        if not isinstance(artifact, dict):
            raise _Refused(f"{where}.artifacts[{i}]", f"{_show(artifact)} is not an object")
        for name in ("role", "uri", "sha256"):
            _typed(artifact, name, (str,), "a string", f"{where}.artifacts[{i}]")


def _typed(parent: dict[str, Any], name: str, types: tuple[type, ...], noun: str, where: str) -> Any:
    value = parent.get(name)
    if value is None:
        return None
    if not isinstance(value, types) or isinstance(value, bool):
        raise _Refused(f"{where}.{name}", f"{_show(value)} is not {noun}")
    return value


def _one_of(parent: dict[str, Any], name: str, allowed: tuple[str, ...], where: str) -> None:
    value = parent.get(name)
    if value not in allowed:
        raise _Refused(f"{where}.{name}", f"{_show(value)} is not one of " + ", ".join(allowed))


def _child(where: str, name: str) -> str:
    return f"{where}.{name}" if name.isidentifier() else f"{where}[{_show(name)}]"


def _show(value: object) -> str:
    """A value as a message shows it: bounded (a string of a gigabyte is not copied to be shown), and
    the same in every run (no object's repr, which may hold its address)."""
    if isinstance(value, int) and not isinstance(value, bool) and not -_MAX_INT < value < _MAX_INT:
        return f"an integer of {value.bit_length()} bits"
    if value is None or isinstance(value, (bool, int, float, str)):
        return _clip(_REPR.repr(value))
    if isinstance(value, (list, tuple, dict)):
        return f"a {type(value).__name__} of {len(value)}"
    return f"a value of type {type(value).__name__}"


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[:_SHOWN - 1] + "…"
