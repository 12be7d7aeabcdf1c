"""Libraries imported ahead by the zygote (``DH_PRELOAD``; SQLAlchemy's ORM by default): an instance of a
candidate that uses one does not import it again. Ground truth: a library that writes down, when
imported, which process imported it. With it preloaded, only the zygote did, however many instances
ran; without, every instance did. A bad setting is bad usage before anything runs; a library that
starts a thread when imported stops the zygote, and the run is the harness's error, saying why."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from durable_harness.harness._run import run_once
from durable_harness.harness._settings import check_settings
from durable_harness.harness.isolation import _probe
from durable_harness.harness.isolation._preload import PRELOAD_ENV, preload_modules
from durable_harness.harness.isolation._zygote import zygote, zygote_key
from durable_harness.harness.cli import main
from durable_harness.harness.scenario import load_scenario

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

REPO = Path(__file__).parents[2]
SCENARIOS = REPO / "durable_harness" / "scenarios"


def test_the_setting_names_the_modules_and_the_default_is_sqlalchemys_orm_when_installed() -> None:
    installed = importlib.util.find_spec("sqlalchemy") is not None
    assert preload_modules({}) == (["sqlalchemy.orm"] if installed else [])
    assert preload_modules({PRELOAD_ENV: ""}) == []
    assert preload_modules({PRELOAD_ENV: " json , email.parser,"}) == ["json", "email.parser"]
    assert zygote_key() != _key_with({PRELOAD_ENV: "json"})  # another zygote: it imports other things


def _key_with(env: dict[str, str]) -> str:
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        return zygote_key()


@pytest.mark.parametrize(("value", "says"), [("1json", "'1json' is not a module name"),
                                            ("no_such_library_here", "no module named 'no_such_library_here'")])
def test_a_setting_that_names_no_module_is_bad_usage(value: str, says: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match=f"{PRELOAD_ENV}: {says}"):
        check_settings({PRELOAD_ENV: value})
    monkeypatch.setenv(PRELOAD_ENV, value)
    assert main(["run", "--scenario", str(SCENARIOS / "baseline.yaml"), "--report", str(tmp_path / "r")]) == 3
    assert f"{PRELOAD_ENV}: {says}" in capsys.readouterr().err


def _library_and_candidate(folder: Path, *, thread: bool = False) -> Path:
    """A library that writes down which process imported it (and may start a thread), and a candidate
    (the reference, wrapped) that imports it. The file of importers is returned."""
    importers = folder / "importers.txt"
    (folder / "noted_library.py").write_text(
        "import os\n"
        f"with open({str(importers)!r}, 'a') as f:\n"
        "    f.write(f'{os.getpid()}\\n')\n"
        + ("import threading, time\nthreading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
           if thread else ""))
    (folder / "uses_library.py").write_text(
        "import noted_library  # noqa: F401\n"
        "from durable_harness.candidates.reference import create\n\n"
        "def make(env):\n"
        "    return create(env)\n")
    return importers


@pytest.mark.parametrize("preloaded", [True, False], ids=["preloaded", "imported-by-each-instance"])
def test_a_preloaded_library_is_imported_once_by_the_zygote(preloaded: bool, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    importers = _library_and_candidate(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(PRELOAD_ENV, "noted_library" if preloaded else "")
    instances = 0
    for name in ("baseline.yaml", "crash-after-draft-commit.yaml"):  # the second restarts its instance
        doc, _ = run_once(load_scenario(SCENARIOS / name), "uses_library:make")
        assert (doc["verdict"], doc["error"]) == ("pass", None), doc["reproduce"]
        instances += 1 + doc["timings"]["restarts"]
    pids = [int(line) for line in importers.read_text().split()]
    assert instances >= 3
    if preloaded:
        assert pids == [zygote().pid]
    else:
        assert len(pids) == len(set(pids)) >= instances and zygote().pid not in pids


def test_a_library_that_starts_a_thread_is_refused_as_the_harness_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The run's document says so (exit 3), and so does the command line, whose first act (probing
    the candidate) needs the zygote: before, that was a traceback and exit 1, a safety failure's code."""
    _library_and_candidate(tmp_path, thread=True)
    monkeypatch.setattr(_probe, "_SEEN", {})  # probed afresh, as a command line's first act does
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(PRELOAD_ENV, "noted_library")
    doc, _ = run_once(load_scenario(SCENARIOS / "baseline.yaml"), "uses_library:make")
    assert (doc["verdict"], doc["exit_code"], doc["error"]["kind"]) == ("unknown", 3, "harness"), doc["error"]
    assert "importing noted_library started a thread" in doc["error"]["message"]
    assert main(["run", "--candidate", "uses_library:make", "--scenario", str(SCENARIOS / "baseline.yaml"),
                 "--report", str(tmp_path / "r")]) == 3
    said = capsys.readouterr().err
    assert "error of the harness, not of the candidate" in said and "importing noted_library started a thread" in said
