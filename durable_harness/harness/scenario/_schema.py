"""The scenario schema, composed from the registries.

The fixed part ships as ``scenario.schema.json``; what the registries know is composed in here:
each workload's ``params`` (by ``kind``), each service's options block (``services: {name: ...}``),
each fault kind's and action kind's parameters (declared once, on the kind) and which trigger
services a fault may name, and the conditions (``while:``, ``when:``) the services and workloads
offer. A kind, service or workload registered later
(a plugin, a test) appears in the schema the next time it is built: ``scenario_schema()`` is
rebuilt whenever a registry has grown.
"""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import TYPE_CHECKING, Any

from durable_harness.harness.actions import action_kinds, get_action_kind
from durable_harness.harness.faults import fault_kinds, get_fault_kind
from durable_harness.harness.services import get_service, service_names
from durable_harness.harness.workloads import get_workload, workload_names

if TYPE_CHECKING:  # jsonschema is imported when a file is checked (a file found valid before is not: ``_cache``)
    import jsonschema

__all__ = ["registry_state", "scenario_schema", "scenario_validator", "scenario_validators"]

_CACHE: dict[tuple[tuple[str, ...], ...], tuple[Any, jsonschema.Draft202012Validator]] = {}


def registry_state() -> tuple[tuple[str, ...], ...]:
    """What the registries hold now, by name: the schema is rebuilt when this changes."""
    return (tuple(workload_names()), tuple(service_names()), tuple(fault_kinds()), tuple(action_kinds()))


def _base() -> dict[str, Any]:
    text = resources.files("durable_harness.harness.scenario").joinpath("scenario.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def scenario_schema() -> dict[str, Any]:
    """The whole scenario schema as the registries stand now."""
    schema = _base()
    defs = schema["$defs"]
    workloads = workload_names()
    defs["workload"] = {
        "type": "object", "additionalProperties": False, "required": ["kind"],
        "properties": {"kind": {"enum": workloads}, "job_id": {"type": "string", "minLength": 1, "maxLength": 200},
                       "task_version": {"type": "string", "minLength": 1, "maxLength": 100}, "params": {"type": "object"},
                       "allowed_tools": {"type": "array", "uniqueItems": True, "maxItems": 100,
                                         "items": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}}},
        "allOf": [{"if": {"properties": {"kind": {"const": name}}},
                   "then": {"properties": {"params": {"type": "object", "additionalProperties": False,
                                                      "properties": copy.deepcopy(dict(get_workload(name).params_schema))}}}}
                  for name in workloads],
    }
    services = [get_service(n) for n in service_names()]
    defs["services"] = {"type": "object", "additionalProperties": False, "properties": {
        s.name: {"type": "object", "additionalProperties": False, "properties": copy.deepcopy(dict(s.options_schema))}
        for s in services}}
    channels = [s.name for s in services] + [c for s in services for c in s.channels]
    conditions = sorted({c for s in services for c in s.conditions} | {c for n in workloads for c in get_workload(n).conditions})
    at = defs["at"]["properties"]
    at["service"] = {"enum": [*channels, "*"]}
    at["while"] = {"type": "string", "pattern": "^(" + "|".join(conditions or ["(?!)"]) + r")(:[A-Za-z0-9_.-]+)?$"}
    verbs = sorted({v for s in services for v in s.targets})
    at["target"] = {"type": "string", "maxLength": 200,
                    "pattern": "^(" + "|".join(verbs or ["(?!)"]) + r")(:[A-Za-z0-9_.:-]+)?$"}
    defs["fault"] = {"type": "object", "required": ["kind", "at"], "properties": {"kind": {"enum": fault_kinds()}},
                     "allOf": [_fault_rule(kind) for kind in fault_kinds()]}
    defs["action"] = {"type": "object", "required": ["kind"], "properties": {"kind": {"enum": action_kinds()}},
                      "allOf": [_action_rule(kind, at["while"]) for kind in action_kinds()]}
    return schema


def _action_rule(kind: str, condition: dict[str, Any]) -> dict[str, Any]:
    cls = get_action_kind(kind)
    params = {name: {k: v for k, v in rule.items() if k != "default"} for name, rule in cls.params_schema.items()}
    triggers = {"at": {"$ref": "#/$defs/at"}, "point": {"enum": ["before", "after"]}, "when": condition,
                "delay_s": {"type": "number", "minimum": 0, "maximum": 1000000},
                "at_s": {"type": "number", "minimum": 0, "maximum": 1000000}}
    return {"if": {"properties": {"kind": {"const": kind}}},
            "then": {"additionalProperties": False, "properties": {"kind": True, **triggers, **params}}}


def _fault_rule(kind: str) -> dict[str, Any]:
    cls = get_fault_kind(kind)
    params = {name: {k: v for k, v in rule.items() if k != "default"} for name, rule in cls.params_schema.items()}
    at: dict[str, Any] = {"$ref": "#/$defs/at"}
    if cls.services is not None:
        at = {"allOf": [at, {"properties": {"service": {"enum": list(cls.services)}}}]}
    then: dict[str, Any] = {"additionalProperties": False, "properties": {"kind": True, "at": at, **params}}
    if cls.required_params:
        then["required"] = list(cls.required_params)
    return {"if": {"properties": {"kind": {"const": kind}}}, "then": then}


def scenario_validator() -> jsonschema.Draft202012Validator:
    """A validator for the current schema as written (its errors word the loader's messages)."""
    return scenario_validators()[1]


def scenario_validators() -> tuple[Any, jsonschema.Draft202012Validator]:
    """(fast, as written) validators for the current schema, rebuilt only when a registry changed:
    the same verdicts, the first in a third of the time (``_fastcheck``)."""
    import jsonschema

    from durable_harness.harness.scenario._fastcheck import fast_validator

    key = registry_state()
    pair = _CACHE.get(key)
    if pair is None:
        schema = scenario_schema()
        if not _all_bundled():  # the bundled composition is checked by a test; checking costs 0.1 s a start
            jsonschema.Draft202012Validator.check_schema(schema)
        pair = _CACHE[key] = (fast_validator(schema), jsonschema.Draft202012Validator(schema))
    return pair


def _all_bundled() -> bool:
    """Whether every workload, service, fault kind and action kind is this package's own (then the
    composed schema is the one the test suite checks against the meta-schema). A plugin's params
    schema is checked at the first validation of the process that registered it."""
    owners = [get_workload(n).build_job for n in workload_names()] + [get_service(n).build for n in service_names()] \
        + [get_fault_kind(k) for k in fault_kinds()] + [get_action_kind(k) for k in action_kinds()]
    return all(str(getattr(o, "__module__", "")).startswith("durable_harness.") for o in owners)
