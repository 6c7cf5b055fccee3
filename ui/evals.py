"""Helpers of the Evals page (and History's filter by eval): tables, the progress grid, charts.

Everything shown comes from agent_core.evals (goal sets, saved results); text from runs or
goal-set files is shown as data (dataframes, escaped markdown), never as HTML.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from agent_core.evals.goalset import GoalSet, GoalSetError, bundled_sets, load_goal_set, parse_goal_set
from agent_core.evals.runner import SCRIPTED, Target, list_results, load_result
from agent_core.evals.scores import flips_of, trend_of
from agent_core.providers import list_providers
from agent_core.settings import Settings
from ui import common as ui
from ui import provider as _provider_ui

HISTORY_PAGE = "pages/history.py"
EVALS_PAGE = "pages/evals.py"
UPLOAD = "Upload a goal-set file…"
PENDING, RUNNING = "·", "…"


def bundled(data_dir: Path | None = None) -> dict[str, Path]:
    """Bundled goal sets by label (``seeds — evals/seeds.yaml``), then those of the data folder
    (``from-runs — goal_sets/from-runs.yaml``: goals made from runs in History)."""
    from agent_core.evals.from_runs import GOAL_SETS_DIR, goal_set_files

    found = {f"{p.stem} — evals/{p.name}": p for p in bundled_sets()}
    if data_dir is not None:
        found.update({f"{p.stem} — {GOAL_SETS_DIR}/{p.name}": p for p in goal_set_files(data_dir)})
    return found


def frozen_goals(goal_set: GoalSet) -> int:
    """How many goals of the set were made from a run (``from_run``): they can run on its recorded tools."""
    return sum(1 for g in goal_set.goals if g.from_run is not None)


def read_set(label: str, upload: Any, data_dir: Path | None = None) -> tuple[GoalSet | None, str | None]:
    """The chosen goal set, or the one-line reason it cannot be run."""
    if label == UPLOAD:
        if upload is None:
            return None, None
        try:
            return parse_goal_set(upload.getvalue(), upload.name), None
        except GoalSetError as exc:
            return None, str(exc)
    path = bundled(data_dir).get(label)
    if path is None:
        return None, None
    try:
        return load_goal_set(path), None
    except GoalSetError as exc:
        return None, str(exc)


def provider_choices(goal_set: GoalSet) -> tuple[list[str], dict[str, str]]:
    """Provider ids a user can pick for this set (available ones; ``scripted`` for scenario
    sets) and their labels."""
    labels: dict[str, str] = {}
    if all(g.scenario for g in goal_set.goals):
        labels[SCRIPTED] = "scripted — replays the demo scenarios"
    for info in list_providers():
        info = _provider_ui.checked(info)  # "Your own model server" only while one answers, as on Run
        if info.available:
            labels[info.id] = _provider_ui.label(info)  # the Run page's plain words
    return list(labels), labels


def default_providers(goal_set: GoalSet, choices: Sequence[str]) -> list[str]:
    if goal_set.provider in choices:
        return [str(goal_set.provider)]
    for pid in ("offline", "local"):
        if pid in choices:
            return [pid]
    return list(choices[:1])


def _cell_text(passed: int, total: int, planned: int) -> str:
    if total == 0:
        return RUNNING if planned and total < planned else PENDING
    mark = "pass" if passed == total else "fail" if passed == 0 else "flaky"
    more = f" {RUNNING}" if total < planned else ""
    return f"{mark} {passed}/{total}{more}"


def grid(
    goal_ids: Sequence[str], targets: Sequence[str], rows: Sequence[Mapping[str, Any]], repeats: int
) -> pd.DataFrame:
    """The goal × model grid: pass (all repeats passed), fail (none), flaky (some), · not run yet."""
    counts: dict[tuple[str, str], list[int]] = {}
    for row in rows:
        key = (str(row["goal_id"]), str(row["target"]))
        count = counts.setdefault(key, [0, 0])
        if row.get("passed") is not None:
            count[1] += 1
            count[0] += 1 if row["passed"] else 0
    data = {
        target: [
            _cell_text(*counts.get((goal, target), [0, 0]), repeats) if (goal, target) in counts else PENDING
            for goal in goal_ids
        ]
        for target in targets
    }
    return pd.DataFrame(data, index=pd.Index(list(goal_ids), name="goal"))


def result_grid(result: Mapping[str, Any]) -> pd.DataFrame:
    targets = list(dict.fromkeys(str(r.get("target") or r["provider"]) for r in result.get("runs") or []))
    return grid(result["goal_set"]["goals"], targets, result.get("runs") or [], 0)


def _pct(value: Any) -> float | None:
    return None if value is None else round(100 * float(value), 1)


def summary_frame(result: Mapping[str, Any]) -> pd.DataFrame:
    rows = []
    for s in result.get("summary") or []:
        rows.append(
            {
                "model": f"{s['provider']}/{s['model']}",
                "pass rate": _pct(s["pass_rate"]),
                "95% CI": f"{_pct(s['ci_low']):.0f}–{_pct(s['ci_high']):.0f}%" if s["total"] else "—",
                "passed": f"{s['passed']}/{s['total']}",
                f"pass@{s['k']}": _rate(s["pass_at_k"]),
                f"pass^{s['k']}": _rate(s["pass_all_k"]),
                "flaky goals": ", ".join(s["flaky"]) or "—",
                "steps (median)": s["median_steps"],
                "tokens (median)": s["median_tokens"],
                "cost (median)": ui.fmt_cost(s["median_cost_usd"]),
                "duration (median)": ui.fmt_ms(s["median_duration_ms"]),
                "ungrounded": (
                    f"{_pct(s['ungrounded_rate']):.0f}% of {s['grounding_checked']}"
                    if s.get("grounding_checked")
                    else "not checked"
                ),
                "judge disagreement": (
                    f"{_pct(s['judge_disagreement']):.0f}% ({s['judge_uncertain']} uncertain)"
                    if s.get("judge_disagreement") is not None
                    else "—"
                ),
            }
        )
    return pd.DataFrame(rows)


SUMMARY_COLUMNS = {
    "pass rate": st.column_config.ProgressColumn(
        "pass rate", format="%.0f%%", min_value=0, max_value=100, help="Share of runs whose checks all held."
    ),
    "95% CI": st.column_config.TextColumn(
        help="Wilson 95 % interval of the pass rate: where the true rate probably lies, given this many runs."
    ),
    "flaky goals": st.column_config.TextColumn(help="Goals where some repeats passed and some failed."),
    "ungrounded": st.column_config.TextColumn(help="Answers with numbers the run's tools and goal do not support."),
    "judge disagreement": st.column_config.TextColumn(
        help="Share of the judge's verdicts that went against its majority for the same answer."
    ),
}


def grid_height(rows: int) -> int:
    """Tall enough for every goal up to ~20 rows, then the grid scrolls."""
    return min(35 * (rows + 1) + 3, 35 * 21 + 3)


def metrics(result: Mapping[str, Any]) -> None:
    """The pass rate of each model with its interval, as metrics that wrap on narrow screens."""
    row = ui.metric_row()
    for s in result.get("summary") or []:
        value = _rate(s["pass_rate"])
        ci = (
            f"95% CI {_pct(s['ci_low']):.0f}–{_pct(s['ci_high']):.0f}% · {s['passed']}/{s['total']} runs"
            if s["total"]
            else "no decided run"
        )
        row.metric(
            f"{s['provider']}/{s['model']}",
            value,
            ci,
            delta_color="off",
            delta_arrow="off",
            width="content",
            help="Share of runs whose checks all held, with the Wilson 95 % interval.",
        )


def cell_runs(result: Mapping[str, Any], goal_id: str, target: str) -> list[Mapping[str, Any]]:
    return [r for r in result.get("runs") or [] if r["goal_id"] == goal_id and str(r.get("target")) == target]


def show_cell(result: Mapping[str, Any], goal_id: str, target: str, labels: Mapping[str, Any] | None = None) -> None:
    """One cell: its runs with their verdicts and failed checks (and people's labels of them),
    each linking to History."""
    runs = cell_runs(result, goal_id, target)
    labels = labels or {}
    st.markdown(f"**{ui.escape_md(goal_id)}** on **{ui.escape_md(target)}** — {len(runs)} run(s)")
    st.page_link(
        HISTORY_PAGE,
        label="All these runs in History",
        icon=":material/history:",
        query_params={"eval": str(result["eval_id"]), "goal": goal_id},
    )
    for r in runs:
        verdict = {True: "✓ pass", False: "✗ fail", None: "— not decided"}[r.get("passed")]
        failed = [
            f"{c['check']} ({c['detail']})" if c.get("detail") else c["check"]
            for c in r.get("checks") or []
            if c.get("passed") is False
        ]
        with st.container(border=True):
            head, link = st.columns([3, 1], vertical_alignment="center")
            person = labels.get(str(r["run_id"]))
            head.markdown(
                f"Repeat {int(r['repeat']) + 1}: {verdict} · {ui.escape_md(r.get('status'))} · {r.get('steps')} steps"
                + (" · recorded tools" if r.get("tool_mode") == "recorded" else "")
                + (f" · labelled {'✓ pass' if person.verdict == 'pass' else '✗ fail'}" if person else "")
            )
            link.page_link(
                HISTORY_PAGE, label="Open run", icon=":material/open_in_new:", query_params={"run": str(r["run_id"])}
            )
            for line in failed:
                st.caption(f"✗ {ui.md_label(line, 200)}")
            undecided = [c for c in r.get("checks") or [] if c.get("passed") is None]
            for c in undecided:
                st.caption(f"○ {ui.md_label(c['check'], 120)}: {ui.md_label(c.get('detail'), 120)}")


def flips_frame(flips: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "goal": f["goal_id"],
                "model": f"{f['provider']}/{f['model']}",
                "flip": f["flip"],
                "before": f["before"],
                "after": f["after"],
            }
            for f in flips
        ],
        columns=["goal", "model", "flip", "before", "after"],
    )


def flips_against(
    result: Mapping[str, Any], baseline: Mapping[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    return flips_of(result.get("cells") or [], baseline.get("cells") or [])


def trend_chart(results: Sequence[Mapping[str, Any]]) -> None:
    """Pass rate per model over the evals of one set, with its Wilson interval."""
    rows = trend_of(results)
    if len({r["eval_id"] for r in rows}) < 2:
        st.caption("The trend appears once this set has been evaluated twice.")
        return
    recent = list(dict.fromkeys(r["eval_id"] for r in rows))[-20:]  # the 20 latest evals
    data = pd.DataFrame([r for r in rows if r["eval_id"] in recent])
    data["when"] = [f"{ui.fmt_time(t)[5:16]} · {e[-4:]}" for t, e in zip(data["started_at"], data["eval_id"])]
    for column in ("pass_rate", "ci_low", "ci_high"):
        data[column] = data[column] * 100
    # One evenly spaced step per eval (evals minutes or months apart read the same), oldest left.
    x = {
        "field": "when",
        "type": "ordinal",
        "sort": None,
        "title": None,
        "axis": {"labelAngle": -30, "labelLimit": 140},
    }
    y_scale = {"domain": [0, 100]}
    spec = {
        "height": 260,
        "layer": [
            {
                "mark": {"type": "area", "opacity": 0.15},
                "encoding": {
                    "x": x,
                    "y": {"field": "ci_low", "type": "quantitative", "scale": y_scale, "title": "pass rate %"},
                    "y2": {"field": "ci_high"},
                    "color": {
                        "field": "target",
                        "type": "nominal",
                        "title": "model",
                        "legend": {"orient": "bottom", "columns": 2},
                    },
                },
            },
            {
                "mark": {"type": "line", "point": True},
                "encoding": {
                    "x": x,
                    "y": {"field": "pass_rate", "type": "quantitative", "scale": y_scale},
                    "color": {"field": "target", "type": "nominal"},
                    "tooltip": [
                        {"field": "eval_id"},
                        {"field": "target", "title": "model"},
                        {"field": "pass_rate", "type": "quantitative", "format": ".0f", "title": "pass %"},
                    ],
                },
            },
        ],
    }
    st.vega_lite_chart(data, spec, width="stretch")


def _rate(value: Any) -> str:
    return "—" if value is None else f"{100 * float(value):.0f}%"


def past_frame(results: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    rows = []
    for r in results:
        rates = ", ".join(f"{s['provider']}/{s['model']} {_rate(s['pass_rate'])}" for s in r.get("summary") or [])
        rows.append(
            {
                "when": ui.fmt_time(r.get("started_at")),
                "set": r["goal_set"].get("name"),
                "pass rates": rates,
                "runs": f"{len(r.get('runs') or [])}/{r.get('planned')}",
                "complete": "yes" if r.get("complete") else "stopped",
                "eval id": r["eval_id"],
            }
        )
    return pd.DataFrame(rows, columns=["when", "set", "pass rates", "runs", "complete", "eval id"])


def targets_from(picked: Sequence[str], models: Mapping[str, str]) -> list[Target]:
    """One target per picked provider; a model box may hold several models separated by commas."""
    targets: list[Target] = []
    for pid in picked:
        names = [m.strip() for m in (models.get(pid) or "").split(",") if m.strip()]
        targets.extend(Target(pid, name) for name in names) if names else targets.append(Target(pid))
    return targets


def results_of(config: Settings, name: str | None = None) -> list[dict[str, Any]]:
    return list_results(config, name)


# --- History: the filter by eval ---------------------------------------------------------


def history_eval_ids(config: Settings) -> tuple[str, ...] | None:
    """The run ids of one eval (``?eval=ID``, optionally ``&goal=GOAL``) with a note saying
    History shows only them and a way back to all runs; None without those parameters."""
    eval_id = st.query_params.get("eval")
    if not eval_id:
        return None
    goal = st.query_params.get("goal")
    try:
        result = load_result(eval_id, config)
    except ValueError as exc:
        st.warning(f"{ui.md_label(exc, 200)} — showing all runs.")
        return None
    ids = {str(r["run_id"]) for r in result.get("runs") or [] if not goal or r["goal_id"] == goal}
    note, clear = st.columns([4, 1], vertical_alignment="center")
    what = f"goal **{ui.escape_md(goal)}** of " if goal else ""
    note.info(
        f"Showing the {len(ids)} run(s) of {what}eval **{ui.escape_md(eval_id)}** "
        f"({ui.escape_md(result['goal_set'].get('name'))}).",
        icon="🧪",
    )
    if clear.button("All runs", key="history_eval_clear", help="Stop filtering by this eval."):
        for key in ("eval", "goal"):
            if key in st.query_params:
                del st.query_params[key]
        st.rerun()
    return tuple(sorted(ids))


def show_agreement(result: Mapping[str, Any], labels: Mapping[str, Any]) -> None:
    """How the checks' verdicts agree with people's labels of the same runs (when some are labelled)."""
    from agent_core.evals.scores import label_agreement

    found = label_agreement(result.get("runs") or [], {rid: label.verdict for rid, label in labels.items()})
    if not found["labelled"]:
        return
    st.caption(
        f"People labelled {found['labelled']} of these runs (Review page); the checks agree on {found['agree']}"
        + (f" and disagree on {len(found['disagree'])}:" if found["disagree"] else ".")
    )
    if found["disagree"]:
        st.dataframe(pd.DataFrame(found["disagree"]), hide_index=True, width="stretch")
