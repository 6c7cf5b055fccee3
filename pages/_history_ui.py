"""History opened on one run (a ``?run=`` link, "Open this run in History"): the run first, with
"← all runs"; the filters and the table come back with that button. An id that matches no run
says so at the top, and the list shows as usual."""

from __future__ import annotations

from typing import Any

import streamlit as st

from agent_core.errors import RecordError
from pages import _ui as ui

UNKNOWN = "No run with this id — it may have been deleted or the link is incomplete."


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
    st.button("← all runs", key="history_back", on_click=_all_runs, help="Back to the filters and the table of runs.")
    return True
