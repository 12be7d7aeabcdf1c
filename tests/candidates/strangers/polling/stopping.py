"""Stopping a job: a user's cancellation, a newer task version, a refused credential.

A cancelled or superseded job may read anything and cancel its session's turn, and nothing else:
no tool result, no message, no new session, no write to WordPress (a retry of an in-flight write
included). ``Stopper.stop`` does exactly that, one look at a time:

1. find the job's session (a create whose answer was lost is found by its metadata, never repeated);
2. cancel the session's turn if one is active (its unanswered calls become ``incomplete``);
3. settle the ledger by reads (``ArticleTools.settle_by_reads``): a lost create is looked up by its
   operation key, an update is read back, and the draft made before the cancellation stays and is
   reported;
4. retire the job: ``cancelled`` for good (a superseded version is never looked at again either).

``Stopper.block`` handles a refused credential: the job waits for a human (``needs_human``, unless it
was already finished or cancelled). What was in flight is settled by reads where the credential
that is left allows it.
"""

from __future__ import annotations

from tests.candidates.strangers.polling.actions import Progress
from tests.candidates.strangers.polling.article import ArticleTools
from tests.candidates.strangers.polling.credentials import CredentialRevoked
from tests.candidates.strangers.polling.records import Job
from tests.candidates.strangers.polling.sessions import Refused, SessionsApi, Transient
from tests.candidates.strangers.polling.store import Store

__all__ = ["Stopper"]

_ACTIVE_TURN = frozenset({"in_progress", "requires_action"})
RETRY_S = 1.0


class Stopper:
    """Brings cancelled, superseded and blocked jobs to rest without writing anything but a turn's cancel."""

    def __init__(self, store: Store, sessions: SessionsApi, article: ArticleTools) -> None:
        self._store = store
        self._sessions = sessions
        self._article = article

    def stop(self, job: Job) -> Progress:
        reason = ("cancelled by its user" if job.cancel_requested
                  else f"superseded by task version {job.superseded_by}")
        try:
            self._cancel_turn(job)
        except (CredentialRevoked, Refused):
            pass  # the API key was refused, or the session is gone: there is no turn we can cancel
        if job.workload == "article":
            try:
                waiting = self._article.settle_by_reads(job)
            except CredentialRevoked:
                waiting = None  # the site refused the credential: what is unknown stays as it is
            if waiting is not None:
                return Progress(waiting.worked, max(waiting.seconds, RETRY_S))
        self._store.retire(job, reason)
        return Progress.done()

    def _cancel_turn(self, job: Job) -> None:
        session_id = job.session_id
        if session_id is None and job.session_requested_at is not None:
            session_id = self._sessions.find({"job_id": job.job_id, "task_version": job.task_version},
                                             requested_at=job.session_requested_at)
            if session_id is not None:
                self._store.set_session(job, session_id)
        if session_id is None:
            return
        session = self._sessions.retrieve(session_id)
        if session.status in _ACTIVE_TURN:
            self._sessions.cancel_turn(session_id, f"{job.job_id}:{job.task_version}:cancel")

    def block(self, job: Job, exc: CredentialRevoked) -> Progress:
        if job.workload == "article" and exc.service != "wordpress":
            try:
                self._article.settle_by_reads(job)
            except (CredentialRevoked, Transient, Refused):
                pass  # best effort: reads that cannot be made now leave the entry as it is
        self._store.block(job, str(exc))
        return Progress.done()
