"""What the local provider asks again within one step, and why: a call that repeats an earlier one,
an answer that began to work out a sum or left a gap where a figure goes, a call that ran on to
the token limit. :class:`Reasks` is the part of :class:`~agent_core.providers.local.LocalProvider`
that does it; :class:`Turn` is what one model call's attempts share.

Nothing here knows a tool, document or topic; every attempt keeps its raw output in the record
and adds a note to the step's ``constraint``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent_core.context import ToolCallRequest
from agent_core.providers.base import ModelRequest, Usage
from agent_core.providers.local.engine import Engine
from agent_core.providers.local.llama_reply import _timings, _usage
from agent_core.providers.local.prompt import RAW_TYPE, call_signature, previous_calls, split_thought
from agent_core.providers.local.redirects import (
    GAP_ANSWER_NOTE,
    GAP_NOTE,
    REPEAT_NOTE,
    SUM_NOTE,
    gap_sent_back,
    started_sum,
    with_note,
)
from agent_core.tools.registry import Tool


@dataclass
class Turn:
    """One :meth:`LocalProvider.complete` call: what each model attempt within it shares, and what
    they leave for the record (a raw item each, the step's notes)."""

    engine: Engine
    request: ModelRequest
    deadline: float
    items: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    offered: list[Tool] = field(default_factory=list)
    """The tools the last attempt offered (what the step's ``constraint`` records)."""
    answer: bool = True
    """Whether the last attempt let the model answer."""
    ran_on: str | None = None
    """The tool whose call ran on to the token limit in this step (asked again once without it)."""


class Reasks:
    """The re-asks of :class:`~agent_core.providers.local.LocalProvider` (its ``_attempt`` makes
    each one generation; ``_answer_from_line`` writes an answer after the line choice)."""

    _attempt: Callable[..., tuple[str, list[ToolCallRequest], Usage]]
    """One constrained generation (:meth:`LocalProvider._attempt`)."""
    _answer_from_line: Callable[..., tuple[str, Usage]]
    """The line choice, then the answer (:meth:`LocalProvider._answer_from_line`)."""

    def _past_repeat(
        self,
        turn: Turn,
        name: str,
        messages: list[dict[str, str]],
        offered: list[Tool],
        lines: list[str],
        repeated: set[str],
        *,
        tool_only: bool,
        sums: bool = True,
    ) -> tuple[str, list[ToolCallRequest], Usage]:
        """The last attempt repeated an earlier ``name`` call, which the engine would only refuse as
        a duplicate. On a step that must call a tool (``tool_only``), the model is asked once more,
        with a note not to repeat the call; otherwise, and on a second repeat, it gets the answer
        only, after the line choice when the results are text lines. (Asked again without the
        repeated tool instead, it wandered through unrelated tools: docs/providers.md, not kept.)

        Returns the text, the calls and the usage."""
        request, items, notes = turn.request, turn.items, turn.notes
        usage = Usage()
        if tool_only:
            items[-1]["rejected"] = "repeats an earlier call"
            notes.append(f"the model repeated its {name} call: asked again")
            asked = with_note(messages, REPEAT_NOTE.format(name=name))
            text, calls, usage = self._attempt(turn, asked, offered, answer=False, sums=sums)
            if not calls or call_signature(calls[0].name, calls[0].arguments) not in previous_calls(request.blocks):
                return text, calls, usage
            name = calls[0].name
        # Small models loop through the same calls: the model answers from what it has.
        items[-1]["rejected"] = "repeats an earlier call"
        repeated.add(name)
        notes.append(f"the model repeated its {name} call: asked for the answer instead")
        if len(lines) >= 2:
            text, more = self._answer_from_line(turn, messages, lines)
            return text, [], usage + more
        text, calls, more = self._attempt(turn, messages, [], answer=True, sums=sums)
        return text, calls, usage + more

    def _past_missing_figure(
        self, turn: Turn, messages: list[dict[str, str]], tools: list[Tool], repeated: set[str], *, gap: bool
    ) -> tuple[str, list[ToolCallRequest], Usage]:
        """The answer began to work out a sum, or left a gap (``gap``), where a figure goes that no
        result has (the grammar forbids it: "$A × 7 = $A × (7 + 7) = …", a run of spaces):
        asked for a tool call instead, with the answer's start in a note. After a gap once in the
        run, and when no tool is left, asked for the answer (one without the figure, after a gap).

        Returns the text, the calls and the usage."""
        request, notes = turn.request, turn.notes
        started = started_sum(turn.items[-1]["content"])
        last = request.max_steps is not None and request.step >= request.max_steps
        offered = (
            [] if last or (gap and gap_sent_back(request.blocks)) else [t for t in tools if t.name not in repeated]
        )
        what = "left a gap where a figure goes" if gap else "began to work out a sum"
        if offered:
            notes.append(f"the model {what} in its answer: asked for a tool call instead")
            asked = with_note(messages, (GAP_NOTE if gap else SUM_NOTE).format(started=started))
        else:
            notes.append(f"the model {what} in its answer: asked for the answer again")
            asked = with_note(messages, GAP_ANSWER_NOTE.format(started=started)) if gap else messages
        text, calls, usage = self._attempt(turn, asked, offered, answer=not offered, sums=False)
        if calls and call_signature(calls[0].name, calls[0].arguments) in previous_calls(request.blocks):
            text, calls, more = self._past_repeat(
                turn, calls[0].name, asked, offered, [], repeated, tool_only=True, sums=False
            )
            usage = usage + more
        return text, calls, usage

    def _past_run_on(
        self,
        turn: Turn,
        messages: list[dict[str, str]],
        tools: list[Tool],
        name: str,
        ran_on: dict[str, Any],
        *,
        answer: bool,
        pick: bool,
        sums: bool,
    ) -> tuple[str, list[ToolCallRequest], Usage]:
        """The model's ``name`` call ran on to the token limit (blocked from a figure it wanted, it
        wrote "1.  0  0  0 …"): asked once more without that tool; a second run-on is the error."""
        turn.ran_on, content, final = name, ran_on["content"], ran_on["final"]
        turn.items.append(
            {
                "type": RAW_TYPE,
                "content": content,
                "thought": split_thought(content)[0],
                "offered": [t.name for t in tools],
                "finish_reason": final.get("finish_reason"),
                "rejected": "the call ran on to the token limit",
                "duration_ms": ran_on["elapsed"],
                "timings": _timings(final),
            }
        )
        turn.notes.append(f"the model's {name} call ran on to the token limit: asked again without {name}")
        rest = [t for t in tools if t.name != name]
        text, calls, usage = self._attempt(
            turn, messages, rest, answer=answer or not rest, stop_at_answer=pick, sums=sums
        )
        return text, calls, _usage(final) + usage
