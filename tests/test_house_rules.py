"""Standing rules of the code base, checked rather than hoped for."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[1]
FRONT_DOORS = [
    "harness", "harness.candidate", "harness.checkers", "harness.faults", "harness.scenario", "harness.workloads",
    "fakes", "fakes.executor", "fakes.openai_agents", "fakes.wordpress", "reports", "candidates.mutants", "candidates.reference",
]


@pytest.mark.parametrize("name", FRONT_DOORS)
def test_front_door_exports_a_sorted_all(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(module.__all__)
    assert exported == sorted(exported), f"{name}.__all__ is not sorted"
    for attr in exported:
        assert hasattr(module, attr) or getattr(module, "__getattr__", None), f"{name}.{attr} is exported but missing"
        getattr(module, attr)


_FORBIDDEN = {("time", "time"), ("time", "monotonic"), ("time", "sleep"), ("datetime", "now"), ("datetime", "utcnow"),
              ("random", "random"), ("random", "randint"), ("random", "choice"), ("random", "shuffle"), ("random", "seed"),
              ("uuid", "uuid4"), ("os", "urandom")}


def _core_files() -> list[Path]:
    return sorted(p for d in ("harness", "fakes") for p in (REPO / d).rglob("*.py"))


@pytest.mark.parametrize("path", _core_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_core_never_reads_the_wall_clock_or_global_random(path: Path) -> None:
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            pair = (node.func.value.id, node.func.attr)
            assert pair not in _FORBIDDEN, f"{path.name}:{node.lineno} calls {pair[0]}.{pair[1]}(); inject the clock / seeded random"


@pytest.mark.slow
def test_mypy_strict_is_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
