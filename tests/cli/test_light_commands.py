"""The light commands stay light: ``--help`` imports no part of the engine, and ``list`` and
``validate`` resolve every candidate name (``must_catch`` names mutants) without importing a control
plane, the SDK, a fake or the gate. Time is the benchmark's business (``benchmarks/bench_speed.py --rows cli``); what
is held here is what gets imported."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from durable_harness.candidates.mutant_family import BUGS, FAMILY, NAMES
from durable_harness.candidates.mutants import MUTANTS, mutant_names
from durable_harness.harness.candidate import describe_candidate, resolve_candidate

_PROBE = """
import contextlib, io, json, sys
from durable_harness.harness.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as stop:
        code = stop.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _imported(*argv: str) -> tuple[int, set[str]]:
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, timeout=120, check=True)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return int(out["code"]), set(out["modules"])


def _heavy(modules: set[str], *prefixes: str) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes))


def test_help_imports_no_part_of_the_engine() -> None:
    code, modules = _imported("--help")
    assert code == 0
    assert not _heavy(modules, "openai", "httpx", "jsonschema", "yaml", "durable_harness.fakes",
                      "durable_harness.harness._run", "durable_harness.harness.scenario", "durable_harness.candidates")


@pytest.mark.parametrize("command", ["list", "validate"])
def test_list_and_validate_import_no_control_plane(command: str) -> None:
    code, modules = _imported(command)
    assert code == 0
    assert not _heavy(modules, "openai", "durable_harness.candidates.reference._plane", "durable_harness.candidates.mutants")
    # nor a fake, the gate, an HTTP client or the e-mail parser: the schema needs only the specs' options
    assert not _heavy(modules, "httpx", "respx", "email.parser", "durable_harness.harness._gate",
                      "durable_harness.fakes.openai_agents", "durable_harness.fakes.approvals",
                      "durable_harness.fakes.wordpress._service", "durable_harness.fakes._asgi")


def test_the_family_declares_exactly_the_registered_mutants_and_their_bugs() -> None:
    assert list(NAMES) == mutant_names() and sorted(FAMILY) == mutant_names() and len(FAMILY) == len(MUTANTS)
    assert all(MUTANTS[name].bug == BUGS[name] for name in NAMES)
    assert describe_candidate("mutant:blind-retry") == BUGS["blind-retry"]
    assert resolve_candidate("mutant:blind-retry") == MUTANTS["blind-retry"].create
    with pytest.raises(KeyError):
        FAMILY["no-such-mutant"]
