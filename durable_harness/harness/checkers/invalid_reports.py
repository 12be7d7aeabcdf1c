"""invalid reports: the candidate answered ``report()`` with something that is not a JobReport (None,
a string, a wrong type, NaN, a number beyond 64 bits, text beyond the bound, a structure that
contains itself: ``durable_harness.harness.candidate.check_report``). The driver records each such answer as a
note of the worker, and the run goes on as if there were no report at that instant.

It is a safety failure, not an unknown: the report is the candidate's word about its job and its
side effects, and the other checkers judge that word. A report that cannot be read cannot be held
to anything, so garbage must never fare better than an honest wrong answer (an unknown would turn a
lie's exit 1 into an exit 2). Ground truth: the notes in the history."""

from __future__ import annotations

from durable_harness.harness.candidate._claims import INVALID_REPORT
from durable_harness.harness.checkers._base import CheckInput, Finding, checker, pluralise, witness


@checker("invalid_reports", "safety")
def check(inp: CheckInput) -> Finding:
    notes = [e for e in inp.history.of_type("note") if INVALID_REPORT in e.data]
    reports = len(inp.history.of_type("report"))
    if not notes:
        return Finding("pass", 0,
                           f"{pluralise(reports, 'recorded report')}, every one a JobReport")
    because = (f"{pluralise(len(notes), 'answer')} to report() {'was' if len(notes) == 1 else 'were'} not a JobReport, "
               f"so the candidate's claims could not be judged then; first: {notes[0].data[INVALID_REPORT]}")
    return Finding("fail", len(notes), because,
                       tuple(witness(e, str(e.data[INVALID_REPORT])) for e in notes[:10]))
