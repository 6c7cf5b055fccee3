"""What happened, in the words a person uses: *Answered*, *No answer*, *Stopped*, *Failed*.

The record's status stays what it is (``completed`` …); this only names the outcome honestly: a
``completed`` run whose tools all failed, or whose demo model had no rule for the goal, did not
answer. Under the answer, "Based on:" lists the tool results the answer was made from, and says
when they came from a simulated tool.
"""

from __future__ import annotations

from typing import Any

from agent_core.records.files import load_record
from ui import common as ui

WORDS: dict[str, tuple[str, str]] = {
    "answered": ("✅", "Answered"),
    "no_answer": ("➖", "No answer"),
    "stopped": ("🛑", "Stopped"),
    "failed": ("❌", "Failed"),
    "running": ("⏳", "Running"),
    "waiting": ("✋", "Waiting for approval"),
}
SIMULATED = {
    "get_weather": "simulated weather data",
    "search_web": "simulated web search",
    "search_cached": "simulated cached search",
}


def full_record(record_or_event: dict[str, Any]) -> dict[str, Any]:
    """The record itself (the Run page holds only the finished event, which names the file)."""
    if isinstance(record_or_event.get("steps"), list):
        return record_or_event
    path = record_or_event.get("path")
    if path:
        try:
            return load_record(path)
        except Exception:  # the outcome box still shows from the event
            pass
    return record_or_event


def _calls(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in record.get("tool_calls") or [] if isinstance(c, dict)]


def outcome(record: dict[str, Any]) -> tuple[str, str]:
    """``(kind, why)``: kind is a key of :data:`WORDS`; why is one plain sentence ('' when clear)."""
    status = str(record.get("status_shown") or record.get("status") or "")
    if status == "cancelled":
        return "stopped", "Stop was pressed; the steps finished so far were kept."
    if status in ("error", "interrupted"):
        return "failed", (
            "The run ended on an error." if status == "error" else "The program running it went away before the end."
        )
    if status == "running":
        return "running", ""
    if status == "waiting_for_approval":
        return "waiting", "A tool call waits for a person's approval on the Run page."
    if status == "max_steps":
        return "no_answer", "The step limit was reached before an answer; a higher step limit may help."
    if status != "completed":
        return "failed", ""
    if not str(record.get("answer") or "").strip():
        return "no_answer", "The model ended without an answer."
    steps = [s for s in record.get("steps") or [] if isinstance(s, dict)]
    if steps and steps[-1].get("stop_reason") == "no_match":
        return "no_answer", "The demo model has no rule for this goal; try one of the example goals."
    calls = _calls(record)
    if calls and not any(c.get("success") for c in calls):
        return "no_answer", "Every tool call failed, so the reply only says what went wrong."
    return "answered", ""


def based_on(record: dict[str, Any]) -> list[str]:
    """The successful tool results the final step was shown (so the answer could use them)."""
    steps = [s for s in record.get("steps") or [] if isinstance(s, dict)]
    if not steps:
        return []
    sent = set(steps[-1].get("blocks_sent") or [])
    used_steps = {
        b.get("step") for b in record.get("context_blocks") or [] if isinstance(b, dict) and b.get("index") in sent
    }
    items = []
    for call in _calls(record):
        if call.get("step") not in used_steps or not call.get("success") or call.get("duplicate"):
            continue
        tool = str((call.get("fallback") or {}).get("tool") or call.get("tool") or "")
        label = f"{tool} → {ui.one_line(call.get('output'), 40)}"
        if tool in SIMULATED:
            label += f" ({SIMULATED[tool]})"
        items.append(label)
    return items


def show(record_or_event: dict[str, Any], box: Any) -> dict[str, Any]:
    """The outcome line (word, plain reason; the saved status in its help) into ``box``; returns
    the full record for :func:`show_sources`."""
    record = full_record(record_or_event)
    kind, why = outcome(record)
    icon, word = WORDS[kind]
    status = str(record.get("status_shown") or record.get("status") or "")
    box.markdown(
        f"**Outcome: {icon} {word}**" + (f" — {ui.escape_md(why)}" if why else ""),
        help=f"Saved status: {status}. " + ui.STATUS_HELP.get(status, ""),
    )
    return record


def show_sources(record: dict[str, Any], box: Any) -> None:
    """Under the answer: "Based on:" the tool results it was made from (simulated ones say so)."""
    kind, _ = outcome(record)
    if kind not in ("answered", "no_answer") or not record.get("answer"):
        return
    sources = based_on(record)
    if sources:
        box.caption("Based on: " + " · ".join(ui.escape_md(s) for s in sources))
    elif kind == "answered":
        box.caption("Based on: no tool results — the model answered from the goal alone.")


def status_word(status: Any) -> str:
    """A short outcome word for a status alone (tables), without the record's details."""
    return {
        "completed": "Answered",
        "max_steps": "No answer",
        "cancelled": "Stopped",
        "error": "Failed",
        "interrupted": "Failed",
        "running": "Running",
        "waiting_for_approval": "Waiting for approval",
    }.get(str(status), str(status))
