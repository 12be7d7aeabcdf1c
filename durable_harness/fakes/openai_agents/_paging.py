"""Cursor pagination as the Agents API does it: ``limit`` 1..100 (default 20), ``order`` asc|desc
(default **desc**), and an exclusive ``after`` cursor in the selected order.

Two page shapes exist. ``cursor_page`` is the SDK's ``CursorPage`` (``{object, data, first_id,
last_id, has_more}``; the SDK's next page is ``after=data[-1].id``). ``conversation_page`` is the
``ConversationCursorPage`` of root turn items, whose next page is ``after=<last_id>``; there
``last_id`` is an opaque cursor (``"cursor_<n>"``, the record's position oldest first, so it stays
valid while the turn grows), which the SDK documents may differ from the last item's id; a null
item id therefore cannot stall paging. Item ids are accepted as ``after`` too.

What it deliberately does not do: sort (callers pass records oldest first) or filter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from durable_harness.wire import Request
from durable_harness.fakes.openai_agents._errors import bad_request

__all__ = ["PageQuery", "conversation_page", "cursor_page", "page_query"]

T = TypeVar("T")

MAX_LIMIT = 100
DEFAULT_LIMIT = 20
_CURSOR_PREFIX = "cursor_"


@dataclass(frozen=True)
class PageQuery:
    limit: int
    order: str
    after: str | None


def page_query(request: Request) -> PageQuery:
    """Validate ``limit``/``order``/``after`` eagerly, with the API's style of message."""
    raw_limit = request.arg("limit")
    limit = DEFAULT_LIMIT
    if raw_limit is not None:
        try:
            limit = int(raw_limit)
        except ValueError:
            raise bad_request(f"Invalid 'limit': expected an integer, but got {raw_limit!r} instead.",
                              param="limit") from None
        if limit < 1:
            raise bad_request(f"Invalid 'limit': integer below minimum value. Expected a value >= 1, "
                              f"but got {limit!r} instead.", param="limit")
        if limit > MAX_LIMIT:
            raise bad_request(f"Invalid 'limit': integer above maximum value. Expected a value <= "
                              f"{MAX_LIMIT}, but got {limit!r} instead.", param="limit")
    order = request.arg("order") or "desc"
    if order not in ("asc", "desc"):
        raise bad_request(f"Invalid 'order': expected one of 'asc' or 'desc', but got {order!r} instead.",
                          param="order")
    after = request.arg("after") or None
    return PageQuery(limit=limit, order=order, after=after)


def _window(n: int, query: PageQuery, after_index: int | None) -> tuple[list[int], bool]:
    """Ascending indexes of one page: records strictly after ``after_index`` in the selected order."""
    if query.order == "asc":
        candidates = range(0 if after_index is None else after_index + 1, n)
    else:
        candidates = range(n - 1 if after_index is None else after_index - 1, -1, -1)
    chosen = list(candidates[:query.limit])
    return chosen, len(candidates) > query.limit


def cursor_page(records: Sequence[T], query: PageQuery, *, key: Callable[[T], str | None],
                render: Callable[[T], dict[str, Any]]) -> dict[str, Any]:
    """A ``CursorPage``: ``after`` must be the id of a record in this list."""
    after_index = None if query.after is None else _index_of(records, key, query.after)
    chosen, has_more = _window(len(records), query, after_index)
    data = [render(records[i]) for i in chosen]
    return _page(data, data[-1].get("id") if data else None, has_more)


def conversation_page(records: Sequence[T], query: PageQuery, *, key: Callable[[T], str | None],
                      render: Callable[[T], dict[str, Any]]) -> dict[str, Any]:
    """A ``ConversationCursorPage``: ``after`` is a previous ``last_id`` (or an item id)."""
    after_index: int | None = None
    if query.after is not None:
        after_index = _cursor_index(query.after, len(records))
        if after_index is None:
            after_index = _index_of(records, key, query.after)
    chosen, has_more = _window(len(records), query, after_index)
    data = [render(records[i]) for i in chosen]
    return _page(data, f"{_CURSOR_PREFIX}{chosen[-1]}" if chosen else None, has_more)


def _page(data: list[dict[str, Any]], last_id: str | None, has_more: bool) -> dict[str, Any]:
    """The list object of both page shapes; they differ only in what ``last_id`` is."""
    return {
        "object": "list",
        "data": data,
        "first_id": data[0].get("id") if data else None,
        "last_id": last_id,
        "has_more": has_more,
    }


def _cursor_index(after: str, n: int) -> int | None:
    """The record index a ``cursor_<n>`` names; None when ``after`` is not a cursor."""
    if not after.startswith(_CURSOR_PREFIX):
        return None
    raw = after[len(_CURSOR_PREFIX):]
    if not raw.isdigit() or int(raw) >= n:
        raise bad_request(f"Invalid 'after': {after!r} is not a cursor of this list; pass the last_id "
                          "of the previous page.", param="after")
    return int(raw)


def _index_of(records: Sequence[T], key: Callable[[T], str | None], after: str) -> int:
    for index, record in enumerate(records):
        if key(record) == after:
            return index
    raise bad_request(f"Invalid 'after': no object with id {after!r} in this list.", param="after")
