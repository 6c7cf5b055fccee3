"""The plain-language summary on screen (Run outcome, History detail) and History's one-liner.

Every sentence comes from :mod:`agent_core.explain`; names in it (tools) came from the run, so
they are escaped like any run text. Each sentence has a "Step N" button that opens that step.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from agent_core.explain import Explanation, explain, one_line_from_row
from agent_core.records import load_record
from pages import _ui as ui

SUMMARY_COLUMN = st.column_config.TextColumn(
    "In short", help="What happened, in plain words (from the run's numbers).", width="medium"
)


def with_summary_column(columns: dict[str, Any]) -> dict[str, Any]:
    """History's table columns with the one-liner right after the status."""
    out: dict[str, Any] = {}
    for name, config in columns.items():
        out[name] = config
        if name == "status":
            out["summary"] = SUMMARY_COLUMN
    out.setdefault("summary", SUMMARY_COLUMN)
    return out


def add_one_liners(runs: pd.DataFrame) -> pd.DataFrame:
    """``runs`` (a page of History's table) with a ``summary`` column from the index fields."""
    if runs.empty:
        return runs.assign(summary=pd.Series(dtype="object"))
    lines = [
        one_line_from_row(str(status), int(steps), int(calls), int(failed))
        for status, steps, calls, failed in zip(runs["status"], runs["steps"], runs["tool_calls"], runs["failed_calls"])
    ]
    return runs.assign(summary=lines)


def _full_record(record_or_event: dict[str, Any]) -> dict[str, Any] | None:
    """The record itself (the Run page has only the finished event, which names the file)."""
    if isinstance(record_or_event.get("steps"), list):
        return record_or_event
    path = record_or_event.get("path")
    if not path:
        return None
    try:
        return load_record(path)
    except Exception:  # the summary is a bonus: the outcome box still shows
        return None


def _show_step(record: dict[str, Any], step: int) -> None:
    from pages._run_view import render_tool_call

    found = next((s for s in record.get("steps") or [] if isinstance(s, dict) and s.get("index") == step), None)
    if found is None:
        st.caption("This step is not in the record.")
        return
    st.markdown(f"**Step {step}** · {ui.fmt_ms(found.get('duration_ms'))}", help=ui.explain("step"))
    if found.get("text"):
        st.caption("What the model said")
        ui.show_text(ui.one_line(found.get("text"), 600))
    ids = found.get("tool_call_ids") or []
    calls = [c for c in record.get("tool_calls") or [] if isinstance(c, dict) and c.get("call_id") in ids]
    for call in calls:
        render_tool_call(call, st)
    if not calls and not found.get("text"):
        st.caption("The model call of this step did not succeed.")


def show_summary(record_or_event: dict[str, Any], container: Any = None, *, key: str = "summary") -> Explanation | None:
    """The summary box: sentences (each with its step), why it failed and what to try, details."""
    record = _full_record(record_or_event)
    if record is None:
        return None
    if record_or_event.get("status_shown"):
        record = {**record, "status_shown": record_or_event["status_shown"]}
    result = explain(record)
    target = container or st
    box = target.container(border=True)
    box.markdown("**In plain words**", help="Made from the run's record by fixed rules, not by a model.")
    for n, sentence in enumerate(result.sentences):
        if sentence.step is None:
            box.markdown(ui.escape_md(sentence.text))
            continue
        left, right = box.columns([4, 1], vertical_alignment="center")
        left.markdown(ui.escape_md(sentence.text))
        with right.popover(f"Step {sentence.step}", key=f"{key}_step_{n}", width="stretch"):
            _show_step(record, sentence.step)
    failure = result.failure
    if failure is not None:
        where = f" (step {failure.step})" if failure.step is not None else ""
        hints = "\n".join(f"- {ui.escape_md(h)}" for h in failure.hints)
        box.warning(
            f"**Why it did not finish:** {ui.escape_md(failure.headline.rstrip('.'))}{where}.\n\n"
            f"**What you can try**\n{hints}",
            icon="💡",
        )
    if result.technical:
        with box.expander("Technical details"):
            ui.show_code("\n".join(result.technical))
    return result
