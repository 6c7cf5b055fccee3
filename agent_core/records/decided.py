"""Who decided: each tool call's ``origin`` and each step's ``constraint``, in plain words.

A run shows what the model chose and what the program chose for it, and how the model's output
was held. The Run page, History, the HTML export and the CLI all say it with these functions, so
the words are the same everywhere. The texts are plain (no Markdown); pages escape them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

MODEL, HARNESS = "model", "harness"


def call_text(tool: Any, arguments: Any, limit: int = 60) -> str:
    """``get_weather(city="Tokyo")``: the call as one short line, each value cut at ``limit``."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            pass
    name = str(tool or "?")
    if not isinstance(arguments, Mapping):
        return f"{name}({str(arguments)[:limit]})" if arguments not in (None, "", {}) else f"{name}()"
    parts = []
    for key, value in arguments.items():
        text = json.dumps(value, ensure_ascii=False)
        parts.append(f"{key}={text if len(text) <= limit else text[: limit - 1] + '…'}")
    return f"{name}({', '.join(parts)})"


def origin_label(origin: Any) -> str:
    """One or two words for a table column: ``model``, ``workbench`` or ``not recorded``."""
    return {MODEL: "model", HARNESS: "workbench"}.get(str(origin), "not recorded")


def choice_words(choice: Mapping[str, Any]) -> str:
    """One line saying who chose a call (a ``tool_calls`` entry or an event's choice)."""
    call = call_text(choice.get("tool"), choice.get("arguments"))
    origin = choice.get("origin")
    if origin == MODEL:
        return f"🧠 The model chose {call}"
    if origin == HARNESS:
        rule = str(choice.get("harness_rule") or "not named")
        return f"⚙ The workbench called {call} for the model — rule: {rule}"
    return f"🔧 {call} (who chose it was not recorded: an older run)"


def constraint_words(constraint: Mapping[str, Any] | None, *, answered: bool = False, quote: bool = True) -> str:
    """How the step's output was held, in one sentence; with ``quote``, the result line the answer
    was read from (a page that lists the lines says it there instead)."""
    if constraint and constraint.get("kind") == "rules":  # the offline demo, a scripted demo
        made = "wrote this answer" if answered else "chose these calls"
        rule = next((str(n) for n in constraint.get("notes") or [] if n), "the demo's rules")
        return f"No model {made}: {rule} (rule-based, no LLM)."
    if not constraint or constraint.get("kind") in (None, "none"):
        if answered:
            return "Output not constrained: the model wrote freely."
        return "Output not constrained: the model chose freely among the tools its API was given."
    how = {"json-schema": "a JSON schema", "grammar": "a grammar"}.get(str(constraint.get("kind")), "a constraint")
    tools = [str(t) for t in constraint.get("tools") or []]
    options = []
    if tools:
        shown = ", ".join(tools[:8]) + (f" and {len(tools) - 8} more" if len(tools) > 8 else "")
        options.append(f"one of {len(tools)} tool{'s' if len(tools) != 1 else ''} ({shown})")
    if constraint.get("answer"):
        options.append("the final answer")
    text = f"Output held to {how}: " + (" or ".join(options) if options else "a fixed shape") + "."
    notes = [str(n) for n in constraint.get("notes") or [] if n]
    if notes:
        text += " " + " ".join(n[:1].upper() + n[1:] + ("" if n.endswith(".") else ".") for n in notes)
    if sure := certainty_words(constraint.get("certainty")):
        text += " " + sure
    if quote and (picked := picked_line(constraint.get("line_choice"))):
        text += f" The result line it answered from: “{picked if len(picked) <= 240 else picked[:239] + '…'}”."
    return text


def picked_line(line_choice: Any) -> str:
    """The result line a model picked before answering, as its answer saw it (only the columns the
    request names, when narrowed); empty when it picked none or none was recorded."""
    chosen = picked_number(line_choice)
    if not chosen:
        return ""
    assert isinstance(line_choice, Mapping)
    shown = line_choice.get("shown")
    return shown if isinstance(shown, str) and shown else str(line_choice["lines"][chosen - 1])


def picked_number(line_choice: Any) -> int | None:
    """The number of the line a model picked (0: none of them); None when the record holds no
    such choice or an impossible one (a record edited by hand)."""
    if not isinstance(line_choice, Mapping) or not isinstance(line_choice.get("lines"), list):
        return None
    chosen = line_choice.get("chosen")
    return chosen if type(chosen) is int and 0 <= chosen <= len(line_choice["lines"]) else None


def certainty_words(certainty: Any, *, others: int = 2) -> str:
    """How sure the model was of its choice: "How sure the model was of its choice:
    get_weather 68% (the answer 29%). Keys it was not offered took 97% of its probability
    (“answer” 61%, “weather” 32%)."; empty when not recorded."""
    if not isinstance(certainty, Mapping) or not certainty.get("chosen"):
        return ""

    def named(name: Any) -> str:
        return " or ".join("the answer" if n in ("answer", "reply") else n for n in str(name).split(" or "))

    try:
        shown = [o for o in certainty.get("others") or [] if f"{float(o['p']):.0%}" != "0%"][:others]
        rivals = [f"{named(o['name'])} {float(o['p']):.0%}" for o in shown]
        text = f"How sure the model was of its choice: {named(certainty['chosen'])} {float(certainty['p']):.0%}"
        text += f" ({', '.join(rivals)})." if rivals else "."
        held = certainty.get("unoffered")
        if isinstance(held, Mapping) and float(held["p"]) >= 0.005:
            keys = ", ".join(f"“{k['name']}” {float(k['p']):.0%}" for k in held.get("keys") or [])
            text += f" Keys it was not offered took {float(held['p']):.0%} of its probability" + (
                f" ({keys})." if keys else "."
            )
    except (KeyError, TypeError, ValueError, AttributeError):  # a record edited by hand
        return ""
    return text


def origin_counts(tool_calls: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How many calls the model chose, the workbench chose, and with no origin recorded."""
    counts = {MODEL: 0, HARNESS: 0, "unknown": 0}
    for call in tool_calls:
        origin = call.get("origin")
        counts[origin if origin in (MODEL, HARNESS) else "unknown"] += 1
    return counts
