"""Generic help for the local model's steps: which tools a step offers, and what the record says
about how the step's output was held.

Nothing here knows any tool, document or topic. A shortlist ranks tools by the words they share
with the goal (their names, descriptions and parameter names) only when more are enabled than a
small model can read at once; a tool that is another's declared fallback is not offered (the
engine calls it when the first one fails).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_core.context import ContextBlock
from agent_core.providers.local.lines import nothing_found
from agent_core.records.run_record import Constraint
from agent_core.tools.docsearch import tokenize
from agent_core.tools.registry import Tool

MAX_OFFERED = 10
"""Most tools one step offers; with more enabled, the ones whose words best meet the goal's."""

FIGURES_NOTE = "figures in the answer only from the goal or the tool results"
"""What the answer's pattern holds, as the Run page says it."""


def offered_tools(goal: str, tools: Sequence[Tool], *, limit: int = MAX_OFFERED) -> list[Tool]:
    """The tools a step offers, in their registry order: every enabled tool but the fallbacks of
    others, cut to ``limit`` by :func:`relevance` when there are more."""
    fallbacks = {t.fallback for t in tools if t.fallback}
    candidates = [t for t in tools if t.name not in fallbacks]
    if len(candidates) <= limit:
        return candidates
    scores = {t.name: relevance(goal, t) for t in candidates}
    ranked = sorted(candidates, key=lambda t: -scores[t.name])[:limit]
    keep = {t.name for t in ranked}
    return [t for t in candidates if t.name in keep]


def _words(text: str) -> set[str]:
    return set(tokenize(re.sub(r"[_\-]", " ", text)))


def relevance(goal: str, tool: Tool) -> float:
    """How many of the goal's words a tool's name, description and parameter names share, the
    name's counting twice."""
    goal_words = _words(goal)
    name = _words(tool.name)
    described = _words(tool.description) | _words(" ".join(tool.parameters.get("properties", {})))
    return 2.0 * len(goal_words & name) + len(goal_words & described)


def sent_back_answer(blocks: Sequence[ContextBlock]) -> bool:
    """Whether the last block is an answer the answer check gave back (its feedback, no results)."""
    return bool(blocks) and bool(blocks[-1].feedback) and not blocks[-1].outputs


NOTHING_FOUND = "answers before any result was about the request"
"""The record's reason for an answer sent back by :func:`first_time_unfound`."""
NOTHING_FOUND_NOTE = (
    "\n\n(None of the results above is about the request. Call a tool that could find it, with other "
    "words if it is the same tool.)"
)


def first_time_unfound(goal: str, blocks: Sequence[ContextBlock]) -> bool:
    """Whether the run has results, none of them about the request
    (:func:`~agent_core.providers.local.lines.nothing_found`), and no earlier step was sent back for
    that: an answer now could only say it found nothing, or guess, with tools not yet tried (the
    model searched the web for a question about the user's documents, then answered "not
    specified")."""
    return (
        bool(blocks)
        and nothing_found(goal, blocks)
        and not any(item.get("rejected") == NOTHING_FOUND for block in blocks for item in block.raw)
    )


def constraint(tools: Sequence[Tool], *, answer: bool, figures: bool) -> Constraint:
    """The step's ``constraint`` for the record."""
    notes = [FIGURES_NOTE] if figures else []
    return {"kind": "grammar", "tools": [t.name for t in tools], "answer": answer, "notes": notes}
