"""The executor's tiny shell: file commands, the documented pytest rule, processes, refusals."""

from __future__ import annotations

import hashlib
import random

import pytest

import durable_harness.fakes.executor as pkg
from durable_harness.fakes.executor import EnvironmentUnavailable, Executor, ExecutorError
from durable_harness.harness._clock import VirtualClock

SOURCE = b"import re\n\n\ndef slugify(value):\n    return value\n\n\ndef dedupe(items):\n    return items\n"
TESTS = b"from slugify import slugify, dedupe\n\n\ndef test_slugify():\n    pass\n\n\ndef test_dedupe():\n    pass\n"


@pytest.fixture
def ex() -> Executor:
    executor = Executor(VirtualClock(), random.Random(1))
    executor.create("env_1")
    executor.connect("env_1")
    return executor


def run(ex: Executor, command: str, content: bytes | None = None, cwd: str = "/workspace") -> tuple[int, str]:
    result = ex.run("env_1", command, content=content, cwd=cwd)
    return result.exit_code, result.output


def test_front_door_all_is_sorted_and_importable() -> None:
    assert pkg.__all__ == sorted(pkg.__all__)
    for name in pkg.__all__:
        assert getattr(pkg, name) is not None


# -- files ---------------------------------------------------------------------------------------
def test_write_cat_ls_and_sha256sum(ex: Executor) -> None:
    assert run(ex, "write src/app.py", b"print(1)\n") == (0, "wrote 9 bytes to /workspace/src/app.py")
    assert run(ex, "cat src/app.py") == (0, "print(1)\n")
    assert run(ex, "cat /workspace/src/app.py") == (0, "print(1)\n")
    assert run(ex, "ls") == (0, "src/")
    assert run(ex, "ls src") == (0, "app.py")
    assert run(ex, "ls src/app.py") == (0, "src/app.py")
    digest = hashlib.sha256(b"print(1)\n").hexdigest()
    assert run(ex, "sha256sum src/app.py") == (0, f"{digest}  src/app.py")
    assert run(ex, "cat app.py", cwd="/workspace/src") == (0, "print(1)\n")


def test_write_without_content_makes_an_empty_file_and_overwrites(ex: Executor) -> None:
    run(ex, "write notes.txt", b"old")
    assert run(ex, "write notes.txt") == (0, "wrote 0 bytes to /workspace/notes.txt")
    assert ex.read_file("env_1", "/workspace/notes.txt") == b""


@pytest.mark.parametrize("command, code, text", [
    ("cat missing.txt", 1, "No such file"),
    ("sha256sum missing.txt", 1, "No such file"),
    ("ls nowhere", 2, "cannot access 'nowhere'"),
    ("cat ../etc/passwd", 1, "Permission denied"),
    ("write /tmp/x", 1, "Permission denied"),
    ("cat", 2, "usage"),
    ("rm -rf /", 127, "rm: not found"),
    ("echo 'unterminated", 2, "syntax error"),
])
def test_refusals_have_shell_like_exit_codes(ex: Executor, command: str, code: int, text: str) -> None:
    exit_code, output = run(ex, command)
    assert exit_code == code and text in output


def test_an_empty_workspace_lists_as_empty(ex: Executor) -> None:
    assert run(ex, "ls") == (0, "")
    assert run(ex, "") == (0, "")


def test_cwd_outside_the_workspace_is_a_usage_error(ex: Executor) -> None:
    with pytest.raises(ExecutorError, match="outside /workspace"):
        ex.run("env_1", "ls", cwd="/etc")


# -- the pytest rule ------------------------------------------------------------------------------
def test_pytest_passes_when_every_imported_name_is_defined(ex: Executor) -> None:
    run(ex, "write src/slugify.py", SOURCE)
    run(ex, "write tests/test_slugify.py", TESTS)
    exit_code, output = run(ex, "python -m pytest")
    assert exit_code == 0
    assert output.splitlines() == ["collected 2 items", "tests/test_slugify.py ..", "2 passed in 0.01s"]
    assert run(ex, "python -m pytest tests")[0] == 0
    assert run(ex, "python -m pytest -q tests/test_slugify.py")[1].endswith("2 passed in 0.01s")


def test_pytest_fails_on_a_missing_source_or_a_missing_name(ex: Executor) -> None:
    run(ex, "write tests/test_slugify.py", TESTS)
    exit_code, output = run(ex, "python -m pytest")
    assert exit_code == 1
    assert "FAILED tests/test_slugify.py::test_slugify - ModuleNotFoundError: No module named 'slugify'" in output
    assert output.endswith("2 failed in 0.01s")
    run(ex, "write src/slugify.py", b"def slugify(value):\n    return value\n")
    exit_code, output = run(ex, "python -m pytest")
    assert exit_code == 1 and "ImportError: cannot import name 'dedupe' from 'slugify'" in output


def test_pytest_counts_files_separately(ex: Executor) -> None:
    run(ex, "write src/slugify.py", SOURCE)
    run(ex, "write tests/test_slugify.py", TESTS)
    run(ex, "write tests/test_other.py", b"from other import thing\n\n\ndef test_thing():\n    pass\n")
    exit_code, output = run(ex, "python -m pytest")
    assert exit_code == 1 and output.endswith("1 failed, 2 passed in 0.01s")


def test_pytest_only_collects_test_files_inside_a_tests_directory(ex: Executor) -> None:
    run(ex, "write test_loose.py", b"def test_x():\n    pass\n")
    assert run(ex, "python -m pytest") == (5, "collected 0 items\nno tests ran in 0.01s")
    assert run(ex, "python -m pytest nowhere")[0] == 4


def test_pytest_looks_for_src_beside_the_nearest_tests_directory(ex: Executor) -> None:
    run(ex, "write pkg/src/slugify.py", SOURCE)
    run(ex, "write pkg/tests/test_slugify.py", TESTS)
    assert run(ex, "python -m pytest pkg")[0] == 0
    assert run(ex, "python -m pytest", cwd="/workspace/pkg")[1].splitlines()[1] == "tests/test_slugify.py .."


def test_a_reimplementation_with_a_different_def_is_caught(ex: Executor) -> None:
    run(ex, "write src/slugify.py", b"slugify = lambda v: v\n\ndef dedupe(items):\n    return items\n")
    run(ex, "write tests/test_slugify.py", TESTS)
    assert run(ex, "python -m pytest")[0] == 1  # the rule reads ``def <name>(``, nothing cleverer


# -- processes ------------------------------------------------------------------------------------
def test_start_and_ps(ex: Executor) -> None:
    exit_code, output = run(ex, "start server --port 8000")
    assert exit_code == 0 and output.startswith("started server (pid ")
    pid = int(output.split("pid ")[1].rstrip(")"))
    assert run(ex, "ps") == (0, f"PID CMD\n{pid} server --port 8000")
    assert run(ex, "start")[0] == 2


def test_commands_need_a_connected_environment() -> None:
    executor = Executor(VirtualClock(), random.Random(1))
    executor.create("env_1")
    with pytest.raises(EnvironmentUnavailable, match="is ready, not connected; attach it"):
        executor.run("env_1", "ls")
    with pytest.raises(ExecutorError, match="no environment 'env_2'"):
        executor.run("env_2", "ls")


def test_durations_are_deterministic_per_seed() -> None:
    def durations(seed: int) -> list[int]:
        executor = Executor(VirtualClock(), random.Random(seed))
        executor.create("e")
        executor.connect("e")
        return [executor.run("e", c, content=b"x").duration_ms for c in ("write a", "ls", "python -m pytest")]

    assert durations(3) == durations(3)
    low = durations(3)
    assert 2 <= low[0] <= 15 and 3 <= low[1] <= 40 and 350 <= low[2] <= 1200
