"""resubmitted tasks: more than one session, or more than one submission of the original task
input, per job version. A resubmitted task makes the agent start over: the second article, the
second order. Ground truth is the sessions API's record of every session and user message."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from durable_harness.harness._history import History
from durable_harness.harness.checkers._base import CheckInput, Finding, Witness, checker, listed, pluralise, witness


@checker("resubmitted_tasks", "safety", rank=80)
def check(inp: CheckInput) -> Finding:
    job_id, version = str(inp.job["job_id"]), str(inp.job["task_version"])
    sessions = [s for s in inp.truth.get("openai", {}).get("sessions", []) if _belongs(s, job_id, version)]
    if not sessions:
        return Finding("pass", 0, f"no session was created for {job_id} v{version}")
    task = (sessions[0].get("user_inputs") or [None])[0]
    submissions = sum(1 for s in sessions for text in s.get("user_inputs", []) if text == task)
    count = max(len(sessions) - 1, 0) + max(submissions - len(sessions), 0)
    if count == 0:
        return Finding("pass", 0,
                           f"one session ({sessions[0]['id']}) and one submission of the task for {job_id} v{version}")
    because = (f"{job_id} v{version}: {pluralise(len(sessions), 'session')} "
               f"({listed([s['id'] for s in sessions])}) and {pluralise(submissions, 'submission')} of the original task")
    return Finding("fail", count, because, tuple(_witnesses(inp.history, task)))


def _belongs(session: Mapping[str, Any], job_id: str, version: str) -> bool:
    meta = session.get("metadata") or {}
    if "job_id" in meta:
        return bool(meta.get("job_id") == job_id and str(meta.get("task_version")) == version)
    return any(job_id in str(text) for text in session.get("user_inputs", [])[:1])


def _witnesses(history: History, task: Any) -> list[Witness]:
    """Every request that submitted the task: session creations and task messages."""
    out = []
    for invoke, done in history.operations():
        d = invoke.data
        if d.get("service") != "openai" or d.get("method") != "POST" or done is None or done.type == "fail":
            continue
        body = d.get("body") if isinstance(d.get("body"), dict) else {}
        if d.get("route") == "/agents/sessions":
            out.append(witness(done, f"op {invoke.op} by {invoke.process}: created a session (answered {done.data.get('status')})"))
        elif str(d.get("route", "")).endswith("/events") and _sends_text(body, task):
            out.append(witness(done, f"op {invoke.op} by {invoke.process}: sent the original task again to {d['route']}"))
    return out


def _sends_text(body: Any, task: Any) -> bool:
    for event in (body or {}).get("events", []) if isinstance(body, dict) else []:
        if event.get("type") == "agent.session.input.message":
            for message in event.get("input", []):
                for part in message.get("content", []) if isinstance(message, dict) else []:
                    text = part.get("text")
                    if text == task or (isinstance(text, dict) and isinstance(task, str)
                                        and text.get("sha256") == hashlib.sha256(task.encode()).hexdigest()):
                        return True  # long texts are recorded by digest
    return False
