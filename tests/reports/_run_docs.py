"""run.json (run@2) and report.json (report@1) documents for the reports tests, built as plain dicts:
one builder per kind of run. Each builder returns a new document and leaves its argument alone.

Not a test module; ``conftest.py`` turns some of these into fixtures and tests import them directly.
"""

from __future__ import annotations

import copy
from typing import Any

from durable_harness.harness.checkers import checkers

Doc = dict[str, Any]
RANKS = {c.name: c.rank for c in checkers()}  # the display order the harness's registry gives

HISTORY_DIGEST = "ab" * 32
CANDIDATE_DIGEST = "1a2b3c4d5e6f" + "0" * 52
COMMIT = "4f5e6d7c8b9a" + "1" * 28
VERSION = "0.2.0"
STREAM = "GET openai /agents/sessions/{id}/events"


def build_run(scenario_id: str, *, candidate: str = "reference", digest: str | None = CANDIDATE_DIGEST,
              seed: int = 7, version: str = VERSION, commit: str | None = COMMIT) -> Doc:
    """A valid, passing run.json document; tests change what they need."""
    return {
        "format": "durable-harness/run@2",
        "harness": {"version": version, "commit": commit},
        "scenario": {
            "id": scenario_id,
            "title": f"Title of {scenario_id}",
            "path": f"durable_harness/scenarios/{scenario_id}.yaml",
            "covers": "R1",
        },
        "candidate": {"spec": candidate, "digest": digest},
        "seed": seed,
        "verdict": "pass",
        "safety": "pass",
        "liveness": "pass",
        "exit_code": 0,
        "error": None,
        "checkers": [
            _checker("duplicate_drafts", "safety"),
            _checker("duplicate_media", "safety"),
            _checker("stuck_jobs", "liveness"),
        ],
        "faults": [
            {"index": 0, "kind": "lose_response", "at": "nth POST /wp/v2/posts = 1", "point": "after_commit",
             "params": {"mode": "timeout"}, "channel": "POST wordpress /wp/v2/posts", "seen": 2, "scheduled": 1,
             "fired": 1, "status": "fired", "evidence": [{"entry": 12}]},
        ],
        "counters": {"duplicate_drafts": 0, "duplicate_media": 0, "leftover_unknowns": 0},
        "outcome": {"expected": "completed", "truth": "completed", "claimed": "completed"},
        "candidate_errors": [],
        "determinism": None,
        "sweep": None,
        "timings": {"virtual_s": 12.5, "steps": 40, "requests": 31, "restarts": 1},
        "history": {"file": "history.jsonl", "entries": 80, "digest": HISTORY_DIGEST},
        "truth": {"posts": [{"id": 7, "status": "draft"}]},
        "claims": {"phase": "done", "outcome": "completed"},
        "reproduce": f"durable-harness run --candidate {candidate} --scenario durable_harness/scenarios/{scenario_id}.yaml "
                     f"--seed {seed}",
    }


def _checker(name: str, cls: str) -> Doc:
    """A checker's entry as the harness writes it: its rank is the registry's."""
    return {"name": name, "class": cls, "verdict": "pass", "count": 0, "because": "nothing wrong", "witnesses": [],
            "rank": RANKS[name]}


def witness(index: int, summary: str, *, file: str = "history.jsonl", time_s: float = 3.25,
            kind: str = "info") -> Doc:
    return {"file": file, "index": index, "type": kind, "time_s": time_s, "process": "worker-1", "summary": summary}


def failing(run: Doc) -> Doc:
    """``run`` turned into a safety failure: two drafts were created for one job version."""
    run = copy.deepcopy(run)
    run.update(verdict="fail", safety="fail", exit_code=1)
    run["counters"]["duplicate_drafts"] = 1
    run["checkers"][0].update(
        verdict="fail", count=1, because="2 drafts for (job 1, v1, article); expected 1",
        witnesses=[witness(12, "POST /wp/v2/posts lost"),
                   witness(19, "POST /wp/v2/posts -> 201 id=8", time_s=4.5, kind="ok")],
    )
    return run


def unknown(run: Doc) -> Doc:
    """``run`` turned into an unknown: its scheduled fault saw its channel but never fired."""
    run = copy.deepcopy(run)
    run.update(verdict="unknown", safety="unknown", exit_code=2)
    run["faults"][0].update(fired=0, status="unfired", seen=3)
    run["checkers"].append({"name": "faults_fired", "class": "safety", "verdict": "unknown", "count": 1,
                            "because": "scheduled 1 fault never fired", "witnesses": []})
    return run


def errored(run: Doc, kind: str = "candidate", *, detail: str | None = None) -> Doc:
    """``run`` turned into a run that could not be judged, for an error of ``kind``."""
    messages = {
        "harness": "harness crashed while checking: KeyError: 'posts'",
        "candidate": "candidate 'pkg.mod:factory' would not start:\nImportError: no module named 'pkg'",
        "setup": "the scenario needs the capability 'cancel' (a cancel() method)",
        "interrupted": "SIGINT arrived during the run",
    }
    run = copy.deepcopy(run)
    run.update(verdict="unknown", safety="unknown", liveness="unknown", exit_code=3, checkers=[], counters={},
               error={"kind": kind, "message": messages[kind], "detail": detail}, claims=None)
    run["outcome"].update(truth=None, claimed=None)
    run["faults"][0].update(fired=0, seen=0, status="not_exercised")
    return run


def claims_null(run: Doc) -> Doc:
    """``run`` whose candidate gave no final report: a liveness failure judged with no witnesses."""
    run = copy.deepcopy(run)
    run.update(verdict="fail", liveness="fail", exit_code=2, claims=None)
    run["outcome"]["claimed"] = None
    run["counters"]["stuck_jobs"] = 1
    run["checkers"][2].update(verdict="fail", count=1, because="the candidate gave no report of job 1")
    return run


def not_exercised(run: Doc) -> Doc:
    """``run`` with a second fault, on the event stream, that the candidate never opened."""
    run = copy.deepcopy(run)
    run["faults"].append({"index": 1, "kind": "drop_stream", "at": "nth GET /events = 1", "point": "mid_stream",
                          "params": {}, "channel": STREAM, "seen": 0, "scheduled": 1, "fired": 0,
                          "status": "not_exercised", "evidence": []})
    return run


def raised(run: Doc) -> Doc:
    """``run`` turned into a failure whose candidate raised from ``step``."""
    run = failing(run)
    run["candidate_errors"] = [
        {"method": "step", "type": "KeyError", "message": "'job-1'", "history_index": 84, "time_s": 7.5,
         "frames": ["durable_harness/candidates/reference/_loop.py:40 in step", "durable_harness/candidates/reference/_ledger.py:12 in load"]},
        {"method": "report", "type": "ValueError", "message": "bad phase", "history_index": None, "time_s": 9.0,
         "frames": []},
    ]
    return run


FIRST_LINE = '{"data":{"body":{"id":8}},"index":17,"process":"worker-1","time_s":4.5,"type":"ok"}'
SECOND_LINE = '{"data":{"body":{"id":9}},"index":17,"process":"worker-1","time_s":4.5,"type":"ok"}'


def nondeterministic(run: Doc) -> Doc:
    """``run`` whose second run with the same seed wrote a different history from entry 17 on."""
    run = copy.deepcopy(run)
    run.update(verdict="unknown", liveness="unknown", exit_code=2)
    run["determinism"] = {"same": False, "digests": [HISTORY_DIGEST, "cd" * 32], "entry": 17, "first": FIRST_LINE,
                          "second": SECOND_LINE, "differs": ["data.body.id"]}
    return run


def swept(run: Doc) -> Doc:
    """``run`` as a crash-point sweep folded into one document, two of whose points failed."""
    run = failing(run)
    run["sweep"] = {"points": 34, "passed": 32, "failing": ["17:after", "18:before"]}
    for w in run["checkers"][0]["witnesses"]:
        w["file"] = "points/baseline-crash-17-after/history.jsonl"
    return run


def swept_in_real_time(run: Doc) -> Doc:
    """``run`` as a passing sweep of a process candidate, two of whose points lay past the end of
    their own run (each such point's crash is ``not_reached``)."""
    run = copy.deepcopy(run)
    run["sweep"] = {"points": 4, "passed": 4, "failing": [], "not_reached": ["52:before", "52:after"]}
    run["faults"] = [{"index": 0, "kind": "crash", "at": f"* *.* #{k}", "point": side, "params": {"point": side},
                      "channel": "* *.*", "seen": 51 if k == 52 else k, "scheduled": 1,
                      "fired": 0 if k == 52 else 1, "status": "not_reached" if k == 52 else "fired", "evidence": []}
                     for k, side in ((51, "before"), (51, "after"), (52, "before"), (52, "after"))]
    return run


def build_index(scenarios: list[str], *, candidate: str = "reference", digest: str | None = CANDIDATE_DIGEST,
                version: str = VERSION, commit: str | None = COMMIT, completed: int | None = None,
                interrupted_by: str | None = None) -> Doc:
    """A valid report.json; partial (and not finished) when ``completed`` is below the plan."""
    done = len(scenarios) if completed is None else completed
    partial = done < len(scenarios) or interrupted_by is not None
    return {
        "format": "durable-harness/report@1",
        "harness": {"version": version, "commit": commit},
        "candidate": {"spec": candidate, "digest": digest},
        "command": f"durable-harness run --candidate {candidate} --report harness-report",
        "started_at": "2026-11-30T09:46:21Z",
        "finished_at": None if partial else "2026-11-30T09:50:03Z",
        "scenarios": list(scenarios),
        "completed": done,
        "partial": partial,
        "interrupted_by": interrupted_by,
        "exit_code": None if partial else 0,
    }
