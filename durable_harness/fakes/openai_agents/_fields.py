"""Field checks shared by the parsers of request bodies (``_inputs``, ``_input_events``, ``_tools``).

Each check takes the value and the dotted ``param`` path that names it in the error, and either
returns the value typed or raises the platform's 400 (``_errors``: ``missing_required_parameter``,
``invalid_type``, ``invalid_value``, ``unknown_parameter``).

What it deliberately does not do: know any particular body; the parsers say which fields exist.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from durable_harness.fakes.openai_agents._errors import invalid_type, invalid_value, missing_parameter, unknown_parameter

__all__ = ["as_bool", "as_object", "as_string", "choice", "no_unknown", "required"]


def required(body: Mapping[str, Any], name: str, param: str, hint: str = "") -> Any:
    """``body[name]``; a missing or null value is ``missing_required_parameter`` at ``param``."""
    value = body.get(name)
    if value is None:
        raise missing_parameter(param, hint)
    return value


def as_object(value: Any, param: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise invalid_type(param, "an object", value)
    return value


def as_string(value: Any, param: str, *, non_empty: bool = True) -> str:
    if not isinstance(value, str):
        raise invalid_type(param, "a string", value)
    if non_empty and not value:
        raise invalid_value(param, "string too short. Expected a string with minimum length 1, but got an empty "
                                   "string instead.")
    return value


def as_bool(value: Any, param: str) -> bool:
    if not isinstance(value, bool):
        raise invalid_type(param, "a boolean", value)
    return value


def no_unknown(body: Mapping[str, Any], allowed: frozenset[str], where: str = "") -> None:
    """Every key of ``body`` is in ``allowed``; ``where`` is the path prefix (``"agent."``)."""
    for key in body:
        if key not in allowed:
            raise unknown_parameter(f"{where}{key}", allowed)


def choice(value: Any, allowed: tuple[str | None, ...], param: str) -> Any:
    if value not in allowed:
        shown = ", ".join(repr(a) for a in allowed if a is not None)
        raise invalid_value(param, f"{value!r}; expected one of {shown}.")
    return value
