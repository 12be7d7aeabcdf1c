"""The WordPress service: core WordPress with the operation-key plugins and Rank Math.

Options (``services: {wordpress: {...}}``):

* ``auth_mode``: ``core`` (a bad or revoked password runs the request anonymously, as WordPress
  alone does) or ``early`` (401 ``incorrect_password``, as a plugin that resolves the user early does).
* ``operation_key_query``: whether the must-use plugin that filters listings by ``operation_key`` is
  installed (default true). Without it the parameter is ignored, as core ignores any parameter it
  does not know: a lookup gets every post, page by page, and must check each one's key itself.
* ``seed``: a busy site. ``posts`` and ``media`` are lists of groups, each ``count`` items owned by
  ``other_tenant`` (no operation key, no watermark: another customer's content, written by a
  colleague), ``other_job`` (this control plane's other jobs: their own watermark and key),
  ``earlier_version`` (this job's earlier task versions) or ``case_twin`` (another job whose id is
  this one's in other letter case: ``JOB-X`` beside ``job-x``; a real site's collation answers a
  lookup by this job's operation key with its posts too). Posts take ``title`` ``same`` (the job's
  title), ``similar`` or ``other``, a ``status``, and a ``date`` ``earlier`` or ``later`` than the
  run (a later published post is scheduled). Media take ``filename`` ``same`` (one of the job's
  image file names) or ``other``. None of it is ever the job's: ground truth attributes posts by the
  watermark of (job, version) and media by their bytes, and seeded content carries neither.
* ``editor``: a colleague who, every ``every_s`` virtual seconds from ``start_s``, does one of ``do``
  (``create_post``, ``edit_post``, ``upload_media``) until ``actions`` are done; ``titles`` /
  ``filenames`` ``same`` make their posts and uploads look like the job's. They act on the run's
  clock, their choices come from the run's seed, and each action is a ``note`` in the history
  (process ``wordpress-editor``).

An injected error looks like what a host in front of WordPress sends: WordPress's own JSON error
shape (``code``, ``message``, ``data.status``); a 500 is the body of a PHP fatal error.

What it deliberately does not do: decide what busy content looks like (``durable_harness.fakes.wordpress._busy``
does, from the job's title and file names given here) or let the colleague touch the job's posts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from durable_harness.fakes.wordpress._busy import EDITOR_ACTIONS
from durable_harness.harness._seeds import component_random
from durable_harness.harness.services._registry import BuiltService, ServiceContext, ServiceSpec, register_service
from durable_harness.harness.services._upstream import Upstream, keep_upstream, upstream
from durable_harness.harness.services._wordpress_targets import TARGETS, classify
from durable_harness.wire import Response

if TYPE_CHECKING:
    from durable_harness.fakes.wordpress import Lookalikes, WordPressFake

__all__ = ["HOST", "SPEC"]

HOST = "wordpress.dh.test"
USERNAME = "editor"
EDITOR_PROCESS = "wordpress-editor"
_PASSWORD_ALPHABET = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
_ERROR_CODES = {403: "rest_forbidden", 406: "rest_not_acceptable", 408: "http_request_timeout", 429: "rest_too_many_requests"}
_CRITICAL = ("<p>There has been a critical error on this website.</p><p><a href=\"https://wordpress.org/"
             "documentation/article/faq-troubleshooting/\">Learn more about troubleshooting WordPress.</a></p>")

_OWNER = {"enum": ["other_tenant", "other_job", "earlier_version", "case_twin"], "default": "other_tenant",
          "description": "whose content: another customer's, this control plane's other jobs', this job's earlier "
                         "versions', or another job whose id differs from this one's only in case (its operation "
                         "key too: the site's collation finds it by this job's key)"}
_POSTS = {"type": "object", "additionalProperties": False, "required": ["count"], "properties": {
    "count": {"type": "integer", "minimum": 1, "maximum": 300},
    "owner": _OWNER,
    "title": {"enum": ["same", "similar", "other"], "default": "other"},
    "status": {"enum": ["publish", "draft", "pending", "private", "future"], "default": "publish"},
    "date": {"enum": ["earlier", "later"], "default": "earlier"},
}}
_MEDIA = {"type": "object", "additionalProperties": False, "required": ["count"], "properties": {
    "count": {"type": "integer", "minimum": 1, "maximum": 100},
    "owner": _OWNER,
    "filename": {"enum": ["same", "other"], "default": "other"},
}}
OPTIONS_SCHEMA: Mapping[str, Any] = {
    "auth_mode": {"enum": ["core", "early"], "default": "core",
                  "description": "core: bad credentials run anonymously; early: 401 incorrect_password"},
    "fencing": {"enum": ["none", "header"], "default": "none",
                "description": "header: a gateway refuses a write whose X-Fencing-Token (<job_id>:<token>) is lower than "
                               "the highest it let through for that job (409 rest_fencing_token_stale)"},
    "operation_key_query": {"type": "boolean", "default": True,
                            "description": "the must-use plugin that filters listings by operation_key is installed"},
    "seed": {"type": "object", "additionalProperties": False, "description": "content the site has before the job", "properties": {
        "posts": {"type": "array", "maxItems": 10, "items": _POSTS},
        "media": {"type": "array", "maxItems": 10, "items": _MEDIA},
    }},
    "editor": {"type": "object", "additionalProperties": False, "description": "a colleague writing during the job", "properties": {
        "every_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 3600, "default": 30},
        "start_s": {"type": "number", "minimum": 0, "maximum": 86400},
        "actions": {"type": "integer", "minimum": 1, "maximum": 500, "default": 10},
        "do": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": list(EDITOR_ACTIONS)}},
        "titles": {"enum": ["same", "other"], "default": "other"},
        "filenames": {"enum": ["same", "other"], "default": "other"},
    }},
}


def _error_response(status: int, headers: Mapping[str, str]) -> Response:
    code = _ERROR_CODES.get(status, "http_error" if status < 500 else "internal_server_error")
    message = _CRITICAL if status == 500 else f"The host answered HTTP {status}."
    body = {"code": code, "message": message, "data": {"status": status}}
    if status == 500:
        body["additional_errors"] = []
    return Response(status=status, headers={**headers, "content-type": "application/json; charset=UTF-8"},
                    body=json.dumps(body).encode())


def _lookalikes(job: Mapping[str, Any]) -> Lookalikes:
    """What the job's own content looks like, so a busy site can look like it."""
    from durable_harness.fakes.openai_agents.brains import ArticleJob, tiny_png, watermark
    from durable_harness.fakes.wordpress import Lookalikes

    job_id, version = str(job["job_id"]), str(job["task_version"])
    title: str = job_id
    filenames: tuple[str, ...] = ()
    if job.get("workload") == "article":
        article = ArticleJob.parse(job)
        title, filenames = article.title, tuple(f"{article.slug}-{n}.png" for n in range(1, article.images + 1))
    return Lookalikes(job_id=job_id, task_version=version, title=title, filenames=filenames, watermark=watermark,
                      operation_key=lambda j, v, role: f"{j}/v{v}/{role}", image=lambda seed: tiny_png(f"busy/{seed}"))


def _make_busy(ctx: ServiceContext, fake: WordPressFake) -> None:
    seed, editor = ctx.options.get("seed"), ctx.options.get("editor")
    if not seed and editor is None:
        return
    from durable_harness.fakes.wordpress import Colleague, seed_site

    jobs = list(ctx.jobs.values())
    looks = _lookalikes(jobs[0])
    written = seed_site(fake, component_random(ctx.seed, "fakes.wordpress.seed"), seed or {}, looks,
                        ctx.clock.datetime()) if seed else {"editable": []}
    if editor is None:
        return
    colleague = Colleague(fake, component_random(ctx.seed, "fakes.wordpress.editor"), looks,
                          actions=tuple(editor.get("do") or EDITOR_ACTIONS), titles=str(editor.get("titles", "other")),
                          filenames=str(editor.get("filenames", "other")), editable=list(written["editable"]))
    every_s = float(editor.get("every_s", 30))
    remaining = [int(editor.get("actions", 10))]

    def tick() -> None:
        done = colleague.act()
        ctx.history.append(ctx.clock.now(), "note", EDITOR_PROCESS, {"editor": done})
        remaining[0] -= 1
        if remaining[0] > 0:  # bounded: ``actions`` ticks in all
            ctx.clock.call_later(every_s, tick)

    ctx.clock.call_later(float(editor.get("start_s", every_s)), tick)


def _build(ctx: ServiceContext) -> BuiltService:
    from durable_harness.fakes.wordpress import FencingGateway, WordPressFake  # a run builds it; list/validate do not
    from durable_harness.harness.candidate import ServiceEndpoint

    rng = component_random(ctx.seed, "world.secrets.wordpress")
    password = " ".join("".join(rng.choice(_PASSWORD_ALPHABET) for _ in range(4)) for _ in range(6))
    real = upstream("wordpress")
    if real is not None:  # a real site behind the gate (``--service wordpress=URL``)
        return _build_real(ctx, real, password)
    fake = WordPressFake(ctx.clock, username=USERNAME, app_password=password,
                         auth_mode=str(ctx.options.get("auth_mode", "core")), site_url=f"http://{HOST}",
                         operation_key_query=bool(ctx.options.get("operation_key_query", True)))
    _make_busy(ctx, fake)
    url = f"http://{HOST}"
    endpoint = ServiceEndpoint(url=url, credentials={"username": USERNAME, "app_password": password}, variables={
        "WORDPRESS_URL": url, "WORDPRESS_USERNAME": USERNAME, "WORDPRESS_APP_PASSWORD": password})
    served: Any = FencingGateway(fake) if ctx.options.get("fencing") == "header" else fake
    return BuiltService(fake=served, endpoint=endpoint, secrets=(password, password.replace(" ", ""), f"{USERNAME}:{password}",
                                                    f"{USERNAME}:{password.replace(' ', '')}"),
                        error_response=_error_response,
                        classify=lambda request, route, role_of: classify(fake, request, route, role_of))


def _build_real(ctx: ServiceContext, real: Upstream, password: str) -> BuiltService:
    from durable_harness.harness._errors import HarnessError
    from durable_harness.harness.candidate import ServiceEndpoint
    from durable_harness.harness.services._upstream_preflight import checked_problems
    from durable_harness.harness.services._upstream_wordpress import UpstreamWordPress

    problems = checked_problems(real)
    if problems:
        raise HarnessError(f"the real WordPress at {real.url} cannot run the scenarios: {'; '.join(problems)}")

    site = UpstreamWordPress(ctx.clock, real, host=HOST, username=USERNAME, password=password,
                             job_ids=[job_id for job_id, _ in ctx.jobs], keep=keep_upstream(),
                             rng=component_random(ctx.seed, "world.secrets.wordpress.issued"))
    _make_busy(ctx, site)  # type: ignore[arg-type]  # its people write on the real site
    url = f"http://{HOST}"
    endpoint = ServiceEndpoint(url=url, credentials={"username": USERNAME, "app_password": password}, variables={
        "WORDPRESS_URL": url, "WORDPRESS_USERNAME": USERNAME, "WORDPRESS_APP_PASSWORD": password})
    from durable_harness.fakes.wordpress import FencingGateway

    served: Any = FencingGateway(site) if ctx.options.get("fencing") == "header" else site
    minted = (password, password.replace(" ", ""), f"{USERNAME}:{password}", f"{USERNAME}:{password.replace(' ', '')}")
    return BuiltService(fake=served, endpoint=endpoint, secrets=(*minted, real.secret, "".join(real.secret.split())),
                        error_response=_error_response,
                        classify=lambda request, route, role_of: classify(site, request, route, role_of))


SPEC = register_service(ServiceSpec(name="wordpress", build=_build, options_schema=OPTIONS_SCHEMA, targets=TARGETS))
