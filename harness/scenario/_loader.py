"""Load and validate scenario files.

A scenario is YAML checked against ``scenario.schema.json`` (shipped with the package): unknown
keys are errors, and every error names the file, the path inside it and the offending value, on
one line, e.g. ``scenarios/x.yaml: faults[0].at.nth: 0 is less than the minimum of 1``.

It deliberately does not run anything; it only turns files into ``Scenario`` records.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from harness.faults import Trigger
from harness.scenario._model import Expect, FaultSpec, Scenario, WorkloadSpec

__all__ = ["ScenarioError", "catalogue_dir", "load_scenario", "load_scenarios", "scenario_paths"]


class ScenarioError(ValueError):
    """A scenario file that cannot be used; the message is one line naming file, path and value."""


def _schema() -> dict[str, Any]:
    text = resources.files("harness.scenario").joinpath("scenario.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


_VALIDATOR = jsonschema.Draft202012Validator(_schema())


def catalogue_dir() -> Path:
    """The bundled catalogue (``scenarios/`` of the distribution)."""
    return Path(str(resources.files("scenarios")))


def scenario_paths(paths: Iterable[Path | str]) -> list[Path]:
    """Expand directories to their ``*.yaml`` files, sorted; keep files as given."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            out.extend(sorted(path.glob("*.yaml")))
        elif path.exists():
            out.append(path)
        else:
            raise ScenarioError(f"{path}: no such scenario file or directory")
    return out


def load_scenarios(paths: Sequence[Path | str]) -> list[Scenario]:
    scenarios = [load_scenario(p) for p in scenario_paths(paths)]
    seen: dict[str, Path] = {}
    for s in scenarios:
        if s.id in seen:
            raise ScenarioError(f"{s.source}: id: {s.id!r} is already used by {seen[s.id]}")
        seen[s.id] = s.source
    return scenarios


def load_scenario(path: Path | str) -> Scenario:
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ScenarioError(f"{path}: cannot read: {err.strerror}") from err
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ScenarioError(f"{path}: {where}not valid YAML: {problem}") from err
    if not isinstance(raw, dict):
        raise ScenarioError(f"{path}: (top level): expected a mapping of scenario fields, got {raw!r}")
    errors = sorted(_VALIDATOR.iter_errors(raw), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if errors:
        raise ScenarioError(f"{path}: {_describe(_deepest(errors[0]))}")
    _check_names(path, raw)
    return _build(path, raw)


def _deepest(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    # if/then and oneOf wrap the useful error; descend to the most specific one.
    while error.context:
        error = max(error.context, key=lambda e: len(e.absolute_path))
    return error


def _describe(error: jsonschema.ValidationError) -> str:
    where = _json_path(error.absolute_path)
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        allowed = ", ".join(sorted(error.schema.get("properties", {})))
        return f"{where}: unknown key {extra[0]!r} (allowed here: {allowed})"
    if error.validator == "required":
        return f"{where}: {error.message}"
    return f"{where}: {error.instance!r} is invalid: {error.message}"


def _json_path(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _check_names(path: Path, raw: dict[str, Any]) -> None:
    """Cross-references the schema cannot check: named mutants must exist."""
    from candidates.mutants import mutant_names  # late: candidates import the harness

    if raw.get("sweep") and raw.get("faults"):
        raise ScenarioError(f"{path}: faults: a sweep scenario places its own crashes; give faults: [] (got {len(raw['faults'])})")
    known = mutant_names()
    for i, name in enumerate(raw.get("must_catch", [])):
        short = name.split(":", 1)[1]
        if short not in known:
            raise ScenarioError(f"{path}: must_catch[{i}]: unknown mutant {name!r}; known: {', '.join('mutant:' + k for k in known)}")


def _build(path: Path, raw: dict[str, Any]) -> Scenario:
    w = raw["workload"]
    faults = tuple(
        FaultSpec(
            kind=f["kind"],
            at=Trigger(service=f["at"]["service"], method=f["at"]["method"], route=f["at"]["route"],
                       nth=f["at"].get("nth", 1), times=f["at"].get("times", 1)),
            params={k: v for k, v in f.items() if k not in ("kind", "at")},
        )
        for f in raw["faults"]
    )
    e = raw["expect"]
    return Scenario(
        id=raw["id"], title=raw["title"], covers=raw["covers"],
        workload=WorkloadSpec(kind=w["kind"], job_id=w.get("job_id", f"job-{raw['id']}"),
                              task_version=w.get("task_version", "1"), params=dict(w.get("params", {}))),
        faults=faults,
        expect=Expect(outcome=e["outcome"], max_steps=e.get("max_steps", 500), deadline_s=float(e.get("deadline_s", 3600.0)),
                      max_redone_steps=e.get("max_redone_steps", 0)),
        must_catch=tuple(raw["must_catch"]),
        source=path,
        seed=raw.get("seed"),
        needs=tuple(raw.get("needs", [])),
        wordpress_auth_mode=raw.get("wordpress", {}).get("auth_mode", "core"),
        sweep=raw.get("sweep"),
    )
