"""``HarnessError``: an error of the harness itself, never the candidate's fault.

Raised when a fake, the gate, a fault, a checker or the run loop fails. It is a ``BaseException``
so that a candidate's ``except Exception`` cannot swallow it on its way up through the candidate's
code; the gate also keeps the first one it raised, so a candidate that swallows even that (with
``except BaseException``) cannot hide it: the run stops with exit code 3 and says so.
"""

from __future__ import annotations

import traceback

__all__ = ["HarnessError"]


class HarnessError(BaseException):
    """``message`` is one line; ``detail`` the traceback of the error underneath, when there is one."""

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail

    @classmethod
    def wrap(cls, where: str, err: BaseException) -> HarnessError:
        """An unexpected exception raised at ``where`` (e.g. ``the wordpress fake``), as a HarnessError."""
        detail = "".join(traceback.format_exception(type(err), err, err.__traceback__))
        return cls(f"{where} raised {type(err).__name__}: {err}", detail)
