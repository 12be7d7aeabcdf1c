"""The simulated approval authority: publish approvals a reviewer grants, revokes or lets expire,
read-only for the candidate (``ApprovalsFake``), over a pure state machine (``ApprovalState``)."""

from durable_harness.fakes.approvals._service import ApprovalsFake
from durable_harness.fakes.approvals._state import Approval, ApprovalState

__all__ = ["Approval", "ApprovalState", "ApprovalsFake"]
