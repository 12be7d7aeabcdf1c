"""Fuzzed scenario files: every mutation of a catalogue file ends in a valid scenario or in one line
naming the file (exit 3 from the command line), never in a traceback, a hang or a blown memory.

Mutations are drawn from the catalogue both as text (tokens that YAML treats specially: anchors,
aliases, tags, brackets, document markers, huge numbers, control characters; cut and repeated
spans) and as structure (a field replaced by a value of another type, a non-finite or huge number,
a deep or aliased structure; a key dropped or added). Hostile shapes that a random draw rarely
reaches (a billion laughs, deep nesting, a device, a FIFO, a directory) have their own tests.
"""

from __future__ import annotations

import contextlib
import copy
import io
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from durable_harness.harness import ScenarioError, Scenario, load_scenario
from durable_harness.harness.cli import main
from durable_harness.harness.scenario._bounded import MAX_DEPTH, MAX_NODES
from durable_harness.harness.scenario._schema import scenario_validators

CATALOGUE = sorted((Path(__file__).parents[2] / "durable_harness" / "scenarios").glob("*.yaml"))
TEXTS = {path.name: path.read_text("utf-8") for path in CATALOGUE}
FUZZ_EXAMPLES = 200

TOKENS = ["&a ", "*a", "*b", "[", "]", "{", "}", ": ", "- ", "? ", "!!python/object/apply:os.system ['true'] ",
          "!!binary ", "!!set ", "!!timestamp ", "\t", "'", '"', "\\", "%YAML 1.1\n", "%TAG ! x\n", "---\n", "...\n",
          "9" * 5000, "1e400", "-.inf", ".nan", "~", "<<: *a\n", "\x00", "\x07", "\ufeff", "\u2028", "2001-12-14",
          "0x7fffffffffffffffffff", "&a [*a]", "|\n", ">-\n", "#", "\n  ", "é", "\U0001f600"]
JUNK: list[Any] = [None, True, 0, -1, 2**64, 10**40, 1.5, -0.0, float("nan"), float("inf"), "", "x" * 5000, [], {},
                   [[[[[]]]]], {"a": {"b": 1}}, "2001-12-14", "\x00", "é" * 3, 1e308, ["x"] * 50, {1: 2}, {None: 1}]


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            found += _paths(value, (*prefix, i))
    return found


@st.composite
def structural(draw: st.DrawFn) -> str:
    doc = yaml.safe_load(TEXTS[draw(st.sampled_from(sorted(TEXTS)))])
    for _ in range(draw(st.integers(1, 3))):
        doc = copy.deepcopy(doc)
        path = draw(st.sampled_from(_paths(doc)))
        junk = draw(st.sampled_from(JUNK) | st.text(max_size=30) | st.integers() | st.floats())
        if not path:
            doc = junk
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        action = draw(st.sampled_from(["replace", "drop", "add"]))
        if action == "replace" or not isinstance(parent, dict):
            parent[path[-1]] = junk
        elif action == "drop":
            del parent[path[-1]]
        else:
            parent[draw(st.sampled_from(["bogus", 1, "x" * 300, "kind", "at", "nth"]))] = junk
    try:
        return yaml.safe_dump(doc, allow_unicode=draw(st.booleans()))
    except yaml.YAMLError:  # PyYAML cannot write every value (a key that is a dict); write it as text
        return repr(doc)


@st.composite
def textual(draw: st.DrawFn) -> str:
    text = TEXTS[draw(st.sampled_from(sorted(TEXTS)))]
    for _ in range(draw(st.integers(1, 5))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "insert", "cut", "repeat", "noise"]))
        if action == "insert":
            text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at:]
        elif action == "cut":
            text = text[:at] + text[at + draw(st.integers(1, 40)):]
        elif action == "repeat":
            end = min(len(text), at + draw(st.integers(1, 60)))
            text = text[:at] + text[at:end] * draw(st.integers(2, 40)) + text[at:]
        else:
            text = text[:at] + draw(st.text(max_size=8)) + text[at:]
    return text


def _one_line_error_or_scenario(path: Path) -> str:
    """``valid`` or ``refused``, after checking the loader's and the command line's answers agree."""
    try:
        scenario = load_scenario(path)
    except ScenarioError as err:
        outcome = "refused"
        message = str(err)
        assert message.startswith(f"{path}: "), message
        assert "\n" not in message and len(message) < 2000, message
        assert "Traceback" not in message
    else:
        outcome = "valid"
        assert isinstance(scenario, Scenario)
    stderr, stdout = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(stdout):
        code = main(["validate", str(path)])
    err_text = stderr.getvalue()
    if code == 0:
        assert outcome == "valid" and err_text == "" and "1 scenario file(s) valid" in stdout.getvalue()
    else:
        assert outcome == "refused"
        assert code == 3, (code, err_text)
        assert err_text.startswith(f"durable-harness: error: {path}: ") and err_text.count("\n") == 1, err_text
        assert "internal error" not in err_text
    return outcome


@pytest.mark.slow  # a property sweep of seconds: `make test` runs it
@settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=st.one_of(structural(), textual()))
def test_a_mutated_scenario_file_is_valid_or_one_line_naming_the_file(tmp_path_factory: pytest.TempPathFactory,
                                                                     text: str) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "mutated.yaml"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    event(_one_line_error_or_scenario(path))


@pytest.mark.slow  # a property sweep of seconds: `make test` runs it
@settings(max_examples=2 * FUZZ_EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=structural())
def test_the_fast_check_and_the_schema_as_written_give_one_verdict(text: str) -> None:
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        doc = None
    fast, as_written = scenario_validators()
    verdict = as_written.is_valid(doc)
    event("valid" if verdict else "invalid")
    assert fast.is_valid(doc) == verdict, sorted(e.message for e in as_written.iter_errors(doc))[:3]


def test_the_fast_check_accepts_the_catalogue_and_looks_up_each_kind() -> None:
    fast, as_written = scenario_validators()
    assert "dhByKind" in repr(fast.schema)
    for text in TEXTS.values():
        doc = yaml.safe_load(text)
        assert fast.is_valid(doc) and as_written.is_valid(doc)
        for fault in doc.get("faults") or []:  # one wrong parameter type: refused by both
            bad = {**doc, "faults": [{**fault, "nth": "x"} if "nth" in fault else {**fault, "at": 5}]}
            assert not fast.is_valid(bad) and not as_written.is_valid(bad)


def test_the_fast_check_agrees_when_an_entry_takes_another_kind() -> None:
    from durable_harness.harness.actions import action_kinds
    from durable_harness.harness.faults import fault_kinds

    fast, as_written = scenario_validators()
    seen = set()
    for text in TEXTS.values():
        doc = yaml.safe_load(text)
        for field, kinds in (("faults", fault_kinds()), ("actions", action_kinds())):
            for entry in (doc.get(field) or [])[:1]:
                for kind in kinds:
                    other = {**doc, field: [{**entry, "kind": kind}]}
                    verdict = as_written.is_valid(other)
                    seen.add(verdict)
                    assert fast.is_valid(other) == verdict, (field, entry, kind)
    assert seen == {True, False}


# -- hostile shapes, one each ---------------------------------------------------------------------
def _laughs(levels: int) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("laughs.yaml", _laughs(10), f"more than {MAX_NODES} values once its aliases are expanded"),
    ("deep-flow.yaml", "[" * 200_000 + "]" * 200_000, f"nested deeper than {MAX_DEPTH} levels"),
    ("deep-block.yaml", "".join("  " * i + f"k{i}:\n" for i in range(100)), f"nested deeper than {MAX_DEPTH} levels"),
    ("recursive.yaml", "a: &a [1, *a]\n", "the alias *a is inside its own anchor &a"),
    ("bigint.yaml", "id: x\nseed: " + "9" * 6000 + "\n", "a value cannot be read"),
    ("nan.yaml", TEXTS["lost-draft-response.yaml"].replace("wait_s: 30", "wait_s: .nan"),
     "faults[0].wait_s: nan is not a finite number"),
    ("inf.yaml", TEXTS["baseline.yaml"] + "seed: .inf\n", "seed: inf is not a finite number"),
    ("huge.yaml", "#" * (1024 * 1024 + 1), "larger than 1048576 bytes"),
    ("python.yaml", "!!python/object/apply:os.system ['true']\n", "not valid YAML"),
    ("key.yaml", "? [a, b]\n: 1\n", "not valid YAML"),
])
def test_hostile_shapes_are_refused_in_one_line(tmp_path: Path, name: str, text: str, expected: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and expected in message and "\n" not in message, message
    _one_line_error_or_scenario(path)


def test_anchors_and_aliases_within_bounds_still_load(tmp_path: Path) -> None:
    text = TEXTS["lost-draft-response.yaml"].replace(
        '    at: {service: wordpress, target: "create:article", nth: 1}',
        '    at: &draft {service: wordpress, target: "create:article", nth: 1}')
    text = text.replace("expect:", "  - kind: lose_response\n    at: *draft\nexpect:")
    path = tmp_path / "aliases.yaml"
    path.write_text(text, encoding="utf-8")
    scenario = load_scenario(path)
    assert [f.at.target for f in scenario.faults] == ["create:article", "create:article"]


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_a_device_is_refused_before_a_byte_is_read(device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"{device} does not exist here")
    with pytest.raises(ScenarioError, match=r"a character device, not a regular file"):
        load_scenario(device)
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        assert main(["validate", device]) == 3
    assert stderr.getvalue() == f"durable-harness: error: {device}: a character device, not a regular file; a " \
                                "scenario is a YAML file\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_without_a_writer_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with pytest.raises(ScenarioError, match=r"pipe\.yaml: a FIFO \(named pipe\), not a regular file"):
        load_scenario(fifo)
    with pytest.raises(ScenarioError, match=r"pipe\.yaml: a FIFO"):  # inside a folder of scenarios too
        from durable_harness.harness import load_scenarios
        load_scenarios([tmp_path])


def test_a_directory_given_as_a_file_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "looks-like.yaml"
    folder.mkdir()
    with pytest.raises(ScenarioError, match=r"looks-like\.yaml: a directory, not a regular file"):
        load_scenario(folder)
    from durable_harness.harness import load_scenarios
    with pytest.raises(ScenarioError, match=r"looks-like\.yaml: a directory, not a scenario file"):
        load_scenarios([folder])
    with pytest.raises(ScenarioError, match=r"looks-like\.yaml: a directory, not a regular file"):
        load_scenarios([tmp_path])  # found inside a folder of scenarios
