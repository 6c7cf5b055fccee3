"""Tool stats page: how each tool behaves across saved runs (per tool, and per provider/model)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from agent_core.records import stats
from agent_core.records.queries import RunFilter
from ui import common as ui
from ui import coverage as _coverage_ui
from ui import grounding as grounding_ui
from ui import labels as _labels_ui
from ui import query as _query_ui
from ui import toolstats as _toolstats_ui

ui.ensure_app_frame()
config = ui.settings()
store = ui.run_store(config)

STATS_COLUMNS = {
    "tool": st.column_config.TextColumn("Tool", help=ui.explain("tool call")),
    "provider": st.column_config.TextColumn("Provider", help=ui.explain("provider")),
    "model": st.column_config.TextColumn("Model"),
    "calls": st.column_config.NumberColumn("Calls", format="%d"),
    "by_model": st.column_config.NumberColumn("🧠 Model", format="%d", help=_toolstats_ui.WHO["model"]),
    "by_harness": st.column_config.NumberColumn("⚙ Workbench", format="%d", help=_toolstats_ui.WHO["harness"]),
    "success_rate": st.column_config.ProgressColumn(
        "Success",
        min_value=0.0,
        max_value=1.0,
        format="percent",
        step=0.01,  # whole percents ("67%"): one format with the metrics and charts
        help="Share of calls that returned a result (after retries and fallbacks).",
    ),
    "p50_ms": st.column_config.NumberColumn(
        "p50 ms", format="%.1f", help="Median duration: half the calls were faster."
    ),
    "p95_ms": st.column_config.NumberColumn("p95 ms", format="%.1f", help="95% of the calls were faster than this."),
    "mean_ms": st.column_config.NumberColumn("Mean ms", format="%.1f", help="Average duration."),
    "retried": st.column_config.NumberColumn("Needed a retry", format="%d", help=ui.explain("retry")),
    "fallbacks": st.column_config.NumberColumn("Fallbacks", format="%d", help=ui.explain("fallback")),
    "duplicates": st.column_config.NumberColumn("Duplicates refused", format="%d", help=ui.explain("duplicate")),
    "err_validation": st.column_config.NumberColumn(
        "Bad arguments", format="%d", help="Validation errors: the model sent arguments that do not fit the tool."
    ),
    "err_transient": st.column_config.NumberColumn(
        "Temporary failures", format="%d", help="Transient errors left after all retries."
    ),
    "err_non_transient": st.column_config.NumberColumn(
        "Tool errors", format="%d", help="The tool refused or failed for good (e.g. file not found)."
    ),
    "err_timeout": st.column_config.NumberColumn(
        "Timeouts", format="%d", help="The tool took longer than its time limit."
    ),
    "err_duplicate": st.column_config.NumberColumn("Refused as duplicate", format="%d", help=ui.explain("duplicate")),
}


st.title("📊 Tool stats")
st.caption(
    "How the tools behaved across saved runs: how often each was called, how often it worked, how "
    "long it took, and what went wrong."
)
ui.problems_warning(store)
queries = _query_ui.queries(store, config)


@st.cache_data(max_entries=4, show_spinner=False)
def _choices(version: Any, _queries: Any) -> Any:
    """The filter choices (providers, models, days of the calls); cached until the store changes."""
    return _queries.call_choices()


version = queries.version()
with st.spinner("Gathering every tool call… (once; later visits are quick)", show_time=True):
    choices = _choices(version, queries)
if choices.first_day is None:  # no tool call at all
    if not choices.saved:
        ui.no_runs_yet("tool statistics")
    else:
        st.info("The saved runs made no tool calls yet.", icon="ℹ️")
    st.stop()

ui.wrapping_columns("stats_filters")  # at 800 px the date range gets a line of its own
with st.container(border=True, key="stats_filters"):
    f1, f2, f3, f4 = st.columns([1, 1, 1, 1])
    days = ui.date_filter(f1, choices.day_span(), "stats_days")
    providers = _query_ui.choice_filter(f2, "Provider", choices.providers, "stats_providers", ui.explain("provider"))
    models = _query_ui.choice_filter(f3, "Model", choices.models, "stats_models")
    origins = _toolstats_ui.origin_filter(f4, "stats_origins")
    g1, g2 = st.columns([1, 3], vertical_alignment="bottom")
    labels = _labels_ui.label_filter(g1, "stats_labels")  # e.g. the calls of the runs people failed
    sources = _query_ui.source_filter(g2)  # History's Source filter, shared: by default your own runs
where = RunFilter(
    providers=tuple(providers),
    models=tuple(models),
    days=tuple(days),
    sources=sources,
    origins=tuple(origins),
    labels=labels,
)


@st.cache_data(max_entries=32, show_spinner=False)
def _stats_tables(version: Any, where: RunFilter, _queries: Any) -> dict[str, Any] | None:
    """The page's numbers for one set of filters; cached until the store changes (``version``)."""
    return _queries.tool_stats(where)


tables = _stats_tables(version, where, queries)
if tables is None:
    st.info("No tool calls match these filters.", icon="🔍")
    st.stop()

total = tables["total"]
row = ui.metric_row()
for label, value, help_text in (
    ("Tool calls", ui.fmt_int(total["total_calls"]), ui.explain("tool call")),
    ("🧠 Chosen by the model", ui.fmt_int(tables["by_model"]), _toolstats_ui.WHO["model"]),
    ("⚙ Called by the workbench", ui.fmt_int(tables["by_harness"]), _toolstats_ui.WHO["harness"]),
    ("Success rate", f"{total['success_rate']:.0%}", "Calls that returned a result, after retries and fallbacks."),
    ("Mean duration", ui.fmt_ms(total["avg_duration_ms"]), "Average time one tool call took."),
    ("Needed a retry", ui.fmt_int(tables["retried"]), ui.explain("retry")),
    ("Fallbacks used", ui.fmt_int(tables["fallbacks"]), ui.explain("fallback")),
    ("Duplicates refused", ui.fmt_int(tables["duplicates"]), ui.explain("duplicate")),
):
    row.metric(label, value, help=help_text, width="content")

per_tool = _toolstats_ui.with_reliability(tables["tool"])
st.subheader("Per tool")
st.caption(_toolstats_ui.WHO_CAPTION)
st.dataframe(
    per_tool,
    hide_index=True,
    width="stretch",
    column_config={**STATS_COLUMNS, **_toolstats_ui.COLUMNS},
    column_order=_toolstats_ui.column_order(list(per_tool.columns)),
)

# Side by side on a wide screen, one under the other below ~1000 px.
charts = st.container(horizontal=True, wrap=True, gap="medium")
c1, c2 = charts.container(width=440), charts.container(width=440)
with c1:
    st.markdown("**Success rate per tool**")
    ui.bar_chart(
        per_tool[["tool", "calls", "success_rate"]],
        {
            "x": ui.quantitative("success_rate", "success rate", axis={"format": "%"}, scale={"domain": [0, 1]}),
            "y": ui.nominal("tool", sort="-x", title=None),
            "color": ui.quantitative(
                "success_rate", legend=None, scale={"domain": [0, 1], "range": ["#ef4444", "#22c55e"]}
            ),
            "tooltip": [ui.nominal("tool"), ui.quantitative("calls"), ui.quantitative("success_rate", format=".0%")],
        },
    )
with c2:
    st.markdown("**Duration per tool (ms)**", help="p50 = median; p95 = 95% of calls were faster.")
    labelled = per_tool.assign(
        tool=[_toolstats_ui.tool_label(t, int(n)) for t, n in zip(per_tool["tool"], per_tool["calls"])]
    )
    durations = labelled.rename(columns={"p50_ms": "p50", "mean_ms": "mean", "p95_ms": "p95"}).melt(
        id_vars=["tool"], value_vars=["p50", "mean", "p95"], var_name="measure", value_name="ms"
    )
    durations["ms"] = durations["ms"].astype(float).clip(lower=0.01)  # log scale: no zeros
    measures = ["p50", "mean", "p95"]
    ui.bar_chart(
        durations,
        {
            # Log scale: one slow tool no longer squashes the others to nothing. Ticks at powers of
            # ten (the scale's own were crowded into its right end); whole tool names with their n.
            "x": ui.quantitative(
                "ms",
                "milliseconds (log scale)",
                scale={"type": "symlog"},
                axis={
                    "values": _toolstats_ui.log_ticks(durations["ms"].max()),
                    "labelExpr": "format(datum.value, ',')",
                },
            ),
            "y": ui.nominal("tool", title=None, axis={"labelLimit": 240}),
            "yOffset": ui.nominal("measure", sort=measures),
            "color": ui.nominal("measure", sort=measures, title=None, legend={"orient": "bottom"}),
            "tooltip": [ui.nominal("tool"), ui.nominal("measure"), ui.quantitative("ms", format=".1f")],
        },
        step=22,
    )

errors = per_tool.melt(
    id_vars=["tool"], value_vars=[f"err_{c}" for c in stats.ERROR_CATEGORIES], var_name="category", value_name="failed"
)
errors = errors[errors["failed"] > 0]
if not errors.empty:
    st.markdown(
        "**Failed calls by error category**",
        help="validation = bad arguments from the model · transient = temporary failure left after retries "
        "· non_transient = the tool failed for good · timeout = too slow · duplicate = refused repeat.",
    )
    errors["category"] = errors["category"].str.removeprefix("err_")
    ui.bar_chart(
        errors,
        {
            "x": ui.quantitative("failed", "failed calls", aggregate="sum", axis={"tickMinStep": 1, "format": "d"}),
            "y": ui.nominal("tool", title=None),
            "color": ui.nominal("category", title=None, legend={"orient": "bottom"}),
            "tooltip": [ui.nominal("tool"), ui.nominal("category"), ui.quantitative("failed")],
        },
    )

st.subheader("Per provider and model")
st.caption("The same numbers split by which model made the calls.")
st.dataframe(tables["provider_model"], hide_index=True, width="stretch", column_config=STATS_COLUMNS)
with st.expander("Per provider, model and tool"):
    st.dataframe(tables["provider_model_tool"], hide_index=True, width="stretch", column_config=STATS_COLUMNS)
grounding_ui.show_rates_table(queries.grounding_rates(where))
st.download_button(
    "Download per-tool stats (CSV)",
    per_tool.to_csv(index=False).encode("utf-8"),
    file_name="tool-stats.csv",
    mime="text/csv",
    key="stats_dl",
)
_coverage_ui.show_coverage(queries, providers=providers, models=models, days=days, sources=sources)
