"""Workloads: the kinds of job a scenario can submit, and how ground truth maps to their roles."""

from harness.workloads.article import ARTICLE_TOOLS, build_job, media_by_role, posts_by_role

__all__ = ["ARTICLE_TOOLS", "build_job", "media_by_role", "posts_by_role"]
