"""Workloads: the kinds of job a scenario can submit, and how ground truth maps to their roles."""

from harness.workloads.article import ARTICLE_TOOLS, build_job, media_by_role, posts_by_role
from harness.workloads.coding import CODING_TOOLS, build_coding_job, report_payloads, reset_count_at

__all__ = [
    "ARTICLE_TOOLS",
    "CODING_TOOLS",
    "build_coding_job",
    "build_job",
    "media_by_role",
    "posts_by_role",
    "report_payloads",
    "reset_count_at",
]
