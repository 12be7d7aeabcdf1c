"""Load and validate scenario files.

A scenario is YAML checked against the scenario schema (``scenario.schema.json`` composed with
what the registries of workloads, services and fault kinds declare; see ``_schema``): unknown
keys are errors, and every error names the file, the path inside it and the offending value, on
one line, e.g. ``durable_harness/scenarios/x.yaml: faults[0].at.nth: 0 is less than the minimum of 1``. What may
reach the parser, and what it may build, is bounded (``_bounded``): files larger than 1 MiB and paths
that are not regular files are refused before they are parsed, and so are documents nested too deep
or multiplied by aliases; values shown in a message are clipped, so a message stays one short line.
A file whose bytes were found valid before, under the same schema and code, is not parsed or
checked against the schema again (``_cache``); what the schema cannot check is checked at every load.

It deliberately does not run anything; it only turns files into ``Scenario`` records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from durable_harness.harness.faults import Trigger, get_fault_kind
from durable_harness.harness.scenario._cache import cached, keep
from durable_harness.harness.scenario._model import ActionSpec, Expect, FaultSpec, Scenario, WorkloadSpec
from durable_harness.harness.scenario._read import BoundedYamlError, read_regular
from durable_harness.harness.scenario._schema import scenario_validators

if TYPE_CHECKING:  # the parser and the validator are imported for a file not found valid before (``_cache``)
    import jsonschema

__all__ = ["ScenarioError", "catalogue_dir", "load_scenario", "load_scenarios", "scenario_from_raw", "scenario_paths"]


class ScenarioError(ValueError):
    """A scenario file that cannot be used; the message is one line naming file, path and value."""


_MAX_VALUE_CHARS = 120


def catalogue_dir() -> Path:
    """The bundled catalogue (``durable_harness/scenarios/`` of the distribution)."""
    return Path(str(resources.files("durable_harness.scenarios")))


def scenario_paths(paths: Iterable[Path | str]) -> list[Path]:
    """Expand directories to their ``*.yaml`` files, sorted; keep files as given."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir() and path.suffix in (".yaml", ".yml"):
            raise ScenarioError(f"{path}: a directory, not a scenario file; give a YAML file, or a folder of them")
        if path.is_dir():
            out.extend(sorted(path.glob("*.yaml")))
        elif path.exists():
            out.append(path)
        elif (bundled := _by_id(str(raw))) is not None:
            out.append(bundled)
        else:
            raise ScenarioError(f"{path}: no such scenario file or directory, nor the id of a scenario of the "
                                "bundled catalogue (`durable-harness list` shows them)")
    return out


def _by_id(name: str) -> Path | None:
    """The bundled scenario whose id is ``name`` (``--scenario baseline``): its file is named so."""
    if not name or "/" in name or name.endswith((".yaml", ".yml")):
        return None
    found = sorted(catalogue_dir().rglob(f"{name}.yaml"))
    if len(found) != 1:
        return None
    try:
        return found[0].relative_to(Path.cwd())
    except ValueError:
        return found[0]


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
        data = read_regular(path)
    except OSError as err:
        raise ScenarioError(f"{path}: cannot read: {err.strerror or err}") from err
    except BoundedYamlError as err:
        raise ScenarioError(f"{path}: {err}") from err
    raw = cached(data)
    if raw is not None:  # these bytes parsed and passed this schema before: the rest is checked again
        _check_names(path, raw)
        return _build(path, raw)
    raw = _parse(path, data)
    scenario = scenario_from_raw(raw, path)
    keep(data, raw)
    return scenario


def _parse(path: Path, data: bytes) -> Any:
    import yaml

    from durable_harness.harness.scenario._bounded import load_bounded

    try:
        return load_bounded(data.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise ScenarioError(f"{path}: not UTF-8 text (byte {err.start}): a scenario file is YAML") from err
    except BoundedYamlError as err:
        raise ScenarioError(f"{path}: {err}") from err
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ScenarioError(f"{path}: {where}not valid YAML: {_one_line(str(problem))}") from err


def scenario_from_raw(raw: object, path: Path) -> Scenario:
    """The scenario a parsed scenario file holds (``raw``: its YAML as plain data), checked as a file
    is: the schema, then the names the schema cannot check. ``path`` names it in every message."""
    if not isinstance(raw, dict):
        raise ScenarioError(f"{path}: (top level): expected a mapping of scenario fields, got {_show(raw)}")
    fast, as_written = scenario_validators()
    if not fast.is_valid(raw):  # the same verdict; the schema as written words the message
        errors = sorted(as_written.iter_errors(raw), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
        if errors:  # (none: the schema as written is the authority, and it accepts the file)
            raise ScenarioError(f"{path}: {_describe(_deepest(errors[0]))}")
    _check_names(path, raw)
    return _build(path, raw)


def _show(value: Any) -> str:
    """``value!r``, clipped: a message names the value without repeating a megabyte of it."""
    text = repr(value)
    return text if len(text) <= _MAX_VALUE_CHARS else text[:_MAX_VALUE_CHARS - 1] + "…"


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 2 * _MAX_VALUE_CHARS else text[:2 * _MAX_VALUE_CHARS - 1] + "…"


def _deepest(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    # if/then and oneOf wrap the useful error; descend to the most specific one.
    while error.context:
        error = max(error.context, key=lambda e: len(e.absolute_path))
    return error


def _describe(error: jsonschema.ValidationError) -> str:
    where = _json_path(error.absolute_path)
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})), key=repr)
        allowed = ", ".join(sorted(error.schema.get("properties", {})))
        return f"{where}: unknown key {_show(extra[0])} (allowed here: {allowed})"
    if error.validator == "required":
        return f"{where}: {_one_line(error.message)}"
    return f"{where}: {_show(error.instance)} is invalid: {_one_line(error.message)}"


def _json_path(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        name = _show(part) if not isinstance(part, str) or len(part) > _MAX_VALUE_CHARS or not part.isprintable() else part
        out += f"[{part}]" if isinstance(part, int) else (f".{name}" if out else name)
    return out or "(top level)"


def _check_names(path: Path, raw: dict[str, Any]) -> None:
    """Cross-references the schema cannot check: named candidates must be registered."""
    from durable_harness.harness.candidate import CandidateSpecError, candidate_names

    workers = int(raw.get("workers", 1))
    for i, fault in enumerate(raw.get("faults") or []):
        _check_target(path, f"faults[{i}].at", fault.get("at") or {})
        cls = get_fault_kind(str(fault.get("kind")))
        problem = cls.param_problem(fault) or cls.scenario_problem(fault, raw)
        if problem is not None:
            field, why = problem
            raise ScenarioError(f"{path}: faults[{i}].{field}: {why}")
        needed = cls.min_workers
        if needed > workers:
            raise ScenarioError(f"{path}: faults[{i}].kind: {fault.get('kind')!r} acts on one worker while the others go on; "
                                f"give workers: {needed} or more (got {workers!r})")
        if "worker" in fault:
            named = str(fault["worker"])
            if named not in ("any", "other") and int(named.split("-")[1]) > workers:
                raise ScenarioError(f"{path}: faults[{i}].worker: {named!r} is not among the run's {workers} workers")
    if raw.get("sweep") and int(raw.get("workers", 1)) > 1:
        raise ScenarioError(f"{path}: workers: a sweep crashes one worker at every I/O point; give workers: 1 "
                            f"(got {raw['workers']!r})")
    if raw.get("sweep") and raw.get("faults"):
        raise ScenarioError(f"{path}: faults: a sweep scenario places its own crashes; give faults: [] (got {len(raw['faults'])})")
    for i, action in enumerate(raw.get("actions", [])):
        _check_target(path, f"actions[{i}].at", action.get("at") or {})
        triggers = [t for t in ("at", "when", "at_s") if t in action]
        if len(triggers) != 1:
            raise ScenarioError(f"{path}: actions[{i}]: give exactly one trigger of at, when and at_s "
                                f"(got {', '.join(triggers) or 'none'})")
        if "point" in action and "at" not in action:
            raise ScenarioError(f"{path}: actions[{i}].point: {_show(action['point'])} needs a request trigger (at)")
    try:
        known = candidate_names()
    except CandidateSpecError as err:
        raise ScenarioError(f"{path}: must_catch: {err}") from err
    for i, name in enumerate(raw.get("must_catch", [])):
        if name not in known:
            raise ScenarioError(f"{path}: must_catch[{i}]: {_show(name)} is no registered candidate; known: {', '.join(known)}")


def _build(path: Path, raw: dict[str, Any]) -> Scenario:
    w = raw["workload"]
    faults = tuple(FaultSpec(kind=f["kind"], at=_trigger(f["at"]), params={k: v for k, v in f.items() if k not in ("kind", "at")})
                   for f in raw["faults"])
    actions = tuple(
        ActionSpec(kind=a["kind"], at=_trigger(a["at"]) if "at" in a else None, when=a.get("when"),
                   delay_s=float(a.get("delay_s", 0.0)), at_s=a.get("at_s"),
                   params={k: v for k, v in a.items() if k not in ("kind", "at", "when", "delay_s", "at_s")})
        for a in raw.get("actions", []))
    e = raw["expect"]
    return Scenario(
        id=raw["id"], title=raw["title"], covers=raw["covers"],
        workload=WorkloadSpec(kind=w["kind"], job_id=w.get("job_id", f"job-{raw['id']}"),
                              task_version=w.get("task_version", "1"), params=dict(w.get("params", {})),
                              allowed_tools=tuple(w["allowed_tools"]) if "allowed_tools" in w else None),
        faults=faults,
        expect=Expect(outcome=e["outcome"], max_steps=e.get("max_steps", 500), deadline_s=float(e.get("deadline_s", 3600.0)),
                      max_redone_steps=e.get("max_redone_steps", 0), quiesce_s=float(e.get("quiesce_s", 300.0))),
        must_catch=tuple(raw["must_catch"]),
        source=path,
        seed=raw.get("seed"),
        needs=tuple(raw.get("needs", [])),
        services={name: dict(options) for name, options in (raw.get("services") or {}).items()},
        sweep=raw.get("sweep"),
        actions=actions,
        workers=int(raw.get("workers", 1)),
    )


def _trigger(at: dict[str, Any]) -> Trigger:
    return Trigger(service=at["service"], method=at.get("method", "*"), route=at.get("route", "*"), nth=at.get("nth", 1),
                   times=None if at.get("times") == "all" else at.get("times", 1), condition=at.get("while"),
                   target=at.get("target"))


def _check_target(path: Path, where: str, at: Mapping[str, Any]) -> None:
    """A target names a verb of the service the trigger names (the schema knows every service's verbs)."""
    from durable_harness.harness.services import get_service, service_names

    target = at.get("target")
    if target is None:
        return
    service = str(at.get("service"))
    verb = str(target).split(":", 1)[0]
    if service not in service_names():
        raise ScenarioError(f"{path}: {where}.service: {_show(service)} offers no targets; a target ({_show(target)}) "
                            f"needs one service of: {', '.join(n for n in service_names() if get_service(n).targets)}")
    offered = get_service(service).targets
    if verb not in offered:
        raise ScenarioError(f"{path}: {where}.target: {_show(target)} is no target of {service}; its verbs: "
                            f"{', '.join(offered) or '(none)'}")
