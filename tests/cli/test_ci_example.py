"""The GitHub Actions example in docs/ stays runnable: valid YAML, a matrix of shards, then a merge
job, and every durable-harness command it calls is one this command line accepts."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml

from durable_harness.harness._cli_parser import build_parser
from durable_harness.harness._shard import parse_shard

WORKFLOW = Path(__file__).parents[2] / "docs" / "examples" / "github-actions-shards.yml"


def commands(step_text: str, shard: int, shards: int) -> list[list[str]]:
    text = step_text.replace("${{ matrix.shard }}", str(shard)).replace("$SHARDS", str(shards))
    text = text.replace('"$CANDIDATE"', "reference").replace("shard-*", "shard-1 shard-2")
    return [shlex.split(line)[1:] for line in text.splitlines() if line.strip().startswith("durable-harness ")]


def test_the_workflow_shards_then_merges_with_commands_the_cli_accepts() -> None:
    flow = yaml.safe_load(WORKFLOW.read_text())
    shard_job, merge_job = flow["jobs"]["shard"], flow["jobs"]["merge"]
    shards = int(flow["env"]["SHARDS"])
    assert shard_job["strategy"]["matrix"]["shard"] == list(range(1, shards + 1))
    assert shard_job["strategy"]["fail-fast"] is False
    assert merge_job["needs"] == "shard" and merge_job["if"] == "always()"
    parser = build_parser({name: lambda args: 0 for name in ("run", "sweep", "validate", "list", "render", "merge", "explore",
                                                                  "serve-fake")})
    seen = []
    for job in (shard_job, merge_job):
        for step in job["steps"]:
            for argv in commands(step.get("run", ""), 2, shards):
                args = parser.parse_args(argv)
                seen.append(args.command)
                if args.command == "run":
                    assert parse_shard(args.shard).label == f"2/{shards}"
    assert seen == ["run", "merge"]
    merge_step = next(s for s in merge_job["steps"] if "durable-harness merge" in s.get("run", ""))
    assert "GITHUB_STEP_SUMMARY" in merge_step["run"] and re.search(r"exit \$code", merge_step["run"])
