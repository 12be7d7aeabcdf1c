"""The coding brain: the scripted agent of the ``coding`` workload, working inside its sandbox.

The agent does the work itself, as ``command_execution`` items that the executor really runs
(cwd ``/workspace``), one thought per line:

1. ``write src/<module>.py``, ``write tests/test_<module>.py``, ``python -m pytest``;
2. ``write <report_path>`` (the pytest output and the ``reset_count`` the tests ran at),
   ``sha256sum <report_path>``, and capture the report as a ``SessionArtifact``;
3. one function call ``deliver_result {artifact_id, path, sha256, tests{passed, output,
   reset_count}}`` - the only thing the candidate executes;
4. a successful result -> a final answer; a failed one -> a final answer naming the refusal.

**Resets.** The brain remembers the sandbox's ``reset_count`` at which each of its commands ran.
Within a turn it does not look again: a sandbox replaced after the tests ran still gets a report
and a delivery carrying the old ``tests.reset_count`` - a stale result the candidate must refuse.
At every user message it looks: work done before the current ``reset_count`` is void (the files
are gone, the tests are stale), so it rewrites the missing files, re-runs the tests, writes and
captures a fresh report and delivers again. Without a reset, a "continue" re-issues an
unanswered delivery under a new call_id; after a refused one, it captures the report again as a new
artifact (the stored one may be what was wrong: corrupted in storage) and delivers that, honestly:
the file in the sandbox is what it captures. ``deliver_result`` registers the report's
digest as a payload (``role: "report"``) with facts ``{tests_reset_count, tests_passed,
artifact_id, environment_id, path}``, so checkers can tell stale deliveries from fresh ones.
A disconnected environment parks the turn (the fake does that); the next thought resumes here.

What it deliberately does not do: run Python (the executor's pytest rule decides), start
processes, or treat a later message as a new task. Every byte derives from the job and the seed.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from durable_harness.fakes.openai_agents.brains._jobs import bounded_int, job_factory, job_rng, parse_header
from durable_harness.fakes.openai_agents.brains._protocol import (
    BrainFactory,
    CaptureArtifact,
    Commentary,
    Fail,
    FinalAnswer,
    FunctionCall,
    Output,
    Reasoning,
    RunCommand,
    Step,
)
from durable_harness.fakes.openai_agents.brains._tool_schemas import CODING_TOOL_NAMES, function_tools

__all__ = ["CodingBrain", "CodingJob"]

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MAX_FUNCTIONS = 20
_MAX_PREAMBLE = 5000
WORKSPACE = "/workspace"


@dataclass(frozen=True)
class CodingJob:
    """The validated parts of a coding job the brain uses."""

    job_id: str
    task_version: str
    module: str
    functions: tuple[str, ...]
    report_path: str                        # relative to /workspace
    preamble_items: int

    @classmethod
    def parse(cls, job: Mapping[str, Any]) -> CodingJob:
        head = parse_header(job, workload="coding", brain="CodingBrain",
                            input_fields="module, functions, report_path")
        where, raw = head.where, head.input
        module = raw.get("module")
        if not isinstance(module, str) or not _IDENT.match(module):
            raise ValueError(f"{where}: input.module={module!r} must be a Python identifier, e.g. 'slugify'")
        functions = raw.get("functions")
        if not isinstance(functions, list) or not 1 <= len(functions) <= _MAX_FUNCTIONS \
                or not all(isinstance(f, str) and _IDENT.match(f) for f in functions) \
                or len(set(functions)) != len(functions):
            raise ValueError(f"{where}: input.functions={functions!r} must be 1 to {_MAX_FUNCTIONS} distinct "
                             "Python identifiers")
        report = raw.get("report_path", "report.md")
        if not isinstance(report, str) or not report or report.startswith("/") or ".." in report.split("/"):
            raise ValueError(f"{where}: input.report_path={report!r} must be a relative path inside the "
                             "workspace, e.g. 'report.md'")
        preamble = bounded_int(raw.get("preamble_items", 0), f"{where}: input.preamble_items", _MAX_PREAMBLE)
        return cls(job_id=head.job_id, task_version=head.task_version, module=module, functions=tuple(functions),
                   report_path=report, preamble_items=preamble)

    @property
    def source_path(self) -> str:
        return f"src/{self.module}.py"

    @property
    def test_path(self) -> str:
        return f"tests/test_{self.module}.py"


class CodingBrain:
    """One session's coding agent. Build it through ``CodingBrain.factory``."""

    def __init__(self, job: Mapping[str, Any], seed: int) -> None:
        self.job = CodingJob.parse(job)
        self.seed = seed
        self._epoch = 0                                 # the reset_count the agent believes it works in
        self._emitted_at: int | None = None             # reset_count when it last emitted commands
        self._ran_at: dict[str, int] = {}               # command item id -> reset_count it ran at
        self._capturing: str | None = None              # digest of the report captured by the last thought
        self._artifact_sha: dict[str, str] = {}         # artifact id -> digest of the report it holds
        self._capture_failed: set[str] = set()
        self._refused: set[str] = set()                 # artifact ids whose delivery the candidate refused
        self._started = False

    @classmethod
    def factory(cls, jobs: Mapping[tuple[str, str], Mapping[str, Any]], seed: int) -> BrainFactory:
        """A ``BrainFactory`` that picks the job by the session's ``job_id``/``task_version`` metadata."""
        return job_factory("coding", CodingJob.parse, cls, jobs, seed)

    @staticmethod
    def tools() -> list[dict[str, Any]]:
        """The function tools this agent calls, as a session's ``agent.tools`` must declare them."""
        return function_tools(CODING_TOOL_NAMES)

    # -- thinking -----------------------------------------------------------------------------
    def think(self, step: Step) -> Sequence[Output]:
        env = step.environment
        if env is None:
            return [Fail("invalid_request", "The coding workload works inside a sandbox: create the session with "
                                            "environment {type: 'openai_hosted'}.")]
        reset_count = int(env["reset_count"])
        self._remember(step)
        outputs: list[Output] = []
        if not self._started:
            self._started = True
            outputs.extend(self._preamble())
        if step.user_text is not None:
            self._epoch = reset_count       # the user spoke: look at the sandbox as it is now
            self._capture_failed.clear()
        calls = {str(i.get("call_id")): i for i in step.items if i.get("type") == "function_call"}
        for result in step.results:
            call = calls.get(result.call_id)
            if result.name != "deliver_result" or call is None:
                continue
            args = call.get("arguments") or {}
            if result.success:
                return [*outputs, FinalAnswer(_delivered(args))]
            self._refused.add(str(args.get("artifact_id")))
            return [*outputs, FinalAnswer(f"The delivery of {args.get('path')} was refused: "
                                          f"{result.error or 'no reason given'}. Tell me if the environment was "
                                          "reset, or say \"continue\" to deliver again.")]
        work = self._plan(step, str(env["id"]), reset_count)
        if any(isinstance(o, (RunCommand, CaptureArtifact)) for o in work):
            self._emitted_at = reset_count
        return [*outputs, *work]

    def _remember(self, step: Step) -> None:
        """Attribute new command items and artifacts to what the previous thought did."""
        for item in step.items:
            if item.get("type") == "command_execution" and str(item.get("id")) not in self._ran_at:
                self._ran_at[str(item.get("id"))] = self._emitted_at if self._emitted_at is not None else -1
        if self._capturing is not None:
            new = [a for a in step.artifacts if str(a["id"]) not in self._artifact_sha
                   and a.get("path") == self._absolute(self.job.report_path)]
            for artifact in new[-1:]:
                self._artifact_sha[str(artifact["id"])] = self._capturing
            if not new:
                self._capture_failed.add(self._capturing)
            self._capturing = None

    def _plan(self, step: Step, env_id: str, reset_count: int) -> list[Output]:
        job = self.job
        valid = [i for i in step.items if i.get("type") == "command_execution"
                 and self._ran_at.get(str(i.get("id")), -1) >= self._epoch]

        def last(command: str, after: int = -1) -> int:
            """Index in ``valid`` of the last run of ``command`` after ``after`` (a write must succeed)."""
            found = [n for n, i in enumerate(valid) if i.get("command") == command and n > after
                     and (i.get("exit_code") == 0 or not command.startswith("write "))]
            return found[-1] if found else -1

        wrote = {path: last(f"write {path}") for path in (job.source_path, job.test_path)}
        missing = [path for path, index in wrote.items() if index < 0]
        if missing:
            return [Reasoning(f"Writing {', '.join(missing)} and running the tests."),
                    *[RunCommand(f"write {p}", content=self._file(p)) for p in missing],
                    RunCommand("python -m pytest")]
        tests_at = last("python -m pytest", max(wrote.values()))  # a failing run is a result too
        if tests_at < 0:
            return [RunCommand("python -m pytest")]
        tests = valid[tests_at]
        tests_rc = self._ran_at[str(tests["id"])]
        passed = tests.get("exit_code") == 0
        report = self.report(env_id, str(tests.get("output") or ""), tests_rc, passed)
        digest = hashlib.sha256(report).hexdigest()
        if last(f"write {job.report_path}", tests_at) < 0:
            self._capturing = digest
            return [Commentary(f"Tests {'passed' if passed else 'failed'}; writing {job.report_path}."),
                    RunCommand(f"write {job.report_path}", content=report),
                    RunCommand(f"sha256sum {job.report_path}"), CaptureArtifact(job.report_path)]
        artifact_id = next((str(a["id"]) for a in reversed(step.artifacts)
                            if self._artifact_sha.get(str(a["id"])) == digest and str(a["id"]) not in self._refused), None)
        if artifact_id is None:
            if digest in self._capture_failed:
                return [FinalAnswer(f"I could not publish {job.report_path} as an artifact: the file is no longer in "
                                    "the environment. Tell me if it was reset, and I will redo the work.")]
            self._capturing = digest
            return [CaptureArtifact(job.report_path)]
        path = self._absolute(job.report_path)
        arguments = {"artifact_id": artifact_id, "path": path, "sha256": digest,
                     "tests": {"passed": passed, "output": str(tests.get("output") or ""), "reset_count": tests_rc}}
        for item in step.items:
            if item.get("type") == "function_call" and item.get("name") == "deliver_result" \
                    and item.get("arguments") == arguments and item.get("status") == "completed":
                return [FinalAnswer(_delivered(arguments))]
        return [FunctionCall("deliver_result", arguments, job_id=job.job_id, task_version=job.task_version,
                             role="report", payload_sha256=(digest,),
                             facts={"tests_reset_count": tests_rc, "tests_passed": passed, "artifact_id": artifact_id,
                                    "environment_id": env_id, "path": path})]

    # -- what the agent writes ----------------------------------------------------------------
    def _rng(self, purpose: str) -> random.Random:
        return job_rng(self.job, self.seed, purpose)

    def _absolute(self, path: str) -> str:
        return f"{WORKSPACE}/{path}"

    def _preamble(self) -> list[Output]:
        rng, job = self._rng("preamble"), self.job
        out: list[Output] = [Reasoning(f"Plan: implement {', '.join(job.functions)} in {job.source_path}, test them, "
                                       f"report in {job.report_path}, deliver the report.")]
        for k in range(1, job.preamble_items + 1):
            topic = rng.choice(_TOPICS)
            out.append(Reasoning(f"Note {k}/{job.preamble_items}: {topic} for {job.module}.") if k % 2 else
                       Commentary(f"Looked into {topic} for {job.module}."))
        return out

    def _file(self, path: str) -> bytes:
        return self.source() if path == self.job.source_path else self.tests()

    def build(self) -> str:
        return f"{self._rng('build').getrandbits(48):012x}"

    def source(self) -> bytes:
        job = self.job
        parts = [f'"""{job.module}: written by the coding agent (job {job.job_id}, version {job.task_version}, '
                 f'build {self.build()})."""', "", "import re", ""]
        for fn in job.functions:
            parts += ["", _IMPLEMENTATIONS.get(fn, _GENERIC).format(fn=fn)]
        return ("\n".join(parts) + "\n").encode()

    def tests(self) -> bytes:
        job = self.job
        parts = [f"from {job.module} import {', '.join(job.functions)}", ""]
        for fn in job.functions:
            parts += ["", _TESTS.get(fn, _GENERIC_TEST).format(fn=fn)]
        return ("\n".join(parts) + "\n").encode()

    def report(self, environment_id: str, output: str, reset_count: int, passed: bool) -> bytes:
        job = self.job
        lines = [f"# Test report: {job.module}", "",
                 f"- job: {job.job_id} (version {job.task_version})", f"- environment: {environment_id}",
                 f"- tests ran at reset_count: {reset_count}", f"- result: {'passed' if passed else 'failed'}",
                 f"- build: {self.build()}", "", "## pytest output", "", "```", output, "```", ""]
        return "\n".join(lines).encode()


def _delivered(arguments: Mapping[str, Any]) -> str:
    tests = arguments.get("tests") or {}
    return (f"Delivered {arguments.get('path')} as artifact {arguments.get('artifact_id')} (sha256 "
            f"{arguments.get('sha256')}); tests {'passed' if tests.get('passed') else 'failed'} at reset_count "
            f"{tests.get('reset_count')}.")


_IMPLEMENTATIONS = {
    "slugify": 'def slugify(value):\n    """Lower-case ``value`` and join its words with hyphens."""\n'
               '    return re.sub(r"[^a-z0-9]+", "-", str(value).lower()).strip("-")\n',
    "dedupe": 'def dedupe(items):\n    """The items in first-seen order, without repeats."""\n'
              '    return list(dict.fromkeys(items))\n',
}
_GENERIC = 'def {fn}(*args):\n    """{fn}: returns its first argument (a placeholder the tests pin down)."""\n' \
           '    return args[0] if args else None\n'
_TESTS = {
    "slugify": 'def test_slugify():\n    assert slugify("Hello, World!") == "hello-world"\n',
    "dedupe": 'def test_dedupe():\n    assert dedupe([3, 1, 3, 2, 1]) == [3, 1, 2]\n',
}
_GENERIC_TEST = 'def test_{fn}():\n    assert {fn}(42) == 42\n'
_TOPICS = ["edge cases", "unicode input", "empty input", "performance", "naming", "error messages",
           "idempotence", "ordering", "type hints", "docstrings"]
