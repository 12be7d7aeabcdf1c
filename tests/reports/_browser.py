"""A headless Chromium driven over the DevTools protocol: open a page, read its console, evaluate
JavaScript in it, take a screenshot. Just enough for the report's browser tests.

Not a test module. It starts the system's ``chromium`` (``CHROMIUM`` overrides the path) with a
fresh profile and the flags a machine without network needs (nothing may try to phone home, or
start-up hangs), and never downloads a browser. Every wait is bounded.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import websocket

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
]
START_S = 30.0
CALL_S = 30.0


def executable() -> str | None:
    """The Chromium to drive, or None when there is none on this machine."""
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """``with Browser() as b: b.open(url); b.evaluate("1+1"); b.screenshot(path); b.console_errors()``"""

    def __init__(self, width: int = 1400, height: int = 1000) -> None:
        self.width, self.height = width, height
        self.events: list[dict[str, Any]] = []
        self._next = 0

    def __enter__(self) -> Browser:
        exe = executable()
        if exe is None:
            raise RuntimeError("no chromium on PATH; install Debian's chromium package (apt-get install -y chromium)")
        self._profile = Path(tempfile.mkdtemp(prefix="dh-chromium-"))
        self._process = subprocess.Popen(
            [exe, *FLAGS, "--remote-debugging-port=0", f"--user-data-dir={self._profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            port = self._wait_port()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=CALL_S) as answer:
                targets = json.loads(answer.read())
            page = next(t for t in targets if t.get("type") == "page")
            self._ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=CALL_S,
                                                   suppress_origin=True)
            for domain in ("Page", "Runtime", "Log"):
                self.call(f"{domain}.enable")
            self.call("Emulation.setDeviceMetricsOverride",
                      width=self.width, height=self.height, deviceScaleFactor=1, mobile=False)
        except BaseException:
            self._stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.call("Browser.close")
        except Exception:
            pass
        self._stop()

    def _stop(self) -> None:
        ws = getattr(self, "_ws", None)
        if ws is not None:
            ws.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(timeout=10)
        shutil.rmtree(self._profile, ignore_errors=True)

    def _wait_port(self) -> int:
        marker = self._profile / "DevToolsActivePort"
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"chromium exited with {self._process.returncode} before it listened")
            if marker.is_file():
                first = marker.read_text().splitlines()[:1]
                if first and first[0].isdigit():
                    return int(first[0])
            time.sleep(0.05)
        raise TimeoutError(f"chromium did not open its DevTools port within {START_S} s")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one DevTools command and return its result; events that arrive meanwhile are kept."""
        self._next += 1
        ident = self._next
        self._ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + CALL_S
        while time.monotonic() < deadline:
            message = json.loads(self._ws.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            if "method" in message:
                self.events.append(message)
        raise TimeoutError(f"{method}: no answer within {CALL_S} s")

    def wait_event(self, method: str, timeout_s: float = CALL_S) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        for event in self.events:
            if event["method"] == method:
                return event
        while time.monotonic() < deadline:
            message = json.loads(self._ws.recv())
            if "method" in message:
                self.events.append(message)
                if message["method"] == method:
                    return message
        raise TimeoutError(f"no {method} within {timeout_s} s")

    def open(self, url: str) -> None:
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, *, full_page: bool = True) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            width, height = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": width, "height": min(height, 16000), "scale": 1})
        data = self.call("Page.captureScreenshot", **params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def console_errors(self) -> list[str]:
        """Every error the page reported: console.error/assert, uncaught exceptions, and log entries
        of level error (a blocked or failed load, a violated Content-Security-Policy)."""
        errors = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                errors.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
            elif method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                errors.append("exception: " + str(details.get("exception", {}).get("description") or details.get("text")))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                errors.append(f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}".strip())
        return errors
