"""A busy site: other people's posts and uploads before the job starts, and a colleague who keeps
writing while it runs.

Real sites are not empty. A control plane looking up its own draft meets other tenants' posts
with the same title, its own other jobs' articles, the articles of the job's earlier task versions,
uploads with the same file names, and scheduled posts dated later than anything it wrote; and the
colleague adds and edits posts during the job. ``seed_site`` writes such content into a fresh
``WordPressFake``; ``Colleague.act`` performs one of the colleague's edits (the caller schedules it on
its clock). Both draw every choice from the ``random.Random`` they are given.

What the content is like comes from ``Lookalikes``, which the caller (the harness's WordPress
service) fills from the job: its title, its images' file names, the watermark of another job or
version. Seeded content never carries the job's own identity (job id *and* task version), so it
is never the job's: other jobs and earlier versions carry theirs, other tenants none.

What it deliberately does not do: schedule anything (no clock here), touch the job's own posts
(the editor edits only content it or the seeding wrote), or write through HTTP.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["Colleague", "EDITOR_ACTIONS", "Lookalikes", "seed_site"]

EDITOR_ACTIONS = ("create_post", "edit_post", "upload_media")
SEED_LABEL = "seed (before the run)"
EDITOR_LABEL = "colleague (dashboard)"
COLLEAGUE = 2  # the site's second editor (see ``_auth``)
APP_USER = 1  # the application-password user: a control plane's other jobs wrote as it
_WORDS = ("garden", "compost", "river", "pricing", "launch", "winter", "recipe", "review", "travel", "budget",
          "studio", "podcast", "harvest", "update", "guide", "market", "city", "ocean", "design", "notes")


class _Site(Protocol):
    def write_post(self, *, title: str, content: str, status: str, by: str, author: int, excerpt: str = "",
                   date: _dt.datetime | None = None, operation_key: str | None = None) -> int: ...
    def edit_post(self, post_id: int, *, by: str, title: str | None = None, excerpt: str | None = None,
                  status: str | None = None) -> bool: ...
    def write_media(self, *, filename: str, data: bytes, by: str, author: int, title: str | None = None,
                    operation_key: str | None = None) -> int: ...


@dataclass(frozen=True)
class Lookalikes:
    """What content resembling the job's looks like, and how another job's or version's is marked."""

    job_id: str
    task_version: str
    title: str
    filenames: tuple[str, ...]  # the job's upload file names ("my-article-1.png", ...)
    watermark: Callable[[str, str], str]  # (job_id, task_version) -> the marker in an article's content
    operation_key: Callable[[str, str, str], str]  # (job_id, task_version, role) -> a key as a control plane writes it
    image: Callable[[str], bytes]  # seed -> image bytes (never the job's own)

    def earlier_version(self, n: int) -> str:
        """The n-th task version before this one (``"3"`` -> ``"2"``), or a name that sorts before it."""
        if self.task_version.isdigit() and int(self.task_version) - n >= 0:
            return str(int(self.task_version) - n)
        return f"{self.task_version}-earlier-{n}"


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _title(rng: random.Random, kind: str, looks: Lookalikes) -> str:
    if kind == "same":
        return looks.title
    if kind == "similar":
        return f"{looks.title} ({rng.choice(('draft', 'notes', 'v2', 'copy'))})"
    return _text(rng, 4).capitalize()


def _date(rng: random.Random, kind: str, now: _dt.datetime) -> _dt.datetime:
    days = rng.uniform(1.0, 90.0) if kind == "earlier" else -rng.uniform(1.0, 30.0)
    return (now - _dt.timedelta(days=days)).replace(microsecond=0)


@dataclass(frozen=True)
class _Owner:
    author: int
    job_id: str | None
    version: str | None


def _owner(kind: str, index: int, looks: Lookalikes, group: int, earlier: Iterator[int]) -> _Owner:
    """Whose content this is; each other job and each earlier version owns one article at most (one
    per business role, so the seeding itself never looks like a duplicate)."""
    if kind == "other_job":
        return _Owner(APP_USER, f"{looks.job_id}-other-{group}-{index}", "1")
    if kind == "earlier_version":
        return _Owner(APP_USER, looks.job_id, looks.earlier_version(next(earlier)))
    if kind == "case_twin":  # another job, whose id only the letter case tells from this one's
        return _Owner(APP_USER, _case_twin(looks.job_id, index), looks.task_version)
    return _Owner(COLLEAGUE, None, None)


def _case_twin(job_id: str, index: int) -> str:
    """The ``index``-th id that differs from ``job_id`` in letter case only (never ``job_id`` itself)."""
    letters = [i for i, c in enumerate(job_id) if c.isalpha()]
    if not 0 < index <= len(letters):  # no letters left to flip: another id altogether
        return f"{job_id.swapcase()}-twin-{index}"
    chars = list(job_id)
    for i in letters[:index]:
        chars[i] = chars[i].swapcase()
    return "".join(chars)


def seed_site(site: _Site, rng: random.Random, spec: Mapping[str, Any], looks: Lookalikes,
              now: _dt.datetime) -> dict[str, list[int]]:
    """Write the content ``spec`` asks for (``{"posts": [group...], "media": [group...]}``); returns the
    ids written, by kind. Groups are validated by the scenario schema; defaults are applied here."""
    written: dict[str, list[int]] = {"posts": [], "media": [], "editable": []}
    earlier_posts, earlier_media = itertools.count(1), itertools.count(1)
    for g, group in enumerate(spec.get("posts") or ()):
        for i in range(1, int(group["count"]) + 1):
            owner = _owner(str(group.get("owner", "other_tenant")), i, looks, g, earlier_posts)
            body = f"<p>{_text(rng, 30)}.</p>"
            key = None
            if owner.job_id is not None and owner.version is not None:
                body = looks.watermark(owner.job_id, owner.version) + "\n" + body
                key = looks.operation_key(owner.job_id, owner.version, "draft")
            post_id = site.write_post(title=_title(rng, str(group.get("title", "other")), looks), content=body,
                                      status=str(group.get("status", "publish")), by=SEED_LABEL, author=owner.author,
                                      date=_date(rng, str(group.get("date", "earlier")), now), operation_key=key)
            written["posts"].append(post_id)
            if owner.job_id is None:
                written["editable"].append(post_id)
    for g, group in enumerate(spec.get("media") or ()):
        for i in range(1, int(group["count"]) + 1):
            owner = _owner(str(group.get("owner", "other_tenant")), i, looks, 100 + g, earlier_media)
            same = group.get("filename", "other") == "same" and looks.filenames
            filename = looks.filenames[(i - 1) % len(looks.filenames)] if same else f"{_text(rng, 2).replace(' ', '-')}.png"
            key = None
            if owner.job_id is not None and owner.version is not None:
                key = looks.operation_key(owner.job_id, owner.version, f"media:{filename}")
            media_id = site.write_media(filename=filename, data=looks.image(f"seed/{g}/{i}/{rng.random()}"),
                                        by=SEED_LABEL, author=owner.author, operation_key=key)
            written["media"].append(media_id)
    return written


@dataclass
class Colleague:
    """The colleague: each ``act`` is one edit, chosen from ``actions`` by the random stream.

    ``titles`` ``same`` makes every post they create carry the job's title; ``filenames`` ``same``
    makes every upload carry one of the job's file names. They edit only posts they (or the seeding,
    for other tenants) wrote, never a job's."""

    site: _Site
    rng: random.Random
    looks: Lookalikes
    actions: Sequence[str] = EDITOR_ACTIONS
    titles: str = "other"
    filenames: str = "other"
    editable: list[int] = field(default_factory=list)
    done: int = 0

    def act(self) -> dict[str, Any]:
        """Do one thing; returns what was done, for the history."""
        action = self.rng.choice(list(self.actions))
        if action == "edit_post" and not self.editable:
            action = "create_post"  # nothing of theirs to edit yet
        self.done += 1
        if action == "create_post":
            status = self.rng.choice(("publish", "draft"))
            post_id = self.site.write_post(title=_title(self.rng, self.titles, self.looks),
                                           content=f"<p>{_text(self.rng, 40)}.</p>", status=status, by=EDITOR_LABEL,
                                           author=COLLEAGUE)
            self.editable.append(post_id)
            return {"action": action, "post": post_id, "status": status}
        if action == "edit_post":
            post_id = self.rng.choice(self.editable)
            new_status = self.rng.choice((None, "publish", "draft"))
            self.site.edit_post(post_id, by=EDITOR_LABEL, excerpt=_text(self.rng, 12).capitalize() + ".",
                                status=new_status)
            return {"action": action, "post": post_id, "status": new_status}
        same = self.filenames == "same" and self.looks.filenames
        filename = self.rng.choice(self.looks.filenames) if same else f"{_text(self.rng, 2).replace(' ', '-')}.png"
        media_id = self.site.write_media(filename=filename, data=self.looks.image(f"editor/{self.done}/{self.rng.random()}"),
                                         by=EDITOR_LABEL, author=COLLEAGUE)
        return {"action": action, "media": media_id, "filename": filename}
