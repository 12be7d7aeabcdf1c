"""A SIGINT whose ``KeyboardInterrupt`` Python swallowed (it landed in a weak reference's callback:
"Exception ignored in ...") still stops the run, at its next step."""

from __future__ import annotations

from pathlib import Path

import pytest

from durable_harness.harness import _signals, load_scenario
from durable_harness.harness._run import RunInterrupted, run_once

BASELINE = Path(__file__).parents[2] / "durable_harness" / "scenarios" / "baseline.yaml"


def test_a_signal_noted_but_swallowed_stops_the_run_at_its_next_step() -> None:
    _signals.note("SIGINT")  # what the handler does before its KeyboardInterrupt is lost
    try:
        with pytest.raises(RunInterrupted) as stopped:
            run_once(load_scenario(BASELINE), "reference")
        assert stopped.value.doc["error"]["kind"] == "interrupted"
    finally:
        _signals.clear()
    doc, _ = run_once(load_scenario(BASELINE), "reference")  # cleared: the next run goes on
    assert doc["verdict"] == "pass"


def test_an_interrupt_python_could_not_raise_prints_no_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    """Under the command line's signal handling, a KeyboardInterrupt that lands where it cannot be
    raised (a weak reference's callback) is kept as the signal, never printed as a traceback."""
    import sys
    import weakref

    from durable_harness.harness.cli import _signals_as_interrupts

    class Thing:
        pass

    def callback(_ref: object) -> None:
        raise KeyboardInterrupt

    hook = sys.unraisablehook
    with _signals_as_interrupts():
        thing = Thing()
        ref = weakref.ref(thing, callback)
        del thing  # the callback runs here; its exception is "unraisable"
        assert ref() is None
    assert "Traceback" not in capsys.readouterr().err
    assert sys.unraisablehook is hook  # the program's own hook is back
