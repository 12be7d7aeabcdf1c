"""--check-determinism catches a candidate that reads the wall clock or the global random."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from durable_harness.candidates.reference import ReferencePlane
from durable_harness.harness.cli import main

REPO = Path(__file__).parents[2]


class Noisy(ReferencePlane):
    """The reference, plus one read whose URL carries a fresh uuid: a nondeterministic candidate."""

    def step(self) -> bool:
        self.env.http.get(f"{self.env.wordpress_url}/wp-json/wp/v2/posts", params={"nonce": uuid.uuid4().hex})
        return super().step()


def noisy(env: Any) -> Noisy:
    return Noisy(env)


def test_a_nondeterministic_candidate_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--candidate", f"{__name__}:noisy", "--scenario", str(REPO / "durable_harness" / "scenarios" / "baseline.yaml"),
                 "--report", str(tmp_path), "--check-determinism"])
    out = capsys.readouterr().out
    assert code == 2, out
    assert "two different histories; they part at entry" in out
    doc = json.loads((tmp_path / "baseline" / "run.json").read_text())
    assert doc["counters"]["determinism"] == 1 and doc["verdict"] == "unknown"
    first, second = doc["determinism"]["first"], doc["determinism"]["second"]
    assert first != second and "nonce" in first and "nonce" in second  # the whole entries, side by side
    assert doc["determinism"]["differs"] == ["data.query[0][1]"]


def test_the_reference_is_deterministic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--scenario", str(REPO / "durable_harness" / "scenarios" / "lost-media-response-1.yaml"),
                 "--report", str(tmp_path), "--check-determinism"])
    capsys.readouterr()
    assert code == 0
    doc = json.loads((tmp_path / "lost-media-response-1" / "run.json").read_text())
    assert doc["determinism"]["same"] is True and doc["determinism"]["digests"][0] == doc["history"]["digest"]
