"""Tool stats → Coverage: which tools each provider/model was offered, chose and never used, and
whose forms it filled in wrongly. Numbers from :mod:`agent_core.records.coverage`."""

from __future__ import annotations

from typing import Any

import streamlit as st

from agent_core.records.queries import RunFilter
from ui import common as ui
from ui.toolstats import WHO

COLUMNS = {
    "provider": st.column_config.TextColumn("Provider", help=ui.explain("provider")),
    "model": st.column_config.TextColumn("Model"),
    "tool": st.column_config.TextColumn("Tool", help=ui.explain("tool call")),
    "runs_offered": st.column_config.NumberColumn(
        "Runs offered", format="%d", help="Runs in which the model could use this tool."
    ),
    "runs_chosen": st.column_config.NumberColumn(
        "Runs chosen",
        format="%d",
        help="Runs in which it was called at least once, by the model or by the workbench for it.",
    ),
    "runs_by_model": st.column_config.NumberColumn(
        "🧠 Runs the model chose it",
        format="%d",
        help="Runs in which the model itself chose it at least once: the evidence that the model can use it.",
    ),
    "choice_rate": st.column_config.ProgressColumn(
        "Chosen",
        min_value=0.0,
        max_value=1.0,
        format="percent",
        step=0.01,  # whole percents ("67%"), as elsewhere on Tool stats
        help="Runs chosen ÷ runs offered.",
    ),
    "model_choice_rate": st.column_config.ProgressColumn(
        "🧠 Chosen by the model",
        min_value=0.0,
        max_value=1.0,
        format="percent",
        step=0.01,
        help="Runs the model chose it ÷ runs offered (the workbench's own calls left out).",
    ),
    "calls": st.column_config.NumberColumn("Calls", format="%d"),
    "calls_by_model": st.column_config.NumberColumn("🧠 Model's calls", format="%d", help=WHO["model"]),
    "calls_by_harness": st.column_config.NumberColumn("⚙ Workbench's calls", format="%d", help=WHO["harness"]),
    "validation_failures": st.column_config.NumberColumn(
        "Form filled wrongly", format="%d", help="Calls whose arguments did not fit the tool (validation errors)."
    ),
    "never_chosen": st.column_config.CheckboxColumn("Never used", help="Offered, but this model never called it."),
    "harness_only": st.column_config.CheckboxColumn(
        "Only the workbench",
        help="Every call of it was the workbench's: no evidence that this model can use it.",
    ),
}


def _heat(value: Any) -> str:
    return "background-color: #fee2e2; color: #991b1b; font-weight: 600" if value else "color: #94a3b8"


@st.cache_data(max_entries=16, show_spinner=False)
def _coverage(version: Any, where: RunFilter, _queries: Any) -> dict[str, Any]:
    """Coverage for one set of filters, from the store's tables (the folder's, or SQL): no record
    file is read. Cached until the store changes (``version``)."""
    return _queries.coverage(where)


def fallback_tools(registry: Any) -> set[str]:
    """The tools some other tool falls back on (``search_cached`` for ``search_web``)."""
    names = set()
    for name in registry.names():
        fallback = getattr(registry.get(name), "fallback", None)
        if fallback:
            names.add(str(fallback))
    return names


def show_coverage(
    queries: Any, *, providers: list[str], models: list[str], days: Any, sources: tuple[str, ...] = ()
) -> None:
    """The Coverage section for the runs that pass the page's filters."""
    st.subheader(
        "Coverage", help="Which tools each model actually uses: tells a tool's author which description to fix."
    )
    where = RunFilter(providers=tuple(providers), models=tuple(models), days=tuple(days), sources=tuple(sources))
    data = _coverage(queries.version(), where, queries)
    if not data["runs"]:
        st.info("No runs match these filters.", icon="🔍")
        return
    table = data["table"]
    fallbacks = fallback_tools(ui.tool_registry(ui.settings()))
    never = [n for n in data["never"] if n not in fallbacks]  # a fallback is not the model's to choose
    if never:
        names = ", ".join(ui.md_label(n, 40) for n in never)
        st.warning(f"Never chosen in these runs: {names}. Their descriptions may not say when to use them.", icon="🧰")
    if fallbacks & set(data["never"]):
        st.caption(
            "Fallback tools ("
            + ", ".join(ui.md_label(n, 40) for n in sorted(fallbacks & set(data["never"])))
            + ") are called by the workbench when another tool keeps failing, not chosen by the model: "
            "nothing to fix in their descriptions."
        )
    if not data["never"]:
        st.caption("Every tool offered in these runs was chosen at least once.")
    if data.get("harness_only"):
        names = ", ".join(
            f"{ui.md_label(tool, 40)} ({ui.md_label(provider, 30)} · {ui.md_label(model, 40)})"
            for tool, provider, model in data["harness_only"]
        )
        st.warning(
            f"Only the workbench called these tools in these runs, never the model: {names}. That is no evidence "
            "the model can use them.",
            icon="⚙️",
        )
    st.caption(
        "Per provider and model: how many runs offered each tool, how many chose it (🧠 how many of them by "
        "the model itself, not the workbench), and how often its form was filled in wrongly."
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
