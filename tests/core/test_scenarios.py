"""The scenario loader: the catalogue is valid; bad files get one-line errors naming file, path and value."""

from __future__ import annotations

from pathlib import Path

import pytest

from durable_harness.harness import ScenarioError, load_scenario, load_scenarios

GOOD = """\
id: x-test
title: a test scenario
covers: something
workload: {kind: article}
faults:
  - kind: lose_response
    at: {service: wordpress, method: POST, route: /wp/v2/posts, nth: 1}
expect: {outcome: needs_human}
must_catch: [mutant:blind-retry]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return path


def test_the_catalogue_is_valid(catalogue: Path) -> None:
    scenarios = load_scenarios([catalogue])
    assert len(scenarios) >= 8
    assert len({s.id for s in scenarios}) == len(scenarios)
    for s in scenarios:
        assert s.source.stem == s.id, f"{s.source}: file name and id differ"


def test_a_good_file_loads(tmp_path: Path) -> None:
    s = load_scenario(write(tmp_path, GOOD))
    assert s.faults[0].at.route == "/wp/v2/posts" and s.must_catch == ("mutant:blind-retry",)
    assert s.default_seed == load_scenario(write(tmp_path, GOOD)).default_seed


@pytest.mark.parametrize(("change", "expected"), [
    (("nth: 1", "nth: 0"), "faults[0].at.nth: 0 is invalid"),
    (("kind: lose_response", "kind: lose_everything"), "faults[0].kind: 'lose_everything' is invalid"),
    (("title: a test scenario", "title: a test scenario\nbogus: 1"), "unknown key 'bogus'"),
    (("    at:", "    wait_ms: 5\n    at:"), "faults[0]: unknown key 'wait_ms'"),
    (("outcome: needs_human", "outcome: done"), "expect.outcome: 'done' is invalid"),
    (("mutant:blind-retry", "mutant:no-such"), "must_catch[0]: 'mutant:no-such' is no registered candidate"),
    (("id: x-test", "id: X Test"), "id: 'X Test' is invalid"),
    (("covers: something\n", ""), "'covers' is a required property"),
])
def test_bad_files_name_file_path_and_value(tmp_path: Path, change: tuple[str, str], expected: str) -> None:
    path = write(tmp_path, GOOD.replace(*change))
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert expected in message
    assert "\n" not in message


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"s\.yaml: line 2, column \d+: not valid YAML"):
        load_scenario(write(tmp_path, "id: x\n  - : [\n"))


def test_not_a_mapping_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="expected a mapping"):
        load_scenario(write(tmp_path, "- 1\n"))
    with pytest.raises(ScenarioError, match="no such scenario"):
        load_scenarios([tmp_path / "nope.yaml"])


def test_a_bundled_scenario_is_found_by_its_id(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # wherever the command is typed
    [scenario] = load_scenarios(["baseline"])
    assert scenario.id == "baseline" and scenario.source.name == "baseline.yaml"
    for name in ("basline", "baseline.yaml", "sub/baseline"):
        with pytest.raises(ScenarioError, match="nor the id of a scenario of the bundled catalogue"):
            load_scenarios([name])
    (tmp_path / "baseline").mkdir()  # a path that exists is the path, whatever the catalogue holds
    assert load_scenarios(["baseline"]) == []


def test_a_sweep_takes_no_faults(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="a sweep scenario places its own crashes"):
        load_scenario(write(tmp_path, GOOD.replace("covers: something", "covers: something\nsweep: crash_points")))
    assert load_scenario(write(tmp_path, GOOD.replace("covers: something", "covers: something\nsweep: crash_points")
                                              .replace("faults:\n  - kind: lose_response\n    at: {service: wordpress, method: POST, route: /wp/v2/posts, nth: 1}\n", "faults: []\n"))).sweep == "crash_points"


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(GOOD)
    (tmp_path / "b.yaml").write_text(GOOD)
    with pytest.raises(ScenarioError, match="already used"):
        load_scenarios([tmp_path])
