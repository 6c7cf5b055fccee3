"""Tool stats → Coverage: which tools each provider/model was offered, chose and never used, and
whose forms it filled in wrongly. Numbers from :mod:`agent_core.coverage`."""

from __future__ import annotations

from typing import Any

import streamlit as st

from agent_core.coverage import OfferedTools, coverage_table, never_chosen, validation_matrix
from pages import _ui as ui

COLUMNS = {
    "provider": st.column_config.TextColumn("Provider", help=ui.explain("provider")),
    "model": st.column_config.TextColumn("Model"),
    "tool": st.column_config.TextColumn("Tool", help=ui.explain("tool call")),
    "runs_offered": st.column_config.NumberColumn("Runs offered", format="%d", help="Runs in which the model could use this tool."),
    "runs_chosen": st.column_config.NumberColumn("Runs chosen", format="%d", help="Runs in which the model called it at least once."),
    "choice_rate": st.column_config.ProgressColumn(
        "Chosen", min_value=0.0, max_value=1.0, format="percent", help="Runs chosen ÷ runs offered."
    ),
    "calls": st.column_config.NumberColumn("Calls", format="%d"),
    "validation_failures": st.column_config.NumberColumn(
        "Form filled wrongly", format="%d", help="Calls whose arguments did not fit the tool (validation errors)."
    ),
    "never_chosen": st.column_config.CheckboxColumn("Never used", help="Offered, but this model never called it."),
}


def _heat(value: Any) -> str:
    return "background-color: #fee2e2; color: #991b1b; font-weight: 600" if value else "color: #94a3b8"


def run_ids_for(runs: Any, *, providers: list[str], models: list[str], days: Any, include_demos: bool) -> list[str]:
    """Ids of the runs that pass the Tool-stats filters."""
    view = ui.filter_runs(runs, providers=providers, models=models, days=days)
    if not include_demos:
        view = view[~view["scripted"].astype(bool)]
    return view["run_id"].astype(str).tolist()


@st.cache_resource
def _offered_cache(runs_dir: str) -> OfferedTools:
    return OfferedTools()


@st.cache_data(max_entries=16, show_spinner=False)
def _coverage(runs_dir: str, version: int, run_ids: tuple[str, ...], _store: Any) -> dict[str, Any]:
    offered, missing = _offered_cache(runs_dir).rows(_store, run_ids)
    calls = _store.tool_calls()
    calls = calls[calls["run_id"].isin(list(run_ids))]
    table = coverage_table(offered, calls)
    return {
        "table": table,
        "matrix": validation_matrix(table),
        "never": never_chosen(offered, calls),
        "missing": missing,
    }


def show_coverage(store: Any, run_ids: list[str]) -> None:
    """The Coverage section for the runs that pass the page's filters."""
    st.subheader("Coverage", help="Which tools each model actually uses: tells a tool's author which description to fix.")
    if not run_ids:
        st.info("No runs match these filters.", icon="🔍")
        return
    with st.spinner("Reading which tools each run offered…", show_time=True):
        data = _coverage(str(store.runs_dir), store.version, tuple(run_ids), store)
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
    if data["missing"]:
        st.caption(f"{len(data['missing'])} run(s) could not be read and are left out.")
