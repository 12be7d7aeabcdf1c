"""A plain ``pip install durable-harness`` runs every command of the command line.

The wheel is built from the working tree, installed without extras into a fresh virtual environment
(no system site-packages, so the development environment's test extra cannot hide a missing
dependency), and each sub-command runs once from a scratch folder, so the repository's sources are
not on the path: ``list``, ``validate``, two shards of ``run``, ``render`` and ``merge`` of their
reports, one point of ``sweep``, ``explore`` (one shard of two) against ``mutant:blind-retry``, which
must find and shrink a failure (exit 1), and ``explore merge`` of that shard, which says so. A
sub-command the command line gains later fails the test until it is added to the table.

One test walks the whole table in order: under pytest-xdist's work stealing the tests of one module
may land on different workers, each of which would build and install a venv of its own. The venv
costs a wheel build, an interpreter's venv and a download of the dependencies (pip's own cache keeps
it short after the first), so the test is ``slow``. What the commands find is the other tests' to
check; this one only holds that each of them works on a plain install.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]

pytestmark = pytest.mark.slow

# Variables of the development environment that must not reach the installed command line: a shared
# zygote of the test run's own (DH_ZYGOTE), its settings, a search path into the repository.
_DROPPED_PREFIXES = ("DH_", "DURABLE_HARNESS_")
_DROPPED = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP"}

BUILD_TIMEOUT_S = 600
INSTALL_TIMEOUT_S = 900
COMMAND_TIMEOUT_S = 300
# The search stops at its first finding (seconds here); its budget only bounds a search that finds
# nothing, so it is generous: a slower machine makes this test slower, never red.
EXPLORE_TIMEOUT_S = 1200


@dataclass(frozen=True)
class PlainInstall:
    """The installed command line, the folder it runs in and the environment it runs with."""

    cli: Path
    scratch: Path
    env: Mapping[str, str]
    seconds: dict[str, float] = field(default_factory=dict)


def _clean_env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(_DROPPED_PREFIXES) and k not in _DROPPED}
    env["DURABLE_HARNESS_CACHE"] = str(cache)  # validated scenarios are cached here, not in the user's cache
    return env


def _call(argv: Sequence[str | Path], *, cwd: Path, env: Mapping[str, str], timeout_s: float,
          seconds: dict[str, float], label: str) -> subprocess.CompletedProcess[str]:
    started = time.monotonic()
    try:
        done = subprocess.run([str(a) for a in argv], cwd=cwd, env=dict(env), capture_output=True, text=True,
                              timeout=timeout_s)
    except subprocess.TimeoutExpired as err:
        pytest.fail(f"{label}: no answer within {timeout_s} s: {' '.join(map(str, argv))}\n{err.stdout}\n{err.stderr}")
    seconds[label] = time.monotonic() - started
    return done


def _output(done: subprocess.CompletedProcess[str]) -> str:
    return f"$ {' '.join(done.args)}\nexit {done.returncode}\n--- stdout\n{done.stdout}--- stderr\n{done.stderr}"


def _source_tree(into: Path) -> Path:
    """What the wheel is built from, copied: building in the working tree would write build/ and
    rewrite the egg-info that an editable install of the development venv relies on."""
    src = into / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "durable_harness", src / "durable_harness", ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    return src


@pytest.fixture(scope="module")
def plain_install(tmp_path_factory: pytest.TempPathFactory) -> PlainInstall:
    root = tmp_path_factory.mktemp("plain-install")
    env = _clean_env(root / "scenario-cache")
    seconds: dict[str, float] = {}
    steps = [
        ("wheel", [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-q",
                   "-w", root / "wheels", _source_tree(root)], BUILD_TIMEOUT_S),
        ("venv", [sys.executable, "-m", "venv", root / "venv"], BUILD_TIMEOUT_S),
    ]
    for label, argv, timeout_s in steps:
        done = _call(argv, cwd=root, env=env, timeout_s=timeout_s, seconds=seconds, label=label)
        assert done.returncode == 0, _output(done)
    (wheel,) = (root / "wheels").glob("durable_harness-*.whl")
    python = root / "venv" / "bin" / "python"
    done = _call([python, "-m", "pip", "install", "--disable-pip-version-check", "-q", wheel], cwd=root, env=env,
                 timeout_s=INSTALL_TIMEOUT_S, seconds=seconds, label="install")
    assert done.returncode == 0, _output(done)
    scratch = root / "scratch"
    scratch.mkdir()
    done = _call([python, "-c", "import durable_harness; print(durable_harness.__file__)"], cwd=scratch, env=env,
                 timeout_s=COMMAND_TIMEOUT_S, seconds=seconds, label="import")
    assert Path(done.stdout.strip()).is_relative_to(root / "venv"), _output(done)  # not the repository's sources
    return PlainInstall(root / "venv" / "bin" / "durable-harness", scratch, env, seconds)


_SCENARIOS = ["--scenario", "baseline", "--scenario", "lost-draft-response"]

# (sub-command, its arguments, the exit expected, a line its output must have), in the order they run:
# render and merge read the reports the runs wrote.
COMMANDS: list[tuple[str, list[str], int, str]] = [
    ("list", [], 0, r"^\s+mutant:blind-retry\s+retries a write"),
    ("validate", [], 0, r"^\d+ scenario file\(s\) valid$"),
    ("run", [*_SCENARIOS, "--shard", "1/2", "--report", "shard-1"], 0,
     r"^1 of 1 scenarios \(shard 1/2\) ran for reference, 1 passed; exit 0"),
    ("run", [*_SCENARIOS, "--shard", "2/2", "--report", "shard-2"], 0,
     r"^1 of 1 scenarios \(shard 2/2\) ran for reference, 1 passed; exit 0"),
    ("render", ["shard-1"], 0, r"^rendered 1 run\(s\) into shard-1/summary\.md"),
    ("merge", ["shard-1", "shard-2", "--report", "merged"], 0,
     r"^merged 2 report folder\(s\): 2 of 2 scenarios ran for reference, 2 passed"),
    ("sweep", ["--point", "1:after", "--report", "sweep"], 0, r"1 of 1 points ran, 1 passed; exit 0"),
    ("explore", ["--candidate", "mutant:blind-retry", "--budget", "5m", "--shard", "1/2", "--report", "explore"], 1,
     r"^FOUND after [\d.]+ s: duplicate_(drafts|media): .+$"),
    ("explore", ["merge", "explore", "--report", "explore-merged"], 1,
     r"^FOUND by shard 1/2 after [\d.]+ s: duplicate_(drafts|media): .+$"),
]


def test_every_command_works_on_a_plain_install(plain_install: PlainInstall) -> None:
    usage = _call([plain_install.cli, "--help"], cwd=plain_install.scratch, env=plain_install.env,
                  timeout_s=COMMAND_TIMEOUT_S, seconds=plain_install.seconds, label="--help")
    match = re.search(r"\{([\w,-]+)\}", usage.stdout)
    assert usage.returncode == 0 and match, _output(usage)
    assert sorted(set(match.group(1).split(","))) == sorted({name for name, *_ in COMMANDS} | {"serve-fake"}), \
        "a sub-command is missing from COMMANDS (or COMMANDS names one the command line no longer has)"
    _serves_until_stopped(plain_install)

    for name, args, code, line in COMMANDS:
        timeout_s = EXPLORE_TIMEOUT_S if name == "explore" else COMMAND_TIMEOUT_S
        done = _call([plain_install.cli, name, *args], cwd=plain_install.scratch, env=plain_install.env,
                     timeout_s=timeout_s, seconds=plain_install.seconds, label=" ".join([name, *args]))
        assert done.returncode == code, f"expected exit {code}\n{_output(done)}"
        found = re.search(line, done.stdout, re.MULTILINE)
        assert found, f"no line matching {line!r}\n{_output(done)}"
        print(f"{plain_install.seconds[' '.join([name, *args])]:6.1f} s  {name}: {found.group(0).strip()}")
    print("".join(f"{plain_install.seconds[label]:6.1f} s  {label}\n" for label in ("wheel", "venv", "install")))


def _serves_until_stopped(plain_install: PlainInstall) -> None:
    """``serve-fake openai`` serves until it is stopped: its URL on the first line, its key in a file of
    mode 0600 (never on the terminal), exit 0 on SIGTERM."""
    env_file = plain_install.scratch / "fake-openai.env"
    child = subprocess.Popen([str(plain_install.cli), "serve-fake", "openai", "--env-file", str(env_file)],
                             cwd=plain_install.scratch, env=dict(plain_install.env), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    assert child.stdout is not None
    try:
        first = child.stdout.readline()
        assert re.match(r"^openai: http://127\.0\.0\.1:\d+/v1$", first), first
        assert (env_file.stat().st_mode & 0o777) == 0o600
        key = dict(line.split("=", 1) for line in env_file.read_text().splitlines())["OPENAI_API_KEY"]
        child.send_signal(signal.SIGTERM)
        rest, _ = child.communicate(timeout=COMMAND_TIMEOUT_S)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 0 and key not in first + rest, first + rest
    print(f"serve-fake: {first.strip()}")
