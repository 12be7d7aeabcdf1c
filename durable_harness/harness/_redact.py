"""Redaction: a secret never leaves a run, in whatever form a candidate or a service wrote it.

A secret is looked for as itself and in the encodings it travels in: URL-encoded (a query string,
a form body), JSON-escaped, percent-encoded as a whole, hexadecimal, and base64 (standard and
URL-safe) at each of the three alignments it can have inside a longer base64 text, such as an
``Authorization: Basic`` header that carries ``user:secret``. For base64, the characters that
depend on the secret's bytes alone are the form searched for; the one or two characters at either
edge that mix in a neighbour's bits may stay, and give nothing away. Forms shorter than
``MIN_FORM`` characters are not searched for (they would redact ordinary text).

It does not decide what is secret: the services say so (``BuiltService.secrets``).
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

__all__ = ["MARK", "MIN_FORM", "redact_text", "secret_forms"]

MARK = "<redacted>"
MIN_FORM = 8


@functools.lru_cache(maxsize=512)
def secret_forms(secret: str) -> frozenset[str]:
    """Every form of ``secret`` that redaction looks for (see the module's doc)."""
    if not secret:
        return frozenset()
    raw = secret.encode("utf-8")
    forms = {secret, quote(secret, safe=""), quote_plus(secret, safe=""), json.dumps(secret)[1:-1],
             "".join(f"%{b:02X}" for b in raw), raw.hex(), raw.hex().upper()}
    for shift in range(3):
        padded = bytes(shift) + raw
        start = -(-shift * 8 // 6)  # the first character made of the secret's bits only
        end = (len(padded) * 8) // 6  # past the last such character
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            forms.add(encode(padded).decode("ascii")[start:end])
    return frozenset(f for f in forms if len(f) >= MIN_FORM or f == secret)


def redact_text(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every form of every secret replaced by ``MARK`` (longest forms first)."""
    forms: set[str] = set()
    for secret in set(secrets):
        forms |= secret_forms(secret)
    for form in sorted(forms, key=lambda f: (-len(f), f)):
        if form in text:
            text = text.replace(form, MARK)
    return text
