"""Users and application passwords: who a request is, and the label it is recorded under.

One editor-like user (publish, upload, edit others' posts). ``Accounts.identify`` reads an
``Authorization: Basic`` header the way ``wp_authenticate_application_password`` does: the login
or the e-mail, the password with non-alphanumerics stripped (so spaces are optional), checked
against the user's application passwords that are still in force. Each identity carries a label
for the history ("editor/app-password#1", "editor/app-password#1 (revoked)", "anonymous",
"unknown-user", "editor/wrong-password") and, when the credentials were bad, the 401 that a site
resolving the user early would answer.

An empty password is no credential at all: the request runs anonymously in either mode (PHP hands
WordPress the empty string, which it does not try). The site also has a second editor, the
colleague who writes other people's posts (no application password: they use the dashboard).

What it deliberately does not do: cookies, nonces, OAuth, roles other than the editor, or the
"application passwords not in use yet" shortcut (the site always has had one).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import string
from dataclasses import dataclass

from durable_harness.fakes.wordpress._errors import WPError
from durable_harness.fakes.wordpress._records import Clock

__all__ = ["Accounts", "AppPassword", "Identity", "User"]

_ALPHABET = string.ascii_letters + string.digits


@dataclass(frozen=True)
class User:
    id: int
    login: str
    email: str
    name: str
    role: str = "editor"


@dataclass
class AppPassword:
    number: int
    secret: str  # normalised: alphanumerics only
    issued_at: float
    revoked_at: float | None = None
    name: str = "durable-harness"
    created: str = ""  # site-local, as the REST API shows it

    @property
    def uuid(self) -> str:
        """A stable UUID (version 4 layout) derived from the number, as the REST API lists it."""
        h = hashlib.sha256(f"app-password#{self.number}".encode()).hexdigest()
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


@dataclass(frozen=True)
class Identity:
    """The result of reading the credentials. ``user`` is None for anyone not logged in."""

    user: User | None
    label: str
    failure: WPError | None = None  # the 401 a plugin resolving the user early would answer
    password: int | None = None  # the number of the application password that authenticated it


def _normalise(password: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", password)


class Accounts:
    def __init__(self, clock: Clock, username: str, app_password: str, email_domain: str) -> None:
        if not username or not re.fullmatch(r"[A-Za-z0-9_.@-]+", username):
            raise ValueError(f"username={username!r} must be a non-empty WordPress login (letters, digits, _ . @ -)")
        if len(_normalise(app_password)) < 8:
            raise ValueError(f"app_password={app_password!r} needs at least 8 letters or digits; "
                             "use the 24-character form WordPress issues, e.g. 'abcd EFGH ijkl MNOP qrst UVWX'")
        self._clock = clock
        self._seed = _normalise(app_password)
        self.user = User(id=1, login=username, email=f"{username}@{email_domain}", name=username.capitalize())
        colleague = "colleague" if username != "colleague" else "colleague2"
        self.colleague = User(id=2, login=colleague, email=f"{colleague}@{email_domain}", name=colleague.capitalize())
        self.passwords = [AppPassword(1, self._seed, clock.now(), created=_stamp(clock))]
        self.changes = 0  # application passwords issued or revoked (a write, as the gate counts them)

    @property
    def users(self) -> tuple[User, User]:
        return self.user, self.colleague

    def in_force(self) -> list[AppPassword]:
        return [pw for pw in self.passwords if pw.revoked_at is None]

    # -- the harness's controls ------------------------------------------------------------
    def issue(self, name: str = "durable-harness") -> str:
        """A new application password (deterministic), returned in WordPress's grouped display form."""
        number = len(self.passwords) + 1
        digest = hashlib.sha256(f"{self._seed}#{number}".encode()).digest()
        secret = "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:24])
        self.passwords.append(AppPassword(number, secret, self._clock.now(), name=name, created=_stamp(self._clock)))
        self.changes += 1
        return " ".join(secret[i:i + 4] for i in range(0, 24, 4))

    def rename(self, number: int, name: str) -> None:
        """A new name for password ``number`` (a change, as the gate counts writes)."""
        self.passwords[number - 1].name = name
        self.changes += 1

    def revoke(self, number: int | None = None) -> list[int]:
        """Revoke one password by number, or every one still in force; returns the numbers revoked."""
        if number is not None and not 1 <= number <= len(self.passwords):
            raise ValueError(f"revoke_app_password(number={number!r}): no such password; "
                             f"numbers 1..{len(self.passwords)} exist")
        revoked = []
        for pw in self.passwords:
            if pw.revoked_at is None and (number is None or pw.number == number):
                pw.revoked_at = self._clock.now()
                revoked.append(pw.number)
        self.changes += len(revoked)
        return revoked

    # -- reading a request ---------------------------------------------------------------
    def identify(self, authorization: str | None) -> Identity:
        credentials = _basic(authorization)
        if credentials is None:
            return Identity(None, "anonymous")
        login, password = credentials
        if password == "":
            return Identity(None, "anonymous")
        if login not in (self.user.login, self.user.email):
            if "@" in login:
                return Identity(None, "unknown-user", WPError(
                    "invalid_email", "<strong>Error</strong>: Unknown email address. Check again or try your username.", 401))
            return Identity(None, "unknown-user", WPError(
                "invalid_username", "<strong>Error</strong>: Unknown username. Check again or try your email address.", 401))
        given = _normalise(password)
        for pw in self.passwords:
            if pw.secret == given:
                label = f"{self.user.login}/app-password#{pw.number}"
                if pw.revoked_at is None:
                    return Identity(self.user, label, password=pw.number)
                return Identity(None, label + " (revoked)", _incorrect_password())
        return Identity(None, f"{self.user.login}/wrong-password", _incorrect_password())

    def truth(self) -> list[dict[str, object]]:
        return [{"label": f"{self.user.login}/app-password#{pw.number}", "issued_at": pw.issued_at,
                 "revoked_at": pw.revoked_at} for pw in self.passwords]


def _stamp(clock: Clock) -> str:
    return clock.datetime().strftime("%Y-%m-%dT%H:%M:%S")


def _incorrect_password() -> WPError:
    return WPError("incorrect_password", "The provided password is an invalid application password.", 401)


def _basic(header: str | None) -> tuple[str, str] | None:
    """(login, password) from a Basic header; None when PHP would not see Basic credentials."""
    if not header:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(token.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    login, sep, password = decoded.partition(":")
    return (login, password) if sep else None
