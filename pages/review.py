"""Review page: a queue of runs to label one after another from the keyboard (pass, fail, skip),
with a reason and a corrected answer. Labels are kept beside the runs; History shows and filters
them, and goals made from a labelled run take their checks from its corrected answer."""

from __future__ import annotations

import streamlit as st

from ui import common as ui
from ui import query as _query_ui
from ui import review as _review_ui
from ui.evals import history_eval_ids

ui.ensure_app_frame()
config = ui.settings()
store = ui.run_store(config)

st.title("🏷️ Review")
st.caption(
    "Label runs one after another: did the answer do what was asked? Your verdicts are kept beside the "
    "runs (History shows and filters them) and a failed run can become a goal of a goal set."
)
ui.problems_warning(store)
queries = _query_ui.queries(store, config)
choices = queries.choices()
if not choices.saved:
    ui.no_runs_yet("runs to review")
    st.stop()

ui.wrapping_columns("review_filters", min_px=230)  # at 800 px the toggle gets a line of its own
with st.container(border=True, key="review_filters"):
    q1, q2, q3 = st.columns([2, 2, 1], vertical_alignment="bottom")
    queue = q1.selectbox(
        "Queue",
        list(_review_ui.QUEUES),
        key="review_queue",
        format_func=lambda k: _review_ui.QUEUES[k][0],
        help="Which runs to go through, newest first.",
    )
    providers = _query_ui.choice_filter(q2, "Provider", choices.providers, "review_providers", ui.explain("provider"))
    relabel = q3.toggle("Labelled ones too", key="review_relabel", help="Also runs someone labelled already.")
where = _review_ui.queue_filter(
    _review_ui.QUEUES[queue][1], providers=tuple(providers), relabel=relabel, run_ids=history_eval_ids(config)
)
_review_ui.show_queue(queries, where, config)
