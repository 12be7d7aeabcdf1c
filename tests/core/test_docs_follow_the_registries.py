"""What the registries and the code hold is in the docs: every fault kind has its row in
docs/scenarios.md, every checker its row in the README's counters, every action kind its name in
docs/scenarios.md, every service option its row among the scenario fields, every driver kind its
name in docs/contract.md, and every environment variable the
harness reads its row in docs/ci.md."""

from __future__ import annotations

import re
from pathlib import Path

from durable_harness.harness.actions import action_kinds
from durable_harness.harness.checkers import checker_names
from durable_harness.harness.drivers import driver_kinds
from durable_harness.harness.faults._registry import fault_kinds
from durable_harness.harness.services._registry import services

REPO = Path(__file__).parents[2]


def test_every_fault_kind_has_a_row_in_the_scenario_docs() -> None:
    docs = (REPO / "docs" / "scenarios.md").read_text()
    assert [k for k in fault_kinds() if f"| `{k}` |" not in docs] == []


def test_every_checker_has_a_row_in_the_readme() -> None:
    readme = (REPO / "README.md").read_text()
    assert [c for c in checker_names() if f"| `{c}`" not in readme] == []


def test_every_action_kind_is_named_in_the_scenario_docs() -> None:
    docs = (REPO / "docs" / "scenarios.md").read_text()
    assert [a for a in action_kinds() if f"`{a}`" not in docs] == []


def test_every_service_option_has_a_row_in_the_scenario_fields() -> None:
    fields = (REPO / "docs" / "scenarios.md").read_text().split("## Fields", 1)[1].split("\n## ", 1)[0]
    options = [f"services.{spec.name}.{option}" for spec in services() for option in spec.options_schema]
    assert len(options) >= 5 and [o for o in options if f"| `{o}` |" not in fields] == []


def test_every_driver_kind_is_named_in_the_contract() -> None:
    drivers = (REPO / "docs" / "contract.md").read_text().split("## Drivers", 1)[1].split("\n## ", 1)[0]
    assert [k.name for k in driver_kinds() if f"`{k.name}`" not in drivers] == []


def test_every_environment_variable_the_harness_reads_has_a_row_in_the_ci_docs() -> None:
    table = (REPO / "docs" / "ci.md").read_text().split("## Environment variables", 1)[-1]
    read = set()
    for path in (REPO / "durable_harness").rglob("*.py"):
        read |= set(re.findall(r"\"((?:DH|DURABLE_HARNESS)_[A-Z0-9_]+)\"", path.read_text()))
    assert sorted(v for v in read if f"`{v}`" not in table) == []
