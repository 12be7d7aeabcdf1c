"""The control plane's own tables, in schema ``cp`` of the run's database.

DBOS keeps its system tables (workflows, step outputs) in schema ``dbos`` of the same database;
these tables hold what DBOS cannot: the business state that must be committed *before* a side
effect (the ledger entry is SENT before the request leaves), the user's cancellation (stored before
it is acknowledged), refused credentials, webhook ids seen, and the per-job lease with its fencing
token, shared by every worker process on the database.
"""

from __future__ import annotations

import sqlalchemy as sa

SCHEMA = "cp"
metadata = sa.MetaData(schema=SCHEMA)

jobs = sa.Table(
    "jobs", metadata,
    sa.Column("job_id", sa.Text, primary_key=True),
    sa.Column("tenant", sa.Text, nullable=True),
    sa.Column("workload", sa.Text, nullable=True),
    sa.Column("newest_version", sa.Text, nullable=True),
    sa.Column("newest_seq", sa.Integer, nullable=False, server_default="0"),
    sa.Column("cancelled", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("cancelled_at", sa.Float, nullable=True),
)

versions = sa.Table(
    "versions", metadata,
    sa.Column("job_id", sa.Text, primary_key=True),
    sa.Column("version", sa.Text, primary_key=True),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("job_json", sa.Text, nullable=False),
    sa.Column("allowed_tools", sa.Text, nullable=False),
    sa.Column("workflow_id", sa.Text, nullable=False),
    sa.Column("session_id", sa.Text, nullable=True),
    sa.Column("session_create_at", sa.Float, nullable=True),
    sa.Column("outcome", sa.Text, nullable=False, server_default="running"),
    sa.Column("phase", sa.Text, nullable=False, server_default="accepted"),
    sa.Column("approval_status", sa.Text, nullable=False, server_default="not_requested"),
    sa.Column("resume_attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("msg_root_turns", sa.Integer, nullable=False, server_default="-1"),
    sa.Column("artifacts", sa.Text, nullable=False, server_default="[]"),
    sa.Column("stale_delivery", sa.Text, nullable=True),
    sa.Column("finished", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("note", sa.Text, nullable=True),
)

operations = sa.Table(
    "operations", metadata,
    sa.Column("op_key", sa.Text, primary_key=True),
    sa.Column("job_id", sa.Text, nullable=False),
    sa.Column("version", sa.Text, nullable=False),
    sa.Column("role", sa.Text, nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("remote_id", sa.Text, nullable=True),
    sa.Column("request_hash", sa.Text, nullable=True),
    sa.Column("error", sa.Text, nullable=True),
    sa.Column("definite", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("receipt", sa.Text, nullable=True),
    sa.Column("seq", sa.Integer, nullable=False, server_default="0"),
    sa.Column("updated_at", sa.Float, nullable=False, server_default="0"),
)

answered = sa.Table(
    "answered", metadata,
    sa.Column("session_id", sa.Text, primary_key=True),
    sa.Column("call_id", sa.Text, primary_key=True),
    sa.Column("job_id", sa.Text, nullable=False),
    sa.Column("state", sa.Text, nullable=False),  # 'sent' (202 seen) | 'maybe' (outcome unknown)
    sa.Column("attempt", sa.Integer, nullable=False, server_default="0"),
    sa.Column("answered_at", sa.Float, nullable=False),
)

webhooks = sa.Table(
    "webhooks", metadata,
    sa.Column("webhook_id", sa.Text, primary_key=True),
    sa.Column("received_at", sa.Float, nullable=False),
)

refusals = sa.Table(
    "refusals", metadata,
    sa.Column("service", sa.Text, primary_key=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("detail", sa.Text, nullable=True),
)

leases = sa.Table(
    "leases", metadata,
    sa.Column("job_id", sa.Text, primary_key=True),
    sa.Column("owner_worker", sa.Text, nullable=False),
    sa.Column("owner_instance", sa.Text, nullable=False),
    sa.Column("token", sa.Integer, nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
)

# A constant advisory-lock key that serialises the DDL of concurrent first starts.
_DDL_LOCK = 0x64685F6370  # "dh_cp"


def create_all(engine: sa.Engine) -> None:
    """Create the schema and tables once; two workers starting together take turns."""
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _DDL_LOCK})
            conn.execute(sa.text(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}"))
        metadata.create_all(conn)
