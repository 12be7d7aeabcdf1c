"""What a request to WordPress does to the world, in the words trigger targets use.

Each request is read as the site reads it (``WordPressFake.intent``: the method override, the
``id`` in the body that wins over the URL's, the uploaded bytes), then named by its verb and, when
the item is one of the run's job's, by the job's role: ``update`` and ``update:article``,
``upload`` and ``upload:image:2``. The role comes from the workload (a post is the article by the
watermark in its content, an upload is image 2 by its bytes), so a trigger follows the work
whatever the order or number of the candidate's requests.

What it deliberately does not do: read inside a batch request (``/batch/v1``: ``other``) or judge
anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from durable_harness.harness.services._registry import RoleOf
from durable_harness.wire import Request

__all__ = ["TARGETS", "classify"]

TARGETS: Mapping[str, str] = {
    "create": "a new post (POST /wp/v2/posts); create:ROLE when its content is the job's ROLE (article)",
    "upload": "a new attachment (POST /wp/v2/media); upload:ROLE when its bytes are the job's ROLE (image:2)",
    "update": "a write to an existing item (POST, PUT or PATCH /wp/v2/posts/{id}; the id in the body wins, as in "
              "WordPress), whatever it sets; update:ROLE when the item is the job's ROLE",
    "publish": "an update that sets the status publish or future; publish:ROLE",
    "delete": "a delete or trash of an item (DELETE /wp/v2/posts/{id}); delete:ROLE",
    "seo": "Rank Math's meta of an item (POST /rankmath/v1/updateMeta); seo:ROLE",
    "read": "a read of one item (GET /wp/v2/posts/{id}); read:ROLE",
    "list": "a listing of posts or media (GET /wp/v2/posts, /wp/v2/media): a lookup",
    "write": "any request that may change the site (create, upload, update, publish, delete, seo); write:ROLE",
}
_WRITES = ("create", "upload", "update", "delete", "seo")
_PUBLISHED = ("publish", "future")


def classify(fake: Any, request: Request, route: str, role_of: RoleOf) -> frozenset[str]:
    from durable_harness.fakes.wordpress._intent import item_record

    intent = fake.intent(request)
    verbs = [intent.action] if intent.action in TARGETS else []
    if intent.action == "update" and intent.status in _PUBLISHED:
        verbs.append("publish")
    if intent.action in _WRITES:
        verbs.append("write")
    if not verbs:
        return frozenset()
    role: str | None = None
    if intent.item is not None:
        role = role_of("media" if intent.item.type == "attachment" else "post", item_record(intent.item))
    elif intent.action == "create" and intent.content is not None:
        role = role_of("post", {"id": 0, "content": intent.content})
    elif intent.action == "upload" and intent.file_sha256 is not None:
        role = role_of("media", {"id": 0, "sha256": intent.file_sha256})
    tags = set(verbs)
    if role is not None:
        tags.update(f"{verb}:{role}" for verb in verbs)
    return frozenset(tags)
