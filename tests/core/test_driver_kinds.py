"""What runs a candidate is its ``DriverKind``, chosen from the spec in one place; a new driver is
one module plus its registration (shown end to end in a fresh interpreter, so the registry of
other tests stays as it is); and ``harness/`` has no import cycle."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from durable_harness.harness._errors import HarnessError
from durable_harness.harness.drivers import DriverKind, driver_kind, driver_kinds
from durable_harness.harness.drivers._kinds import _KINDS

REPO = Path(__file__).parents[2]
PACKAGE = REPO / "durable_harness"


@pytest.mark.parametrize(("spec", "environ", "kind"), [
    ("reference", {}, "forked"),
    ("mutant:blind-retry", {}, "forked"),
    ("package.module:factory", {}, "forked"),
    ("reference", {"DH_IN_PROCESS": "1"}, "in-process"),
    ("cmd:python3 -m durable_harness.candidates.reference.serve", {}, "process"),
    ("cmd:python3 -m durable_harness.candidates.reference.serve", {"DH_IN_PROCESS": "1"}, "process"),
])
def test_each_spec_is_taken_by_exactly_one_kind(spec: str, environ: dict[str, str], kind: str) -> None:
    assert driver_kind(spec, environ).name == kind


def test_what_follows_from_each_kind() -> None:
    kinds = {k.name: k for k in driver_kinds()}
    assert (kinds["forked"].deterministic, kinds["forked"].forks_sweep, kinds["forked"].zygote) == (True, True, True)
    assert (kinds["in-process"].forks_sweep, kinds["in-process"].zygote) == (False, False)
    process = kinds["process"]
    assert (process.real_time, process.deterministic, process.shared_database, process.parallel) == (True, False, True, "use")
    assert {k.family for k in kinds.values()} == {"python", "process"}  # what fault kinds' ``drivers`` name


def test_two_kinds_that_take_one_spec_are_the_harnesss_error_naming_them() -> None:
    twin = DriverKind("twin", "process", lambda w, s, i: None, lambda s: None, lambda s: (lambda e: None),  # type: ignore[arg-type,return-value]
                      lambda s: None, prefix="cmd:")
    _KINDS.add("twin", twin)
    try:
        with pytest.raises(HarnessError, match=r"taken by 2 driver kinds \(process, twin\)"):
            driver_kind("cmd:true")
    finally:
        _KINDS._entries.pop("twin")


STUB = '''
"""A driver of one's own: ``echo:<spec>`` runs <spec>'s factory in the harness's own process."""
from durable_harness.harness.drivers._inprocess_driver import InProcessDriver
from durable_harness.harness.candidate._spec import python_digest, python_factory, python_precheck
from durable_harness.harness.drivers import DriverKind, register_driver_kind

PREFIX = "echo:"


def _make(world, spec, worker_id):
    return InProcessDriver(python_factory(spec[len(PREFIX):]), world.env, world.clock, world.history, worker_id=worker_id)


register_driver_kind(DriverKind(
    "echo", "python", _make, lambda spec: python_precheck(spec[len(PREFIX):]),
    lambda spec: python_factory(spec[len(PREFIX):]), lambda spec: python_digest(spec[len(PREFIX):]), prefix=PREFIX))
'''

DRIVE = '''
import json, sys
import echo_driver  # noqa: F401  (its registration is all it takes)
from durable_harness.harness import load_scenario, run_scenario
from durable_harness.harness.drivers import driver_kind
doc = run_scenario(load_scenario(sys.argv[1]), "echo:reference")
print(json.dumps({"kind": driver_kind("echo:reference").name, "verdict": doc["verdict"],
                  "spec": doc["candidate"]["spec"], "digest": doc["candidate"]["digest"],
                  "python": driver_kind("reference").name}))
'''


@pytest.mark.e2e  # runs a scenario end to end: `make test` runs it
def test_a_new_driver_is_one_module_plus_its_registration(tmp_path: Path) -> None:
    (tmp_path / "echo_driver.py").write_text(textwrap.dedent(STUB))
    (tmp_path / "drive.py").write_text(DRIVE)
    baseline = PACKAGE / "scenarios" / "baseline.yaml"
    result = subprocess.run([sys.executable, "drive.py", str(baseline)], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out == {**out, "kind": "echo", "verdict": "pass", "spec": "echo:reference", "python": "forked"}
    assert isinstance(out["digest"], str) and len(out["digest"]) == 64


def _module_imports(path: Path, name: str, modules: set[str]) -> set[str]:
    """The modules of the package that ``path`` imports when it is imported (not inside functions,
    not for type checking only), with the packages whose ``__init__`` that runs."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.parse(path.read_text("utf-8")).body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for imp in [node] if isinstance(node, (ast.Import, ast.ImportFrom)) else (
                [n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))]
                if isinstance(node, (ast.If, ast.Try)) else []):
            if isinstance(imp, ast.Import):
                targets = [a.name for a in imp.names]
            else:
                base = imp.module or ""
                if imp.level:
                    parts = package.split(".")[:len(package.split(".")) - imp.level + 1]
                    base = ".".join(parts + ([imp.module] if imp.module else []))
                targets = [base] + [f"{base}.{a.name}" for a in imp.names]
            for target in targets:
                parts = target.split(".")
                found |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return {m for m in found if m in modules and m != name and not name.startswith(m + ".")}


def _cycles(root: Path, folder: Path) -> tuple[int, list[list[str]]]:
    """(modules, import cycles) of the modules under ``folder``, named from ``root``."""
    paths = {".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): p
             for p in folder.rglob("*.py")}
    graph = {name: _module_imports(path, name, set(paths)) for name, path in paths.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles: list[list[str]] = []

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for dep in sorted(graph[name]):
            if state.get(dep) == 1:
                cycles.append(path[path.index(dep):] + [dep])
            elif dep not in state:
                visit(dep, [*path, dep])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return len(graph), cycles


def test_the_harness_has_no_import_cycle() -> None:
    modules, cycles = _cycles(REPO, PACKAGE / "harness")
    assert modules > 100 and cycles == [], "\n".join(" -> ".join(c) for c in cycles)


def test_the_cycle_check_finds_a_cycle(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg import b\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import c\nfrom pkg.a import x\n")
    (pkg / "c.py").write_text("def f():\n    from pkg import a\n")  # inside a function: no cycle
    assert _cycles(tmp_path, pkg) == (4, [["pkg.a", "pkg.b", "pkg.a"]])
