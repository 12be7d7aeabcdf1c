"""``durable-harness merge DIR...``: shard reports back into one report folder.

Each input must be a report folder a ``run`` or ``sweep`` wrote (its ``report.json`` and one
sub-folder per scenario), valid and unmixed on its own (``durable_harness.reports.load_report``). Together they
must be about one candidate (spec and code digest) under one harness (version and commit), no
scenario may be in two of them, and shards must be shards of the same split (one N, each K once).
Anything else is refused with one message naming the folder: merging foreign reports would credit
one candidate with another's results.

The merged folder gets a copy of every input's scenario folders (run.json, history, sweep points)
and a new ``report.json``: the inputs' plans joined, started at the earliest start, finished at the
latest finish, partial when an input is partial or shards 1..N are not all there (the missing ones
are named). Its summary, JUnit and report.html are rendered as for a run; the exit code is the
merged report's. This module does not rerun anything, change a run document, or decide a verdict.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from durable_harness.harness.verdict import worst_exit
from durable_harness.reports import REPORT_FORMAT, Report, ReportMixError, check_unmixed, load_report, validate_report

__all__ = ["MergeError", "check_folders", "merge_reports", "missing_shards"]


class MergeError(ValueError):
    """The inputs cannot be merged; the message is one line and names the folder."""


def merge_reports(inputs: Sequence[Path], out: Path, command: str,
                  prepare: Callable[[Path], None]) -> tuple[Report, list[str]]:
    """Check ``inputs``; then ``prepare(out)`` (empty it of an earlier report), copy the inputs'
    scenario folders into it and write the merged ``report.json``. Return the merged report (runs in
    report order) and the shards that are missing (``K/N``). The caller renders the outputs."""
    loaded = _load(inputs, out)
    runs = [run for _, report in loaded for run in report.runs]
    indexes = [report.index for _, report in loaded if report.index is not None]
    _check_identities(loaded)
    try:
        check_unmixed(runs, source="the merged shards")
    except ReportMixError as err:
        raise MergeError(str(err)) from err
    _check_disjoint(loaded)
    missing = missing_shards(indexes)
    index = _merged_index(indexes, command, missing)
    ran = {str(run["scenario"]["id"]) for run in runs}
    unfinished = index["partial"] or any(sid not in ran for sid in index["scenarios"])
    index["exit_code"] = worst_exit([*(int(run["exit_code"]) for run in runs), *([3] if unfinished else [])])
    validate_report(index, source="the merged report.json")
    prepare(out)
    for folder, report in loaded:
        for run in report.runs:
            name = str(run["scenario"]["id"])
            shutil.copytree(folder / name, out / name, dirs_exist_ok=False)
    target = out / "report.json"
    tmp = target.with_name(f".report.json.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(index, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, target)
    ordered = sorted(runs, key=lambda r: (str(r["scenario"]["id"]), str(r["candidate"]["spec"]), int(r["seed"])))
    return Report(index=index, runs=ordered), missing


def check_folders(inputs: Sequence[Path], out: Path, example: str) -> None:
    """The folders to merge are some (``example``: the command that says how), each given once, and
    none is, or holds, the merge's own ``out``."""
    if not inputs:
        raise MergeError(f"give the report folders to merge, e.g. {example}")
    target = out.resolve()
    for folder in inputs:
        where = folder.resolve()
        if where == target or where in target.parents:
            raise MergeError(f"{str(folder)!r} is the merge's own --report folder (or holds it); give --report a "
                             "fresh folder outside the shards")
        if sum(1 for other in inputs if other.resolve() == where) > 1:
            raise MergeError(f"{str(folder)!r} is given twice; give each shard's folder once")


def _load(inputs: Sequence[Path], out: Path) -> list[tuple[Path, Report]]:
    check_folders(inputs, out, "durable-harness merge shard-1 shard-2 --report merged")
    loaded = []
    for folder in inputs:
        try:
            report = load_report(folder)
        except (ValueError, OSError) as err:
            raise MergeError(f"{str(folder)!r} is not a report folder that can be merged: {_one_line(err)}") from err
        if report.index is None:
            raise MergeError(f"{str(folder)!r} has no report.json, so it is not a folder a run or sweep wrote; "
                             "merge the folders given to --report")
        loaded.append((folder, report))
    return loaded


def _check_identities(loaded: Sequence[tuple[Path, Report]]) -> None:
    first_folder, first = loaded[0]
    assert first.index is not None
    for folder, report in loaded[1:]:
        assert report.index is not None
        for part, label in (("candidate", "candidate"), ("harness", "harness")):
            if report.index[part] != first.index[part]:
                raise MergeError(f"{str(folder)!r} is a report of {label} {_who(report.index[part])} but "
                                 f"{str(first_folder)!r} is of {_who(first.index[part])}; merge only shards of one "
                                 "candidate run by one harness (rerun the odd shard)")


def _who(part: dict[str, Any]) -> str:
    """``mutant:blind-retry@37f22896eb23`` or ``0.2.0@fbc7e45f82fe``."""
    name, code = (part["spec"], part["digest"]) if "spec" in part else (part["version"], part["commit"])
    return f"{name}@{str(code)[:12]}" if code else f"{name} (no digest)"


def _check_disjoint(loaded: Sequence[tuple[Path, Report]]) -> None:
    owner: dict[str, Path] = {}
    for folder, report in loaded:
        assert report.index is not None
        for sid in report.index["scenarios"]:
            if sid in owner:
                raise MergeError(f"scenario {sid!r} is in both {str(owner[sid])!r} and {str(folder)!r}; shards must "
                                 "hold different slices (--shard 1/N ... N/N of one command)")
            owner[str(sid)] = folder
    shards = [report.index.get("shard") for _, report in loaded if report.index is not None]
    split = [s for s in shards if s is not None]
    if split and (len(split) != len(shards) or len({s["count"] for s in split}) != 1):
        raise MergeError("the folders are not shards of one split: " + ", ".join(
            f"{str(folder)!r} is {'shard ' + str(s['index']) + '/' + str(s['count']) if s else 'not a shard'}"
            for (folder, _), s in zip(loaded, shards)) + "; merge the N shards of one --shard K/N run")
    seen = [s["index"] for s in split]
    if len(seen) != len(set(seen)):
        raise MergeError(f"shard {max(seen, key=seen.count)}/{split[0]['count']} is given twice; give each shard once")


def missing_shards(indexes: Sequence[dict[str, Any]]) -> list[str]:
    """``K/N`` of every shard of the split that none of ``indexes`` is."""
    split = [i["shard"] for i in indexes if i.get("shard") is not None]
    if not split:
        return []
    count = split[0]["count"]
    have = {s["index"] for s in split}
    return [f"{k}/{count}" for k in range(1, count + 1) if k not in have]


def _merged_index(indexes: Sequence[dict[str, Any]], command: str, missing: Sequence[str]) -> dict[str, Any]:
    first = indexes[0]
    finished = [i["finished_at"] for i in indexes]
    interrupted = next((i["interrupted_by"] for i in indexes if i["interrupted_by"] is not None), None)
    planned = sorted({str(sid) for i in indexes for sid in i["scenarios"]})
    return {
        "format": REPORT_FORMAT, "harness": dict(first["harness"]), "candidate": dict(first["candidate"]),
        "command": command, "started_at": min((i["started_at"] for i in indexes), key=_instant),
        "finished_at": None if None in finished else max(finished, key=_instant),
        "scenarios": planned, "completed": sum(int(i["completed"]) for i in indexes),
        "partial": bool(missing) or any(i["partial"] for i in indexes), "interrupted_by": interrupted,
        "exit_code": None, "shard": None, **({"missing_shards": list(missing)} if missing else {}),
        **_real_services(indexes),
    }


def _real_services(indexes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``--service``: the shards ran against the same real services, or the merge would mix two worlds."""
    seen = {json.dumps(i.get("real_services") or {}, sort_keys=True) for i in indexes}
    if len(seen) > 1:
        raise MergeError("the shards ran against different services (" + "; ".join(
            ", ".join(f"{n} at {u}" for n, u in sorted(json.loads(s).items())) or "the fakes" for s in sorted(seen))
            + "): merge the shards of one run")
    real = indexes[0].get("real_services") or {}
    if not real:
        return {}
    skipped = {sid: why for i in indexes for sid, why in (i.get("not_applicable") or {}).items()}
    return {"real_services": dict(real), "not_applicable": skipped}


def _instant(utc: str) -> datetime:
    return datetime.fromisoformat(utc.replace("Z", "+00:00"))


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())
