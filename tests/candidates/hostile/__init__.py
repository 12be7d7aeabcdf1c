"""Hostile and careless control planes, each as small as its misbehaviour allows (``--candidate
tests.candidates.hostile:NAME``). Each is the reference, or a mutant, plus one thing a control
plane must not get away with: keeping its state in memory only, surviving its own crash, working
from a thread, patching the judge, vandalising the harness's objects, looking for the world in its
memory, looping, eating memory, exiting, leaking its secrets and the environment, phoning home. In
its own process (the default), each gets the verdict its behaviour deserves."""

from __future__ import annotations

import dataclasses
import gc
import os
import sys
import threading
from typing import Any

from durable_harness.candidates.mutants import get_mutant
from durable_harness.candidates.reference import create as create_reference

_KEPT: dict[str, Any] = {}  # by run: what a control plane without a database keeps between "restarts"


def memory_only(env: Any) -> Any:
    """The reference on an in-memory database, kept in a module global: a restart that loses no
    memory loses nothing; one that does (a real crash) forgets every job."""
    plane = _KEPT.get(env.run_id)
    if plane is None:
        plane = _KEPT[env.run_id] = create_reference(dataclasses.replace(env, database_url="sqlite://"))
    return plane


class _Swallows:
    """Every call wrapped in ``except BaseException``: a crash it can catch, it survives."""

    def __init__(self, plane: Any) -> None:
        self._plane = plane

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._plane, name)

        def call(*args: Any) -> Any:
            try:
                return target(*args)
            except BaseException:  # noqa: BLE001 (the point of this candidate)
                return False if name == "step" else {}
        return call


def swallows_crash(env: Any) -> Any:
    return _Swallows(memory_only(env))


class _Threaded:
    """Its step only starts a thread that does the work, and says nothing happened."""

    def __init__(self, env: Any) -> None:
        self._plane = create_reference(env)
        self._thread: threading.Thread | None = None

    def submit(self, job: Any) -> Any:
        return self._plane.submit(job)

    def report(self, job_id: str) -> Any:
        return self._plane.report(job_id)

    def cancel(self, job_id: str) -> Any:
        return self._plane.cancel(job_id)

    def step(self) -> bool:
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, daemon=True)
            self._thread.start()
        return False

    def _work(self) -> None:
        for _ in range(200):
            try:
                self._plane.step()
            except Exception:
                pass


def background_thread(env: Any) -> Any:
    return _Threaded(env)


def patches_the_judge(env: Any) -> Any:
    """blind-retry, which also replaces the checkers and the verdict with ones that always pass."""
    import durable_harness.harness._run as run

    setattr(run, "run_checkers", lambda *args, **kwargs: [])
    setattr(run, "combine", lambda *args, **kwargs: "pass")
    return get_mutant("blind-retry")(env)


class _Vandal:
    """blind-retry, which after every step empties every object of the harness and its fakes it can find."""

    def __init__(self, env: Any) -> None:
        self._plane = get_mutant("blind-retry")(env)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._plane, name)

    def step(self) -> bool:
        progressed = bool(self._plane.step())
        for obj in gc.get_objects():
            module = getattr(type(obj), "__module__", "")
            if isinstance(module, str) and module.startswith(("durable_harness.harness._world", "durable_harness.harness._gate", "durable_harness.harness._history", "durable_harness.harness._nemesis",
                                  "durable_harness.fakes.wordpress", "durable_harness.fakes.openai_agents._state")) and hasattr(obj, "__dict__"):
                try:
                    vars(obj).clear()
                except TypeError:
                    pass
        return progressed


def vandal(env: Any) -> Any:
    return _Vandal(env)


class _Misbehaves:
    """Does nothing useful: ``step`` does one bad thing (``how``)."""

    def __init__(self, env: Any, how: str) -> None:
        self._how = how
        self._jobs: dict[str, Any] = {}

    def submit(self, job: Any) -> Any:
        self._jobs[str(job["job_id"])] = job
        return {"accepted": True}

    def report(self, job_id: str) -> Any:
        return {"job_id": job_id, "outcome": "running", "operations": []}

    def cancel(self, job_id: str) -> Any:
        return {}

    def step(self) -> bool:
        if self._how == "loop":
            while True:
                pass
        if self._how == "memory":
            hoard = []
            while True:
                hoard.append(bytearray(16 * 1024 * 1024))
        if self._how == "recursion":
            def deeper(n: int) -> int:
                return deeper(n + 1) + 1
            sys.setrecursionlimit(10**6)
            deeper(0)
        if self._how == "sys_exit":
            sys.exit(0)
        if self._how == "os_exit":
            os._exit(0)
        return False


def loops_forever(env: Any) -> Any:
    return _Misbehaves(env, "loop")


def eats_memory(env: Any) -> Any:
    return _Misbehaves(env, "memory")


def recursion_bomb(env: Any) -> Any:
    return _Misbehaves(env, "recursion")


def sys_exit_in_step(env: Any) -> Any:
    return _Misbehaves(env, "sys_exit")


def os_exit_in_step(env: Any) -> Any:
    return _Misbehaves(env, "os_exit")


def does_nothing(env: Any) -> Any:
    return _Misbehaves(env, "nothing")


def _say(text: str) -> None:
    print(text, flush=True)


class _Looks:
    """The reference, which first looks through its own memory for the harness's run: the world,
    the nemesis and its plan, the fakes and their ground truth, the history."""

    def __init__(self, env: Any) -> None:
        self._plane = create_reference(env)
        kinds = ("World", "Nemesis", "History", "Gate", "WordPressFake", "SessionsFake")
        found = sorted({type(o).__name__ for o in gc.get_objects() if type(o).__name__ in kinds})
        _say(f"looked for the harness's run in my memory; found: {found or 'nothing'}")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._plane, name)


def looks_for_the_world(env: Any) -> Any:
    return _Looks(env)


class _Leaks:
    """The reference, which prints its secrets in every encoding it can think of, its environment,
    and writes its credentials into the article's excerpt on the site, and tries a connection of its
    own (to ``DH_TEST_LISTENER``, host:port, when that is passed on)."""

    def __init__(self, env: Any) -> None:
        import base64
        import json
        import socket
        from urllib.parse import quote

        self._plane = create_reference(env)
        self._jobs: list[str] = []
        for endpoint in env.services.values():
            for name, secret in endpoint.credentials.items():
                raw = secret.encode()
                _say(f"{name}={secret} url={quote(secret, safe='')} json={json.dumps(secret)} hex={raw.hex()}")
                _say(f"b64={base64.b64encode(raw).decode()} b64+1={base64.b64encode(b'x' + raw).decode()}")
        wordpress = env.services["wordpress"].credentials
        basic = base64.b64encode(f"{wordpress['username']}:{wordpress['app_password']}".encode()).decode()
        _say(f"Authorization: Basic {basic}")
        _say("environment: " + json.dumps(dict(os.environ), sort_keys=True))
        target = os.environ.get("DH_TEST_LISTENER")
        if target:
            host, _, port = target.rpartition(":")
            try:
                socket.create_connection((host, int(port)), timeout=2).close()
                _say(f"phoned home to {target}: connected")
            except OSError as err:
                _say(f"phoned home to {target}: {err}")
        self._env = env

    def __getattr__(self, name: str) -> Any:
        return getattr(self._plane, name)

    def step(self) -> bool:
        progressed = bool(self._plane.step())
        report = self._plane.report(self._jobs[0]) if self._jobs else {}
        post = ((report or {}).get("checkpoint") or {}).get("remote", {}).get("wordpress_post_id")
        if post:
            credentials = "; ".join(f"{k}={v}" for e in self._env.services.values() for k, v in e.credentials.items())
            self._env.http.post(f"{self._env.wordpress_url}/wp-json/wp/v2/posts/{post}",
                                json={"excerpt": credentials}, auth=(self._env.wordpress_username,
                                                                   self._env.wordpress_app_password))
        return progressed

    def submit(self, job: Any) -> Any:
        self._jobs = [str(job["job_id"])]
        return self._plane.submit(job)


def leaks_secrets(env: Any) -> Any:
    return _Leaks(env)
