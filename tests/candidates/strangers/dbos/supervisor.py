"""Taking over the jobs of a worker that died or froze past its lease (several workers).

DBOS recovers a restarted process's own pending workflows at launch (this process's executor id
is its ``WORKER_ID``). A workflow whose executor is *another* worker is recovered here, and only
once that worker's lease on the job has run out and nobody holds the job's write lock (a worker
frozen mid-write keeps it): DBOS then re-enqueues the workflow, any live process dequeues it, and
its first step takes the lease over with a higher fencing token and reconciles by operation key.

DBOS 3.4's Python library has no public call to recover another executor's workflows (its docs
point to an admin endpoint or Conductor, neither of which is here), so this uses
``DBOS._recover_pending_workflows``. It also starts a stored version whose workflow was never
started (a crash between storing the job and starting it).
"""

from __future__ import annotations

import threading
import time

from dbos import DBOS

from runtime import rt


def supervise_once(started: set[str]) -> None:
    r = rt()
    for row in r.store.unfinished_versions():
        status = DBOS.get_workflow_status(row.workflow_id)
        if status is None:
            if row.workflow_id not in started:
                from api import start_job  # imported late: api imports the workflow
                started.add(row.workflow_id)
                start_job(row.job_id, row.version)
            continue
        owner = status.executor_id
        if status.status != "PENDING" or owner is None or owner == r.settings.worker_id:
            continue
        holder = r.leases.holder(row.job_id)
        if holder is not None and holder[1] > time.time():
            continue
        if not r.leases.write_lock_free(row.job_id):
            continue
        print(f"recovering {row.workflow_id} from {owner}", flush=True)
        DBOS._recover_pending_workflows([owner])


def run(stop: threading.Event, interval_s: float) -> None:
    started: set[str] = set()
    while not stop.wait(interval_s):
        try:
            supervise_once(started)
        except Exception as exc:  # noqa: BLE001 - a background loop logs and goes on
            print(f"supervisor: {exc!r}", flush=True)


def start(interval_s: float) -> threading.Event:
    stop = threading.Event()
    threading.Thread(target=run, args=(stop, interval_s), name="supervisor", daemon=True).start()
    return stop
