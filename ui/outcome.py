"""What happened, in the words a person uses: *Answered*, *Not found*, *No answer*, *Step limit*,
*Stopped*, *Failed* — decided by :func:`agent_core.records.outcome.outcome`, the one function the
History table, the plain-words summary and the CLI use too.

Under the answer, "Based on:" lists the tool results the answer was made from, and says when they
came from a simulated tool.
"""

from __future__ import annotations

import re
from typing import Any

from agent_core.records import outcome as _outcome
from agent_core.records.files import load_record
from agent_core.records.outcome import WORDS, outcome
from agent_core.text.json_lines import plain_output
from ui import common as ui

__all__ = ["WORDS", "outcome", "based_on", "show", "show_sources", "status_word"]

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


SOURCE_CHARS = 160
"""At most this much of each tool result after "Based on:" (the sentence that carries the answer)."""
_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+|\n+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[^\W\d_]{3,}")


def _plain(number: str) -> str:
    """A number as one spelling: "1,000" and "1000", "26.00" and "26" alike."""
    plain = number.replace(",", "")
    return plain.rstrip("0").rstrip(".") if "." in plain else plain


def _tokens(text: str) -> tuple[set[str], set[str]]:
    """(numbers, words) of ``text``: "1,000" and "1000" alike, words case-folded."""
    numbers = {_plain(n) for n in _NUMBER.findall(text)}
    return numbers, {w.casefold() for w in _WORD.findall(text)}


def _readable(output: Any) -> str:
    """A result as a person reads it: a JSON result (a document search's hits) as the local model
    reads it, one ``key: value; …`` line per object, with no list marks; other text as it is."""
    return plain_output(str("" if output is None else output), mark="")


def carrying_sentence(output: Any, answer: Any, limit: int = SOURCE_CHARS) -> str:
    """The sentence (or line) of a tool result that carries the answer: the one sharing the most
    numbers with the answer, then the most words; the result's start when none shares anything.
    Cut to ``limit`` characters around its first shared number, never in the middle of one. A JSON
    result is read as ``key: value`` lines first, so no quotes or braces show (:func:`_readable`)."""
    text = _readable(output)
    parts = [" ".join(p.split()) for p in _SENTENCE_END.split(text)]
    parts = [p for p in parts if p]
    if not parts:
        return ""
    numbers, words = _tokens(str(answer or ""))

    def score(part: str) -> tuple[int, int]:
        have_numbers, have_words = _tokens(part)
        return len(have_numbers & numbers), len(have_words & words)

    best = max(parts, key=score)  # the first of equals: the earliest sentence
    if score(best) == (0, 0):
        best = parts[0]
    if len(best) <= limit:
        return best
    start = 0
    for match in _NUMBER.finditer(best):
        if _plain(match.group()) in numbers:
            start = max(0, min(match.start() - limit // 3, len(best) - limit))
            break
    cut = best[start : start + limit - 2].strip()
    return ("…" if start else "") + cut + "…"


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
        label = f"{tool} → {carrying_sentence(call.get('output'), record.get('answer'))}"
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
    if kind not in ("answered", "not_found", "no_answer") or not record.get("answer"):
        return
    sources = based_on(record)
    if sources:
        box.caption("Based on: " + " · ".join(ui.escape_md(s) for s in sources))
    elif kind == "answered":
        box.caption("Based on: no tool results — the model answered from the goal alone.")


def status_word(status: Any, kind: Any = None) -> str:
    """A table cell's outcome word: the stored outcome's (``kind``), else the status's alone."""
    return _outcome.shown(str(kind) if isinstance(kind, str) and kind else None, str(status or ""))
