"""History opened on one run (a ``?run=`` link, "Open this run in History"): the run first, with
"← all runs"; the filters and the table come back with that button. An id that matches no run
says so at the top, and the list shows as usual.

The table of runs for the screen it is on: on a wide screen every column an analyst sorts by; on a
narrow one (an 800 px window) only the essentials, the rest a click away in the grid's own
"Show/hide columns"."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from agent_core.errors import RecordError
from ui import common as ui

UNKNOWN = "No run with this id — it may have been deleted or the link is incomplete."


FILTER_KEYS = (
    *("history_text", "history_days", "history_order", "history_providers", "history_models"),
    *("history_statuses", "history_checks", "history_users", "history_labels", "history_min_cost"),
    *("history_min_retries", "history_page", "history_filters_seen"),
)
"""The filter widgets' state (and the page of the table): kept while one run is shown alone."""


def keep_filters() -> None:
    """Keep the filters' values through the script runs that show one run without them: Streamlit
    forgets a widget's value after a run that did not draw it, so each value is stored again as
    the session's own (before any widget is drawn)."""
    for key in FILTER_KEYS:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def _all_runs() -> None:
    if "run" in st.query_params:
        del st.query_params["run"]
    st.session_state.pop("history_pick", None)


def exists(store: Any, run_id: str, reader: Any = None) -> bool:
    """True when ``run_id`` names a saved run (readable or not: a damaged one is opened to say so);
    ``reader`` (the store's query API) loads it, else ``store``."""
    try:
        (reader or store).load(run_id)
    except RecordError:
        path = store.runs_dir / f"{run_id}.json"
        return "/" not in run_id and "\\" not in run_id and not run_id.startswith(".") and path.exists()
    return True


def open_on_run(store: Any, run_id: str | None, reader: Any = None) -> bool:
    """When the URL names a run: True if it exists (the page shows only it, under "← all runs");
    False with the unknown-id message at the top otherwise (or when no run is named)."""
    if not run_id:
        return False
    if not exists(store, run_id, reader):
        st.error(f"{UNKNOWN} (Id: {ui.md_label(run_id, 60)})", icon="🔎")
        return False
    row = st.container(horizontal=True, key="history_nav", vertical_alignment="center")
    row.button("← all runs", key="history_back", on_click=_all_runs, help="Back to the filters and the table of runs.")
    ids = list(st.session_state.get("history_view_ids") or [])
    if run_id in ids:  # opened from the table: the runs before and after it there, one click away
        at = ids.index(run_id)
        row.button(
            "‹ Previous run",
            key="history_prev",
            on_click=_go,
            args=(ids[at - 1] if at else None,),
            disabled=at == 0,
            help="The run above this one in the table (its filters and order).",
        )
        row.button(
            "Next run ›",
            key="history_next",
            on_click=_go,
            args=(ids[at + 1] if at + 1 < len(ids) else None,),
            disabled=at + 1 >= len(ids),
            help="The run below this one in the table (its filters and order).",
        )
        row.caption(f"Run {at + 1} of {len(ids)} in the table")
    return True


def _go(run_id: str | None) -> None:
    if run_id:
        st.query_params["run"] = run_id
        st.session_state.pop("history_pick", None)


WIDE_ORDER = (
    *("started_at", "status", "label", "goal", "steps", "tool_calls", "duration_s", "cost_usd", "tokens"),
    *("provider", "model", "user", "answer_check", "summary", "retries", "blocks_trimmed", "scripted"),
)
"""What an analyst sorts by first (all in view at 1400 px), then provider and model; any other
column after these."""
ESSENTIAL = ("started_at", "status", "goal")
"""A narrow screen's columns: when, how it ended, what it was asked."""
NARROW_BELOW_PX = 1000
"""Below this window width the table shows only :data:`ESSENTIAL` (the sidebar leaves ~460 px)."""
WIDTHS = {"started_at": 118, "status": 90, "steps": 55, "tool_calls": 75, "duration_s": 90, "cost_usd": 75}
"""Pixel widths that let the wide order's numbers fit beside a medium goal at 1400 px."""


def time_column(*, wide: bool) -> Any:
    """The table's time in the viewer's time zone (the browser's; UTC when it says none, as in
    tests). The wide one without the year: the room goes to the model's name (cut at 1400 px)."""
    zone = st.context.timezone
    where = f"your time ({zone})" if zone else "UTC"
    return st.column_config.DatetimeColumn(
        "Time" if zone else "Time (UTC)",
        format="MM-DD HH:mm:ss" if wide else "MM-DD HH:mm",
        width=WIDTHS["started_at"] if wide else 95,
        timezone=zone or None,
        help=f"Month-day hour:minute{':second' if wide else ''}, {where}. The run's detail gives the time in UTC"
        + (" (the year is in the Dates filter)." if wide else "."),
    )


# Our own CSS (no run text in it): one of the two tables per window width.
_CSS = f"""<style>
@media (min-width: {NARROW_BELOW_PX}px) {{ .st-key-history_narrow {{ display: none !important; }} }}
@media (max-width: {NARROW_BELOW_PX - 0.02}px) {{ .st-key-history_wide {{ display: none !important; }} }}
</style>"""


def wide_order(columns: Mapping[str, Any]) -> list[str]:
    """The wide table's columns: :data:`WIDE_ORDER`, then any others in ``columns``' order."""
    return [*(c for c in WIDE_ORDER if c in columns), *(c for c in columns if c not in WIDE_ORDER)]


def _sized(columns: Mapping[str, Any]) -> dict[str, Any]:
    return {name: {**config, "width": WIDTHS[name]} if name in WIDTHS else config for name, config in columns.items()}


def runs_table(
    shown: Any,
    columns: Mapping[str, Any],
    *,
    height: int,
    preselect: list[int],
    on_select: Callable[[str], None],
) -> None:
    """The page of runs twice, one of them shown per window width (CSS): every column on a wide
    screen (``history_table``), :data:`ESSENTIAL` below :data:`NARROW_BELOW_PX`
    (``history_table_narrow``). A row picked in either opens the run (``on_select(key)``)."""
    st.html(_CSS)
    common: dict[str, Any] = {
        "hide_index": True,
        "width": "stretch",
        "height": height,
        "selection_mode": "single-row",
        "selection_default": {"selection": {"rows": preselect[:1]}} if preselect else None,
    }
    with st.container(key="history_wide"):
        st.dataframe(
            shown,
            column_order=wide_order(columns),
            column_config={**_sized(columns), "started_at": time_column(wide=True)},
            key="history_table",
            on_select=lambda: on_select("history_table"),
            **common,
        )
    with st.container(key="history_narrow"):
        st.caption(
            "Time, status and goal at this width: the other columns (steps, tool calls, duration, cost, "
            "tokens, provider, model…) are under the table's 👁 **Show/hide columns** (top right of the "
            "table), or in a wider window."
        )
        st.dataframe(
            shown,
            column_order=list(ESSENTIAL),
            column_config={**columns, "started_at": time_column(wide=False)},
            key="history_table_narrow",
            on_select=lambda: on_select("history_table_narrow"),
            **common,
        )
