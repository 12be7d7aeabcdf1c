"""The operating-system environment a candidate's process starts with: clean, never the harness's.

A CI runner's environment holds its secrets (tokens, passwords, cloud keys); a candidate must see
none of them. A candidate process (forked Python instances and command candidates alike) gets
only what a process needs to run at all (``BASE``: the search path for commands, the home folder,
the locale, the time zone, the temporary folder, the active virtual environment), the variables
the user names in ``DH_PASS_ENV`` (comma-separated), and what the contract gives it.

It does not decide the contract's variables (the drivers do).
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["BASE", "PASS_ENV", "candidate_environ"]

BASE = ("HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "PATH", "TERM", "TMPDIR", "TZ", "VIRTUAL_ENV")
PASS_ENV = "DH_PASS_ENV"


def candidate_environ(harness_environ: Mapping[str, str], extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The base variables and those named in ``DH_PASS_ENV`` that ``harness_environ`` has, then ``extra``."""
    names = [*BASE, *(n.strip() for n in harness_environ.get(PASS_ENV, "").split(",") if n.strip())]
    out = {name: harness_environ[name] for name in names if name in harness_environ}
    out.update(extra or {})
    return out
