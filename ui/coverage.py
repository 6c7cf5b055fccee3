"""Tool stats → Coverage: which tools each provider/model was offered, chose and never used, and
whose forms it filled in wrongly. Numbers from :mod:`agent_core.records.coverage`."""

from __future__ import annotations

from typing import Any

import streamlit as st

from agent_core.records.queries import RunFilter
from ui import common as ui

COLUMNS = {
    "provider": st.column_config.TextColumn("Provider", help=ui.explain("provider")),
    "model": st.column_config.TextColumn("Model"),
    "tool": st.column_config.TextColumn("Tool", help=ui.explain("tool call")),
    "runs_offered": st.column_config.NumberColumn(
        "Runs offered", format="%d", help="Runs in which the model could use this tool."
    ),
    "runs_chosen": st.column_config.NumberColumn(
        "Runs chosen", format="%d", help="Runs in which the model called it at least once."
    ),
    "choice_rate": st.column_config.ProgressColumn(
        "Chosen",
        min_value=0.0,
        max_value=1.0,
        format="percent",
        step=0.01,  # whole percents ("67%"), as elsewhere on Tool stats
        help="Runs chosen ÷ runs offered.",
    ),
    "calls": st.column_config.NumberColumn("Calls", format="%d"),
    "validation_failures": st.column_config.NumberColumn(
        "Form filled wrongly", format="%d", help="Calls whose arguments did not fit the tool (validation errors)."
    ),
    "never_chosen": st.column_config.CheckboxColumn("Never used", help="Offered, but this model never called it."),
}


def _heat(value: Any) -> str:
    return "background-color: #fee2e2; color: #991b1b; font-weight: 600" if value else "color: #94a3b8"


@st.cache_data(max_entries=16, show_spinner=False)
def _coverage(version: Any, where: RunFilter, _queries: Any) -> dict[str, Any]:
    """Coverage for one set of filters, from the store's tables (the folder's, or SQL): no record
    file is read. Cached until the store changes (``version``)."""
    return _queries.coverage(where)


def show_coverage(queries: Any, *, providers: list[str], models: list[str], days: Any, include_demos: bool) -> None:
    """The Coverage section for the runs that pass the page's filters."""
    st.subheader(
        "Coverage", help="Which tools each model actually uses: tells a tool's author which description to fix."
    )
    where = RunFilter(providers=tuple(providers), models=tuple(models), days=tuple(days), include_demos=include_demos)
    data = _coverage(queries.version(), where, queries)
    if not data["runs"]:
        st.info("No runs match these filters.", icon="🔍")
        return
    table = data["table"]
    if data["never"]:
        names = ", ".join(ui.md_label(n, 40) for n in data["never"])
        st.warning(f"Never chosen in these runs: {names}. Their descriptions may not say when to use them.", icon="🧰")
    else:
        st.caption("Every tool offered in these runs was chosen at least once.")
    st.caption(
        "Per provider and model: how many runs offered each tool, how many chose it, and how often the "
        "model filled in its form wrongly."
    )
    st.dataframe(table, hide_index=True, width="stretch", column_config=COLUMNS, key="coverage_table")
    matrix = data["matrix"]
    st.markdown(
        "**Which model fills in which form wrongly**",
        help="Validation failures per tool (rows) and model (columns): the model sent arguments that do not fit.",
    )
    if matrix.empty:
        st.caption("No validation failures in these runs.")
    else:
        st.dataframe(matrix.style.map(_heat), width="stretch", key="coverage_matrix")
