"""The Review page's queue: runs to label one after another, from the keyboard.

A queue is a filter of History (flagged by the answer check, did not complete, every run; a
provider; one eval's runs with ``?eval=ID``) over the runs nobody labelled yet, newest first. The
run in front shows its goal, answer (with the answer check's warnings), tool calls and a link to
History; **P** pass, **F** fail, **S** skip, **B** back (Streamlit's button shortcuts: they work
while no text box has the focus). A reason and a corrected answer go with the verdict. Labels are
stored beside the runs (:mod:`agent_core.records.labels`), so the queue moves on by itself.
Session-state keys start with ``review_``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import streamlit as st

from agent_core.errors import RecordError
from agent_core.records import stats
from agent_core.records.labels import UNLABELLED
from agent_core.records.queries import RunFilter
from agent_core.settings import Settings
from ui import common as ui
from ui import labels as _labels_ui

QUEUES: dict[str, tuple[str, RunFilter]] = {
    "flagged": ("Flagged by the answer check", RunFilter(checks=("partly", "ungrounded"))),
    "failed": ("Did not complete", RunFilter(statuses=("max_steps", "error", "cancelled", "interrupted"))),
    "all": ("Every run", RunFilter()),
}
KEYS = {"pass": "P", "fail": "F", "skip": "S", "back": "B"}
HISTORY_PAGE = "pages/history.py"
CALL_COLUMNS = ["step", "tool", "arguments", "success", "result", "error"]


def queue_filter(base: RunFilter, *, providers: tuple[str, ...], relabel: bool, run_ids: Any) -> RunFilter:
    """The queue's filter: ``base`` for these providers (and eval runs), unlabelled runs unless ``relabel``."""
    return replace(base, providers=providers, labels=() if relabel else (UNLABELLED,), run_ids=run_ids)


def _state(name: str) -> list[str]:
    found: list[str] = st.session_state.setdefault(f"review_{name}", [])
    return found


def _label(config: Settings, run_id: str, verdict: str) -> None:
    problem = _labels_ui.save(
        config,
        run_id,
        verdict,
        reason=st.session_state.get(f"review_reason_{run_id}", ""),
        corrected=st.session_state.get(f"review_answer_{run_id}", ""),
    )
    if problem:
        st.session_state["review_note"] = problem
    _state("done").append(run_id)
    st.session_state.pop("review_back", None)


def _skip(run_id: str) -> None:
    _state("skipped").append(run_id)
    st.session_state.pop("review_back", None)


def _back() -> None:
    done = _state("done")
    if done:
        st.session_state["review_back"] = done.pop()


def _restart() -> None:
    st.session_state["review_skipped"] = []


def current(queries: Any, where: RunFilter) -> tuple[str | None, int]:
    """(the run in front of the queue, how many runs are left in it, skipped ones aside)."""
    back = st.session_state.get("review_back")
    skipped = set(_state("skipped"))
    page = queries.page(where, size=len(skipped) + 1)
    ids = [str(r) for r in page.rows["run_id"].tolist()]
    left = max(0, page.matching - len(skipped & set(ids)))  # (skipping goes down the queue: its top rows)
    if back:
        return str(back), left
    return next((r for r in ids if r not in skipped), None), left


def show_run(record: dict[str, Any], config: Settings) -> None:
    """The run to judge: goal, answer (answer check included), tool calls, and its label if any."""
    from ui.run_view import show_outcome

    run_id = str(record.get("run_id"))
    st.markdown(f"**Goal** · {ui.md_label(record.get('goal'), 600)}")
    usage = record.get("usage") or {}
    st.caption(
        f"{ui.md_label(record.get('provider'), 30)} · {ui.md_label(record.get('model'), 50)} · "
        f"{ui.status_text(record.get('status_shown') or record.get('status'))} · "
        f"{len(record.get('steps') or [])} steps · {len(record.get('tool_calls') or [])} tool calls · "
        f"{ui.fmt_int(usage.get('total_tokens'))} tokens · {ui.escape_md(ui.fmt_time(record.get('started_at')))}"
    )
    show_outcome(record, link=True)
    calls = stats.tool_calls_frame(record)
    if not calls.empty:
        with st.expander(f"Tool calls ({len(calls)})", key="review_calls", on_change="rerun", expanded=False) as box:
            if box.open:
                st.dataframe(calls[CALL_COLUMNS], hide_index=True, width="stretch")
    label = _labels_ui.store(config).get([run_id]).get(run_id)
    if label is not None:
        st.caption("Labelled already: " + _labels_ui.describe(label))


def verdict_controls(run_id: str, config: Settings) -> None:
    """Reason, corrected answer, and the four buttons with their keyboard shortcuts."""
    left, right = st.columns([1, 1])
    left.text_input("Reason (optional)", key=f"review_reason_{run_id}", placeholder="why it passes or fails")
    right.text_area(
        "Corrected answer (optional)",
        key=f"review_answer_{run_id}",
        height=68,
        placeholder="what the answer should have said; goals made from this run check its figures",
    )
    row = st.container(horizontal=True, key="review_buttons", vertical_alignment="center")
    row.button(
        "✓ Pass",
        key="review_pass",
        type="primary",
        shortcut=KEYS["pass"],
        on_click=_label,
        args=(config, run_id, "pass"),
    )
    row.button("✗ Fail", key="review_fail", shortcut=KEYS["fail"], on_click=_label, args=(config, run_id, "fail"))
    row.button("Skip", key="review_skip", shortcut=KEYS["skip"], on_click=_skip, args=(run_id,))
    row.button("← Back", key="review_back_button", shortcut=KEYS["back"], on_click=_back, disabled=not _state("done"))
    st.caption(
        "Keys: **P** pass · **F** fail · **S** skip · **B** back to the run before. They work while no text box "
        "has the cursor: after typing a reason, click beside the box (or Tab past both boxes)."
    )


def show_queue(queries: Any, where: RunFilter, config: Settings) -> None:
    """The queue: progress, the run in front, and its controls (or the end of the queue)."""
    note = st.session_state.pop("review_note", None)
    if note:
        st.warning(ui.escape_md(note), icon="🔌")
    run_id, left = current(queries, where)
    done = len(_state("done"))
    skipped = len(_state("skipped"))
    st.progress(
        done / (done + left) if done + left else 1.0,
        text=f"{done} labelled this session · {left} left in this queue" + (f" · {skipped} skipped" if skipped else ""),
    )
    if run_id is None:
        st.success("Nothing left to label in this queue.", icon="🎉")
        if skipped:
            st.button("Go through the skipped runs again", key="review_restart", on_click=_restart)
        return
    try:
        record = queries.load(run_id)
    except RecordError as exc:
        st.error(f"Run {ui.md_label(run_id, 60)} cannot be read ({ui.md_label(exc, 200)}): skip it.", icon="⚠️")
        st.button("Skip", key="review_skip", shortcut=KEYS["skip"], on_click=_skip, args=(run_id,))
        return
    with st.container(border=True, key="review_card"):
        show_run(record, config)
        verdict_controls(run_id, config)
