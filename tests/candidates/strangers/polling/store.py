"""The control plane's own store: one SQLite file holding everything a restarted instance needs.

Tables:

- ``jobs``: one row per (job_id, task_version) — the submitted job (its policy: the allowed tools as
  they are now), its session, the outcome it reports, whether the engine still has work on it
  (``active``: a job awaiting approval, or settling after a cancellation, still has), the durable
  stop flags (``cancel_requested``, ``superseded_by``) and the counters of the job (resume attempts,
  a pending "environment replaced" notice, the post it read back, whether its article is done).
- ``ledger``: the side-effect ledger, one row per business action, keyed by its *operation key*
  (``<job>:<version>:<role>``). The row is written (PREPARED, then SENT) before its request leaves.
- ``calls``: the agent's function calls as this control plane saw them, with the exact answer it
  prepared and the idempotency key it sends that answer with, so a retry sends the same bytes.
- ``messages``: user messages this control plane decided to send (recovery summaries, notices),
  written before they are sent, with the turn they follow.
- ``deliveries``: coding reports checked by digest and sandbox state, and whether they went out.
- ``webhooks``: ids of verified webhooks already received (delivery is at-least-once).
- ``refused_credentials``: credentials a service answered 401 for (by a digest, never the secret).

Every method opens its own connection and commits before it returns: nothing is ever held open
across a request, so a crash inside a request loses nothing that was recorded before it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from tests.candidates.strangers.polling.records import Call, Delivery, Job, Message, Operation

__all__ = ["Store", "sqlite_path"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    job_id            TEXT NOT NULL,
    task_version      TEXT NOT NULL,
    seq               INTEGER NOT NULL,
    spec              TEXT NOT NULL,
    session_id        TEXT,
    session_requested REAL,
    outcome           TEXT NOT NULL DEFAULT 'running',
    reason            TEXT,
    resume_attempts   INTEGER NOT NULL DEFAULT 0,
    cancel_requested  INTEGER NOT NULL DEFAULT 0,
    env_notice_needed INTEGER NOT NULL DEFAULT 0,
    read_post_id      INTEGER,
    active            INTEGER NOT NULL DEFAULT 1,
    superseded_by     TEXT,
    article_done      INTEGER NOT NULL DEFAULT 0,
    tools_dirty       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (job_id, task_version)
);
CREATE TABLE IF NOT EXISTS ledger (
    op_key       TEXT PRIMARY KEY,
    job_id       TEXT NOT NULL,
    task_version TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    role         TEXT NOT NULL,
    kind         TEXT NOT NULL,
    match_key    TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    request      TEXT NOT NULL,
    state        TEXT NOT NULL,
    definitive   INTEGER NOT NULL DEFAULT 0,
    remote_id    TEXT,
    result       TEXT,
    error        TEXT,
    attempts     INTEGER NOT NULL DEFAULT 0,
    not_before   REAL NOT NULL DEFAULT 0,
    call_id      TEXT
);
CREATE TABLE IF NOT EXISTS calls (
    call_id         TEXT PRIMARY KEY,
    job_id          TEXT NOT NULL,
    task_version    TEXT NOT NULL,
    seq             INTEGER NOT NULL,
    turn_id         TEXT NOT NULL,
    name            TEXT NOT NULL,
    arguments       TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'open',
    answer          TEXT,
    idempotency_key TEXT,
    answered_at     REAL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    not_before      REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS messages (
    msg_key       TEXT PRIMARY KEY,
    job_id        TEXT NOT NULL,
    task_version  TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    kind          TEXT NOT NULL,
    body          TEXT NOT NULL,
    after_turn_id TEXT,
    state         TEXT NOT NULL DEFAULT 'prepared'
);
CREATE TABLE IF NOT EXISTS deliveries (
    call_id      TEXT PRIMARY KEY,
    job_id       TEXT NOT NULL,
    task_version TEXT NOT NULL,
    artifact_id  TEXT NOT NULL,
    path         TEXT NOT NULL,
    sha256       TEXT NOT NULL,
    uri          TEXT NOT NULL,
    state        TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS refused_credentials (
    service     TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    detail      TEXT NOT NULL,
    PRIMARY KEY (service, fingerprint)
);
CREATE TABLE IF NOT EXISTS webhooks (
    webhook_id  TEXT PRIMARY KEY,
    event_type  TEXT,
    session_id  TEXT,
    received_at REAL NOT NULL
);
"""


def sqlite_path(database_url: str) -> str:
    """The file of a SQLAlchemy-style SQLite URL (``sqlite:///relative`` or ``sqlite:////absolute``)."""
    prefix = "sqlite:///"
    if not database_url.startswith(prefix):
        raise ValueError(f"this control plane stores its state in SQLite; got a {database_url.split(':', 1)[0]} URL")
    path = database_url[len(prefix):].split("?", 1)[0]
    if not path or path == ":memory:":
        raise ValueError("the database must be a file that outlives a restart")
    return path


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


class Store:
    """Typed access to the control plane's tables."""

    def __init__(self, database_url: str) -> None:
        self._path = sqlite_path(database_url)
        self.path = self._path
        with self._connect() as conn:
            conn.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        conn = sqlite3.connect(self._path, isolation_level=None, timeout=10)
        conn.row_factory = sqlite3.Row
        try:
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except Exception:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _execute(self, sql: str, params: tuple[Any, ...]) -> None:
        with self._connect() as conn:
            conn.execute(sql, params)

    # -- jobs --------------------------------------------------------------------------------

    def add_job(self, spec: Mapping[str, Any]) -> tuple[Job, bool]:
        """Record a submitted job; idempotent on (job_id, task_version). Returns (job, created).

        A new version supersedes every older version of the job (durably, before this returns). The
        same version submitted again may only change the job's policy (its ``allowed_tools``);
        nothing else about the job changes, and a cancelled job is never reopened.
        """
        job_id, version = str(spec["job_id"]), str(spec.get("task_version", "1"))
        with self._transaction() as conn:
            row = conn.execute("SELECT spec FROM jobs WHERE job_id=? AND task_version=?", (job_id, version)).fetchone()
            created = row is None
            if created:
                seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM jobs").fetchone()[0]
                conn.execute("INSERT INTO jobs (job_id, task_version, seq, spec) VALUES (?, ?, ?, ?)",
                             (job_id, version, seq, json.dumps(dict(spec), sort_keys=True)))
                conn.execute("UPDATE jobs SET superseded_by=? WHERE job_id=? AND task_version<>? AND seq<?"
                             " AND superseded_by IS NULL", (version, job_id, version, seq))
                if conn.execute("SELECT 1 FROM jobs WHERE job_id=? AND cancel_requested=1", (job_id,)).fetchone():
                    # the user cancelled the job: a new version of it does not reopen it (the contract)
                    conn.execute("UPDATE jobs SET cancel_requested=1, outcome='cancelled', reason='cancelled by its user'"
                                 " WHERE job_id=? AND task_version=?", (job_id, version))
            else:
                stored = json.loads(row["spec"])
                tools = spec.get("allowed_tools")
                if isinstance(tools, list) and tools != stored.get("allowed_tools"):
                    stored["allowed_tools"] = [str(t) for t in tools]
                    conn.execute("UPDATE jobs SET spec=?, tools_dirty=1 WHERE job_id=? AND task_version=?",
                                 (json.dumps(stored, sort_keys=True), job_id, version))
        job = self.job(job_id, version)
        assert job is not None
        return job, created

    def job(self, job_id: str, task_version: str) -> Job | None:
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM jobs WHERE job_id=? AND task_version=?", (job_id, task_version)).fetchone()
        return None if row is None else self._job(row)

    def latest_job(self, job_id: str) -> Job | None:
        """The most recently submitted task version of a job."""
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM jobs WHERE job_id=? ORDER BY seq DESC LIMIT 1", (job_id,)).fetchone()
        return None if row is None else self._job(row)

    def active_jobs(self) -> list[Job]:
        with self._connect() as conn:
            rows = conn.execute("SELECT * FROM jobs WHERE active=1 ORDER BY seq").fetchall()
        return [self._job(r) for r in rows]

    def job_by_session(self, session_id: str) -> Job | None:
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM jobs WHERE session_id=?", (session_id,)).fetchone()
        return None if row is None else self._job(row)

    @staticmethod
    def _job(row: sqlite3.Row) -> Job:
        return Job(job_id=row["job_id"], task_version=row["task_version"], spec=json.loads(row["spec"]),
                   session_id=row["session_id"], session_requested_at=row["session_requested"],
                   outcome=row["outcome"], reason=row["reason"], resume_attempts=row["resume_attempts"],
                   cancel_requested=bool(row["cancel_requested"]), env_notice_needed=bool(row["env_notice_needed"]),
                   read_post_id=row["read_post_id"], active=bool(row["active"]),
                   superseded_by=row["superseded_by"], article_done=bool(row["article_done"]),
                   tools_dirty=bool(row["tools_dirty"]))

    def mark_session_requested(self, job: Job, unix_time: float) -> None:
        """A session create is about to go out (at this unix time): its outcome may become unknown."""
        self._execute("UPDATE jobs SET session_requested=? WHERE job_id=? AND task_version=?", (unix_time, *job.key))

    def set_session(self, job: Job, session_id: str) -> None:
        self._execute("UPDATE jobs SET session_id=? WHERE job_id=? AND task_version=? AND session_id IS NULL",
                      (session_id, *job.key))

    def request_cancel(self, job_id: str) -> Job | None:
        """Record the user's cancellation of every version of a job, durably; the latest is returned.

        From here on the job reports ``cancelled`` for good; the engine keeps it active only to
        settle what was in flight (by reads) and to cancel the session's turn.
        """
        with self._transaction() as conn:
            latest = conn.execute("SELECT task_version FROM jobs WHERE job_id=? ORDER BY seq DESC LIMIT 1",
                                  (job_id,)).fetchone()
            if latest is None:
                return None
            conn.execute("UPDATE jobs SET cancel_requested=1, outcome='cancelled', reason='cancelled by its user'"
                         " WHERE job_id=? AND (active=1 OR task_version=?) AND cancel_requested=0",
                         (job_id, latest["task_version"]))
        return self.latest_job(job_id)

    def settle(self, job: Job, outcome: str, reason: str) -> None:
        """The job's final outcome; the engine is done with it. A cancellation is never overwritten."""
        self._execute("UPDATE jobs SET outcome=?, reason=?, active=0 WHERE job_id=? AND task_version=?"
                      " AND cancel_requested=0", (outcome, reason, *job.key))

    def await_approval(self, job: Job, reason: str) -> None:
        """The article is done: the job needs a human (a reviewer), and stays active to look for an approval."""
        self._execute("UPDATE jobs SET outcome='needs_human', reason=?, article_done=1 WHERE job_id=?"
                      " AND task_version=? AND cancel_requested=0", (reason, *job.key))

    def block(self, job: Job, reason: str) -> None:
        """The job cannot go on without a human (a credential was refused): ``needs_human`` unless it
        was already finished or cancelled; the engine is done with it."""
        self._execute("UPDATE jobs SET outcome=CASE WHEN outcome='running' THEN 'needs_human' ELSE outcome END,"
                      " reason=CASE WHEN outcome='running' THEN ? ELSE reason END, active=0"
                      " WHERE job_id=? AND task_version=?", (reason, *job.key))

    def retire(self, job: Job, reason: str) -> None:
        """A stopped job (cancelled or superseded) has settled what was in flight: the engine is done."""
        self._execute("UPDATE jobs SET outcome=CASE WHEN cancel_requested=1 OR outcome IN ('running', 'needs_human')"
                      " THEN 'cancelled' ELSE outcome END,"
                      " reason=COALESCE(reason, ?), active=0 WHERE job_id=? AND task_version=?", (reason, *job.key))

    def policy_declared(self, job: Job) -> None:
        self._execute("UPDATE jobs SET tools_dirty=0 WHERE job_id=? AND task_version=?", job.key)

    def policy_changed(self, job: Job) -> None:
        self._execute("UPDATE jobs SET tools_dirty=1 WHERE job_id=? AND task_version=?", job.key)

    def set_env_notice(self, job: Job, needed: bool) -> None:
        self._execute("UPDATE jobs SET env_notice_needed=? WHERE job_id=? AND task_version=?", (int(needed), *job.key))

    def set_read_post(self, job: Job, post_id: int) -> None:
        self._execute("UPDATE jobs SET read_post_id=? WHERE job_id=? AND task_version=?", (post_id, *job.key))

    # -- the side-effect ledger --------------------------------------------------------------

    def operations(self, job: Job) -> list[Operation]:
        with self._connect() as conn:
            rows = conn.execute("SELECT * FROM ledger WHERE job_id=? AND task_version=? ORDER BY seq", job.key).fetchall()
        return [self._operation(r) for r in rows]

    def operation(self, op_key: str) -> Operation | None:
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM ledger WHERE op_key=?", (op_key,)).fetchone()
        return None if row is None else self._operation(row)

    @staticmethod
    def _operation(row: sqlite3.Row) -> Operation:
        return Operation(op_key=row["op_key"], role=row["role"], kind=row["kind"], match_key=row["match_key"],
                         request_hash=row["request_hash"], request=json.loads(row["request"]), state=row["state"],
                         definitive=bool(row["definitive"]), remote_id=row["remote_id"], result=_loads(row["result"]),
                         error=row["error"], attempts=row["attempts"], not_before=row["not_before"], call_id=row["call_id"])

    def prepare_operation(self, job: Job, *, op_key: str, role: str, kind: str, match_key: str, request_hash: str,
                          request: Mapping[str, Any], call_id: str) -> Operation:
        """Write a PREPARED ledger entry (or return the one already there under this key)."""
        with self._transaction() as conn:
            if conn.execute("SELECT 1 FROM ledger WHERE op_key=?", (op_key,)).fetchone() is None:
                seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM ledger").fetchone()[0]
                conn.execute(
                    "INSERT INTO ledger (op_key, job_id, task_version, seq, role, kind, match_key, request_hash, request,"
                    " state, call_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'PREPARED', ?)",
                    (op_key, *job.key, seq, role, kind, match_key, request_hash, json.dumps(dict(request), sort_keys=True),
                     call_id))
        op = self.operation(op_key)
        assert op is not None
        return op

    def rebind_operation(self, op: Operation, call_id: str, *, fresh_attempts: bool) -> None:
        """A new call now asks for this business action (the agent re-issued it)."""
        if fresh_attempts:
            self._execute("UPDATE ledger SET call_id=?, attempts=0, not_before=0 WHERE op_key=?", (call_id, op.op_key))
        else:
            self._execute("UPDATE ledger SET call_id=? WHERE op_key=?", (call_id, op.op_key))

    def note_approval(self, op: Operation, approval_id: str, content_sha256: str) -> None:
        """Bind a publish entry to the approval (and the content digest) it is about to go out under."""
        request = {**dict(op.request), "approval_id": approval_id, "content_sha256": content_sha256}
        self._execute("UPDATE ledger SET request=? WHERE op_key=?", (json.dumps(request, sort_keys=True), op.op_key))

    def mark_sent(self, op: Operation) -> None:
        self._execute("UPDATE ledger SET state='SENT', attempts=attempts+1, error=NULL WHERE op_key=?", (op.op_key,))

    def confirm(self, op: Operation, remote_id: str, result: Mapping[str, Any]) -> None:
        self._execute("UPDATE ledger SET state='CONFIRMED', definitive=0, remote_id=?, result=?, error=NULL, not_before=0"
                      " WHERE op_key=?", (remote_id, json.dumps(dict(result), sort_keys=True), op.op_key))

    def fail(self, op: Operation, error: str, *, definitive: bool, not_before: float = 0.0) -> None:
        """FAILED: the write provably did not happen (a refusal, a definite error, or a lookup that found nothing)."""
        self._execute("UPDATE ledger SET state='FAILED', definitive=?, error=?, not_before=? WHERE op_key=?",
                      (int(definitive), error, not_before, op.op_key))

    def mark_unknown(self, op: Operation, error: str, *, not_before: float) -> None:
        self._execute("UPDATE ledger SET state='UNKNOWN', error=?, not_before=? WHERE op_key=?",
                      (error, not_before, op.op_key))

    # -- the agent's calls -------------------------------------------------------------------

    def call(self, call_id: str) -> Call | None:
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM calls WHERE call_id=?", (call_id,)).fetchone()
        return None if row is None else self._call(row)

    def add_call(self, job: Job, *, call_id: str, turn_id: str, name: str, arguments: Mapping[str, Any]) -> Call:
        with self._transaction() as conn:
            if conn.execute("SELECT 1 FROM calls WHERE call_id=?", (call_id,)).fetchone() is None:
                seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM calls").fetchone()[0]
                conn.execute("INSERT INTO calls (call_id, job_id, task_version, seq, turn_id, name, arguments)"
                             " VALUES (?, ?, ?, ?, ?, ?, ?)",
                             (call_id, *job.key, seq, turn_id, name, json.dumps(dict(arguments), sort_keys=True)))
        call = self.call(call_id)
        assert call is not None
        return call

    def count_calls(self, job: Job) -> int:
        with self._connect() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM calls WHERE job_id=? AND task_version=?", job.key).fetchone()[0])

    def unsettled_calls(self, job: Job) -> list[Call]:
        """Calls not known to have reached the agent (open, or answered without proof of acceptance)."""
        with self._connect() as conn:
            rows = conn.execute("SELECT * FROM calls WHERE job_id=? AND task_version=? AND status IN ('open', 'answering')"
                                " ORDER BY seq", job.key).fetchall()
        return [self._call(r) for r in rows]

    @staticmethod
    def _call(row: sqlite3.Row) -> Call:
        return Call(call_id=row["call_id"], turn_id=row["turn_id"], name=row["name"], arguments=json.loads(row["arguments"]),
                    status=row["status"], answer=_loads(row["answer"]), idempotency_key=row["idempotency_key"],
                    answered_at=row["answered_at"], attempts=row["attempts"], not_before=row["not_before"])

    def prepare_answer(self, call: Call, answer: Mapping[str, Any], idempotency_key: str) -> Call:
        """Fix the answer and its idempotency key before the first send: every retry sends the same."""
        self._execute("UPDATE calls SET status='answering', answer=?, idempotency_key=? WHERE call_id=?"
                      " AND status IN ('open', 'orphaned')",
                      (json.dumps(dict(answer), sort_keys=True), idempotency_key, call.call_id))
        fresh = self.call(call.call_id)
        assert fresh is not None
        return fresh

    def mark_answered(self, call: Call, now: float) -> None:
        self._execute("UPDATE calls SET status='answered', answered_at=? WHERE call_id=?", (now, call.call_id))

    def mark_orphaned(self, call: Call) -> None:
        self._execute("UPDATE calls SET status='orphaned' WHERE call_id=?", (call.call_id,))

    def note_call_attempt(self, call: Call, not_before: float) -> None:
        self._execute("UPDATE calls SET attempts=attempts+1, not_before=? WHERE call_id=?", (not_before, call.call_id))

    # -- user messages -----------------------------------------------------------------------

    def prepare_message(self, job: Job, *, kind: str, body: str, after_turn_id: str | None) -> Message:
        """Record the next user message (and count it as a resume attempt) before it is sent."""
        with self._transaction() as conn:
            seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE job_id=? AND task_version=?",
                               job.key).fetchone()[0]
            key = f"{job.job_id}:{job.task_version}:message:{seq}"
            conn.execute("INSERT INTO messages (msg_key, job_id, task_version, seq, kind, body, after_turn_id)"
                         " VALUES (?, ?, ?, ?, ?, ?, ?)", (key, *job.key, seq, kind, body, after_turn_id))
            conn.execute("UPDATE jobs SET resume_attempts=resume_attempts+1 WHERE job_id=? AND task_version=?", job.key)
            if kind == "environment_replaced":
                conn.execute("UPDATE jobs SET env_notice_needed=0 WHERE job_id=? AND task_version=?", job.key)
        return Message(msg_key=key, kind=kind, body=body, after_turn_id=after_turn_id, state="prepared")

    def last_message(self, job: Job) -> Message | None:
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM messages WHERE job_id=? AND task_version=? ORDER BY seq DESC LIMIT 1",
                               job.key).fetchone()
        if row is None:
            return None
        return Message(msg_key=row["msg_key"], kind=row["kind"], body=row["body"], after_turn_id=row["after_turn_id"],
                       state=row["state"])

    def mark_message_sent(self, message: Message) -> None:
        self._execute("UPDATE messages SET state='sent' WHERE msg_key=?", (message.msg_key,))

    # -- coding deliveries -------------------------------------------------------------------

    def record_delivery(self, job: Job, call: Call, *, artifact_id: str, path: str, sha256: str, uri: str,
                        state: str) -> None:
        self._execute("INSERT OR REPLACE INTO deliveries (call_id, job_id, task_version, artifact_id, path, sha256, uri,"
                      " state) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (call.call_id, *job.key, artifact_id, path, sha256, uri, state))

    def mark_delivered(self, call_id: str) -> None:
        self._execute("UPDATE deliveries SET state='delivered' WHERE call_id=? AND state='verified'", (call_id,))

    def deliveries(self, job: Job) -> list[Delivery]:
        with self._connect() as conn:
            rows = conn.execute("SELECT * FROM deliveries WHERE job_id=? AND task_version=? ORDER BY rowid",
                                job.key).fetchall()
        return [Delivery(call_id=r["call_id"], artifact_id=r["artifact_id"], path=r["path"], sha256=r["sha256"],
                         uri=r["uri"], state=r["state"]) for r in rows]

    # -- refused credentials -----------------------------------------------------------------

    def credential_refusal(self, service: str, fingerprint: str) -> str | None:
        with self._connect() as conn:
            row = conn.execute("SELECT detail FROM refused_credentials WHERE service=? AND fingerprint=?",
                               (service, fingerprint)).fetchone()
        return None if row is None else str(row["detail"])

    def record_credential_refusal(self, service: str, fingerprint: str, detail: str) -> None:
        self._execute("INSERT OR IGNORE INTO refused_credentials (service, fingerprint, detail) VALUES (?, ?, ?)",
                      (service, fingerprint, detail))

    # -- webhooks ----------------------------------------------------------------------------

    def record_webhook(self, webhook_id: str, event_type: str | None, session_id: str | None, now: float) -> bool:
        """Remember a verified webhook; False when this id was already received."""
        with self._transaction() as conn:
            if conn.execute("SELECT 1 FROM webhooks WHERE webhook_id=?", (webhook_id,)).fetchone() is not None:
                return False
            conn.execute("INSERT INTO webhooks (webhook_id, event_type, session_id, received_at) VALUES (?, ?, ?, ?)",
                         (webhook_id, event_type, session_id, now))
        return True
