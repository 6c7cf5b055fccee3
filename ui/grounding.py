"""The answer check on screen: a badge under the answer, where each figure was found, the note
on a step whose answer was sent back, and the History label. Reads the record's ``grounding``
(:mod:`agent_core.checks.grounding`); every text from a run is escaped before it is shown."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
import streamlit as st

from agent_core.checks.words import NO_TOOL_NOTE_PLAIN, NO_TOOL_WORKED_NOTE, WHAT_IS_CHECKED, summary, unsupported
from agent_core.providers import default_answer_check
from agent_core.records.answer_check_stats import ungrounded_rates
from ui import common as ui

HELP = WHAT_IS_CHECKED + (
    " Setting: ANSWER_CHECK (off / flag / retry; retry sends the model a corrective turn when a figure "
    "is found in no tool result)."
)
LABELS = {
    "grounded": "✅ grounded",
    "partly": "⚠️ partly",
    "ungrounded": "⚠️ ungrounded",
    "no_claims": "— nothing to check",
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
    cited = f" — 📄 {ui.md_label(source.get('cite'), 80)}" if source.get("cite") else ""
    return f"from **{ui.md_label(source.get('tool'), 40)}** (call `{ui.md_label(call_id, 40)}`{at}){cited}"


MAX_CITATIONS = 6


def citations(grounding: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """``(figure, "file, p. N", call_id)`` for each figure found in a document (once each)."""
    seen: dict[tuple[str, str], str] = {}
    for claim in grounding.get("claims") or []:
        source = claim.get("source") if isinstance(claim, Mapping) else None
        if isinstance(source, Mapping) and source.get("cite"):
            seen.setdefault((str(claim.get("text")), str(source["cite"])), str(source.get("call_id") or ""))
    return [(text, cite, call_id) for (text, cite), call_id in seen.items()]


def show_citations(
    grounding: Mapping[str, Any],
    calls: Mapping[str, Mapping[str, Any]],
    target: Any,
    show_call: Callable[[dict[str, Any], Any], None] | None,
) -> None:
    """ "12% — annual_report.pdf, p. 7": each figure with the document page or section it came
    from, each opening the tool call that read it."""
    cited = citations(grounding)
    if not cited:
        return
    target.caption("Sources in your documents (open one to see the tool call that read it):")
    row = target.container(horizontal=True, gap="small")
    for text, where, call_id in cited[:MAX_CITATIONS]:
        label = f"{ui.one_line(text, 30)} — {ui.one_line(where, 60)}"
        entry = calls.get(call_id)
        with row.popover(f"📄 {ui.escape_md(label)}", width="content"):
            step = (entry or {}).get("step")
            st.caption(
                f"{ui.md_label(text, 40)} is in {ui.md_label(where, 80)}, read by this tool call"
                + (f" (step {step})" if step else "")
                + ":"
            )
            if entry is not None and show_call is not None:
                show_call(dict(entry), st)


def show_badge(
    record: Mapping[str, Any],
    container: Any = None,
    *,
    calls_from: Mapping[str, Any] | None = None,
    show_call: Callable[[dict[str, Any], Any], None] | None = None,
) -> None:
    """Under the answer: what the check found, in plain words, and where each figure came from
    (a figure from a document: its file and page or section, opening the tool call that read it;
    ``calls_from``: the record with the tool calls, when ``record`` is the finished event)."""
    grounding = record.get("grounding")
    if not isinstance(grounding, Mapping):
        return
    target = container or st
    claims = [c for c in grounding.get("claims") or [] if isinstance(c, Mapping)]
    missing = unsupported(grounding)
    line = ui.escape_md(summary(grounding).removeprefix("⚠ "))  # the alert has its own ⚠️ icon
    if grounding.get("status") == "no_claims" or not claims:
        target.caption(f"🔎 Answer check: {line}.", help=HELP)
    elif not missing:
        target.success(f"**Answer check:** {line}.", icon="✅")
    else:
        target.warning(f"**Answer check:** {line}.", icon="⚠️")
    if claims:
        target.caption(
            "Checked: the numbers, amounts, percentages, dates and times in the answer, and the comparisons "
            "it states — not the reasoning, a yes or no, names or opinions.",
            help=HELP,
        )
    calls = {str(c.get("call_id")): c for c in (calls_from or record).get("tool_calls") or [] if isinstance(c, Mapping)}
    if note := grounding.get("note"):
        if note == NO_TOOL_NOTE_PLAIN and calls:  # an older record's note beside its own tool calls
            note = NO_TOOL_WORKED_NOTE
        target.caption(f"🔌 {ui.escape_md(note)}")
    show_citations(grounding, calls, target, show_call)
    if claims:
        with target.expander(f"Where each figure was found ({len(claims) - len(missing)} of {len(claims)})"):
            st.markdown(
                "\n".join(
                    f"- {'✅' if c.get('source') else '⚠️'} **{ui.md_label(c.get('text'), 60)}** "
                    f"({ui.md_label(c.get('kind'), 20)}) — "
                    + (
                        f"wrong arithmetic: {ui.md_label(c.get('arithmetic'), 80)}"
                        if c.get("arithmetic")
                        else f"contradicts the tool results, which say {ui.md_label(c.get('expected'), 120)}"
                        if c.get("kind") == "verdict"
                        else _where(c.get("source"), calls)
                    )
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
    default = configured or default_answer_check(provider_id)

    def text(choice: str) -> str:
        return f"default ({default})" if choice == "default" else _CHECK_TEXT[choice]

    choice = container.selectbox(
        "Answer check",
        CHECK_CHOICES,
        key="run_answer_check",
        persist_state="session",
        format_func=text,
        help="After the model answers, every number, amount, percentage, date and time in the answer is "
        "looked up in your goal and the tool results. flag: a figure found nowhere is flagged with a "
        "warning. retry: it is also sent back to the model once or twice with a corrective turn "
        "(a normal recorded step). Default: retry for the local model, flag for the others (ANSWER_CHECK).",
    )
    return None if choice == "default" else str(choice)


def show_sent_back(container: Any, unsupported_texts: list[str], message: str, answer: str = "") -> None:
    """On a step whose answer the check sent back to the model (``ANSWER_CHECK=retry``)."""
    if answer:
        container.caption("The model's answer (not shown as final)")
        ui.show_text(answer, container)
    shown = "; ".join(ui.md_label(t, 160) for t in unsupported_texts[:6])
    container.warning(
        f"**Answer check:** not backed by the tool results: {shown}. So this answer was sent back to the "
        "model with a corrective turn instead of being shown as final.",
        icon="🔁",
    )
    container.caption("Corrective turn sent to the model")
    ui.show_text(message, container)


def mark_step(step_view: Any, unsupported_texts: list[str], message: str, answer: str = "") -> None:
    """A :class:`ui.run_view.StepView` whose answer was sent back: say so in it and its label."""
    show_sent_back(step_view.model_area, unsupported_texts, message, answer)
    step_view.summary = "answer sent back by the answer check"
    step_view.flags.add("🔎")
    step_view._relabel()


# --- History and Tool stats -----------------------------------------------------------------

NOT_CHECKED = "not checked"
COLUMN = st.column_config.TextColumn(
    "Answer check",
    help="Are the numbers, amounts, dates and times of the answer found in the goal or the tool results? "
    "✅ all of them · ⚠️ partly / ungrounded: some appear in no tool result · — the answer had none · "
    "empty: no answer, or not checked.",
)


def with_column(columns: dict[str, Any]) -> dict[str, Any]:
    """History's table columns with the answer check right after the status (and its one-liner)."""
    out: dict[str, Any] = {}
    after = "summary" if "summary" in columns else "status"
    for name, config in columns.items():
        out[name] = config
        if name == after:
            out["answer_check"] = COLUMN
    out.setdefault("answer_check", COLUMN)
    return out


def add_labels(runs: pd.DataFrame) -> pd.DataFrame:
    """``runs`` (a page of History's table) with the ``answer_check`` label column."""
    if "grounding" not in runs.columns:
        return runs.assign(answer_check="")
    return runs.assign(answer_check=[label(g) for g in runs["grounding"].astype("object")])


def filter_control(where: Any, runs: pd.DataFrame, key: str) -> list[str]:
    """A multiselect over the answer-check labels present in ``runs``; the labels chosen."""
    present = {label(g) or NOT_CHECKED for g in runs["grounding"].astype("object")} if "grounding" in runs else set()
    return _check_select(where, present, key)


def verdict_control(where: Any, present: list[str], key: str) -> tuple[str, ...]:
    """History's answer-check filter over the verdicts present (:attr:`agent_core.records.queries.Choices.checks`,
    ``""`` = not checked); the verdicts chosen, in the same terms."""
    chosen = _check_select(where, {LABELS.get(v, NOT_CHECKED) for v in present}, key)
    by_label = {text: status for status, text in LABELS.items()}
    return tuple(by_label.get(text, "") for text in chosen)


def _check_select(where: Any, present: set[str], key: str) -> list[str]:
    options = [v for v in (*LABELS.values(), NOT_CHECKED) if v in present]
    return list(
        where.multiselect(
            "Answer check",
            options,
            key=key,
            placeholder="all",
            help="Show only runs whose answer's figures were all found in tool results (✅), only partly or "
            "not at all (⚠️: the model may have made them up), had nothing to check (—: no figures, or only "
            "your goal's), or were not checked.",
        )
    )


def apply_filter(runs: pd.DataFrame, chosen: list[str]) -> pd.DataFrame:
    """Rows of ``runs`` whose answer-check label is one of ``chosen`` (empty: all)."""
    if not chosen or "grounding" not in runs.columns:
        return runs
    labels = pd.Series([label(g) or NOT_CHECKED for g in runs["grounding"].astype("object")], index=runs.index)
    return runs[labels.isin(chosen)].reset_index(drop=True)


RATE_COLUMNS = {
    "provider": st.column_config.TextColumn("Provider"),
    "model": st.column_config.TextColumn("Model"),
    "checked": st.column_config.NumberColumn("Answers checked", format="%d"),
    "ungrounded_rate": st.column_config.ProgressColumn(
        "Ungrounded answers",
        format="percent",
        step=0.01,  # whole percents ("67%"): one format with the metrics and charts
        min_value=0.0,
        max_value=1.0,
        help="Share of checked answers with at least one figure found in no tool result (partly + ungrounded).",
    ),
    "grounded": st.column_config.NumberColumn("✅ Grounded", format="%d"),
    "partly": st.column_config.NumberColumn("⚠️ Partly", format="%d"),
    "ungrounded": st.column_config.NumberColumn("⚠️ Ungrounded", format="%d"),
    "no_claims": st.column_config.NumberColumn("— Nothing to check", format="%d"),
}


def show_rates(runs: pd.DataFrame) -> None:
    """Tool stats: the ungrounded-answer rate per provider and model."""
    show_rates_table(ungrounded_rates(runs))


def show_rates_table(table: pd.DataFrame) -> None:
    """Tool stats: the ungrounded-answer rates (:func:`agent_core.records.answer_check_stats.ungrounded_rates`)."""
    st.subheader("Answers with made-up figures", help=HELP)
    if table.empty:
        st.caption("No checked answers match these filters yet (the check needs a run that answered).")
        return
    st.caption(
        "Per provider and model: how many answers stated a number, amount, date or time that appears in no "
        "tool result (the model may have made it up)."
    )
    st.dataframe(table, hide_index=True, width="stretch", column_order=list(RATE_COLUMNS), column_config=RATE_COLUMNS)
