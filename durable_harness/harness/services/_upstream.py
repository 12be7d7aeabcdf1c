"""Which services of the world are real (``--service NAME=URL``), and the harness's credentials for them.

A real service sits behind the gate as a reverse proxy: the candidate still gets the gate's URL
and credentials the harness minted, and the gate forwards each request upstream with the
harness's own credentials, applying the scenario's faults at the HTTP level. The upstream's URL
comes from ``DH_SERVICE_<NAME>`` (the command line's ``--service`` sets it), its credentials from
the environment only (``DH_WORDPRESS_USER`` and ``DH_WORDPRESS_APP_PASSWORD``; ``DH_OPENAI_API_KEY``):
never from a URL, never written to a report or a log. ``DH_KEEP_UPSTREAM=1`` (``--keep``) leaves what a run
created on the real site for inspection; by default a run deletes it.

What it deliberately does not do: reach the upstream (``_upstream_wordpress`` does) or decide which
scenarios can run against it (``_applicability`` does).
"""

from __future__ import annotations

import dataclasses
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

__all__ = ["KEEP_ENV", "REAL_SERVICES", "Upstream", "keep_upstream", "upstream", "upstreams", "url_variable",
           "with_namespace"]

REAL_SERVICES = ("wordpress", "openai")  # the services that can be real
KEEP_ENV = "DH_KEEP_UPSTREAM"
# The harness's credentials for each: (the user's variable or None, the secret's variable).
_CREDENTIALS: dict[str, tuple[str | None, str]] = {"wordpress": ("DH_WORDPRESS_USER", "DH_WORDPRESS_APP_PASSWORD"),
                                                  "openai": (None, "DH_OPENAI_API_KEY")}


@dataclass(frozen=True)
class Upstream:
    """A real service: its base URL (no credentials in it) and the harness's credentials for it."""

    name: str
    url: str
    user: str
    secret: str

    def __repr__(self) -> str:  # never the secret, in a traceback or a log
        return f"Upstream(name={self.name!r}, url={self.url!r}, user={self.user!r})"


def url_variable(name: str) -> str:
    return f"DH_SERVICE_{name.upper()}"


def upstream(name: str, environ: Mapping[str, str] = os.environ) -> Upstream | None:
    """The real ``name`` service asked for, or None; ``ValueError`` naming the variable when unusable."""
    variable = url_variable(name)
    raw = (environ.get(variable) or "").strip()
    if not raw:
        return None
    if name not in REAL_SERVICES:
        raise ValueError(f"{variable}={raw!r}: the {name} service cannot be real (only {', '.join(REAL_SERVICES)})")
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{variable}={raw!r} is not a site address such as http://127.0.0.1:8089")
    variables = [v for v in _CREDENTIALS[name] if v is not None]
    if parts.username or parts.password:
        raise ValueError(f"{variable}: credentials do not go in the URL (it is printed in reports); set "
                         f"{' and '.join(variables)}")
    if parts.query or parts.fragment:
        raise ValueError(f"{variable}={raw!r}: a site address has no query or fragment")
    user_var, secret_var = _CREDENTIALS[name]
    missing = [v for v in variables if not (environ.get(v) or "").strip()]
    if missing:
        raise ValueError(f"{variable} is set but {' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not: "
                         f"the harness reads the real {name} with its own credentials")
    try:
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        raise ValueError(f"{variable}={raw!r}: the port is not a number from 0 to 65535") from None
    url = f"{parts.scheme}://{parts.hostname}{port}{parts.path.rstrip('/')}"
    return Upstream(name, url, environ[user_var].strip() if user_var else "", environ[secret_var].strip())


def upstreams(environ: Mapping[str, str] = os.environ) -> dict[str, Upstream]:
    """Every real service asked for, by name."""
    found = {}
    for name in REAL_SERVICES:
        real = upstream(name, environ)
        if real is not None:
            found[name] = real
    return found


def keep_upstream(environ: Mapping[str, str] = os.environ) -> bool:
    return (environ.get(KEEP_ENV) or "").strip() == "1"


def with_namespace(scenario: Any) -> Any:
    """The scenario with a job id of its own for this run (``job-baseline-3f9a1c``): runs side by side on
    one real site, and what a kept run left there, never meet through their operation keys. Drawn
    from the operating system, not the run's seed: it is not part of the simulated world."""
    workload = scenario.workload
    return dataclasses.replace(scenario, workload=dataclasses.replace(
        workload, job_id=f"{workload.job_id}-{secrets.token_hex(3)}"))
