"""The article brain: the scripted agent of the ``article`` workload (n8n -> WordPress).

Script, one function call at a time (the next is issued only after the previous result arrives):

0. ``preamble_items`` reasoning/commentary items before the first call (long-session scenarios);
   with ``research_subagent: true`` the agent then spawns a subagent ``researcher`` (a
   ``create_subagent_call``; the subagent's own turn completes one thinking time later with a
   final-answer message; its report comes back as a ``wait_for_subagents_call`` and an
   ``agent_message``) and continues its own turn one thinking time after that. The subagent's
   ``turn.completed`` is not the job's end: the root turn goes on to the first call. Research is
   done once per session (again only if its turn ended before the report came) and never once a
   step is done;
1. ``wp_upload_media`` for images 1..``images`` (tiny valid PNGs) -> ``{media_id, source_url}``;
2. ``wp_create_draft {title, content, excerpt, slug}`` -> ``{post_id, link}``; the HTML content
   carries the watermark ``<!-- durable-harness job=<id> version=<v> role=article -->``;
3. ``wp_update_post {post_id, excerpt, featured_media}`` (media of image 1; omitted with no images);
4. ``wp_set_seo {post_id, title, description, focus_keyword}``;
5. ``wp_get_post {post_id}`` -> ``{post_id, status, ...}``;
6. final answer "Draft <post_id> is ready and awaits publish approval."; the turn completes.

A failed tool result (``success: false``), or a successful one whose JSON output cannot be parsed
or lacks the expected id, ends the turn with a final answer naming the step: the turn completes,
the task did not. Progress is re-planned from the session's own items at every step, so after a
generic user message ("continue") the first unfinished action is issued again under a new call_id
in the new turn - with the same arguments. Every text and byte derives from the job and the seed.

**Recovery summary** (part of the candidate contract). A user message after the first whose text
is the line ``RECOVERY SUMMARY`` followed by exactly one JSON object (other top-level keys are
ignored)::

    RECOVERY SUMMARY
    {"done": {"image:1": {"media_id": 3}, "image:2": {"media_id": 4}, "article": {"post_id": 7}}}

tells the agent which roles are done and their receipts. Roles: ``image:1`` .. ``image:<images>``,
``article``, ``article:update``, ``article:seo``, ``article:read``. Receipts are JSON objects;
``image:<n>`` needs a positive integer ``media_id`` and ``article`` and ``article:read`` a positive
integer ``post_id`` (digit strings are accepted); other keys are kept. The agent takes exactly those
roles as done with those receipts - ``featured_media`` comes from ``image:1``'s ``media_id``, every
``post_id`` from ``article``'s - and continues from the first role of the script not in ``done``;
done roles are never re-issued, and roles left out are done again. Its own items before the
summary no longer count; results after it do, so a later plain "continue" re-plans from the
latest usable summary plus what happened since. A malformed summary (not one JSON object, no
``done`` object, an unknown role, a receipt without its id) ends the turn with a final answer
"The recovery summary is unusable: <why>. ..." and no call; it is then ignored. A plain message
(no summary ever given) re-plans from the agent's own items, as above.
``brains.recovery_summary(done)`` writes the text.

What it deliberately does not do: publish (approvals come later), append blocks, read the
environment, or treat a later user message as a new task (every message after the first is a
generic "continue" or a recovery summary).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from durable_harness.fakes.openai_agents.brains._jobs import bounded_int, job_factory, job_rng, parse_header
from durable_harness.fakes.openai_agents.brains._png import tiny_png
from durable_harness.fakes.openai_agents.brains._protocol import (
    BrainFactory,
    Commentary,
    FinalAnswer,
    FunctionCall,
    Output,
    Reasoning,
    SpawnSubagent,
    Step,
    output_text,
)
from durable_harness.fakes.openai_agents.brains._recovery import find_recovery
from durable_harness.fakes.openai_agents.brains._tool_schemas import ARTICLE_TOOL_NAMES, function_tools

__all__ = ["ArticleBrain", "ArticleJob", "watermark"]

_MAX_IMAGES = 20
_MAX_PREAMBLE = 5000
_FILENAME = re.compile(r"-(\d+)\.png$")


def watermark(job_id: str, task_version: str) -> str:
    """The HTML comment the harness identifies a job's post by."""
    return f"<!-- durable-harness job={job_id} version={task_version} role=article -->"


@dataclass(frozen=True)
class ArticleJob:
    """The validated parts of an article job the brain uses."""

    job_id: str
    task_version: str
    topic: str
    title: str
    focus_keyword: str
    images: int
    preamble_items: int
    research_subagent: bool = False
    overclaim: bool = False  # a failed step still ends in "the draft is ready" (an agent that overclaims)
    retry_step: str | None = None  # this role's call is issued again once it succeeded (the platform retries the step)

    @classmethod
    def parse(cls, job: Mapping[str, Any]) -> ArticleJob:
        head = parse_header(job, workload="article", brain="ArticleBrain",
                            input_fields="topic, title, focus_keyword")
        where, raw = head.where, head.input
        texts = {}
        for name in ("topic", "title", "focus_keyword"):
            value = raw.get(name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{where}: input.{name}={value!r} must be a non-empty string")
            texts[name] = value.strip()
        images = bounded_int(raw.get("images", 3), f"{where}: input.images", _MAX_IMAGES)
        preamble = bounded_int(raw.get("preamble_items", 0), f"{where}: input.preamble_items", _MAX_PREAMBLE)
        research = raw.get("research_subagent", False)
        if not isinstance(research, bool):
            raise ValueError(f"{where}: input.research_subagent={research!r} must be true or false")
        overclaim = raw.get("overclaim", False)
        if not isinstance(overclaim, bool):
            raise ValueError(f"{where}: input.overclaim={overclaim!r} must be true or false")
        retry_step = raw.get("retry_step")
        if retry_step is not None and not isinstance(retry_step, str):
            raise ValueError(f"{where}: input.retry_step={retry_step!r} must be a role such as 'image:2'")
        return cls(job_id=head.job_id, task_version=head.task_version, images=images, preamble_items=preamble,
                   research_subagent=research, overclaim=overclaim, retry_step=retry_step, **texts)

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-") or "article"


@dataclass(frozen=True)
class _Action:
    role: str
    name: str


class ArticleBrain:
    """One session's article agent. Build it through ``ArticleBrain.factory``."""

    def __init__(self, job: Mapping[str, Any], seed: int) -> None:
        self.job = ArticleJob.parse(job)
        self.seed = seed
        self._plan = [_Action(f"image:{n}", "wp_upload_media") for n in range(1, self.job.images + 1)] + [
            _Action("article", "wp_create_draft"),
            _Action("article:update", "wp_update_post"),
            _Action("article:seo", "wp_set_seo"),
            _Action("article:read", "wp_get_post"),
        ]
        self._preamble_done = False
        self._retried = False

    @classmethod
    def factory(cls, jobs: Mapping[tuple[str, str], Mapping[str, Any]], seed: int) -> BrainFactory:
        """A ``BrainFactory`` that picks the job by the session's ``job_id``/``task_version`` metadata."""
        return job_factory("article", ArticleJob.parse, cls, jobs, seed)

    @staticmethod
    def tools() -> list[dict[str, Any]]:
        """The function tools this agent calls, as a session's ``agent.tools`` must declare them."""
        return function_tools(ARTICLE_TOOL_NAMES)

    # -- thinking -----------------------------------------------------------------------------
    def think(self, step: Step) -> Sequence[Output]:
        outputs: list[Output] = []
        if not self._preamble_done:
            self._preamble_done = True
            outputs.extend(self._preamble())
        calls = {item["call_id"]: item for item in step.items if item.get("type") == "function_call"}
        for result in step.results:
            call = calls.get(result.call_id)
            role = self._role_of(call) if call is not None else None
            if role is None:
                continue
            label = f"{role} ({result.name})"
            if not result.success:
                if self.job.overclaim:  # it says what it hoped for, not what happened
                    return [*outputs, FinalAnswer("Draft is ready and awaits publish approval.")]
                return [*outputs, FinalAnswer(f"Step {label} failed: {result.error or 'no error given'}. "
                                              "The draft is not finished; say \"continue\" to retry.")]
            parsed, why = _parse(role, result.output)
            if parsed is None:
                return [*outputs, FinalAnswer(f"Step {label} returned an unusable result: {why}. "
                                              "The draft is not finished; say \"continue\" to retry.")]
        recovery = find_recovery(step.items, [a.role for a in self._plan], _parse_receipt)
        if recovery.problem is not None and recovery.problem_turn_id == step.turn_id:
            return [*outputs, FinalAnswer(f"The recovery summary is unusable: {recovery.problem}. Nothing was "
                                          "done; send a corrected RECOVERY SUMMARY, or \"continue\" to re-plan from "
                                          "my own items.")]
        done = dict(recovery.done or {})
        for role, parsed in self._progress(step.items[recovery.after:]).items():
            done.setdefault(role, parsed)
        if self.job.research_subagent and not done and not any(i.get("type") == "agent_message" for i in step.items):
            return [*outputs, self._research()]
        retry = self._platform_retry(step, calls, done)
        if retry is not None:
            return [*outputs, retry]
        for action in self._plan:
            if action.role not in done:
                return [*outputs, self._call(action, done)]
        return [*outputs, FinalAnswer(f"Draft {done['article']['post_id']} is ready and awaits publish approval.")]

    def _platform_retry(self, step: Step, calls: Mapping[str, Mapping[str, Any]],
                        done: Mapping[str, Mapping[str, Any]]) -> FunctionCall | None:
        """Once, right after ``retry_step`` succeeded, the same call again under a new call id: what a
        platform that retries a model step does. Its truth marks it, so it is not a step redone."""
        if self._retried or self.job.retry_step is None or self.job.retry_step not in done:
            return None
        last = [calls.get(r.call_id) for r in step.results]
        if not any(c is not None and self._role_of(c) == self.job.retry_step for c in last):
            return None
        self._retried = True
        action = next(a for a in self._plan if a.role == self.job.retry_step)
        call = self._call(action, {k: v for k, v in done.items() if k != action.role})
        return dataclasses.replace(call, facts={**call.facts, "platform_retry": True})

    def _progress(self, items: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
        """Role -> parsed output of its first successful, usable result, read from the items."""
        calls: dict[str, Mapping[str, Any]] = {}
        done: dict[str, dict[str, Any]] = {}
        for item in items:
            if item.get("type") == "function_call":
                calls[str(item.get("call_id"))] = item
            elif item.get("type") == "function_call_output" and item.get("status") == "completed":
                call = calls.get(str(item.get("call_id")))
                role = self._role_of(call) if call is not None else None
                if role is None or role in done:
                    continue
                parsed, _ = _parse(role, output_text(item.get("output")))
                if parsed is not None:
                    done[role] = parsed
        return done

    def _role_of(self, call: Mapping[str, Any]) -> str | None:
        name, args = call.get("name"), call.get("arguments")
        if not isinstance(args, Mapping):
            return None
        if name == "wp_upload_media":
            match = _FILENAME.search(str(args.get("filename", "")))
            return f"image:{match.group(1)}" if match else None
        return {"wp_create_draft": "article", "wp_update_post": "article:update",
                "wp_set_seo": "article:seo", "wp_get_post": "article:read"}.get(str(name))

    # -- what the agent writes ----------------------------------------------------------------
    def _rng(self, purpose: str) -> random.Random:
        return job_rng(self.job, self.seed, purpose)

    def _preamble(self) -> list[Output]:
        rng, job = self._rng("preamble"), self.job
        outputs: list[Output] = []
        for k in range(1, job.preamble_items + 1):
            angle = rng.choice(_ANGLES)
            if k % 2:
                outputs.append(Reasoning(f"Research note {k}/{job.preamble_items}: {angle} of {job.topic}."))
            else:
                outputs.append(Commentary(f"Source {k}: collected material on {angle} for '{job.focus_keyword}'."))
        return outputs

    def _research(self) -> SpawnSubagent:
        rng, job = self._rng("research"), self.job
        angles = rng.sample(_ANGLES, 3)
        return SpawnSubagent(
            name="researcher",
            instructions=f"Research {job.topic} for the article {job.title!r}: find three angles on "
                         f"'{job.focus_keyword}' and report them in one paragraph.",
            work=(Reasoning(f"Surveying sources on {job.topic}: {', '.join(angles)}."),
                  FinalAnswer(f"Research for {job.title!r}: cover {angles[0]}, {angles[1]} and {angles[2]} of "
                              f"{job.topic}; readers search for '{job.focus_keyword}' first.")))

    def image(self, n: int) -> bytes:
        """The PNG bytes of image ``n`` (1-based) of this job."""
        return tiny_png(f"{self.job.job_id}/{self.job.task_version}/image:{n}/{self.seed}")

    def content(self) -> str:
        job, rng = self.job, self._rng("content")
        sections = rng.sample(_ANGLES, 3)
        parts = [watermark(job.job_id, job.task_version),
                 f"<p>{job.title} is a practical guide to {job.topic}, centred on {job.focus_keyword}.</p>"]
        for angle in sections:
            parts.append(f"<h2>{angle.capitalize()}</h2>")
            parts.append(f"<p>When it comes to {job.focus_keyword}, {angle} of {job.topic} decides "
                         f"more than most teams expect (note {rng.randint(100, 999)}).</p>")
        return "\n".join(parts)

    def excerpt(self) -> str:
        return f"A concise look at {self.job.topic}, with {self.job.focus_keyword} at its heart."

    def _call(self, action: _Action, done: Mapping[str, Mapping[str, Any]]) -> FunctionCall:
        job = self.job

        def call(arguments: dict[str, Any], payload_sha256: tuple[str, ...] = (),
                 watermarks: tuple[str, ...] = ()) -> FunctionCall:
            return FunctionCall(action.name, arguments, job_id=job.job_id, task_version=job.task_version,
                                role=action.role, payload_sha256=payload_sha256, watermarks=watermarks)

        if action.name == "wp_upload_media":
            n = int(action.role.split(":")[1])
            data = self.image(n)
            return call({
                "filename": f"{job.slug}-{n}.png",
                "content_base64": base64.b64encode(data).decode("ascii"),
                "mime_type": "image/png",
                "alt_text": f"{job.title}: illustration {n} of {job.images}",
            }, payload_sha256=(hashlib.sha256(data).hexdigest(),))
        if action.name == "wp_create_draft":
            return call({"title": job.title, "content": self.content(), "excerpt": self.excerpt(), "slug": job.slug},
                        watermarks=(watermark(job.job_id, job.task_version),))
        post_id = done["article"]["post_id"]
        if action.name == "wp_update_post":
            args: dict[str, Any] = {"post_id": post_id, "excerpt": self.excerpt()}
            if "image:1" in done:
                args["featured_media"] = done["image:1"]["media_id"]
            return call(args)
        if action.name == "wp_set_seo":
            return call({
                "post_id": post_id, "title": f"{job.title} | {job.focus_keyword}",
                "description": f"{job.title}: what {job.focus_keyword} means for {job.topic}, step by step.",
                "focus_keyword": job.focus_keyword,
            })
        return call({"post_id": post_id})


_EXPECTED = {"image": "media_id", "article": "post_id", "article:read": "post_id"}


def _parse(role: str, output: str | None) -> tuple[dict[str, Any] | None, str]:
    """The parsed JSON object of a successful result, or None and why it is unusable."""
    try:
        value = json.loads(output) if output is not None else None
    except ValueError:
        return None, f"output {_clip(output)!r} is not JSON"
    if not isinstance(value, dict):
        return None, f"output {_clip(output)!r} is not a JSON object"
    key = _EXPECTED.get(role.split(":")[0] if role.startswith("image:") else role)
    if key is not None:
        ident = value.get(key)
        if isinstance(ident, str) and ident.isdigit():
            ident = int(ident)
        if not isinstance(ident, int) or isinstance(ident, bool) or ident <= 0:
            return None, f"output has no positive integer {key!r} (got {value.get(key)!r})"
        value = {**value, key: ident}
    return value, ""


def _parse_receipt(role: str, receipt: Any) -> tuple[dict[str, Any] | None, str]:
    """A recovery summary's receipt checked as a tool result of ``role`` would be."""
    return _parse(role, json.dumps(receipt))


def _clip(text: str | None, limit: int = 80) -> str | None:
    return text if text is None or len(text) <= limit else text[:limit] + "..."


_ANGLES = [
    "the history", "the economics", "common mistakes", "tooling", "measurement", "the workflow",
    "regulation", "the audience", "case studies", "long-term maintenance", "risks", "quick wins",
]
