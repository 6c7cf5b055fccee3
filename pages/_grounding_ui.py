"""The answer check on screen: a badge under the answer, where each figure was found, the note
on a step whose answer was sent back, and the History label. Reads the record's ``grounding``
(:mod:`agent_core.grounding`); every text from a run is escaped before it is shown."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from agent_core.grounding import WHAT_IS_CHECKED, summary, unsupported
from pages import _ui as ui

HELP = WHAT_IS_CHECKED + (
    " Setting: ANSWER_CHECK (off / flag / retry; retry sends the model a corrective turn when a figure "
    "is found in no tool result)."
)
LABELS = {
    "grounded": "✅ grounded",
    "partly": "⚠️ partly",
    "ungrounded": "⚠️ ungrounded",
    "no_claims": "— no figures",
}
"""Short labels for the History table."""


def label(grounding: Any) -> str:
    """The History column's text for a record's ``grounding`` (empty when it was not checked)."""
    status = grounding.get("status") if isinstance(grounding, Mapping) else grounding
    return LABELS.get(str(status or ""), "")


def _where(source: Mapping[str, Any] | None, calls: Mapping[str, Mapping[str, Any]]) -> str:
    if not source:
        return "found in no tool result"
    if source.get("goal"):
        return "from your goal"
    call_id = str(source.get("call_id") or "")
    entry = calls.get(call_id) or {}
    step = entry.get("step")
    at = f", step {step}" if step else ""
    return f"from **{ui.md_label(source.get('tool'), 40)}** (call `{ui.md_label(call_id, 40)}`{at})"


def show_badge(record: Mapping[str, Any], container: Any = None) -> None:
    """Under the answer: what the check found, in plain words, and where each figure came from."""
    grounding = record.get("grounding")
    if not isinstance(grounding, Mapping):
        return
    target = container or st
    claims = [c for c in grounding.get("claims") or [] if isinstance(c, Mapping)]
    missing = unsupported(grounding)
    line = ui.escape_md(summary(grounding))
    if grounding.get("status") == "no_claims" or not claims:
        target.caption(f"🔎 Answer check: {line}.", help=HELP)
    elif not missing:
        target.success(f"**Answer check:** {line}.", icon="✅")
    else:
        target.warning(f"**Answer check:** {line}.", icon="⚠️")
    if claims:
        target.caption(
            "Checked: the numbers, amounts, percentages, dates and times in the answer — not names or opinions.",
            help=HELP,
        )
    if note := grounding.get("note"):
        target.caption(f"🔌 {ui.escape_md(note)}")
    if claims:
        calls = {str(c.get("call_id")): c for c in record.get("tool_calls") or [] if isinstance(c, Mapping)}
        with target.expander(f"Where each figure was found ({len(claims) - len(missing)} of {len(claims)})"):
            st.markdown(
                "\n".join(
                    f"- {'✅' if c.get('source') else '⚠️'} **{ui.md_label(c.get('text'), 60)}** "
                    f"({ui.md_label(c.get('kind'), 20)}) — {_where(c.get('source'), calls)}"
                    for c in claims
                )
            )


CHECK_CHOICES = ("default", "off", "flag", "retry")
_CHECK_TEXT = {
    "off": "off — no check",
    "flag": "flag — warn about figures no tool gave",
    "retry": "retry — warn, and ask the model to fix them",
}


def answer_check_control(container: Any, provider_id: str, configured: str | None) -> str | None:
    """The Run page's answer-check choice; None keeps the configured / default behaviour."""
    default = configured or ("retry" if provider_id == "local" else "flag")

    def text(choice: str) -> str:
        return f"default ({default})" if choice == "default" else _CHECK_TEXT[choice]

    choice = container.selectbox(
        "Answer check",
        CHECK_CHOICES,
        key="run_answer_check",
        format_func=text,
        help="After the model answers, every number, amount, percentage, date and time in the answer is "
        "looked up in your goal and the tool results. flag: a figure found nowhere is flagged with a "
        "warning. retry: it is also sent back to the model once or twice with a corrective turn "
        "(a normal recorded step). Default: retry for the local model, flag for the others (ANSWER_CHECK).",
    )
    return None if choice == "default" else str(choice)


def show_sent_back(container: Any, unsupported_texts: list[str], message: str) -> None:
    """On a step whose answer the check sent back to the model (``ANSWER_CHECK=retry``)."""
    shown = ", ".join(ui.md_label(t, 40) for t in unsupported_texts[:6])
    container.warning(
        f"**Answer check:** {shown} appears in no tool result, so this answer was sent back to the "
        "model with a corrective turn instead of being shown as final.",
        icon="🔁",
    )
    container.caption("Corrective turn sent to the model")
    ui.show_text(message, container)


def mark_step(step_view: Any, unsupported_texts: list[str], message: str) -> None:
    """A :class:`pages._run_view.StepView` whose answer was sent back: say so in it and its label."""
    show_sent_back(step_view.model_area, unsupported_texts, message)
    step_view.summary = "answer sent back by the answer check"
    step_view.flags.add("🔎")
    step_view._relabel()
