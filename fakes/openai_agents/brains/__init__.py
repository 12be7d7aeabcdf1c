"""Scripted agents ("brains") for the fake sessions API: the ``Brain`` protocol, its outputs, and
one brain per workload (``ArticleBrain``; the coding brain comes with the executor slice).

What it deliberately does not do: hold session state or talk HTTP; the fake drives the brains.
"""

from fakes.openai_agents.brains._png import tiny_png
from fakes.openai_agents.brains._protocol import (
    Brain,
    BrainFactory,
    Commentary,
    Fail,
    FinalAnswer,
    FunctionCall,
    Output,
    Reasoning,
    Step,
    ToolResult,
    output_text,
)
from fakes.openai_agents.brains.article import ArticleBrain, ArticleJob, watermark

__all__ = [
    "ArticleBrain",
    "ArticleJob",
    "Brain",
    "BrainFactory",
    "Commentary",
    "Fail",
    "FinalAnswer",
    "FunctionCall",
    "Output",
    "Reasoning",
    "Step",
    "ToolResult",
    "output_text",
    "tiny_png",
    "watermark",
]
