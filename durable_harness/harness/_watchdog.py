"""The watchdog: kills the process groups a harness started once that harness is gone.

``python -I durable_harness/harness/_watchdog.py`` reads lines from stdin, a pipe only the harness holds: ``+PGID``
registers a process group, ``-PGID`` releases it. End of input means the harness closed the pipe
(it is exiting) or died (SIGKILL, a crash): every group still registered gets SIGKILL, then the
watchdog exits. It ignores SIGINT and SIGHUP, so a Ctrl-C or a closing terminal that takes the
harness down does not take its cleaner with it.

It deliberately imports nothing of the harness and does nothing else: it must start fast and
never fail.
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["main"]


def main() -> int:
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    groups: set[int] = set()
    for line in sys.stdin:
        text = line.strip()
        if len(text) < 2 or not text[1:].isdigit():
            continue
        pgid = int(text[1:])
        if text[0] == "+":
            groups.add(pgid)
        elif text[0] == "-":
            groups.discard(pgid)
    for pgid in sorted(groups):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
