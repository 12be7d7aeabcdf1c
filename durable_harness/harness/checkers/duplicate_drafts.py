"""duplicate drafts: posts created for the same (job, version, role) beyond the first, trashed
ones included. Ground truth is WordPress's every-post-ever list, not the candidate's word."""

from __future__ import annotations

from durable_harness.harness.checkers._duplicates import duplicate_checker

check = duplicate_checker("duplicate_drafts", kind="post", noun="post", rank=10)
