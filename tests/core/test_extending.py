"""Extending the harness is one new module plus its registration: a fault kind (its parameters
declared once, the scenario schema composed from them) and a checker, shown end to end in a fresh
interpreter so the registries of other tests stay as they are."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

from durable_harness.harness.faults import fault_kinds, get_fault_kind
from durable_harness.harness.scenario._schema import scenario_schema

REPO = Path(__file__).parents[2]

PLUGIN = '''
"""A fault kind and a checker from outside the harness."""
from durable_harness.wire import Response
from durable_harness.harness.checkers import checker, passed
from durable_harness.harness.faults import Respond, RequestFault, fault_kind


@fault_kind("teapot")
class Teapot(RequestFault):
    point = "before"
    params_schema = {"note": {"type": "string", "default": "short and stout"}}

    def action(self, ctx):
        return Respond(Response(418, {"content-type": "text/plain"}, str(self.param("note")).encode()))


@checker("teapots_brewed", "liveness")
def brewed(inp):
    n = sum(1 for _i, done in inp.history.operations() if done is not None and done.data.get("status") == 418)
    return passed(f"{n} teapot answers", n)
'''

SCENARIO = '''
id: teapot-once
title: A read answered 418 once
covers: extending the fault catalogue
workload: {kind: article}
faults:
  - kind: teapot
    at: {service: openai, method: GET, route: "/agents/sessions/{id}", nth: 1}
    note: "I am a teapot"
expect: {outcome: needs_human}
must_catch: []
'''

DRIVER = '''
import json, sys
import teapot_plugin  # noqa: F401  (its registration is all it takes)
from durable_harness.harness import ScenarioError, load_scenario, run_scenario
doc = run_scenario(load_scenario(sys.argv[1]), "reference")
bad = sys.argv[1].replace(".yaml", "-bad.yaml")
try:
    load_scenario(bad)
    refused = None
except ScenarioError as err:
    refused = str(err)
print(json.dumps({"faults": doc["faults"], "checkers": {c["name"]: c for c in doc["checkers"]}, "refused": refused}))
'''


@pytest.mark.e2e  # runs scenarios end to end: `make test` runs it
def test_a_new_fault_kind_and_checker_are_one_module_plus_registration(tmp_path: Path) -> None:
    (tmp_path / "teapot_plugin.py").write_text(textwrap.dedent(PLUGIN))
    (tmp_path / "teapot.yaml").write_text(SCENARIO)
    (tmp_path / "teapot-bad.yaml").write_text(SCENARIO.replace("note:", "spout:"))
    (tmp_path / "drive.py").write_text(DRIVER)
    result = subprocess.run([sys.executable, "drive.py", "teapot.yaml"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["faults"][0]["kind"] == "teapot" and out["faults"][0]["status"] == "fired"
    assert out["checkers"]["teapots_brewed"]["count"] == 1
    assert "faults[0]: unknown key 'spout'" in out["refused"] and "note" in out["refused"]


def test_the_scenario_schema_is_composed_from_every_registered_fault_kind() -> None:
    rules = scenario_schema()["$defs"]["fault"]
    assert rules["properties"]["kind"]["enum"] == fault_kinds()
    by_kind = {r["if"]["properties"]["kind"]["const"]: r["then"]["properties"] for r in rules["allOf"]}
    for kind in fault_kinds():
        assert set(by_kind[kind]) - {"kind", "at"} == set(get_fault_kind(kind).params_schema), kind


def test_the_bundled_scenario_schema_is_a_valid_json_schema() -> None:
    # A start does not check the bundled composition against the meta-schema (0.1 s a start): this does.
    jsonschema.Draft202012Validator.check_schema(scenario_schema())


def test_a_plugin_whose_params_schema_is_not_json_schema_is_refused_at_its_first_validation(tmp_path: Path) -> None:
    (tmp_path / "bad_plugin.py").write_text(textwrap.dedent('''
        from durable_harness.harness.faults import RequestFault, fault_kind

        @fault_kind("broken")
        class Broken(RequestFault):
            point = "before"
            params_schema = {"level": {"type": "integer", "minimum": "high"}}
    '''))
    (tmp_path / "s.yaml").write_text(SCENARIO.replace("teapot", "broken").replace('    note: "I am a teapot"\n', ""))
    driver = ("import sys, bad_plugin\nfrom durable_harness.harness import load_scenario\n"
              "load_scenario(sys.argv[1])\n")
    result = subprocess.run([sys.executable, "-c", driver, str(tmp_path / "s.yaml")], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode != 0 and "SchemaError" in result.stderr and "'high' is not of type 'number'" in result.stderr
