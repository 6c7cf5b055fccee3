"""People's labels on runs in the pages: the store, History's label column and filter, and the
small "Your verdict" box of a run's detail. The labels themselves are
:mod:`agent_core.records.labels` (kept beside the runs, never in a record)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from agent_core.records.labels import UNLABELLED, Label, LabelError
from agent_core.settings import Settings
from ui import common as ui

SHOWN = {"pass": "✓ pass", "fail": "✗ fail"}
"""How a verdict shows in tables."""
FILTER_CHOICES = {"pass": "✓ pass", "fail": "✗ fail", UNLABELLED: "not labelled"}
EXPLAIN = (
    "A person's verdict on the run (pass or fail, with a reason and a corrected answer), given in the "
    "Review queue or on the run's page. Kept beside the runs, not inside the record."
)
COLUMN = st.column_config.TextColumn("Label", help=EXPLAIN, width=70)


@st.cache_resource(show_spinner=False)
def _store(runs_dir: str, url: str | None) -> Any:
    from agent_core.pgstore.labels import PgLabels, TeamLabels
    from agent_core.records.labels import FolderLabels

    folder = FolderLabels.beside(runs_dir)
    return TeamLabels(PgLabels.from_url(url), folder, url) if url else folder


def store(config: Settings) -> Any:
    """The labels of this data folder (and team store): one shared object per process."""
    return _store(str(config.runs_dir.resolve()), config.store_url)


def who(config: Settings) -> str | None:
    return ui.signed_in_user() or config.user


def add_column(shown: pd.DataFrame, labels: Any) -> pd.DataFrame:
    """``shown`` with a ``label`` column (``✓ pass`` / ``✗ fail`` / empty) from ``labels``."""
    given = labels.get(shown["run_id"].astype(str).tolist()) if len(shown) else {}
    column = [SHOWN.get(given[r].verdict, "") if r in given else "" for r in shown["run_id"].astype(str)]
    return shown.assign(label=column)


def label_filter(where: Any, key: str) -> tuple[str, ...]:
    """A multiselect over pass / fail / not labelled; nothing picked means every run."""
    picked = where.multiselect(
        "Label", list(FILTER_CHOICES), key=key, placeholder="all", format_func=FILTER_CHOICES.get, help=EXPLAIN
    )
    return tuple(picked)


def save(config: Settings, run_id: str, verdict: str, *, reason: str = "", corrected: str = "") -> str | None:
    """Store a label; None, or the one line saying what went wrong (or where it was kept)."""
    labels = store(config)
    try:
        labels.put([Label.make(run_id, verdict, reason=reason, corrected_answer=corrected, user=who(config))])
    except LabelError as exc:
        return str(exc)
    problem = getattr(labels, "problem", None)
    return f"Kept in the data folder only: {problem}" if problem else None


def describe(label: Label | None) -> str:
    """One line about a label, as markdown (escaped)."""
    if label is None:
        return "Not labelled yet."
    by = f" by {ui.md_label(label.user, 40)}" if label.user else ""
    line = f"**{SHOWN[label.verdict]}**{by} · {ui.escape_md(ui.fmt_time(label.labelled_at))}"
    if label.reason:
        line += f" · {ui.md_label(label.reason, 200)}"
    if label.corrected_answer:
        line += f" · corrected answer: {ui.md_label(label.corrected_answer, 200)}"
    return line


def _set(config: Settings, run_id: str, verdict: str) -> None:
    key = f"labels_reason_{run_id}"
    problem = save(config, run_id, verdict, reason=st.session_state.get(key, ""))
    st.session_state["labels_note"] = problem


def _clear(config: Settings, run_id: str) -> None:
    store(config).remove(run_id)


def verdict_box(run_id: str, config: Settings) -> None:
    """A run's label and buttons to give or change it (History's run detail)."""
    labels = store(config)
    label = labels.get([run_id]).get(run_id)
    with st.container(border=True, key="labels_box"):
        st.markdown("**Your verdict** · " + describe(label), help=EXPLAIN)
        row = st.container(horizontal=True, vertical_alignment="center", key="labels_row")  # wraps when narrow
        row.text_input(
            "Reason",
            key=f"labels_reason_{run_id}",
            placeholder="why (optional)",
            label_visibility="collapsed",
            width=320,
        )
        row.button("✓ Pass", key="labels_pass", on_click=_set, args=(config, run_id, "pass"))
        row.button("✗ Fail", key="labels_fail", on_click=_set, args=(config, run_id, "fail"))
        row.button("Clear", key="labels_clear", on_click=_clear, args=(config, run_id), disabled=label is None)
        note = st.session_state.pop("labels_note", None)
        if note:
            st.warning(ui.escape_md(note), icon="🔌")


def verdicts_of(config: Settings, run_ids: Sequence[str]) -> dict[str, Label]:
    """The labels of ``run_ids`` (Evals: beside each run's automatic verdict)."""
    found: dict[str, Label] = store(config).get(list(run_ids))
    return found
