"""Scenario files found valid before are not parsed or checked again (``scenario/_cache``): the same
records as a load from scratch, and never a verdict the file's present bytes, the schema as the
registries compose it now, or the names registered now would not give."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from durable_harness.harness import ScenarioError, load_scenario, load_scenarios
from durable_harness.harness.scenario import _cache
from durable_harness.harness.scenario._cache import CACHE_ENV, MAX_ENTRIES
from tests.core.test_scenarios import GOOD

REPO = Path(__file__).parents[2]
CATALOGUE = REPO / "durable_harness" / "scenarios"



@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(CACHE_ENV, str(folder))
    return folder / "scenarios"


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.json")) if cache.exists() else []


def test_the_catalogue_read_from_the_cache_is_the_catalogue_read_from_its_files(cache: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, "off")
    fresh = load_scenarios([CATALOGUE])
    monkeypatch.setenv(CACHE_ENV, str(cache.parent))
    first = load_scenarios([CATALOGUE])
    assert len(_entries(cache)) == len(fresh)
    again = load_scenarios([CATALOGUE])
    assert fresh == first == again


def test_a_load_from_the_cache_imports_neither_the_parser_nor_the_validator(cache: Path) -> None:
    probe = ("import json, sys; from durable_harness.harness import load_scenarios; "
             f"n = len(load_scenarios([{str(CATALOGUE)!r}])); "
             "print(json.dumps([n, sorted(m for m in ('yaml', 'jsonschema') if m in sys.modules)]))")
    env = {**os.environ, CACHE_ENV: str(cache.parent)}
    runs = [json.loads(subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                                      check=True, timeout=120).stdout) for _ in range(2)]
    assert runs[0][1] == ["jsonschema", "yaml"]  # the first reads and checks every file
    assert runs[1] == [runs[0][0], []]


def test_a_file_edited_after_it_was_kept_is_checked_again(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(GOOD)
    assert load_scenario(path).id == "x-test"
    path.write_text(GOOD.replace("nth: 1", "nth: 0"))
    with pytest.raises(ScenarioError, match=r"s\.yaml: faults\[0\]\.at\.nth: 0 is invalid"):
        load_scenario(path)
    path.write_text(GOOD)
    assert load_scenario(path).faults[0].at.nth == 1


def test_what_the_schema_cannot_check_is_checked_at_every_load(cache: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(GOOD)
    load_scenario(path)
    assert len(_entries(cache)) == 1
    from durable_harness.harness import candidate

    monkeypatch.setattr(candidate, "candidate_names", lambda: ["reference"])
    with pytest.raises(ScenarioError, match=r"must_catch\[0\]: 'mutant:blind-retry' is no registered candidate"):
        load_scenario(path)


def test_a_refused_file_is_never_kept(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    for text in (GOOD.replace("nth: 1", "nth: 0"), "id: [unclosed", GOOD.replace("mutant:blind-retry", "mutant:nobody")):
        path.write_text(text)
        with pytest.raises(ScenarioError):
            load_scenario(path)
    assert _entries(cache) == []


def test_a_corrupt_entry_is_a_miss_and_is_replaced(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(GOOD)
    first = load_scenario(path)
    [entry] = _entries(cache)
    for garbage in ("{not json", json.dumps({"v": "1", "raw": ["not", "a", "mapping"]}), json.dumps({"v": "0", "raw": {}})):
        entry.write_text(garbage)
        assert load_scenario(path) == first
        assert json.loads(entry.read_text())["raw"]["id"] == "x-test"


def test_a_registry_that_grew_is_another_schema(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(GOOD)
    load_scenario(path)
    from durable_harness.harness.scenario import _schema

    grown = _schema.registry_state() + (("a-plugin's kind",),)
    monkeypatch.setattr(_schema, "registry_state", lambda: grown)
    monkeypatch.setattr(_schema, "scenario_schema", lambda: {"$comment": "a plugin's schema"})
    load_scenario(path)
    assert len(_entries(cache)) == 2


def test_values_json_would_change_are_read_from_the_file_every_time(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(GOOD + "seed: 7\n")
    load_scenario(path)
    assert len(_entries(cache)) == 1
    _cache.keep(b"a date", {"when": __import__("datetime").date(2026, 1, 1)})
    _cache.keep(b"a number key", {1: "one"})
    assert len(_entries(cache)) == 1


def test_off_keeps_nothing_and_an_unwritable_folder_is_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(GOOD)
    monkeypatch.setenv(CACHE_ENV, "off")
    assert load_scenario(path).id == "x-test"
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(CACHE_ENV, str(blocker))
    assert load_scenario(path).id == "x-test" and load_scenario(path).id == "x-test"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "s.yaml"]


def test_past_its_bound_the_older_half_goes(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_cache, "MAX_ENTRIES", 8)
    for n in range(9):
        _cache.keep(f"file {n}".encode(), {"n": n})
    assert len(_entries(cache)) == 5
    assert MAX_ENTRIES >= 1000  # the real bound: a catalogue's worth of versions, many times over
