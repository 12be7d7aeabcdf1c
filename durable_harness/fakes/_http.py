"""The fakes' tiny method + path router over the shared wire types (``wire``).

What it deliberately does not do: parse messages (``durable_harness.wire.Request`` does) or know any framework.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from durable_harness.wire import Request, Response

__all__ = ["Router"]


Handler = Callable[..., Response]


class Router:
    """Method + path-pattern dispatch. Patterns use ``{name}`` for one path segment."""

    def __init__(self, not_found: Callable[[Request], Response], bad_method: Callable[[Request], Response] | None = None) -> None:
        self._routes: list[tuple[re.Pattern[str], Sequence[str], Handler]] = []
        self._not_found = not_found
        self._bad_method = bad_method or not_found

    def add(self, methods: str | Sequence[str], pattern: str, handler: Handler) -> None:
        regex = "^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "/?$"
        names = (methods,) if isinstance(methods, str) else tuple(methods)
        self._routes.append((re.compile(regex), names, handler))

    def dispatch(self, request: Request) -> Response:
        path_matched = False
        for regex, methods, handler in self._routes:
            match = regex.match(request.path)
            if match is None:
                continue
            path_matched = True
            if request.method in methods:
                return handler(request, **match.groupdict())
        return self._bad_method(request) if path_matched else self._not_found(request)
