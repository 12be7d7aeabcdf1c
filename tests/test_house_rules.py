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
    "durable_harness", "durable_harness.harness", "durable_harness.harness.candidate", "durable_harness.harness.checkers", "durable_harness.harness.faults", "durable_harness.harness.scenario", "durable_harness.harness.workloads",
    "durable_harness.fakes", "durable_harness.fakes.executor", "durable_harness.fakes.openai_agents", "durable_harness.fakes.toxiproxy", "durable_harness.fakes.wordpress", "durable_harness.reports",
    "durable_harness.candidates.mutants", "durable_harness.candidates.reference", "durable_harness.wire",
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


# The places the harness reads the wall clock, and why: the report index stamps the date a report was
# made; the progress line shows the elapsed time on the terminal (nothing it measures reaches a run);
# the real-time clock is the time of a run whose candidate is a process (compressed wall-clock time:
# the in-process path never builds it).
_WALL_CLOCK_ALLOWED = {"durable_harness/harness/_report_index.py": {("datetime", "now")},
                       "durable_harness/harness/_progress.py": {("time", "monotonic")},
                       # how many process runs go at once follows what finished runs used; no run reads it
                       "durable_harness/harness/_admission.py": {("time", "monotonic")},
                       "durable_harness/harness/_realtime.py": {("time", "monotonic"), ("time", "time")},
                       # an exploration's budget is wall-clock time; the runs it makes stay on their virtual clocks
                       "durable_harness/harness/explore/_explorer.py": {("time", "monotonic")}}


def _core_files() -> list[Path]:
    return sorted(p for d in ("harness", "fakes", "wire") for p in (REPO / "durable_harness" / d).rglob("*.py"))


@pytest.mark.parametrize("path", _core_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_core_never_reads_the_wall_clock_or_global_random(path: Path) -> None:
    tree = ast.parse(path.read_text(), str(path))
    allowed = _WALL_CLOCK_ALLOWED.get(path.relative_to(REPO).as_posix(), set())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            pair = (node.func.value.id, node.func.attr)
            assert pair not in _FORBIDDEN - allowed, \
                f"{path.name}:{node.lineno} calls {pair[0]}.{pair[1]}(); inject the clock / seeded random"


@pytest.mark.slow
def test_mypy_strict_is_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


def test_test_files_have_unique_names() -> None:
    """Test folders are not packages: pytest imports each test file by its basename, and refuses the
    second file of one name (in another folder) when a run collects both, as `make test` does."""
    seen: dict[str, Path] = {}
    for path in sorted((REPO / "tests").rglob("test_*.py")):
        if "strangers" in path.parts:
            continue
        assert path.name not in seen, f"{path.relative_to(REPO)} has the name of {seen[path.name].relative_to(REPO)}"
        seen[path.name] = path
