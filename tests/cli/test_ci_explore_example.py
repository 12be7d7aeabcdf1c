"""The examples of an exploration over several machines in docs/ci.md stay runnable: the GitHub
Actions workflow and the Kubernetes Indexed Job are valid YAML, share the search out K/N over N
jobs or pods, then merge, with commands this command line accepts."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import yaml

from durable_harness.harness._cli_parser import build_parser
from durable_harness.harness._shard import parse_shard

DOC = Path(__file__).parents[2] / "docs" / "ci.md"
PARSER = build_parser({name: lambda args: 0 for name in ("run", "sweep", "validate", "list", "render", "merge", "explore",
                                                                  "serve-fake")})


def section_blocks(heading: str) -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = re.split(r"\n#{2,3} ", text.split(heading, 1)[1], maxsplit=1)[0]
    return re.findall(r"```yaml\n(.*?)```", section, re.S)


def commands(script: str, **values: str) -> list[list[str]]:
    """The durable-harness commands of a shell script, with ``values`` put for its variables."""
    for name, value in values.items():
        script = script.replace(name, value)
    lines = [line.split(" | ")[0] for line in script.splitlines() if line.strip().startswith("durable-harness ")]
    return [shlex.split(line)[1:] for line in lines]


def test_the_workflow_runs_a_matrix_of_shards_then_merges() -> None:
    [block] = section_blocks("### GitHub Actions")
    flow = yaml.safe_load(block)
    shards = int(flow["env"]["SHARDS"])
    explore, merge = flow["jobs"]["explore"], flow["jobs"]["merge"]
    assert explore["strategy"]["matrix"]["shard"] == list(range(1, shards + 1)) and not explore["strategy"]["fail-fast"]
    assert merge["needs"] == "explore" and merge["if"] == "always()"
    seen: list[Any] = []
    for job in (explore, merge):
        for step in job["steps"]:
            for argv in commands(step.get("run", ""), **{"${{ matrix.shard }}": "2", "$SHARDS": str(shards),
                                                         '"$CANDIDATE"': "reference", '"$BUDGET"': "20m",
                                                         "explore-*": "explore-1 explore-2"}):
                args = PARSER.parse_args(argv)
                seen.append(args.explore_command)
                if args.explore_command is None:
                    assert parse_shard(args.shard).label == f"2/{shards}" and str(args.report) == "explore-2"
    assert seen == [None, "merge"]
    uploads = [s for s in explore["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    assert uploads and uploads[0]["with"]["path"] == "explore-${{ matrix.shard }}"
    script = next(s["run"] for s in merge["steps"] if "explore merge" in s.get("run", ""))
    assert "GITHUB_STEP_SUMMARY" in script and "exit $code" in script


def test_the_indexed_job_runs_share_index_plus_one_then_the_merge() -> None:
    [block] = section_blocks("### Kubernetes")
    shards_job, merge_job = list(yaml.safe_load_all(block))
    spec = shards_job["spec"]
    assert spec["completionMode"] == "Indexed" and spec["completions"] == spec["parallelism"]
    [container] = spec["template"]["spec"]["containers"]
    [argv] = commands(container["args"][0], **{"$((JOB_COMPLETION_INDEX + 1))": "2"})
    args = PARSER.parse_args(argv)
    assert parse_shard(args.shard).label == f"2/{spec['completions']}" and str(args.report) == "/results/explore-2"
    [merge_container] = merge_job["spec"]["template"]["spec"]["containers"]
    [argv] = commands(merge_container["args"][0], **{"/results/explore-*": "/results/explore-1 /results/explore-2"})
    merged = PARSER.parse_args(argv)
    assert merged.explore_command == "merge" and len(merged.inputs) == 2
    assert not any(str(p).startswith(str(merged.report)) for p in merged.inputs)  # the glob does not take the merge in
