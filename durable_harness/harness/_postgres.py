"""A scratch PostgreSQL database for one run: several worker processes share it.

With ``workers: 2`` (or more) and candidate processes, or in any run with
``DH_CANDIDATE_DATABASE=postgres``, every worker gets the same ``DATABASE_URL``: a database made for the run on the PostgreSQL server at
``DURABLE_HARNESS_POSTGRES`` (default ``postgresql://postgres@127.0.0.1:5432/postgres``, a role
that may create databases) and dropped when the run ends, its connections with it. One worker
keeps SQLite (the embedded default). A server that cannot be reached, or refuses, is the harness's
problem, never the candidate's: ``HarnessError`` (exit 3), with what to set.

What it deliberately does not do: migrate or inspect the candidate's schema; the database is the
candidate's.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

from durable_harness.harness._errors import HarnessError

__all__ = ["DATABASE_ENV", "POSTGRES_ENV", "ScratchDatabase", "admin_url", "wants_postgres"]

POSTGRES_ENV = "DURABLE_HARNESS_POSTGRES"
DATABASE_ENV = "DH_CANDIDATE_DATABASE"  # sqlite (default) or postgres: the database every run gives the candidate
DEFAULT_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
CONNECT_TIMEOUT_S = 5
_NUMBERS = itertools.count(1)


def admin_url(environ: Mapping[str, str]) -> str:
    """The server the scratch databases are made on (``DURABLE_HARNESS_POSTGRES``)."""
    raw = (environ.get(POSTGRES_ENV) or "").strip() or DEFAULT_ADMIN_URL
    parts = urlsplit(raw)
    if parts.scheme not in ("postgresql", "postgres") or not parts.hostname:
        raise HarnessError(f"{POSTGRES_ENV}={_shown(raw)!r} is not a PostgreSQL URL such as {DEFAULT_ADMIN_URL}")
    return raw


def wants_postgres(environ: Mapping[str, str]) -> bool:
    """Whether every run gives the candidate a scratch PostgreSQL database (``DH_CANDIDATE_DATABASE=postgres``),
    even with one worker: a control plane built on a library that needs PostgreSQL (a durable-execution
    engine) runs unchanged. Raise ``ValueError`` for a value that is neither ``sqlite`` nor ``postgres``."""
    raw = (environ.get(DATABASE_ENV) or "").strip().lower() or "sqlite"
    if raw not in ("sqlite", "postgres", "postgresql"):
        raise ValueError(f"{DATABASE_ENV}={raw!r} is neither 'sqlite' (the default) nor 'postgres'")
    return raw != "sqlite"


class ScratchDatabase:
    def __init__(self, admin: str, label: str = "") -> None:
        self._admin = admin
        tag = "".join(c for c in label.lower() if c.isalnum())[:20]
        self.name = f"dh_{os.getpid()}_{next(_NUMBERS)}" + (f"_{tag}" if tag else "")
        self.url: str | None = None

    def create(self) -> str:
        """Make the database (a leftover of the same name is dropped first); the candidates' URL."""
        self._execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)', f'CREATE DATABASE "{self.name}"')
        parts = urlsplit(self._admin)
        self.url = urlunsplit(("postgresql", parts.netloc, f"/{self.name}", "", ""))
        return self.url

    def drop(self) -> None:
        """Drop it, closing whatever connections are left (a killed worker's, a stopped one's)."""
        if self.url is not None:
            self.url = None
            self._execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')

    def _execute(self, *statements: str) -> None:
        import psycopg

        try:
            with psycopg.connect(self._admin, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as conn:
                for statement in statements:
                    conn.execute(statement.encode())
        except psycopg.Error as err:
            raise HarnessError(f"PostgreSQL at {_shown(self._admin)} (for the workers' shared database): "
                               f"{str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__}; "
                               f"set {POSTGRES_ENV} to a server where this role may create databases") from None


def _shown(url: str) -> str:
    """The URL without its password (it goes into messages)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
