"""``durable-harness explore merge DIR...``: the report folders of ``explore --shard K/N`` as one.

Each input is a folder an ``explore`` wrote: its ``exploration.json`` and ``hypothesis/`` (the
search's example database, with ``findings.json`` in it). Together they must be shards of one
search: one candidate, workload and seed, the same search options (kinds, entries per plan, actions,
guidance, the pass from scratch, line tracing,
catalogue), one N, each K once. Anything else is refused with one message naming the folders: a
finding credited to another search would not reproduce.

The merged folder gets

* ``hypothesis/``: the union of the shards' example databases (an entry is a file named by a hash of
  its content, so copying deduplicates them), and ``findings.json`` with, for each search key, the
  smallest shrunk plan any shard kept (``Plan.size()``; ties to the shard that found first): a
  rerun of ``explore --report OUT`` tries it first, and so finds it at once;
* ``exploration.json``: plans run in all, a line per shard, the best finding (the smallest shrunk
  plan; ties by the earliest time) with its scenario text, the commands that reproduce it, and the
  exit code, as ``explore``'s: 1 a safety finding, 2 a stuck job, 0 none, 3 a shard that broke the
  harness, or a shard missing and nothing found (no verdict then: part of the search never ran).

OUT's earlier ``hypothesis/`` and ``exploration.json`` are replaced. This module reads and writes
files; it runs nothing, and draws nothing.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from durable_harness.harness._merge import MergeError, check_folders
from durable_harness.harness._shard import Shard
from durable_harness.harness.explore._plans import DEADLINE_S, Plan

__all__ = ["MergeError", "ShardResult", "load_shards", "merge_explorations", "merged_findings", "missing_shards",
           "plan_of", "search_command", "shard_lines", "union_databases"]

DATABASE = "hypothesis"
FINDINGS = "findings.json"
SUMMARY = "exploration.json"
_AGREE = (("candidate", "candidate"), ("workload", "workload"), ("seed", "seed"), ("search", "search options"))


@dataclass(frozen=True)
class ShardResult:
    """One shard's folder and what its ``exploration.json`` says."""

    folder: Path
    doc: Mapping[str, Any]
    shard: Shard

    def finding_plan(self) -> Plan | None:
        finding = self.doc.get("finding")
        return None if not finding else plan_of(finding.get("plan"), str(self.doc["workload"]))

    def found_at_s(self) -> float:
        """When this shard's first finding came (infinity: none)."""
        if self.finding_plan() is None:
            return float("inf")
        return float(self.doc.get("first_finding_s") or 0.0)

    def rank(self) -> tuple[float, ...]:
        """Better findings first: the smaller plan, then the earlier one; no finding last."""
        plan = self.finding_plan()
        return (float("inf"),) if plan is None else (*plan.size(), self.found_at_s())


def plan_of(raw: Any, workload: str) -> Plan | None:
    """A plan as ``findings.json`` and ``exploration.json`` keep it, or None when it is not one."""
    try:
        return Plan(workload, tuple(raw["entries"]), dict(raw.get("world") or {}), raw.get("origin"),
                    float(raw.get("deadline_s", DEADLINE_S)))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def search_command(doc: Mapping[str, Any], *, shard: Shard | None = None, report: Path | None = None,
                   budget: bool = False) -> str:
    """The ``explore`` command of ``doc``'s search (the same options: they make the database's key);
    with ``budget``, its budget too (with ``--max-plans``, the same search again)."""
    search = doc.get("search") or {}
    argv = ["durable-harness", "explore", "--candidate", str(doc["candidate"]), "--workload", str(doc["workload"]),
            "--seed", str(doc["seed"])]
    if search.get("kinds"):
        argv += ["--kinds", ",".join(search["kinds"])]
    if search.get("max_faults", 3) != 3:
        argv += ["--max-faults", str(search["max_faults"])]
    argv += ["--no-actions"] if search.get("actions") is False else []
    argv += ["--no-catalogue"] if search.get("catalogue") is False else []
    argv += ["--guided"] if search.get("guided") is True else []
    argv += ["--no-scratch"] if search.get("scratch") is False else []
    argv += ["--no-lines"] if search.get("lines") is False else []
    if budget and doc.get("budget_s") not in (None, 60.0):
        argv += ["--budget", f"{float(doc['budget_s']):g}s"]
    if budget and doc.get("max_plans") not in (None, 10_000):
        argv += ["--max-plans", str(doc["max_plans"])]
    argv += ["--shard", shard.label] if shard is not None and shard.count > 1 else []
    argv += ["--report", str(report)] if report is not None else []
    return shlex.join(argv)


def load_shards(inputs: Sequence[Path], out: Path) -> list[ShardResult]:
    """The shards' results, checked to be shards of one search (``MergeError`` otherwise)."""
    check_folders(inputs, out, "durable-harness explore merge shard-1 shard-2 --report merged")
    shards = [_load(folder) for folder in inputs]
    _check_agree(shards)
    return shards


def _load(folder: Path) -> ShardResult:
    path = folder / SUMMARY
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MergeError(f"{str(folder)!r} has no {SUMMARY}, so `durable-harness explore` did not finish writing it; "
                         "give the folders given to explore's --report") from None
    except (OSError, ValueError) as err:
        raise MergeError(f"{str(path)!r} cannot be read: {err}") from err
    if not isinstance(doc, dict) or not all(k in doc for k in ("candidate", "workload", "seed", "plans")):
        raise MergeError(f"{str(path)!r} is not what explore writes (candidate, workload, seed, plans)")
    if "merged" in doc:
        raise MergeError(f"{str(folder)!r} is a merge already; merge the shards' own folders")
    raw = doc.get("shard") or {"index": 1, "count": 1}
    try:
        shard = Shard(int(raw["index"]), int(raw["count"]))
    except (KeyError, TypeError, ValueError):
        raise MergeError(f"{str(path)!r}: shard {raw!r} is not {{index: K, count: N}}") from None
    return ShardResult(folder, doc, shard)


def _check_agree(shards: Sequence[ShardResult]) -> None:
    first = shards[0]
    for other in shards[1:]:
        for key, label in _AGREE:
            if other.doc.get(key) != first.doc.get(key):
                raise MergeError(f"{str(first.folder)!r} and {str(other.folder)!r} are not shards of one search: their "
                                 f"{label} differ ({first.doc.get(key)!r} vs {other.doc.get(key)!r}); rerun the odd "
                                 "shard with the others' options")
        if other.shard.count != first.shard.count:
            raise MergeError(f"{str(first.folder)!r} is shard {first.shard.label} but {str(other.folder)!r} is shard "
                             f"{other.shard.label}: shards of one split have one N")
        twin = next((s for s in shards if s is not other and s.shard == other.shard), None)
        if twin is not None:
            raise MergeError(f"{str(twin.folder)!r} and {str(other.folder)!r} are both shard {other.shard.label}; "
                             "give each shard once")


def missing_shards(shards: Sequence[ShardResult]) -> list[str]:
    count = shards[0].shard.count
    have = {s.shard.index for s in shards}
    return [f"{k}/{count}" for k in range(1, count + 1) if k not in have]


def union_databases(sources: Sequence[Path], target: Path) -> tuple[int, int]:
    """Copy every entry of the example databases ``sources`` (Hypothesis's directory layout: a folder
    per key, a file per value, both named by hashes) into ``target``; (entries copied, duplicates).
    Files beside the key folders (``findings.json``) are not entries and are left to the caller."""
    copied = duplicates = 0
    for source in sources:
        if not source.is_dir():
            continue
        for key_dir in sorted(source.iterdir()):
            if not key_dir.is_dir() or key_dir.is_symlink():
                continue
            for entry in sorted(key_dir.iterdir()):
                if not entry.is_file() or entry.is_symlink():
                    continue
                dest = target / key_dir.name / entry.name
                if dest.exists():
                    duplicates += 1
                    continue
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(entry, dest)
                copied += 1
    return copied, duplicates


def merged_findings(shards: Sequence[ShardResult]) -> dict[str, Any]:
    """For each search key of the shards' ``findings.json``, the smallest plan (ties: the shard that
    found first, then the order given)."""
    chosen: dict[str, tuple[tuple[int, int, int], Any]] = {}
    for shard in sorted(shards, key=ShardResult.found_at_s):  # stable: then in the order given
        path = shard.folder / DATABASE / FINDINGS
        if not path.exists():
            continue
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise MergeError(f"{str(path)!r} cannot be read: {err}; delete it or rerun that shard") from err
        for key, raw in (doc.items() if isinstance(doc, dict) else ()):
            plan = plan_of(raw, str(shard.doc["workload"]))
            if plan is not None and (key not in chosen or plan.size() < chosen[key][0]):
                chosen[key] = (plan.size(), raw)
    return {key: raw for key, (_size, raw) in sorted(chosen.items())}


def merge_explorations(inputs: Sequence[Path], out: Path) -> dict[str, Any]:
    """Check ``inputs``, write the merged ``hypothesis/`` into ``out`` (its earlier ``exploration.json``
    removed: it was of another search), and return the merged ``exploration.json`` document, which
    the caller writes once it has exported the finding."""
    shards = load_shards(inputs, out)
    findings = merged_findings(shards)
    out.mkdir(parents=True, exist_ok=True)
    fresh = out / f".{DATABASE}.merging.{os.getpid()}"
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir()
    entries, duplicates = union_databases([s.folder / DATABASE for s in shards], fresh)
    if findings:
        (fresh / FINDINGS).write_text(json.dumps(findings, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    (out / SUMMARY).unlink(missing_ok=True)
    shutil.rmtree(out / DATABASE, ignore_errors=True)
    fresh.rename(out / DATABASE)
    doc = _summary(shards, out)
    doc["merged"]["database"] = {"entries": entries, "duplicates": duplicates, "findings": len(findings)}
    return doc


def _summary(shards: Sequence[ShardResult], out: Path) -> dict[str, Any]:
    first = shards[0].doc
    ordered = sorted(shards, key=lambda s: s.shard.index)
    best = min((s for s in ordered if s.finding_plan() is not None), key=ShardResult.rank, default=None)
    missing = missing_shards(shards)
    counters: dict[str, Counter[str]] = {name: Counter() for name in ("kinds_tried", "kinds_fired", "at_risk")}
    for shard in ordered:
        for name, counter in counters.items():
            counter.update({str(k): int(v) for k, v in (shard.doc.get(name) or {}).items()})
    harness_errors = sum(int(s.doc.get("harness_errors") or 0) for s in ordered)
    doc: dict[str, Any] = {
        "candidate": first["candidate"], "workload": first["workload"], "seed": first["seed"],
        "search": first.get("search"), "shard": None,
        "plans": sum(int(s.doc["plans"]) for s in ordered),
        "elapsed_s": max(float(s.doc.get("elapsed_s") or 0.0) for s in ordered),  # the shards run side by side
        "first_finding_s": None if best is None else best.doc.get("first_finding_s"),
        "first_finding_plans": None if best is None else best.doc.get("first_finding_plans"),
        "harness_errors": harness_errors, **{name: dict(sorted(c.items())) for name, c in counters.items()},
        "finding": None,
        "merged": {"count": shards[0].shard.count, "missing": missing, "shards": [_line(s) for s in ordered]},
        "rerun": search_command(first, report=out),
    }
    if best is not None:
        doc["finding"] = {**best.doc["finding"], "shard": best.shard.label, "folder": str(best.folder),
                          "search": search_command(best.doc, shard=best.shard, budget=True)}
    doc["exit_code"] = _exit_code(best, harness_errors, missing)
    return doc


def _exit_code(best: ShardResult | None, harness_errors: int, missing: Sequence[str]) -> int:
    """As ``explore``'s: a shard that broke the harness wins (3), then a finding (1, or 2 for a stuck
    job); with no finding, a missing shard means part of the search never ran: no verdict (3)."""
    if harness_errors:
        return 3
    if best is not None:
        return 2 if best.doc["finding"].get("counter") == "stuck_jobs" else 1
    return 3 if missing else 0


def _line(shard: ShardResult) -> dict[str, Any]:
    plan = shard.finding_plan()
    finding = shard.doc.get("finding") or {}
    return {"shard": shard.shard.label, "folder": str(shard.folder), "plans": shard.doc["plans"],
            "elapsed_s": shard.doc.get("elapsed_s"), "first_finding_s": shard.doc.get("first_finding_s"),
            "first_finding_plans": shard.doc.get("first_finding_plans"),
            "counter": finding.get("counter"), "size": None if plan is None else list(plan.size())}


def shard_lines(doc: Mapping[str, Any]) -> list[str]:
    """One line per shard of a merged ``exploration.json``, for the terminal."""
    lines = []
    for line in doc["merged"]["shards"]:
        found = ("nothing found" if line["counter"] is None else
                 f"found {line['counter']} after {line['first_finding_plans']} plans ({line['first_finding_s']} s), "
                 f"shrunk to size {tuple(line['size'])}")
        lines.append(f"  shard {line['shard']} ({line['folder']}): {line['plans']} plans in {line['elapsed_s']} s; {found}")
    return lines
