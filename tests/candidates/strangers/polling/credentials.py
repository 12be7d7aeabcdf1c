"""Refused credentials: a 401 from a service stops every further use of that credential.

A 401 for a credential this control plane was given means it was revoked (or is wrong). The
request that discovered it is the only one allowed: the refusal is recorded durably at once, and
every client asks ``Credentials.check`` before each request, so no later request (a retry, a
lookup, another job's work, a restarted instance's) goes out with it. The job that needs it waits
for a human.

A credential is known by a digest of its service and secret, never by the secret itself: a human
who hands over a new one makes the service usable again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from tests.candidates.strangers.polling.store import Store

__all__ = ["CredentialRevoked", "Credentials"]


class CredentialRevoked(Exception):
    """A service refused (or earlier refused) the credential this control plane has for it."""

    def __init__(self, service: str, detail: str) -> None:
        super().__init__(f"the {service} credential was refused ({detail}); a human has to provide a new one")
        self.service = service


class Credentials:
    """The durable record of refused credentials, by service."""

    def __init__(self, store: Store, secrets: Mapping[str, str]) -> None:
        self._store = store
        self._fingerprints = {service: hashlib.sha256(f"{service}\0{secret}".encode()).hexdigest()[:32]
                              for service, secret in secrets.items()}

    def check(self, service: str) -> None:
        """Raise ``CredentialRevoked`` (without any request) if this service's credential was refused."""
        detail = self._store.credential_refusal(service, self._fingerprints[service])
        if detail is not None:
            raise CredentialRevoked(service, detail)

    def refused(self, service: str, detail: str) -> CredentialRevoked:
        """Record a 401 for this service's credential; return the error to raise."""
        self._store.record_credential_refusal(service, self._fingerprints[service], detail)
        return CredentialRevoked(service, detail)
