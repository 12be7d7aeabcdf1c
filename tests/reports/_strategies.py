"""Hypothesis strategies for valid run@2 and report@1 documents, for the reports' property tests.

Text is drawn from any code point plus the characters that break pages (pipes, backticks, markup,
control characters, a lone surrogate), so the renderers meet what a JSON document can carry.
Verdicts are drawn first and the rest made consistent with ``durable_harness.harness.verdict``, the way the engine
makes them; every document this module returns is meant to pass ``validate_run`` (a test checks).

Not a test module; it only builds documents.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from durable_harness.harness.verdict import VERDICTS, combine, exit_code

Doc = dict[str, Any]

_NASTY = ["|", "`", "```", "<", ">", "&", "]]>", "\n", "\r", "\t", "\x00", "\x1b", "\ud800", "\u2028", "\\", "*"]
_piece = st.one_of(st.characters(), st.sampled_from(_NASTY))
text = st.lists(_piece, max_size=12).map("".join)
name = st.lists(_piece, min_size=1, max_size=8).map("".join)
count = st.integers(min_value=0, max_value=10**6)
seconds = st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False)
verdict = st.sampled_from(VERDICTS)
sha256 = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
commit = st.text(alphabet="0123456789abcdef", min_size=40, max_size=40)
json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | text,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(text, children, max_size=3),
    max_leaves=6,
)
json_object = st.dictionaries(text, json_value, max_size=3)

witness = st.fixed_dictionaries({
    "file": name, "index": count, "type": text, "time_s": seconds, "process": text, "summary": text,
})
checker = st.fixed_dictionaries({
    "name": name, "class": st.sampled_from(["safety", "liveness"]), "verdict": verdict, "count": count,
    "because": text, "witnesses": st.lists(witness, max_size=3),
})
fault = st.fixed_dictionaries({
    "index": count, "kind": name, "at": text, "point": text, "params": json_object, "channel": text,
    "seen": count, "scheduled": count, "fired": count,
    "status": st.sampled_from(["fired", "not_exercised", "not_reached", "unfired"]), "evidence": st.lists(json_object, max_size=2),
})
error = st.fixed_dictionaries({
    "kind": st.sampled_from(["harness", "candidate", "setup", "not_applicable", "interrupted"]), "message": name,
    "detail": st.none() | text,
})
candidate_error = st.fixed_dictionaries({
    "method": name, "type": name, "message": text, "frames": st.lists(text, max_size=3),
    "history_index": st.none() | count, "time_s": seconds,
})
determinism = st.fixed_dictionaries({
    "same": st.booleans(), "digests": st.lists(text, min_size=2, max_size=2), "entry": st.none() | count,
    "first": st.none() | text, "second": st.none() | text, "differs": st.lists(text, max_size=3),
})
sweep = st.fixed_dictionaries({"points": count, "passed": count, "failing": st.lists(text, max_size=3)})
identity = st.fixed_dictionaries({
    "harness": st.fixed_dictionaries({"version": name, "commit": st.none() | commit}),
    "candidate": st.fixed_dictionaries({"spec": name, "digest": st.none() | sha256}),
})


@st.composite
def run_doc(draw: st.DrawFn) -> Doc:
    """A valid run@2 document of any kind: passing, failing, unknown or with an error."""
    checkers = draw(st.lists(checker, max_size=4))
    err = draw(st.none() | error)
    verdicts: Doc
    if err is None:
        # A class verdict is at least as bad as its worst checker, and may be worse.
        safety, liveness = (combine([*(str(c["verdict"]) for c in checkers if c["class"] == cls), draw(verdict)])
                            for cls in ("safety", "liveness"))
        verdicts = {"verdict": combine([safety, liveness]), "safety": safety, "liveness": liveness,
                    "exit_code": exit_code(safety, liveness, False)}
    else:
        verdicts = {"verdict": draw(st.sampled_from(["unknown", "fail"])), "safety": draw(verdict),
                    "liveness": draw(verdict), "exit_code": 3}
    return {
        "format": "durable-harness/run@2",
        **draw(identity),
        "scenario": draw(st.fixed_dictionaries({"id": name, "title": text, "path": text, "covers": text})),
        "seed": draw(st.integers(min_value=-(2**63), max_value=2**63)),
        **verdicts,
        "error": err,
        "checkers": checkers,
        "faults": draw(st.lists(fault, max_size=3)),
        "counters": draw(st.dictionaries(name, count, max_size=3)),
        "outcome": draw(st.fixed_dictionaries({"expected": text, "truth": st.none() | text,
                                               "claimed": st.none() | text})),
        "candidate_errors": draw(st.lists(candidate_error, max_size=2)),
        "determinism": draw(st.none() | determinism),
        "sweep": draw(st.none() | sweep),
        "timings": draw(st.fixed_dictionaries({"virtual_s": seconds, "steps": count, "requests": count,
                                               "restarts": count})),
        "history": draw(st.fixed_dictionaries({"file": name, "entries": count, "digest": sha256})),
        "truth": draw(json_object),
        "claims": draw(st.none() | json_object),
        "reproduce": draw(name),
    }


_UTC = st.sampled_from(["2026-11-30T09:46:21Z", "2026-11-30T09:46:21.123456+00:00"])


@st.composite
def report_doc(draw: st.DrawFn, scenario_ids: list[str] | None = None) -> Doc:
    """A valid report@1 index planning ``scenario_ids`` (and a few more), partial or not."""
    planned = list(dict.fromkeys([*(scenario_ids or []), *draw(st.lists(name, max_size=3))]))
    completed = draw(st.integers(min_value=0, max_value=len(planned)))
    interrupted_by = draw(st.sampled_from([None, "SIGINT", "SIGTERM"]))
    partial = completed < len(planned) or interrupted_by is not None or draw(st.booleans())
    return {
        "format": "durable-harness/report@1",
        **draw(identity),
        "command": draw(name),
        "started_at": draw(_UTC),
        "finished_at": draw(st.none() | _UTC),
        "scenarios": planned,
        "completed": completed,
        "partial": partial,
        "interrupted_by": interrupted_by,
        "exit_code": draw(st.sampled_from([None, 0, 1, 2, 3])),
    }
