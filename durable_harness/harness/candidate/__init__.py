"""The candidate contract: its protocol (``Candidate``, ``CandidateEnv``, the JobReport and the one
check of it), the ``Driver`` protocol every driver implements, the environment a candidate process
starts with, and ``--candidate`` resolution (``cmd:<command line>`` names a process). What runs a
candidate is in ``harness.drivers``; what keeps it out of the harness's memory, in ``harness.isolation``.

Names load lazily, on first use: a candidate's own process imports only the modules it needs
(``_env``, ``_protocol``), never the drivers or the world behind them.
"""

from __future__ import annotations

from typing import Any

from durable_harness._lazy import load, names

__all__ = [
    "CAPABILITIES",
    "Candidate",
    "CandidateClock",
    "CandidateCommand",
    "CandidateCrashed",
    "CandidateEnv",
    "CandidateFailed",
    "CandidateRunaway",
    "CandidateSpecError",
    "Driver",
    "OP_STATES",
    "OUTCOMES",
    "ServiceEndpoint",
    "candidate_digest",
    "candidate_names",
    "describe_candidate",
    "parse_command",
    "resolve_candidate",
]

_WHERE = {
    **dict.fromkeys(("CandidateCommand", "parse_command"), "durable_harness.harness.candidate._command"),
    **dict.fromkeys(("CAPABILITIES", "CandidateFailed", "Driver"), "durable_harness.harness.candidate._driver"),
    **dict.fromkeys(("OP_STATES", "OUTCOMES", "Candidate", "CandidateClock", "CandidateCrashed", "CandidateEnv",
                     "CandidateRunaway", "ServiceEndpoint"), "durable_harness.harness.candidate._protocol"),
    **dict.fromkeys(("CandidateSpecError", "candidate_digest", "candidate_names", "describe_candidate",
                     "resolve_candidate"), "durable_harness.harness.candidate._spec"),
}


def __getattr__(name: str) -> Any:
    return load(globals(), _WHERE, name)


def __dir__() -> list[str]:
    return names(globals())
