"""When the local model's output is sent back within one step, generically: a reply that turns
out to be the answer (the line choice comes first), an answer that starts to work out a sum or
leaves a gap where a figure goes (a tool call is asked for), a call whose arithmetic uses no
figure the run has (or a figure cut short, or a name where one goes) or that calls another tool
inside its arguments (asked again without it).

Nothing here knows a tool, document or topic; each redirect adds a note to the step's
``constraint`` and keeps the rejected output in the record.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from agent_core.checks.computed import expressions
from agent_core.context import ContextBlock, ToolCallRequest
from agent_core.providers.base import ModelRequest
from agent_core.providers.local.figures import argument_numbers
from agent_core.providers.local.lines import SHORT_RESULT_WORDS
from agent_core.providers.local.prompt import cut_answer

ANSWER_STARTED = "\x00answer"
"""What a reply stopped at the start of its answer returns (:meth:`LocalProvider._attempt`)."""


ARITHMETIC_STARTED = "\x00arithmetic"
"""What an answer stopped where it began to work out a sum returns (:meth:`LocalProvider._attempt`)."""
SUM_IN_ANSWER = re.compile(r"\d[\d,.]*\s*[×xX*÷/+]\s*\$?\d[\d,.]*\s*=")
"""An answer writing out arithmetic ("$A × 7 ="): its result is a figure the grammar does not let
it write (no result has it), and it looped ("$A × 7 = $A × (7 + 7) = …") to the token limit."""


FIGURE_GAP = "\x00gap"
"""What an answer stopped at a gap where a figure goes returns (:meth:`LocalProvider._attempt`)."""
GAP = re.compile(r"(?<=[^\s.!?:;,|]) {2,}")
"""Spaces where a figure goes: blocked from a figure no result has, the model wrote white space in
its place ("The fee is     dollars.", "is  +  more"): in the runs of
2026-12-03/04, 18 of 264 eval answers had such a gap, all 18 wrong; no other answer had one.
Not two spaces after a sentence's or a clause's end, nor a table's padding."""
GAP_REASON = "leaves a gap where a figure no result has goes"
"""The record's reason for an answer stopped at a :data:`GAP` (once a run, :func:`gap_sent_back`)."""
GAP_NOTE = (
    '\n\n(Your answer began: "{started}" The figure it needs is in no result above. Call the tool '
    "that finds it or works it out.)"
)
GAP_ANSWER_NOTE = (
    '\n\n(Your answer began: "{started}" The figure it needs is in no result above: answer without '
    "it, and say that it was not found.)"
)
MISSING_FIGURE = {"en": "[no result gives this figure]", "ko": "[결과에 없는 수치]"}
"""What stands in an answer's gap that the model left in the end (:func:`mark_gaps`)."""
STOPS = {
    ANSWER_STARTED: ("the answer began", None),
    ARITHMETIC_STARTED: ("the answer began a sum", "works out a sum in the answer"),
    FIGURE_GAP: ("the answer left a gap for a figure", GAP_REASON),
}
"""For each stop of a reply: what the record says stopped it, and why it was rejected (if it was)."""


SUM_NOTE = (
    '\n\n(Your answer began: "{started}" Do not work out the sum yourself: call the tool that '
    "does arithmetic, with the figures from the results.)"
)


def stopping_at_answer(
    enough: Callable[[str], str | None], stop: bool, *, sums: bool = False
) -> Callable[[str], str | None]:
    """``enough``, and with ``stop`` a stop as soon as the reply starts an answer; with ``sums``,
    as soon as an answer starts to work out a sum or leaves a gap where a figure goes."""
    if not stop and not sums:
        return enough

    def test(content: str) -> str | None:
        if stop and '\n{"answer": "' in content:
            return ANSWER_STARTED
        if sums and (text := cut_answer(content)):
            if SUM_IN_ANSWER.search(text):
                return ARITHMETIC_STARTED
            if has_gap(text):
                return FIGURE_GAP
        return enough(content)

    return test


def reads_text(blocks: Sequence[ContextBlock]) -> bool:
    """Whether the latest result is text to read (several lines), not a single figure."""
    if not blocks:
        return False
    outputs = [o for o in blocks[-1].outputs if not o.is_error]
    return any(len(o.output.split()) > SHORT_RESULT_WORDS for o in outputs)


CUT_FIGURE = re.compile(r"\d\.\s+\d")
"""A decimal point followed by a space ("25 * 1. 0"): the model began a figure the grammar does not
let it write (no result states it) and went on with what it could write."""
NAMED_OPERAND = re.compile(r"[^\W\d]\w*\s*(?:[*^]|\s/\s)\s*[\w(]|[\w)]\s*(?:[*^]|\s/\s)\s*[^\W\d]")
"""A name multiplied or divided ("Plan * 0.85", "total / 12"): a quantity the model has not got
as a figure yet ("+", "-" and "and/or" stand between words in ordinary text too)."""
OPERATOR = re.compile(r"\d\s*[-+*/^]\s*\d")
FORMULA = re.compile(r"[\w\s.,()\[\]'\"%+*/^-]+")
"""A text of names, figures and operators only: a formula, not a sentence."""


def _texts(call: ToolCallRequest) -> list[str]:
    """A call's text arguments."""
    values = call.arguments.values() if isinstance(call.arguments, dict) else [call.arguments]
    return [v for v in values if isinstance(v, str)]


def figure_missing(call: ToolCallRequest, request: ModelRequest) -> str:
    """Why a call's arithmetic stands in for a figure the run does not have, in the record's words
    ("" when it does not): an expression (any text argument that is one) using no figure of the
    goal or of a successful result, a figure cut short (:data:`CUT_FIGURE`), or a name where a
    figure goes (:data:`NAMED_OPERAND`)."""
    known = set(argument_numbers(request.goal, request.blocks))
    for expression in expressions({"arguments": call.arguments}):
        figures = set(re.findall(r"\d+(?:\.\d+)?", expression))
        if figures and not figures & known:
            return "arithmetic on no known figure"
    for text in _texts(call):
        if CUT_FIGURE.search(text) and OPERATOR.search(text.replace(". ", ".")):
            return "arithmetic on a figure cut short"
        if NAMED_OPERAND.search(text) and FORMULA.fullmatch(text):
            return "arithmetic on a name instead of a figure"
    return ""


def tool_called_inside(call: ToolCallRequest, names: Sequence[str]) -> str | None:
    """The enabled tool a call's text argument calls as a function (``"other_tool('x') * 7"``):
    tools cannot call tools, so the model needs that tool's result first."""
    texts = _texts(call)
    for name in names:
        if any(re.search(rf"(?<![\w.]){re.escape(name)}\s*\(", text) for text in texts):
            return name
    return None


def unusable_call(call: ToolCallRequest, request: ModelRequest, names: Sequence[str]) -> tuple[str, str, str]:
    """Why a call cannot give the model what it wants, as (the record's reason, the step's note, a
    note for the model); empty strings when it can."""
    missing = figure_missing(call, request)
    if missing:
        # The model wanted a figure it does not have yet (the grammar let it write none), and
        # wrote filler ("1 * 2 + 1 * 2 + …", "25 * 1. 0") or a name for a figure it had not read
        # from any result.
        return missing, f"the model's {call.name} call used no figure it had: asked again without it", ""
    inner = tool_called_inside(call, names)
    if inner:
        return (
            f"calls {inner} inside its arguments",
            f"the model's {call.name} call put a {inner}(…) call in its arguments: asked again without it",
            f"\n\n(Tools cannot call other tools: call {inner} first, then use its result.)",
        )
    return "", "", ""


def started_sum(content: str) -> str:
    """The answer's words up to the end of the sum it began (``… cost $A × 7 =``), or
    up to its gap (``The fee is …``)."""
    text = (cut_answer(content) or "").strip()
    if found := SUM_IN_ANSWER.search(text):
        return text[: found.end()]
    if found := GAP.search(text):
        return text[: found.start()] + " …"
    return text


def gap_sent_back(blocks: Sequence[ContextBlock]) -> bool:
    """Whether an earlier step of the run was sent back for a :data:`GAP` (once a run: a search
    that finds nothing leaves the figure missing, and the model would leave the gap again)."""
    return any(gap_rejected(block.raw) for block in blocks)


def gap_rejected(items: Sequence[dict[str, Any]]) -> bool:
    """Whether one of a step's raw items is an answer stopped at a :data:`GAP`."""
    return any(item.get("rejected") == GAP_REASON for item in items)


def has_gap(text: str) -> bool:
    """Whether ``text`` has a :data:`GAP` on a line that is no table row."""
    return any(GAP.search(line) for line in text.split("\n") if "|" not in line)


def mark_gaps(text: str, goal: str) -> str:
    """An answer whose gaps stand marked (:data:`MISSING_FIGURE`, in Korean for a Korean goal):
    "The fee is [no result gives this figure] dollars." """
    mark = MISSING_FIGURE["ko" if re.search("[\uac00-\ud7a3]", goal) else "en"]

    def marked(line: str) -> str:
        if "|" in line:  # a table's padding
            return line
        end = len(line.rstrip())
        return GAP.sub(lambda m: f" {mark} " if m.end() < end else m.group(), line)

    return "\n".join(marked(line) for line in text.split("\n"))


REPEAT_NOTE = "\n\n(Not {name} with the same arguments again: that call was made and its result is above.)"


def with_note(messages: list[dict[str, str]], note: str) -> list[dict[str, str]]:
    return [*messages[:-1], {**messages[-1], "content": messages[-1]["content"] + note}]
