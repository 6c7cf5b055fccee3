"""Compare page: 2–6 runs side by side — deltas, aligned steps, the first divergence, the context
ledger. The runs are in the URL (``/compare?runs=a,b,c``), so a comparison can be shared."""

from __future__ import annotations

import streamlit as st

from agent_core.analysis.compare import MAX_RUNS, MIN_RUNS
from ui import common as ui
from ui import compare as cmp
from ui import query as _query_ui

ui.ensure_app_frame()
config = ui.settings()
store = _query_ui.reading_store(ui.run_store(config, refresh=False), config)  # the team store, if set

st.title("⚖️ Compare runs")
st.caption(
    "What each run did at each step, where they first went different ways and why, and what their "
    "models were shown. Pick runs in History (or below); the address of this page shares the comparison."
)

run_ids = cmp.parse_run_ids(st.query_params.get("runs"))
if len(run_ids) < MIN_RUNS:
    store.refresh()
    runs = store.runs()
    if runs.empty:
        ui.no_runs_yet("runs to compare")
        st.stop()
    recent = runs.head(200)
    labels = {
        rid: f"{ui.fmt_time(started)} · {provider} · {status} · {ui.one_line(goal, 50)}"
        for rid, started, provider, status, goal in zip(
            recent["run_id"], recent["started_at"], recent["provider"], recent["status"], recent["goal"]
        )
    }
    st.info(f"Choose {MIN_RUNS}–{MAX_RUNS} runs to compare (the 200 most recent are listed).", icon="⚖️")
    cmp.compare_picker(list(labels), labels, key="compare_pick")
    st.stop()
if len(run_ids) > MAX_RUNS:
    st.error(
        f"Compare takes at most {MAX_RUNS} runs at a time; this link has {len(run_ids)}. "
        f"The first {MAX_RUNS} are shown.",
        icon="⚖️",
    )
    run_ids = run_ids[:MAX_RUNS]

records, problems = cmp.load_records(store, run_ids)
if problems:
    store.refresh()  # a run saved under another file name, or saved since the last look
    records, problems = cmp.load_records(store, run_ids)
for problem in problems:
    st.error(f"Run {ui.md_label(problem, 200)} — it is left out.", icon="🔎")
if len(records) < MIN_RUNS:
    st.warning(f"Fewer than {MIN_RUNS} of these runs could be read: nothing to compare.", icon="⚖️")
    st.page_link("pages/history.py", label="Pick runs in History", icon=":material/history:")
    st.stop()
cmp.show_comparison(records)
