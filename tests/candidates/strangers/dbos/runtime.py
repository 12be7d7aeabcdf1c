"""The process's long-lived objects, built once at start-up and shared by the DBOS steps.

DBOS steps are plain module-level functions (DBOS registers them by name, so that a recovered
workflow finds them again after a restart); they reach the database, the clients and the lease
through ``rt()``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import sqlalchemy as sa

from approval import Approvals, Publisher
from coding import DeliveryChecker
from gate import Authority
from ledger import Ledger
from lease import Leases
from sessions import Sessions
from settings import RunClock, Settings
from store import Store
from tools import ToolRunner
from wordpress import WordPress


@dataclass
class Runtime:
    settings: Settings
    clock: RunClock
    engine: sa.Engine
    store: Store
    ledger: Ledger
    authority: Authority
    leases: Leases
    wp: WordPress
    sessions: Sessions
    tools: ToolRunner
    delivery: DeliveryChecker
    publisher: Publisher
    instance: str


_RT: Runtime | None = None


def build(settings: Settings, engine: sa.Engine) -> Runtime:
    global _RT
    store = Store(engine)
    ledger = Ledger(engine)
    authority = Authority(store)
    instance = f"{settings.worker_id}:{uuid.uuid4().hex[:12]}"
    leases = Leases(engine, settings, instance)
    wp = WordPress(settings, authority)
    sessions = Sessions(settings, authority)
    approvals = Approvals(settings, authority)
    _RT = Runtime(
        settings=settings, clock=RunClock(settings.time_scale, settings.time_origin, settings.time_start),
        engine=engine, store=store, ledger=ledger, authority=authority, leases=leases, wp=wp,
        sessions=sessions, tools=ToolRunner(settings, store, ledger, wp, leases, authority),
        delivery=DeliveryChecker(store, sessions),
        publisher=Publisher(settings, store, ledger, wp, approvals, leases, authority),
        instance=instance)
    return _RT


def rt() -> Runtime:
    assert _RT is not None, "runtime not built"
    return _RT
