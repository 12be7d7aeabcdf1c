"""Candidates: the contract (protocol, environment), the drivers, and ``--candidate`` resolution."""

from harness.candidate._inprocess import CandidateFailed, InProcessDriver
from harness.candidate._protocol import (
    OP_STATES, OUTCOMES, Candidate, CandidateClock, CandidateCrashed, CandidateEnv, CandidateRunaway,
)
from harness.candidate._spec import CandidateSpecError, resolve_candidate

__all__ = [
    "Candidate",
    "CandidateClock",
    "CandidateCrashed",
    "CandidateEnv",
    "CandidateFailed",
    "CandidateRunaway",
    "CandidateSpecError",
    "InProcessDriver",
    "OP_STATES",
    "OUTCOMES",
    "resolve_candidate",
]
