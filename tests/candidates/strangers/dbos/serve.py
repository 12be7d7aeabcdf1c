"""Entry point: ``python serve.py [--buggy]``, the control plane as a process.

Start-up order matters: the tables and DBOS (its system tables in schema ``dbos`` of the same
``DATABASE_URL``) are made ready and DBOS is launched, which re-enqueues this worker's pending
workflows (recovery after a SIGKILL), before the control API answers ``GET /health``: the run's
time stands still until then. ``--buggy`` (or ``DH_DBOS_BUGGY=1``) selects the one-bug variant.
"""

from __future__ import annotations

import os
import sys
import time

STARTED = time.monotonic()
HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import sqlalchemy as sa  # noqa: E402
from dbos import DBOS, DBOSConfig  # noqa: E402

import api  # noqa: E402,F401 - registers the workflow and its steps before launch
import runtime  # noqa: E402
import schema  # noqa: E402
import supervisor  # noqa: E402
from settings import load_settings  # noqa: E402

APP_VERSION = "dh-dbos-cp-1"


def main() -> None:
    settings = load_settings(buggy="--buggy" in sys.argv[1:])
    if not settings.sqlalchemy_url.startswith("postgresql"):
        print("this control plane needs PostgreSQL: run with DH_CANDIDATE_DATABASE=postgres",
              flush=True)
        sys.exit(2)
    engine = sa.create_engine(settings.sqlalchemy_url, pool_size=8, max_overflow=8,
                              pool_pre_ping=True)
    schema.create_all(engine)
    runtime.build(settings, engine)
    config: DBOSConfig = {
        "name": "dh-dbos-control-plane",
        "system_database_url": settings.sqlalchemy_url,
        # One version string for every deploy of this code (the variant included): DBOS only
        # recovers pending workflows of its own application version, and a deploy mid-job must
        # take the old process's pending work up.
        "application_version": APP_VERSION,
        "executor_id": settings.worker_id,
        "log_level": "WARNING",
        "sys_db_pool_size": 10,
    }
    DBOS(config=config)
    DBOS.launch()
    supervisor.start(interval_s=max(settings.real(5.0), 0.2))
    server = api.serve(settings.listen_host, settings.listen_port)
    print(f"{settings.worker_id} ready in {time.monotonic() - STARTED:.2f} s "
          f"(variant: {'buggy' if settings.buggy else 'correct'}, scale {settings.time_scale})",
          flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
