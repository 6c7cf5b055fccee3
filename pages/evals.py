"""Evals page: run a goal set on several providers/models with repeats, watch the grid fill,
read pass rates with intervals, flips against a baseline and the trend; every cell opens its runs.

The eval runs in this script run (its runs in worker threads), so the grid is drawn as runs end;
Stop (or leaving the page) stops it, keeps what finished and saves the result marked incomplete.
An eval's page is ``/evals?eval=<eval_id>``.
"""

from __future__ import annotations

import json
import threading
import time

import streamlit as st

from agent_core.evals.judge import Judge
from agent_core.evals.runner import EvalRun, Progress, evals_dir, load_result
from agent_core.providers import make_provider
from ui import common as ui
from ui import evals as evui
from ui import labels as _labels_ui

ui.ensure_app_frame()
config = ui.settings()

st.title("🧪 Evals")
st.caption(
    "Run a set of goals with checks on one or more models, several times each, and see how often each "
    "model gets them right — with a 95 % interval, the goals that flip against an earlier eval, and the trend. "
    "Every run is saved like any other and opens in History."
)


def _request_stop() -> None:
    cancel = st.session_state.get("evals_cancel")
    if isinstance(cancel, threading.Event):
        cancel.set()


def _open(eval_id: str) -> None:
    st.query_params["eval"] = eval_id


def _on_past_pick() -> None:
    picked = st.session_state.get("evals_past_pick")
    if picked:
        _open(picked)


# --- A stopped eval: the script run that drew it was interrupted ----------------------------
STOP_WAIT_S = 60.0
"""How long a rerun waits for a stopped eval to save itself (runs in flight end within ~0.1 s)."""
active = st.session_state.pop("evals_active", None)
if active:
    cancel, done = st.session_state.get("evals_cancel"), st.session_state.get("evals_done")
    if isinstance(cancel, threading.Event):
        cancel.set()
    if isinstance(done, threading.Event) and not done.is_set():
        with st.spinner("Stopping the eval and saving what finished…"):
            done.wait(STOP_WAIT_S)
    st.query_params["eval"] = active
    st.session_state["evals_stopped"] = active

# --- Start one ---------------------------------------------------------------------------------
with st.container(border=True):
    st.subheader("Run an eval")
    sets = evui.bundled(config.data_dir)
    labels = [*sets, evui.UPLOAD]
    source = st.selectbox(
        "Goal set",
        labels,
        key="evals_set",
        help="A YAML file of goals and the checks each run must pass (see README → Evals).",
    )
    upload = None
    if source == evui.UPLOAD:
        upload = st.file_uploader("Goal-set file (YAML)", type=["yaml", "yml"], key="evals_upload")
    goal_set, problem = evui.read_set(source, upload, config.data_dir)
    if problem:
        st.error(f"This goal set cannot be run: {ui.md_label(problem, 400)}", icon="🚫")
    if goal_set is not None:
        st.caption(
            f"**{ui.escape_md(goal_set.name)}** — {ui.escape_md(goal_set.description) or 'no description'} · "
            f"{len(goal_set.goals)} goals"
        )
        choices, choice_labels = evui.provider_choices(goal_set)
        picked = st.multiselect(
            "Providers",
            choices,
            default=evui.default_providers(goal_set, choices),
            key=f"evals_providers_{goal_set.name}",
            format_func=lambda pid: choice_labels.get(pid, pid),
            help="Each provider (and model) is a column of the grid. Unavailable providers are not listed.",
        )
        models: dict[str, str] = {}
        if picked and any(p != "scripted" for p in picked):
            boxes = st.columns(min(3, len(picked)))
            for i, pid in enumerate(p for p in picked if p != "scripted"):
                models[pid] = boxes[i % len(boxes)].text_input(
                    f"Model for {pid}",
                    key=f"evals_model_{pid}",
                    placeholder="default",
                    help="Leave empty for the provider's default; several models separated by commas.",
                )
        c1, c2, c3 = st.columns(3)
        repeats = int(
            c1.number_input(
                "Repeats",
                min_value=1,
                max_value=20,
                value=1,
                key="evals_repeats",
                help="Runs per goal and model; more repeats narrow the interval and show flaky goals.",
            )
        )
        concurrency = int(
            c2.number_input(
                "At once",
                min_value=1,
                max_value=16,
                value=4,
                key="evals_concurrency",
                help="Runs at the same time on remote providers; the local model always takes one at a time.",
            )
        )
        judge_choices = ["none", *[p for p in choices if p != "scripted"]]
        judge_pid = c3.selectbox(
            "Judge",
            judge_choices,
            key="evals_judge",
            help="The model that grades 'judge' checks. With none they show 'not judged'.",
        )
        past_same = evui.results_of(config, goal_set.name)
        baseline_options = ["none", "latest", *[r["eval_id"] for r in past_same]]
        baseline = st.selectbox(
            "Compare with",
            baseline_options,
            index=1 if past_same else 0,
            key="evals_baseline",
            help="An earlier eval of this set: the goals that flipped between pass and fail.",
        )
        tool_mode = "live"
        frozen = evui.frozen_goals(goal_set)
        if frozen:  # goals made from runs: their tools can answer from the runs' recorded results
            tool_mode = st.radio(
                "Tools",
                ["recorded", "live"],
                index=0 if frozen == len(goal_set.goals) else 1,
                horizontal=True,
                key=f"evals_tools_{goal_set.name}",
                format_func=lambda m: {
                    "recorded": "Recorded — each goal's tools answer as in the run it was made from",
                    "live": "Live — the real tools run",
                }[m],
                help=f"{frozen} of the {len(goal_set.goals)} goals were made from a run. Recorded: nothing runs "
                "and no network is needed, so the checks test the model, not a changing world.",
            )
        targets = evui.targets_from(picked, models)
        total = len(goal_set.goals) * len(targets) * repeats
        start = st.button(
            f"Run {total} runs" if total else "Run",
            type="primary",
            icon=":material/play_arrow:",
            disabled=not targets,
            key="evals_start",
        )
        if start and targets:
            try:
                judge = None
                if judge_pid != "none":
                    judge = Judge(make_provider(judge_pid, settings=config), evals_dir(config) / "judge_cache.json")
                cancel = threading.Event()
                run = EvalRun(
                    goal_set,
                    targets,
                    settings=config,
                    repeats=repeats,
                    concurrency=concurrency,
                    judge=judge,
                    cancel=cancel,
                    baseline=None if baseline == "none" else baseline,
                    tool_mode=tool_mode,
                )
            except Exception as exc:  # bad input: say it, run nothing
                st.error(f"The eval cannot start: {ui.md_label(getattr(exc, 'message', exc), 300)}", icon="🚫")
            else:
                done = threading.Event()
                st.session_state["evals_cancel"] = cancel
                st.session_state["evals_done"] = done
                st.session_state["evals_active"] = run.eval_id
                head, stop = st.columns([4, 1], vertical_alignment="center")
                head.markdown(f"**Running** eval `{run.eval_id}`")
                stop.button(
                    "Stop",
                    icon=":material/stop_circle:",
                    key="evals_stop",
                    on_click=_request_stop,
                    width="stretch",
                    help="Stops the eval: runs in flight end as cancelled; what finished is kept.",
                )
                bar = st.progress(0.0, text=f"0 of {run.total} runs")
                clock = st.empty()
                grid_slot = st.empty()
                goal_ids = [g.id for g in goal_set.goals]
                target_labels = [t.label for t in run.targets]
                t0 = time.monotonic()
                height = evui.grid_height(len(goal_ids))
                grid_slot.dataframe(evui.grid(goal_ids, target_labels, [], repeats), width="stretch", height=height)

                def progress(p: Progress) -> None:
                    bar.progress(p.done / p.total, text=f"{p.done} of {p.total} runs")
                    grid_slot.dataframe(
                        evui.grid(goal_ids, target_labels, run.rows, repeats), width="stretch", height=height
                    )

                def tick() -> None:
                    clock.caption(
                        f"{time.monotonic() - t0:.0f} s · pass: all repeats passed · fail: none · "
                        "flaky: some · … running · · waiting"
                    )

                try:
                    result = run.run(progress, on_tick=tick)
                finally:
                    done.set()  # also when interrupted: the result is saved by then
                st.session_state.pop("evals_active", None)
                st.query_params["eval"] = result["eval_id"]
                st.rerun()  # the results replace the live grid

# --- One eval's results ------------------------------------------------------------------------
open_id = st.query_params.get("eval")
if open_id:
    try:
        result = load_result(open_id, config)
    except ValueError as exc:
        st.warning(ui.md_label(exc, 300))
        result = None
    if result is not None:
        st.divider()
        name = result["goal_set"].get("name")
        st.subheader(f"Results · {ui.escape_md(name)}")
        state = "complete" if result.get("complete") else "stopped — incomplete"
        st.caption(
            f"Eval `{result['eval_id']}` · {ui.fmt_time(result.get('started_at'))} · "
            f"{len(result.get('runs') or [])} of {result.get('planned')} runs · {state} · "
            f"{result.get('repeats')} repeat(s)"
            + (f" · judge {ui.escape_md(result['judge'])}" if result.get("judge") else "")
        )
        if st.session_state.pop("evals_stopped", None) == open_id or not result.get("complete"):
            st.warning("This eval was stopped: the scores cover the runs that finished.", icon="⏹️")
        evui.metrics(result)
        st.dataframe(evui.summary_frame(result), hide_index=True, width="stretch", column_config=evui.SUMMARY_COLUMNS)
        people = _labels_ui.verdicts_of(config, [str(r["run_id"]) for r in result.get("runs") or []])
        evui.show_agreement(result, people)

        st.markdown(
            "**Goals × models** — pick a cell to see its runs (pass: all repeats passed · fail: none · flaky: some)"
        )
        frame = evui.result_grid(result)
        selection = st.dataframe(
            frame,
            width="stretch",
            height=evui.grid_height(len(frame)),
            key=f"evals_grid_{open_id}",
            on_select="rerun",
            selection_mode="single-cell",
        )
        cell_labels = [f"{goal} · {target}" for goal in frame.index for target in frame.columns]
        picked_cell = None
        cells = getattr(getattr(selection, "selection", None), "cells", None) or []
        if cells:
            row, column = cells[0]
            if 0 <= int(row) < len(frame.index) and column in frame.columns:
                picked_cell = f"{frame.index[int(row)]} · {column}"
        if picked_cell:
            st.session_state[f"evals_cell_{open_id}"] = picked_cell
        chosen = st.selectbox(
            "Open a cell",
            cell_labels,
            index=None,
            key=f"evals_cell_{open_id}",
            placeholder="Choose a goal and model (or click a cell above)…",
        )
        if chosen:
            goal_id, target = chosen.split(" · ", 1)
            evui.show_cell(result, goal_id, target, people)

        st.markdown("**Flips against an earlier eval**")
        others = [r for r in evui.results_of(config, name) if r["eval_id"] != open_id]
        if not others:
            st.caption("No earlier eval of this set to compare with.")
        else:
            ids = [r["eval_id"] for r in others]
            default = ids.index(result["baseline"]) if result.get("baseline") in ids else 0
            base_id = st.selectbox(
                "Baseline",
                ids,
                index=default,
                key=f"evals_base_{open_id}",
                format_func=lambda i: f"{i}" + (" (chosen when run)" if i == result.get("baseline") else ""),
            )
            base = next(r for r in others if r["eval_id"] == base_id)
            flips, test = evui.flips_against(result, base)
            p = test["p"]
            st.caption(
                f"{test['pass_to_fail']} pass→fail and {test['fail_to_pass']} fail→pass among {test['paired']} "
                f"goal × model pairs; exact McNemar p = {'—' if p is None else f'{p:.3g}'} "
                "(below 0.05: the change is unlikely to be chance). A cell passes when most of its repeats pass."
            )
            if flips:
                st.dataframe(evui.flips_frame(flips), hide_index=True, width="stretch")

        st.markdown("**Trend**")
        evui.trend_chart(evui.results_of(config, name))
        st.download_button(
            "Download the result (JSON)",
            json.dumps(result, ensure_ascii=False, indent=1, default=str),
            file_name=f"eval-{open_id}.json",
            mime="application/json",
            key="evals_download",
            icon=":material/download:",
        )

# --- Past evals --------------------------------------------------------------------------------
st.divider()
st.subheader("Past evals")
past = evui.results_of(config)
if not past:
    st.caption("No eval yet. Results are kept in " + ui.escape_md(evals_dir(config)) + ".")
else:
    st.dataframe(
        evui.past_frame(past),
        hide_index=True,
        width="stretch",
        column_config={"eval id": st.column_config.TextColumn(width="small")},
    )
    st.selectbox(
        "Open an eval",
        [r["eval_id"] for r in past],
        index=None,
        key="evals_past_pick",
        on_change=_on_past_pick,
        placeholder="Choose an eval…",
        format_func=lambda i: next(
            f"{ui.fmt_time(r.get('started_at'))} · {r['goal_set'].get('name')} · {i}" for r in past if r["eval_id"] == i
        ),
    )
