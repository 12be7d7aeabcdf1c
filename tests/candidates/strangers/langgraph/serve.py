"""Entry point: a LangGraph control plane served to durable-harness's process driver.

    <python> tests/candidates/strangers/langgraph/serve.py [--buggy]

Reads the contract's environment variables, sets up our tables and LangGraph's checkpoint tables
in the run's PostgreSQL database (`DATABASE_URL`; run the harness with
`DH_CANDIDATE_DATABASE=postgres`), starts the worker thread and serves the control API on
`CANDIDATE_LISTEN`. `--buggy` selects the one-bug variant (see README.md).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from langgraph.checkpoint.postgres import PostgresSaver  # noqa: E402

from lgcp.agentapi import AgentAPI  # noqa: E402
from lgcp.api import ControlServer  # noqa: E402
from lgcp.approvals import Approvals  # noqa: E402
from lgcp.deps import Deps  # noqa: E402
from lgcp.graph import build  # noqa: E402
from lgcp.leases import Leases  # noqa: E402
from lgcp.ledger import Ledger  # noqa: E402
from lgcp.settings import Clock, Settings  # noqa: E402
from lgcp.store import Store, open_pool  # noqa: E402
from lgcp.wordpress import WordPress  # noqa: E402
from lgcp.worker import Worker  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--buggy", action="store_true",
                        help="the one-bug variant: a write node that runs again trusts the checkpoint")
    args = parser.parse_args(argv)
    started = time.monotonic()
    settings = Settings.from_env(buggy=args.buggy)
    if not settings.database_url.startswith(("postgresql://", "postgres://")):
        print("this control plane needs PostgreSQL: run the harness with DH_CANDIDATE_DATABASE=postgres",
              file=sys.stderr, flush=True)
        return 2
    clock = Clock(settings.time_scale, settings.time_origin)
    pool = open_pool(settings.database_url)
    saver = PostgresSaver(pool)  # type: ignore[arg-type]
    store = Store(pool)
    store.setup(saver.setup)
    deps = Deps(settings=settings, clock=clock, store=store, ledger=Ledger(pool),
                leases=Leases(pool, settings, clock), wp=WordPress(settings, clock),
                api=AgentAPI(settings, clock), approvals=Approvals(settings, clock))
    graph = build(deps, saver)
    server = ControlServer(deps, graph)
    Worker(deps, graph).start()
    print(f"{settings.worker_id} ({'buggy' if settings.buggy else 'correct'}) ready in "
          f"{time.monotonic() - started:.2f}s on {settings.listen_host}:{settings.listen_port}", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
