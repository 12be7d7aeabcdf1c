"""Request parameters the way WordPress reads them, and core's schema validation messages.

PHP parses ``meta[operation_key]=K`` and ``status[]=draft`` into nested arrays, and
``WP_REST_Request::get_params`` merges the JSON body, the form body and the query string
(earlier wins, top level only). ``Validator`` reproduces ``rest_validate_value_from_schema``:
the same type coercions (``"5"`` is an integer, ``"true"`` a boolean, ``"a,b"`` a list) and the
same messages, collected into one ``rest_invalid_param``.

What it deliberately does not do: know which parameters a route has (routes say so) or check
permissions.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl

from durable_harness.wire import Request
from durable_harness.fakes.wordpress._errors import ParamErrors, invalid_json

__all__ = ["Validator", "as_int", "as_list", "parse_date", "php_empty", "php_params", "query_params", "request_params"]

_KEY = re.compile(r"^([^\[]+)((?:\[[^\]]*\])*)$")
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}(?::?\d{2})?)?$")
_NUMERIC = re.compile(r"^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$")  # PHP is_numeric()


def php_params(pairs: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """PHP ``parse_str``: ``a[b]=1`` nests, ``a[]=1&a[]=2`` lists, a repeated plain key keeps the last."""
    root: dict[str, Any] = {}
    for raw_key, value in pairs:
        match = _KEY.match(raw_key)
        if match is None:
            continue
        parts = [match.group(1)] + re.findall(r"\[([^\]]*)\]", match.group(2))
        node = root
        for depth, part in enumerate(parts):
            key = part if part != "" else str(sum(1 for k in node if k.isdigit()))
            if depth == len(parts) - 1:
                node[key] = value
            else:
                child = node.get(key)
                if not isinstance(child, dict):
                    child = node[key] = {}
                node = child
    return {k: _listify(v) for k, v in root.items()}


def _listify(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    items = {k: _listify(v) for k, v in value.items()}
    if items and list(items) == [str(i) for i in range(len(items))]:
        return list(items.values())
    return items


def query_params(request: Request) -> dict[str, Any]:
    return php_params(request.query)


def request_params(request: Request) -> dict[str, Any]:
    """JSON body, then form body, then query string; raises 400 ``rest_invalid_json`` on bad JSON."""
    body: dict[str, Any] = {}
    ctype = request.content_type
    if ctype == "application/json" or ctype.endswith("+json"):
        try:
            decoded = request.json()
        except (ValueError, UnicodeDecodeError) as exc:
            raise invalid_json() from exc
        if isinstance(decoded, dict):
            body = decoded
    elif ctype in ("", "application/x-www-form-urlencoded"):
        try:
            text = request.body.decode("utf-8")
        except UnicodeDecodeError:
            text = ""
        body = php_params(parse_qsl(text, keep_blank_values=True))
    elif ctype == "multipart/form-data":
        fields, _ = request.form()
        body = php_params(fields.items())
    return {**query_params(request), **body}


def php_empty(value: Any) -> bool:
    """PHP ``empty()``: None, False, 0, 0.0, "", "0" and empty arrays."""
    if value is None or isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value == 0
    if isinstance(value, str):
        return value in ("", "0")
    if isinstance(value, (list, dict)):
        return not value
    return False


def as_int(value: Any) -> int | None:
    """``rest_is_integer`` + ``(int)``: ints, integral floats and numeric strings; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _NUMERIC.match(value):
        number = float(value)  # "1e2" is the integer 100, as rest_is_integer() says
        if math.isfinite(number) and number.is_integer():
            return int(number)
    return None


def as_list(value: Any) -> list[Any]:
    """``wp_parse_list``: arrays as they are, strings split on commas and whitespace."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, str):
        return [part for part in re.split(r"[\s,]+", value) if part]
    return [value]


def _human_list(items: Sequence[str]) -> str:
    """PHP's ``%l`` placeholder: "a", "a and b", "a, b, and c"."""
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2:
        return f"{items[0]} and {items[1]}"
    return ", ".join(items[:-1]) + ", and " + items[-1]


def parse_date(value: str) -> _dt.datetime | None:
    """``rest_parse_date``: an RFC 3339 date-time; a missing zone means site time (UTC here)."""
    match = _DATE.match(value)
    if match is None:
        return None
    y, mo, d, h, mi, s, zone = match.groups()
    try:
        parsed = _dt.datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), tzinfo=_dt.timezone.utc)
    except ValueError:
        return None
    if zone and zone not in ("Z", "z"):
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        offset = _dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:] or 0))
        parsed -= sign * offset
    return parsed


class Validator:
    """Typed readers that record core's messages; call ``done()`` to raise them as one 400."""

    def __init__(self) -> None:
        self.errors = ParamErrors()

    def _type_error(self, name: str, type_name: str) -> None:
        self.errors.add(name, "rest_invalid_type", f"{name} is not of type {type_name}.", {"param": name})

    def integer(self, name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None) -> int | None:
        if value is None:
            return None
        number = as_int(value)
        if number is None:
            self._type_error(name, "integer")
            return None
        if minimum is not None and maximum is not None and not minimum <= number <= maximum:
            self.errors.add(name, "rest_out_of_bounds", f"{name} must be between {minimum} (inclusive) and {maximum} (inclusive)")
        elif minimum is not None and number < minimum:
            self.errors.add(name, "rest_out_of_bounds", f"{name} must be greater than or equal to {minimum}")
        elif maximum is not None and number > maximum:
            self.errors.add(name, "rest_out_of_bounds", f"{name} must be less than or equal to {maximum}")
        return number

    def boolean(self, name: str, value: Any) -> bool | None:
        if value is None:
            return None
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
            return value.lower() in ("true", "1")
        self._type_error(name, "boolean")
        return None

    def string(self, name: str, value: Any) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            self._type_error(name, "string")
            return None
        return value

    def enum(self, name: str, value: Any, allowed: Sequence[str]) -> str | None:
        text = self.string(name, value)
        if text is not None and text not in allowed:
            self.errors.add(name, "rest_not_in_enum", f"{name} is not one of {_human_list(list(allowed))}.")
            return None
        return text

    def int_list(self, name: str, value: Any) -> list[int] | None:
        if value is None:
            return None
        numbers: list[int] = []
        for index, item in enumerate(as_list(value)):
            number = as_int(item)
            if number is None:
                item = f"{name}[{index}]"
                self.errors.add(name, "rest_invalid_type", f"{item} is not of type integer.", {"param": item})
                return None
            numbers.append(number)
        return numbers

    def str_list(self, name: str, value: Any) -> list[str] | None:
        if value is None:
            return None
        return [str(item) for item in as_list(value)]

    def enum_list(self, name: str, value: Any, allowed: Sequence[str]) -> list[str] | None:
        items = self.str_list(name, value)
        for index, item in enumerate(items or []):
            if item not in allowed:
                message = f"{name}[{index}] is not one of {_human_list(list(allowed))}."
                self.errors.add(name, "rest_not_in_enum", message)
                return None
        return items

    def date(self, name: str, value: Any) -> _dt.datetime | None:
        if value is None or value == "":
            return None
        if not isinstance(value, str):
            self._type_error(name, "string,null")
            return None
        parsed = parse_date(value)
        if parsed is None:
            self.errors.add(name, "rest_invalid_date", "Invalid date.")
        return parsed

    def object(self, name: str, value: Any) -> Mapping[str, Any] | None:
        """``check_meta_is_array``: any PHP array passes (a JSON list too); anything else fails plainly."""
        if value is None:
            return None
        if isinstance(value, dict):
            return value
        if isinstance(value, list):
            return {str(i): v for i, v in enumerate(value)}
        self.errors.add_plain(name)
        return None

    def done(self) -> None:
        self.errors.raise_if_any()
