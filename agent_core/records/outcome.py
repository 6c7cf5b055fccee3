"""A run's outcome in the words a person uses, decided once from the record.

The record's ``status`` stays what the loop saved (``completed`` …); the outcome names what
happened honestly: *Answered*, *Not found* (the answer says the thing asked for is not there),
*No answer* (a ``completed`` run whose tools all failed, or whose model ended with nothing),
*Step limit*, *Stopped*, *Failed*. The Run page, History's Status column, the plain-words summary
and the CLI all take it from :func:`outcome`, so they never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from agent_core.text.not_found import says_not_found

Outcome = Literal["answered", "not_found", "no_answer", "step_limit", "stopped", "failed", "running", "waiting"]
WORDS: dict[str, tuple[str, str]] = {
    "answered": ("✅", "Answered"),
    "not_found": ("🔍", "Not found"),
    "no_answer": ("➖", "No answer"),
    "step_limit": ("⏱", "Step limit"),
    "stopped": ("🛑", "Stopped"),
    "failed": ("❌", "Failed"),
    "running": ("⏳", "Running"),
    "waiting": ("✋", "Waiting for approval"),
}
"""Each outcome's icon and word."""
BY_STATUS: dict[str, Outcome] = {
    "completed": "answered",
    "max_steps": "step_limit",
    "cancelled": "stopped",
    "error": "failed",
    "interrupted": "failed",
    "running": "running",
    "waiting_for_approval": "waiting",
}
"""The outcome a status alone gives (a table row whose record was not read for it)."""
_WHY_BY_STATUS = {
    "cancelled": "Stop was pressed; the steps finished so far were kept.",
    "error": "The run ended on an error.",
    "interrupted": "The program running it went away before the end.",
    "waiting_for_approval": "A tool call waits for a person's approval on the Run page.",
    "max_steps": "The step limit was reached before an answer; a higher step limit may help.",
}
"""Why a run that did not complete has its outcome, in one sentence."""


def _calls(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    calls = record.get("tool_calls")
    return [c for c in calls if isinstance(c, Mapping)] if isinstance(calls, list) else []


def outcome(record: Mapping[str, Any]) -> tuple[Outcome, str]:
    """``(outcome, why)``: the outcome and one plain sentence saying why ('' when it is clear).

    ``status_shown`` (a dead process's ``running`` run is ``interrupted``) is used when present."""
    status = str(record.get("status_shown") or record.get("status") or "")
    if status != "completed":
        return BY_STATUS.get(status, "failed"), _WHY_BY_STATUS.get(status, "")
    answer = str(record.get("answer") or "").strip()
    if not answer:
        return "no_answer", "The model ended without an answer."
    steps = [s for s in record.get("steps") or [] if isinstance(s, Mapping)]
    if steps and steps[-1].get("stop_reason") == "no_match":
        return "no_answer", "The demo model has no rule for this goal; try one of the example goals."
    calls = _calls(record)
    if calls and not any(c.get("success") for c in calls):
        return "no_answer", "Every tool call failed, so the reply only says what went wrong."
    if says_not_found(answer):
        return "not_found", "The answer says what was asked for could not be found."
    return "answered", ""


def word(kind: str) -> str:
    """The outcome's word ("Answered"); an unknown kind as it is."""
    return WORDS[kind][1] if kind in WORDS else kind


def shown(kind: str | None, status: str | None) -> str:
    """A table's outcome cell: the stored outcome's word, or the status's when none was stored
    (an older index row); a run shown as interrupted is *Failed* whatever was stored."""
    if status == "interrupted" or not kind:
        kind = BY_STATUS.get(str(status or ""), str(status or ""))
    return word(kind)
