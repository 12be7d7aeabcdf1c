"""Plugins: a team's fault kinds and checkers, shipped as a package, found by entry point or by
``DH_PLUGINS``, used by scenario files and judged like the harness's own; a broken plugin is named.
Each run is a process of its own: a plugin registers into the process that loads it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

REPO = Path(__file__).parents[2]
EXAMPLE = REPO / "examples" / "plugin-maintenance"


def _cli(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, **env}
    if "DH_PLUGINS" not in env:  # only the plugins a test names
        environ.pop("DH_PLUGINS", None)
    return subprocess.run([sys.executable, "-m", "durable_harness.harness.cli", *args], cwd=cwd, env=environ,
                          capture_output=True, text=True, timeout=300)


def _by_module(**env: str) -> dict[str, str]:
    return {"DH_PLUGINS": "dh_maintenance", "PYTHONPATH": str(EXAMPLE), **env}


def test_a_plugin_named_by_module_brings_its_fault_kind_and_checker(tmp_path: Path) -> None:
    listed = _cli("list", cwd=tmp_path, **_by_module())
    assert listed.returncode == 0, listed.stderr
    assert "maintenance_mode" in listed.stdout and "wordpress_request_budget" in listed.stdout
    scenarios = str(EXAMPLE / "scenarios")
    good = _cli("run", "--scenario", scenarios, "--report", str(tmp_path / "good"), cwd=tmp_path, **_by_module())
    assert good.returncode == 0, good.stdout + good.stderr
    bad = _cli("run", "--candidate", "mutant:unknown-is-failure", "--scenario", scenarios, "--report",
               str(tmp_path / "bad"), cwd=tmp_path, **_by_module())
    assert bad.returncode == 2 and "abandoned_jobs" in bad.stdout, bad.stdout  # the promise of its scenario


def test_a_plugins_checker_fails_with_a_witness_on_a_candidate_over_budget(tmp_path: Path) -> None:
    result = _cli("run", "--scenario", str(EXAMPLE / "scenarios"), "--report", str(tmp_path / "r"), cwd=tmp_path,
                  **_by_module(DH_WORDPRESS_BUDGET="10"))
    assert result.returncode == 2, result.stdout + result.stderr
    doc = json.loads((tmp_path / "r" / "wordpress-maintenance" / "run.json").read_text())
    budget = next(c for c in doc["checkers"] if c["name"] == "wordpress_request_budget")
    assert budget["verdict"] == "fail" and "beyond the budget of 10" in budget["because"]
    assert budget["witnesses"] and "request 11:" in budget["witnesses"][0]["summary"]


def test_an_installed_plugin_is_found_by_its_entry_point(tmp_path: Path) -> None:
    """An installed distribution's entry point (a dist-info on the path, as pip leaves it)."""
    site = tmp_path / "site"
    info = site / "dh_maintenance-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dh-maintenance\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[durable_harness.plugins]\nmaintenance = dh_maintenance\n")
    listed = _cli("list", cwd=tmp_path, PYTHONPATH=f"{site}{os.pathsep}{EXAMPLE}")
    assert listed.returncode == 0, listed.stderr
    assert "maintenance_mode" in listed.stdout and "wordpress_request_budget" in listed.stdout


def test_a_plugin_that_cannot_be_loaded_is_named_and_stops_the_harness(tmp_path: Path) -> None:
    result = _cli("list", cwd=tmp_path, DH_PLUGINS="no_such_plugin_module")
    assert result.returncode == 3 and "Traceback" not in result.stderr
    assert "plugin DH_PLUGINS module no_such_plugin_module cannot be loaded: ModuleNotFoundError" in result.stderr


def test_the_pytest_plugin_loads_plugins_and_names_a_broken_one(tmp_path: Path) -> None:
    (tmp_path / "wordpress-maintenance.yaml").write_text((EXAMPLE / "scenarios" / "wordpress-maintenance.yaml").read_text())
    args = [sys.executable, "-m", "pytest", "--dh-candidate", "reference", "-p", "no:cacheprovider", "-q",
            "wordpress-maintenance.yaml"]
    good = subprocess.run(args, cwd=tmp_path, env={**os.environ, **_by_module()}, capture_output=True, text=True,
                          timeout=300)
    assert good.returncode == 0 and "1 passed" in good.stdout, good.stdout[-2000:] + good.stderr[-2000:]
    broken = subprocess.run(args, cwd=tmp_path, env={**os.environ, "DH_PLUGINS": "no_such_plugin_module"},
                            capture_output=True, text=True, timeout=300)
    assert broken.returncode == 4, broken.stdout[-2000:] + broken.stderr[-2000:]  # pytest's usage error
    assert "plugin DH_PLUGINS module no_such_plugin_module cannot be loaded" in broken.stderr
