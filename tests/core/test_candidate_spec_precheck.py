"""A typo in ``--candidate`` is refused at once: no child is started to import anything."""

from __future__ import annotations

import pytest

from durable_harness.harness.isolation import _probe
from durable_harness.harness.candidate._spec import CandidateSpecError


@pytest.mark.parametrize(("spec", "says"), [
    ("mutant:no-such", "unknown mutant 'no-such'"),
    ("referenc", "neither a registered candidate"),
    ("module:", "neither a registered candidate"),
    ("", "is empty"),
])
def test_a_typo_is_refused_before_any_child_starts(monkeypatch: pytest.MonkeyPatch, spec: str, says: str) -> None:
    def no_child() -> None:
        raise AssertionError("a child was started to refuse a typo")

    monkeypatch.setattr(_probe, "zygote", no_child)
    monkeypatch.delenv("DH_IN_PROCESS", raising=False)
    with pytest.raises(CandidateSpecError, match=says):
        _probe.probe_candidate(spec)
