"""Scripted agents ("brains") for the fake sessions API: the ``Brain`` protocol, its outputs, and
one brain per workload (``ArticleBrain``, ``CodingBrain``, each with ``tools()``: the function tools it
calls, as a session must declare them), and ``recovery_summary`` for the structured recovery message
the article brain follows.

What it deliberately does not do: hold session state or talk HTTP; the fake drives the brains.
"""

from durable_harness.fakes.openai_agents.brains._png import tiny_png
from durable_harness.fakes.openai_agents.brains._protocol import (
    Brain,
    BrainFactory,
    CaptureArtifact,
    Commentary,
    Fail,
    FinalAnswer,
    FunctionCall,
    Output,
    Reasoning,
    RunCommand,
    SpawnSubagent,
    Step,
    ToolResult,
    output_text,
)
from durable_harness.fakes.openai_agents.brains._recovery import RECOVERY_SUMMARY_HEADER, recovery_summary
from durable_harness.fakes.openai_agents.brains.article import ArticleBrain, ArticleJob, watermark
from durable_harness.fakes.openai_agents.brains.coding import CodingBrain, CodingJob

__all__ = [
    "ArticleBrain",
    "ArticleJob",
    "Brain",
    "BrainFactory",
    "CaptureArtifact",
    "CodingBrain",
    "CodingJob",
    "Commentary",
    "Fail",
    "FinalAnswer",
    "FunctionCall",
    "Output",
    "RECOVERY_SUMMARY_HEADER",
    "Reasoning",
    "RunCommand",
    "SpawnSubagent",
    "Step",
    "ToolResult",
    "output_text",
    "recovery_summary",
    "tiny_png",
    "watermark",
]
