"""faults fired: a scheduled fault that never fired makes the run unknown.

If the lost response never happened, a clean run proves nothing about lost responses."""

from __future__ import annotations

from harness.checkers._base import CheckInput, CheckResult, checker, pluralise


@checker("faults_fired", "safety")
def check(inp: CheckInput) -> CheckResult:
    missing = [f for f in inp.faults if int(f.get("fired", 0)) < int(f.get("scheduled", 1))]
    if missing:
        what = "; ".join(f"faults[{f['index']}] {f['kind']} at {f['at']}: fired {f.get('fired', 0)} of {f.get('scheduled', 1)}" for f in missing)
        return CheckResult("faults_fired", "safety", "unknown", len(missing),
                           f"scheduled {pluralise(len(missing), 'fault')} never fired, so the run proves nothing about them: {what}")
    return CheckResult("faults_fired", "safety", "pass", 0, f"all {pluralise(len(inp.faults), 'scheduled fault')} fired")
