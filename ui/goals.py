"""History's "Add to a goal set": one run (its detail) or every run of the filter (above the table).

The goal, tools, step limit, provider and model are copied from the run and the checks pre-filled
(:mod:`agent_core.evals.from_runs`); the person confirms or edits the checks in a small table
(keep, check, value), then adds. A goal already in the file (same text and tools) is not added.
The panels are expanders that track their state, so nothing is computed while they are closed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st
import yaml

from agent_core.evals.from_runs import AddResult, GoalDraft, add_goals, draft_from_record, goal_set_files, goal_sets_dir
from agent_core.evals.goalset import CHECK_KINDS, GoalSetError
from agent_core.settings import Settings
from ui import common as ui
from ui import labels as _labels_ui

NEW = "New goal set…"
DEFAULT_NAME = "from-runs"
EVALS_PAGE = "pages/evals.py"
CHECK_COLUMNS = {
    "keep": st.column_config.CheckboxColumn("Keep", help="Untick a check to leave it out.", width=50),
    "check": st.column_config.SelectboxColumn("Check", options=list(CHECK_KINDS), required=True, width="medium"),
    "value": st.column_config.TextColumn(
        "Value",
        help="As written in the goal-set file (YAML): 19, [calculator], true, [completed], {value: 19, tolerance: 0.5}",
        width="large",
    ),
}


def target_picker(config: Settings, where: Any = None) -> Path:
    """The goal-set file goals go to: one of ``<data>/goal_sets/``, or a new one by name."""
    where = where or st
    files = {p.name: p for p in goal_set_files(config.data_dir)}
    options = [*files, NEW]
    if st.session_state.get("goals_target") not in options:
        st.session_state["goals_target"] = options[0]
    left, right = where.columns([2, 2])
    picked = left.selectbox(
        "Goal set",
        options,
        key="goals_target",
        help=f"Goal-set files of the data folder ({ui.escape_md(goal_sets_dir(config.data_dir))}); the Evals "
        "page runs them.",
    )
    if picked != NEW:
        right.caption(f"Adds to {ui.escape_md(files[picked])}")
        return files[picked]
    name = right.text_input("Name of the new set", value=DEFAULT_NAME, key="goals_new_name", max_chars=60)
    clean = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in (name or DEFAULT_NAME)).strip("-")
    return goal_sets_dir(config.data_dir) / f"{clean or DEFAULT_NAME}.yaml"


def checks_frame(checks: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    rows = []
    for check in checks:
        ((kind, arg),) = check.items()
        rows.append({"keep": True, "check": kind, "value": json.dumps(arg, ensure_ascii=False)})
    return pd.DataFrame(rows, columns=["keep", "check", "value"])


def checks_from(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The kept rows of the checks table as checks; ValueError naming a value that is not YAML."""
    out = []
    for row in frame.to_dict("records"):
        if not row.get("keep") or not row.get("check"):
            continue
        text = str(row.get("value") if row.get("value") is not None else "true")
        try:
            value = yaml.safe_load(text) if text.strip() else True
        except yaml.YAMLError:
            raise ValueError(
                f"{row['check']}: {text!r} is not a value (write it as in the file: 19, [calculator], true)"
            ) from None
        out.append({str(row["check"]): value})
    if not out:
        raise ValueError("keep at least one check")
    return out


def _say(result: AddResult, config: Settings) -> None:
    where = ui.escape_md(_short(result.path, config))
    if result.added:
        names = ", ".join(f"`{ui.one_line(g, 60)}`" for g in result.added[:5]) + (" …" if len(result.added) > 5 else "")
        st.success(f"Added {len(result.added)} goal(s) to {where}: {names}.", icon="✅")
    if result.duplicates:
        same = ", ".join(f"`{ui.one_line(g, 60)}`" for _, g in result.duplicates[:5])
        st.info(
            f"{len(result.duplicates)} already in {where} with the same goal and tools ({same}): not added again.",
            icon="ℹ️",
        )
    st.page_link(EVALS_PAGE, label="Run it on the Evals page", icon=":material/fact_check:")


def _short(path: Path, config: Settings) -> str:
    try:
        return str(path.relative_to(config.data_dir))
    except ValueError:
        return str(path)


def _add(path: Path, drafts: list[GoalDraft], config: Settings) -> None:
    try:
        st.session_state["goals_result"] = add_goals(path, drafts)
    except (GoalSetError, ValueError, OSError) as exc:
        st.session_state["goals_error"] = str(exc)


def _messages(config: Settings) -> None:
    error = st.session_state.pop("goals_error", None)
    if error:
        st.error(f"Nothing added: {ui.md_label(error, 400)}", icon="⚠️")
    result = st.session_state.pop("goals_result", None)
    if result is not None:
        _say(result, config)


def run_panel(record: dict[str, Any], config: Settings) -> None:
    """Add one run to a goal set: the draft's checks to confirm or edit, then **Add to goal set**."""
    run_id = str(record.get("run_id") or "")
    panel = st.expander("Add to a goal set", icon=":material/playlist_add:", key="goals_run_panel", on_change="rerun")
    with panel:
        if not panel.open:
            return
        label = _labels_ui.store(config).get([run_id]).get(run_id)
        try:
            draft = draft_from_record(record, label)
        except ValueError as exc:
            st.info(ui.escape_md(exc))
            return
        st.caption(
            "The goal, its tools, step limit, provider and model are copied from this run, and the run id kept. "
            "Checks are pre-filled from what it did"
            + (" and from the corrected answer of its label" if label and label.corrected_answer else "")
            + ": keep, edit or add some, then add. The run's tool results are kept too, so the Evals page can "
            "run the goal on them (tools: recorded)."
        )
        path = target_picker(config)
        edited = st.data_editor(
            checks_frame(draft.checks),
            key=f"goals_checks_{run_id}",
            column_config=CHECK_COLUMNS,
            hide_index=True,
            num_rows="dynamic",
            width="stretch",
        )
        for note in draft.notes:
            st.caption(ui.escape_md(note))

        if st.button("Add to goal set", key="goals_add_run", type="primary", icon=":material/add:"):
            try:
                draft.checks = checks_from(edited)
            except ValueError as exc:
                st.session_state["goals_error"] = str(exc)
            else:
                _add(path, [draft], config)
        _messages(config)


def bulk_panel(queries: Any, where: Any, matching: int, config: Settings, *, limit: int = 500) -> None:
    """Add every run of History's filter (at most ``limit``, newest first) to a goal set."""
    shown = "the run" if matching == 1 else f"the {matching:,} runs"
    title = f"Add {shown} of this filter to a goal set" if matching else "Add runs to a goal set"
    panel = st.expander(title, icon=":material/playlist_add:", key="goals_bulk_panel", on_change="rerun")
    with panel:
        if not panel.open:
            return
        if not matching:
            st.caption("No run passes the filters.")
            return
        ids = [str(r) for r in queries.page(where, size=limit).rows["run_id"].tolist()]
        st.caption(
            f"One goal per run ({len(ids):,}{' newest' if matching > limit else ''}), checks pre-filled from each "
            "run: the tools it called, the figures its answer took from a tool result (or its label's corrected "
            "answer), grounded, and completed for a run that did not complete. Untick a run to leave it out; edit "
            "the checks in the file or one run at a time in its detail."
        )
        path = target_picker(config)
        labels = _labels_ui.store(config).get(ids)
        drafts: dict[str, GoalDraft] = {}
        for run_id in ids:
            try:
                drafts[run_id] = draft_from_record(queries.load(run_id), labels.get(run_id))
            except Exception:  # noqa: BLE001 - an unreadable run: left out, said below
                continue
        preview = pd.DataFrame(
            [
                {
                    "add": True,
                    "goal": d.goal,
                    "checks": " · ".join(
                        f"{k} {json.dumps(v, ensure_ascii=False)}" for c in d.checks for k, v in c.items()
                    ),
                    "run": run_id,
                }
                for run_id, d in drafts.items()
            ],
            columns=["add", "goal", "checks", "run"],
        )
        edited = st.data_editor(
            preview,
            key="goals_bulk_rows",
            hide_index=True,
            width="stretch",
            disabled=["goal", "checks", "run"],
            column_config={
                "add": st.column_config.CheckboxColumn("Add", width=50),
                "goal": st.column_config.TextColumn("Goal", width="medium"),
                "checks": st.column_config.TextColumn("Checks (pre-filled)", width="large"),
                "run": st.column_config.TextColumn("Run", width="small"),
            },
        )
        if len(drafts) < len(ids):
            st.caption(f"{len(ids) - len(drafts)} run(s) could not be read and are left out.")
        chosen = [drafts[r] for r, keep in zip(edited["run"], edited["add"]) if keep and r in drafts]
        if st.button(f"Add {len(chosen)} goal(s)", key="goals_add_bulk", type="primary", disabled=not chosen):
            _add(path, chosen, config)
        _messages(config)
