"""History page: every saved run in a filterable table, and the detail of one run.

The selected run lives in the URL (``?run=<run_id>``), so a run's page can be shared.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from agent_core.errors import RecordError
from agent_core.providers import tokens_estimated
from agent_core.records import stats
from agent_core.records.queries import RunFilter
from ui import approval as _approval_ui
from ui import common as ui
from ui import explain as _explain_ui
from ui import goals as _goals_ui
from ui import grounding as grounding_ui
from ui import history as _history_ui
from ui import labels as _labels_ui
from ui import live as _live
from ui import otel as _otel_ui
from ui import outcome as _outcome_ui
from ui import query as _query_ui
from ui.compare import compare_picker, replay_panel
from ui.evals import history_eval_ids
from ui.ledger import show_ledger
from ui.run_view import name_blocks, show_outcome, show_saved_run

ui.ensure_app_frame()
config = ui.settings()
store = ui.run_store(config)

PAGE_SIZE = 500
"""Runs per page of the table: the browser gets one page at a time, so a rerun stays quick at
100,000 runs (the grid itself draws only the rows in view)."""
ORDERS: dict[str, tuple[str, bool]] = {
    "Newest": ("started_at", False),
    "Oldest": ("started_at", True),
    "Longest": ("duration_ms", False),
    "Most expensive": ("cost_usd", False),
    "Most tokens": ("tokens", False),
    "Most tool calls": ("tool_calls", False),
    "Most failed calls": ("failed_calls", False),
    "Most steps": ("steps", False),
    "Most retries": ("retries", False),
}
"""How the whole filtered list can be ordered before it is cut into pages (clicking a column
header sorts only the page in view)."""
COLUMN_LABELS = {
    # What an analyst sorts by first; provider and model after them.
    "started_at": st.column_config.DatetimeColumn("Time (UTC)", format="YYYY-MM-DD HH:mm:ss", width="medium"),
    "status": st.column_config.TextColumn(
        "Status",
        help="How the run ended, in the Run page's words: Answered · Not found · No answer · Step limit · "
        "Stopped · Failed · Running (the saved status is in the run's detail).",
    ),
    "goal": st.column_config.TextColumn("Goal", width="medium"),
    "steps": st.column_config.NumberColumn("Steps", help=ui.explain("step"), format="%d"),
    "tool_calls": st.column_config.NumberColumn("Tool calls", help=ui.explain("tool call"), format="%d"),
    "blocks_trimmed": st.column_config.NumberColumn("Trimmed", help=ui.explain("trimmed"), format="%d"),
    "duration_s": st.column_config.NumberColumn("Duration (s)", format="%.2f"),
    "cost_usd": st.column_config.NumberColumn("Cost ($)", help=ui.explain("cost"), format="%.4f"),
    "tokens": st.column_config.NumberColumn(
        "Tokens",
        help=ui.explain("token") + " Empty for the demo models: " + ui.explain("estimated tokens"),
        format="%d",
    ),
    "provider": st.column_config.TextColumn("Provider", help=ui.explain("provider")),
    "model": st.column_config.TextColumn("Model"),
    "user": st.column_config.TextColumn("User", help="Who ran it (AGENT_USER, or the signed-in user)."),
    "scripted": st.column_config.CheckboxColumn("Demo", help=ui.explain("scripted")),
    "label": _labels_ui.COLUMN,
    "retries": st.column_config.NumberColumn(
        "Retries", format="%d", help="Model and tool attempts beyond the first. " + ui.explain("retry")
    ),
}
COLUMN_LABELS = grounding_ui.with_column(_explain_ui.with_summary_column(COLUMN_LABELS))


def _select_run(run_id: str | None) -> None:
    if run_id:
        st.query_params["run"] = run_id
    elif "run" in st.query_params:
        del st.query_params["run"]


def _on_table_select(key: str = "history_table") -> None:
    state = st.session_state.get(key)
    ids = st.session_state.get("history_view_ids") or []
    rows = list(getattr(getattr(state, "selection", None), "rows", []) or [])
    if not rows and isinstance(state, dict):
        rows = list((state.get("selection") or {}).get("rows") or [])
    _select_run(ids[rows[0]] if rows and rows[0] < len(ids) else None)


def _on_pick() -> None:
    _select_run(st.session_state.get("history_pick"))


def _csv(df: pd.DataFrame) -> bytes:
    return df.to_csv(index=False).encode("utf-8")


def _timeline_chart(record: dict[str, Any]) -> None:
    """Bars on a time axis: each step's model call and each tool call (nothing without times)."""
    t0 = pd.to_datetime(record.get("started_at"), utc=True, errors="coerce")
    if pd.isna(t0):
        return
    bars = [
        (step.get("started_at"), f"step {step.get('index')}", "model call", float(step.get("model_duration_ms") or 0))
        for step in record.get("steps") or []
    ] + [
        (
            call.get("started_at"),
            f"step {call.get('step')}",
            f"tool: {call.get('tool')}",
            max(float(call.get("duration_ms") or 0), 0.5),
        )
        for call in record.get("tool_calls") or []
    ]
    rows = []
    for started, step, what, length_ms in bars:
        start = pd.to_datetime(started, utc=True, errors="coerce")
        if pd.isna(start):
            continue
        offset = (start - t0).total_seconds() * 1000
        rows.append({"step": step, "what": what, "start_ms": offset, "end_ms": offset + length_ms})
    if not rows:
        return
    df = pd.DataFrame(rows)
    df["end_ms"] = df[["start_ms", "end_ms"]].max(axis=1) + 0.5
    order = list(dict.fromkeys(df["step"]))
    ui.bar_chart(
        df,
        {
            "x": ui.quantitative("start_ms", "milliseconds since the run started"),
            "x2": {"field": "end_ms"},
            "y": ui.nominal("step", sort=order, title=None),
            "color": ui.nominal("what", title=None, legend={"orient": "bottom"}),
            "tooltip": [
                ui.nominal("step"),
                ui.nominal("what"),
                ui.quantitative("start_ms", format=".1f"),
                ui.quantitative("end_ms", format=".1f"),
            ],
        },
        step=30,
        cornerRadius=2,
    )


def run_detail(run_id: str) -> None:
    """Everything about one run: summary, steps, context ledger, tool calls, transcript, downloads."""
    try:
        record = _query_ui.queries(store, config).load(run_id)
    except RecordError as exc:
        st.error(f"Run {ui.md_label(run_id, 60)} could not be opened: {ui.md_label(exc, 200)}", icon="🔎")
        return
    try:
        _run_detail(record)
    except Exception as exc:  # a hand-edited record with odd values: say so, keep the raw record at hand
        st.error(
            f"Part of run {ui.md_label(run_id, 60)} cannot be shown: the record holds values of an unexpected "
            f"type ({ui.md_label(type(exc).__name__ + ': ' + str(exc), 200)}). The raw record is below.",
            icon="⚠️",
        )
        st.json(record, expanded=False)


def _run_detail(record: dict[str, Any]) -> None:
    status = record.get("status_shown") or record.get("status")
    st.subheader(
        "Run detail" + (" · 🎬 scripted demo" if record.get("scripted") else ""),
        help=ui.explain("scripted") if record.get("scripted") else None,
    )
    st.caption("Goal")
    _live.fold_goal(str(record.get("goal") or ""))  # a long goal: its first 300 characters · show all
    calls = [c for c in record.get("tool_calls") or [] if isinstance(c, dict)]
    usage = record.get("usage") or {}
    failed = sum(map(stats.call_failed, calls))
    max_steps = (record.get("settings") or {}).get("max_steps", "?")
    row = ui.metric_row()
    for label, value, help_text in (
        (
            "Outcome",
            "{} {}".format(*_outcome_ui.WORDS[_outcome_ui.outcome(record)[0]]),
            f"Saved status: {ui.md_label(status, 20)}. " + ui.STATUS_HELP.get(str(status), ""),
        ),
        (
            "Steps",
            f"{len(record.get('steps') or [])} / {max_steps}",
            ui.explain("step") + " " + ui.explain("step limit"),
        ),
        ("Tool calls", f"{len(calls)}" + (f" ({failed} failed)" if failed else ""), ui.explain("tool call")),
        (
            "Tokens",
            ui.fmt_tokens(usage.get("total_tokens"), estimated := tokens_estimated(str(record.get("provider")))),
            (ui.explain("estimated tokens") + " " if estimated else "") + f"{ui.explain('token')} In: "
            f"{ui.fmt_int(usage.get('input_tokens'))}, out: {ui.fmt_int(usage.get('output_tokens'))}.",
        ),
        ("Cost", ui.fmt_cost(record.get("cost_usd")), ui.explain("cost")),
        ("Duration", ui.fmt_ms(record.get("duration_ms")), "Wall-clock time from start to end."),
    ):
        row.metric(label, value, help=help_text, width="content")
    settings = record.get("settings") or {}
    st.caption(
        f"Provider {ui.md_label(record.get('provider'), 40)} ({ui.md_label(record.get('provider_label'), 80)}) · "
        f"model {ui.md_label(record.get('model'), 60)} · started {ui.escape_md(ui.fmt_time(record.get('started_at')))} · "
        f"context-block limit {ui.md_label(settings.get('max_context_blocks'), 8)} · run id {ui.md_label(record.get('run_id'), 40)}"
    )
    show_outcome(record, link=False)
    if not config.read_only:  # a person's verdict, and the run as a goal of a goal set
        _labels_ui.verdict_box(str(record.get("run_id")), config)
        _goals_ui.run_panel(record, config)
    replay_panel(record, config)

    tabs = st.tabs(["Steps", "Context blocks", "Tool calls", "Transcript", "Downloads"])
    steps_df = stats.steps_frame(record)
    steps_shown = steps_df.copy()  # (the download keeps the engine's block indexes)
    made_in = {b.get("index"): b.get("step") for b in record.get("context_blocks") or [] if isinstance(b, dict)}
    if not steps_shown.empty:  # blocks named by the step that made them: "0, 1" -> "the blocks from steps 1, 2"
        for column in ("blocks_sent", "blocks_trimmed"):
            steps_shown[column] = [name_blocks(s.get(column), made_in) for s in record.get("steps") or []]
    ledger = stats.context_ledger(record)
    calls_df = stats.tool_calls_frame(record)
    transcript = stats.transcript_frame(record)
    with tabs[0]:
        st.caption("The step timeline: when each model call and tool call ran. " + ui.explain("step"))
        _timeline_chart(record)
        if not steps_shown.empty:
            st.dataframe(
                steps_shown,
                hide_index=True,
                width="stretch",
                column_config={
                    "step": st.column_config.NumberColumn("Step", format="%d"),
                    "duration_ms": st.column_config.NumberColumn("Step ms", format="%.1f"),
                    "model_ms": st.column_config.NumberColumn("Model ms", format="%.1f"),
                    "model_attempts": st.column_config.NumberColumn("Attempts", help=ui.explain("retry"), format="%d"),
                    "input_tokens": st.column_config.NumberColumn("Tokens in", help=ui.explain("token"), format="%d"),
                    "output_tokens": st.column_config.NumberColumn("Tokens out", format="%d"),
                    "tool_calls": st.column_config.NumberColumn("Tool calls", format="%d"),
                    "model_text": st.column_config.TextColumn("Model said", width="large"),
                    "blocks_sent": st.column_config.TextColumn("Blocks sent", help=ui.explain("context block")),
                    "blocks_trimmed": st.column_config.TextColumn("Blocks trimmed", help=ui.explain("trimmed")),
                },
            )
        st.caption("Step by step (open a step to see its model call and tool calls)")
        show_saved_run(record, expand_last=False, gauge=False)
    with tabs[1]:
        st.markdown(
            "**What the model saw at each step.** Each row is a context block, each column a step: "
            "**sent** = the model saw that block then; ~~trimmed~~ = left out to keep the input short.",
            help=ui.explain("context block") + " " + ui.explain("trimmed"),
        )
        st.caption(
            f"The goal is always sent. Context-block limit of this run: "
            f"{ui.md_label(settings.get('max_context_blocks'), 8)} (the newest blocks are kept). "
            "A blank cell means the block did not exist yet at that step."
        )
        show_ledger(record)
    with tabs[2]:
        st.caption("The execution log: one row per tool call. " + ui.explain("tool call"))
        if calls_df.empty:
            st.info("This run made no tool calls.")
        else:
            st.dataframe(
                calls_df,
                hide_index=True,
                width="stretch",
                column_config={
                    "success": st.column_config.CheckboxColumn("OK"),
                    "decided_by": st.column_config.TextColumn("Decided by", help=ui.explain("origin")),
                    "attempts": st.column_config.NumberColumn("Attempts", help=ui.explain("retry"), format="%d"),
                    "fallback": st.column_config.TextColumn("Fallback", help=ui.explain("fallback")),
                    "duplicate": st.column_config.CheckboxColumn("Duplicate", help=ui.explain("duplicate")),
                    "truncated": st.column_config.CheckboxColumn("Truncated", help=ui.explain("truncated")),
                    "duration_ms": st.column_config.NumberColumn(
                        "ms", format="%.1f", help="The call's own time (a wait for approval is not in it)."
                    ),
                    "approval": st.column_config.TextColumn("Approval", help=_approval_ui.explain()),
                    "approval_wait_ms": st.column_config.NumberColumn("Approval wait ms", format="%.0f"),
                },
            )
            picked = st.selectbox(
                "Full log entry of one call",
                [str(c.get("call_id")) for c in calls],
                key="history_call",
                format_func=lambda cid: next(
                    (
                        f"step {c.get('step')} · {ui.one_line(c.get('tool'), 40)} · {cid}"
                        for c in calls
                        if str(c.get("call_id")) == cid
                    ),
                    cid,
                ),
            )
            entry = next((c for c in calls if str(c.get("call_id")) == picked), None)
            if entry is not None:
                ui.show_value(entry, expanded=2)
    with tabs[3]:
        st.caption("The conversation as the engine kept it (system, user, assistant and tool messages).")
        dropped = record.get("history_dropped") or 0
        if dropped:
            st.caption(f"{int(dropped)} older message(s) were dropped from the saved transcript.")
        for message in record.get("history") or []:
            role = str(message.get("role") or "")
            avatar = {"system": "⚙️", "user": "🧑", "assistant": "🤖", "tool": "🔧"}.get(role, "•")
            with st.chat_message(role if role in ("user", "assistant") else "ai", avatar=avatar):
                label = role + (f" · {ui.one_line(message.get('tool'), 40)}" if message.get("tool") else "")
                st.caption(ui.escape_md(label))  # escaped once (twice showed search\\_web)
                if message.get("content"):
                    if role == "system":
                        with st.expander("System prompt"):
                            ui.show_text(message.get("content"))
                    else:
                        ui.show_text(message.get("content"))
                if message.get("tool_calls"):
                    st.caption("Tool calls it asked for")
                    ui.show_value(message.get("tool_calls"), expanded=2)
    with tabs[4]:
        st.caption("The whole record as JSON, and each table as CSV.")
        rid = str(record.get("run_id"))
        clean = {k: v for k, v in record.items() if k != "status_shown"}
        d = st.columns(5)
        d[0].download_button(
            "Record (JSON)",
            json.dumps(clean, ensure_ascii=False, indent=2).encode("utf-8"),
            file_name=f"{rid}.json",
            mime="application/json",
            key="history_dl_json",
        )
        tables = (
            ("Steps", steps_df, "steps"),
            ("Tool calls", calls_df, "tool-calls"),
            ("Context blocks", ledger, "context-blocks"),
            ("Transcript", transcript, "transcript"),
        )
        for column, (label, frame, suffix) in zip(d[1:], tables):
            column.download_button(
                f"{label} (CSV)",
                _csv(frame),
                file_name=f"{rid}-{suffix}.csv",
                mime="text/csv",
                key=f"history_dl_{suffix}",
            )
        _explain_ui.download_page(record)
        _otel_ui.export_panel(record, config)  # OpenTelemetry: OTLP JSON download, "Send to…"


# --- Page -------------------------------------------------------------------------------------

st.title("🗂️ History")
st.caption("Every saved run, newest first. Pick a row to see what happened at each step.")
ui.problems_warning(store)
_explain_ui.import_box(store)
queries = _query_ui.queries(store, config)
choices = queries.choices()
selected = st.query_params.get("run")
_history_ui.keep_filters()  # a run opened from the table, then "← all runs": the same filtered list
if _history_ui.open_on_run(store, selected, queries):  # a link to a run opens on it: the detail first
    run_detail(selected)
    st.stop()
elif selected:
    selected = None  # unknown id: said at the top, the list as usual

if not choices.saved:
    ui.no_runs_yet("saved runs")
    if selected:
        run_detail(selected)
    st.stop()

ui.wrapping_columns("history_filters")  # at 800 px the dates and the order move to a line of their own
with st.container(border=True, key="history_filters"):
    # (a User filter, once runs say who ran them, shares the first line)
    f1, f2, f3, *f8 = st.columns([1.5, 1.3, 1, 1] if choices.users else [2, 1.3, 1])
    text = f1.text_input("Search goals", key="history_text", placeholder="words in the goal, or a run id")
    days = ui.date_filter(f2, choices.day_span(), "history_days")
    order = f3.selectbox("Order", list(ORDERS), key="history_order", help="How the matching runs are listed.")
    f4, f5, f6, f7 = st.columns(4)
    providers = _query_ui.choice_filter(f4, "Provider", choices.providers, "history_providers", ui.explain("provider"))
    models = _query_ui.choice_filter(f5, "Model", choices.models, "history_models")
    statuses = _query_ui.choice_filter(
        f6,
        "Status",
        choices.statuses,
        "history_statuses",
        "The saved status: completed = Answered, Not found or No answer; max_steps = Step limit; cancelled = "
        "Stopped; error = Failed; interrupted = left 'running' by a process that is gone (Failed).",
    )
    checks = grounding_ui.verdict_control(f7, choices.checks, "history_checks")
    users = _query_ui.user_filter(f8, choices.users, "history_users")
    f9, f10, f11, f12 = st.columns(4)
    labels = _labels_ui.label_filter(f9, "history_labels")
    min_cost = f10.number_input(
        "Cost above ($)",
        min_value=0.0,
        value=None,
        step=0.01,
        format="%.4f",
        key="history_min_cost",
        help="Runs that cost more than this (a run of unknown cost is left out). Empty: any cost.",
    )
    min_retries = f11.number_input(
        "Retries above",
        min_value=0,
        value=None,
        step=1,
        key="history_min_retries",
        help="Runs with more retries than this (model and tool attempts beyond the first). Empty: any.",
    )
    sources = _query_ui.source_filter(f12)  # by default your own runs (evals, arena, replays, demos hidden)

eval_ids = history_eval_ids(config)  # ?eval=ID[&goal=G]: one eval's runs, whatever the Source filter says
if eval_ids is not None:
    sources = ()

where = RunFilter(
    providers=tuple(providers),
    models=tuple(models),
    statuses=tuple(statuses),
    users=tuple(users),
    days=tuple(days),
    text=text,
    checks=checks,
    run_ids=eval_ids,
    sources=sources,
    labels=labels,
    min_cost_usd=min_cost,
    min_retries=None if min_retries is None else int(min_retries),
)
# A new filter or order starts again at page 1; a page that no longer exists becomes the last.
wanted = (text, str(days), tuple(providers), tuple(models), tuple(statuses), order, checks, tuple(users))
wanted += (labels, min_cost, min_retries, sources)
if st.session_state.get("history_filters_seen") != wanted:
    st.session_state["history_filters_seen"] = wanted
    st.session_state["history_page"] = 1
result = queries.page(where, order=ORDERS[order], page=st.session_state.get("history_page", 1), size=PAGE_SIZE)
pages = max(1, -(-result.matching // PAGE_SIZE))
if st.session_state.get("history_page", 1) > pages:
    st.session_state["history_page"] = pages
page_no = 1
if pages > 1:
    n1, n2 = st.columns([1, 2], vertical_alignment="bottom")
    page_no = int(n1.number_input("Page", min_value=1, max_value=pages, step=1, key="history_page"))
    start = (page_no - 1) * PAGE_SIZE
    n2.caption(
        f"Runs {start + 1:,}–{min(start + PAGE_SIZE, result.matching):,} of {result.matching:,} matching "
        f"({result.saved:,} saved) · page {page_no} of {pages}. Clicking a column header sorts this page; "
        "**Order** sorts them all."
    )
else:
    st.caption(f"{result.matching:,} of {result.saved:,} runs shown.")
if hidden := _query_ui.hidden_note(choices.sources, sources):
    st.caption(hidden)
if not config.read_only:
    _goals_ui.bulk_panel(queries, where, result.matching, config)
shown = result.rows
shown = shown.assign(duration_s=pd.to_numeric(shown["duration_ms"], errors="coerce") / 1000)
shown = grounding_ui.add_labels(_explain_ui.add_one_liners(shown))
shown["status"] = [_outcome_ui.status_word(s, k) for s, k in zip(shown["status"], shown["outcome"])]  # Run's word
shown["tokens"] = shown["tokens"].where(~shown["provider"].map(tokens_estimated).astype(bool))  # estimates: none
shown = _labels_ui.add_column(shown, _labels_ui.store(config))
ids = shown["run_id"].tolist()
st.session_state["history_view_ids"] = ids
preselect = [int(i) for i in shown.index[shown["run_id"] == selected]] if selected else []
_history_ui.runs_table(  # every column on a wide screen, the essentials on a narrow one
    shown,
    {  # who ran it with a team; people's labels once any run in view has one
        k: v
        for k, v in COLUMN_LABELS.items()
        if (k != "user" or choices.users) and (k != "label" or shown["label"].astype(bool).any())
    },
    height=38 + 35 * max(3, min(len(shown), 18)),  # up to 18 rows in view; the grid scrolls for more
    preselect=preselect,
    on_select=_on_table_select,
)

# The picker offers the runs of the page in view (and the open run, wherever it is).
options = ids if not selected or selected in ids else [selected, *ids]
picks = shown if not selected or selected in ids else queries.rows(options)
labels = {
    rid: f"{ui.fmt_time(started)} · {status} · {ui.one_line(goal, 60)}"
    for rid, started, status, goal in zip(picks["run_id"], picks["started_at"], picks["status"], picks["goal"])
}
st.session_state["history_pick"] = selected if selected in options else None
st.selectbox(
    "Open a run",
    options,
    key="history_pick",
    index=None,
    on_change=_on_pick,
    placeholder="Choose a run (or click a row in the table)…",
    help="The runs on this page of the table, in its order.",
    format_func=lambda rid: labels.get(rid, rid),
)
compare_picker(options, labels)

if selected:
    st.divider()
    run_detail(selected)
