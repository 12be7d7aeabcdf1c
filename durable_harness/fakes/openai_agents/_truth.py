"""Ground truth of the sessions fake: what the agent asked for, which the candidate cannot see.

Every function call the brains issue is recorded with its provenance (session, turn, call_id,
job, version, role) and the virtual time it was issued, and later whether, when and how it was
answered. Business payloads declared by a
call are registered once: media bytes by SHA-256 (``role: "image:<n>"``), post watermarks by
their marker string (``role: "article"``), delivered reports by SHA-256 (``role: "report"``, plus
the brain's ``facts``: which reset the tests ran at). Checkers join these with the WordPress
fake's and the executor's truth to count duplicates per (job, version, role) and stale results.

What it deliberately does not do: judge anything, or see the candidate's side of a call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from durable_harness.fakes.openai_agents.brains import FunctionCall

__all__ = ["Truth"]


class Truth:
    def __init__(self) -> None:
        self.payloads: dict[str, dict[str, Any]] = {}
        self.watermarks: dict[str, dict[str, str]] = {}
        self.tool_calls: list[dict[str, Any]] = []
        self._by_call: dict[str, dict[str, Any]] = {}

    def call(self, call_id: str) -> Mapping[str, Any] | None:
        """The record of a function call ever issued (its tool ``name``, ``role``, job), or None."""
        return self._by_call.get(call_id)

    def call_issued(self, session_id: str, turn_id: str, call_id: str, call: FunctionCall, at_s: float) -> None:
        provenance = {"job_id": call.job_id, "task_version": call.task_version, "role": call.role}
        facts = dict(call.facts)  # extra truth a brain declares (coding: which reset the tests ran at)
        for digest in call.payload_sha256:
            self.payloads.setdefault(digest, {**provenance, **facts})
        for mark in call.watermarks:
            self.watermarks.setdefault(mark, dict(provenance))
        record: dict[str, Any] = {"session_id": session_id, "turn_id": turn_id, "call_id": call_id,
                                  "name": call.name, **provenance, "issued_at": at_s, "answered": False,
                                  "success": None, "answered_at": None}
        if facts:
            record["facts"] = facts
        self.tool_calls.append(record)
        self._by_call[call_id] = record

    def call_answered(self, call_id: str, success: bool, at_s: float, *, sent_s: float | None = None) -> None:
        """``sent_s``: when the answering request reached the world, if it differs from ``at_s``
        (a candidate in another process: real time passes between arrival and delivery)."""
        record = self._by_call[call_id]
        record["answered"] = True
        record["success"] = success
        record["answered_at"] = at_s
        if sent_s is not None and sent_s != at_s:
            record["sent_at"] = sent_s

    def snapshot(self) -> dict[str, Any]:
        return {
            "payloads": {k: dict(v) for k, v in sorted(self.payloads.items())},
            "watermarks": {k: dict(v) for k, v in sorted(self.watermarks.items())},
            "tool_calls": [dict(r) for r in self.tool_calls],
        }
