"""Compare view helpers (not a page): the comparison of 2–6 runs, and the "Compare" picker that
History shows. The engine work is :mod:`agent_core.analysis.compare`; this only draws it."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from agent_core.analysis.compare import CAUSE_LABELS, MAX_RUNS, MIN_RUNS, Comparison, compare
from agent_core.analysis.trajectory import Action
from agent_core.errors import RecordError
from agent_core.records.outcome import word
from agent_core.records.store import RunStore
from ui import common as ui

COMPARE_PAGE = "pages/compare.py"
HISTORY_PAGE = "pages/history.py"
HEADER_ROWS: tuple[tuple[str, str, str], ...] = (
    ("steps", "Steps", "%d"),
    ("tool_calls", "Tool calls", "%d"),
    ("errors", "Failed calls", "%d"),
    ("retries", "Retries", "%d"),
    ("fallbacks", "Fallbacks", "%d"),
    ("duplicates", "Duplicates", "%d"),
    ("tokens", "Tokens", "%d"),
    ("cost_usd", "Cost ($)", "%.4f"),
    ("duration_ms", "Duration", "ms"),
    ("blocks_trimmed", "Blocks trimmed", "%d"),
)
DIFF_STYLE = "background-color: #fef3c7; color: #92400e; font-weight: 600"
GAP_STYLE = "background-color: #f1f5f9; color: #94a3b8"


def parse_run_ids(raw: str | None) -> list[str]:
    """Run ids from ``?runs=a,b,c`` (blanks and repeats dropped, order kept)."""
    ids = [part.strip() for part in (raw or "").split(",")]
    return list(dict.fromkeys(i for i in ids if i))


def load_records(store: RunStore, run_ids: Sequence[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """The records that could be read, and a message for each id that could not."""
    records, problems = [], []
    for run_id in run_ids:
        try:
            records.append(store.load(run_id))
        except RecordError as exc:
            problems.append(f"{run_id}: {exc}")
    return records, problems


def compare_picker(options: Sequence[str], labels: Mapping[str, str], *, key: str = "history_compare") -> None:
    """History's "select runs → Compare": a multiselect of the runs in view and a button."""
    # One row: the picker takes what the button's whole label leaves (a fifth of the row cut it
    # to "Comp…" at 800 px).
    with st.container(border=True, horizontal=True, vertical_alignment="bottom", wrap=False):
        picked = st.multiselect(
            "Compare runs",
            list(options),
            key=key,
            max_selections=MAX_RUNS,
            placeholder=f"Pick {MIN_RUNS}–{MAX_RUNS} runs to see them side by side…",
            help="Side by side: what each run did at each step, where they first differ, and why.",
            format_func=lambda rid: labels.get(rid, rid),
            width="stretch",
        )
        if st.button("Compare", key=f"{key}_go", disabled=len(picked) < MIN_RUNS, width="content"):
            st.switch_page(COMPARE_PAGE, query_params={"runs": ",".join(picked)})


def _fmt_value(value: Any, fmt: str) -> str:
    if value is None:
        return "—"
    if fmt == "ms":
        return ui.fmt_ms(value)
    return fmt % value


def _fmt_delta(value: Any, fmt: str) -> str:
    if value is None or value == 0:
        return ""
    sign = "+" if value > 0 else "−"
    return f" ({sign}{_fmt_value(abs(value), fmt)})"


def header_frame(result: Comparison) -> pd.DataFrame:
    """Rows = measures, columns = runs; each value with its delta against the baseline."""
    data = result.as_dict()["runs"]
    columns = [f"{r['label']}" + (" (baseline)" if r["baseline"] else "") for r in data]
    rows: dict[str, list[str]] = {
        "Goal": [ui.one_line(r.get("goal"), 80) for r in data],
        "Outcome": [word(str(r.get("outcome") or r["status"])) for r in data],
        "Provider · model": [ui.one_line(f"{r['provider']} · {r['model']}", 48) for r in data],
    }
    for key, label, fmt in HEADER_ROWS:
        rows[label] = [
            ("~" if key == "tokens" and r.get("tokens_estimated") else "")
            + _fmt_value(r[key], fmt)
            + (" (estimated)" if key == "tokens" and r.get("tokens_estimated") else "")
            + ("" if r["baseline"] else _fmt_delta(r["deltas"][key], fmt))
            for r in data
        ]
    rows["Errors by kind"] = [", ".join(f"{k} {v}" for k, v in r["errors_by_category"].items()) or "—" for r in data]
    if any(r.get("grounding") for r in data):
        rows["Grounding"] = [r.get("grounding") or "—" for r in data]
    if any(r.get("replay_of") for r in data):
        rows["Replay of"] = [
            (r.get("replay_of") or "—") + (f" ({r['tool_mode']} tools)" if r.get("tool_mode") else "") for r in data
        ]
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=columns)
    frame.index.name = "measure"
    return frame.reset_index()


def _note(result: Comparison, row: list[int | None], differs: list[bool]) -> str:
    labels = result.labels
    present = [r for r, index in enumerate(row) if index is not None]
    if len(present) < len(row):
        return "only in run " + ", ".join(labels[r] for r in present)
    base = result.cell(row, result.baseline)
    notes = []
    for r, changed in enumerate(differs):
        event = result.cell(row, r)
        if not changed or event is None or base is None:
            continue
        if event.key() != base.key():
            notes.append(f"{labels[r]}: other {'arguments' if event.kind == 'tool_call' else event.kind}")
        else:
            notes.append(f"{labels[r]}: other {'result' if event.kind == 'tool_call' else event.kind}")
    return "; ".join(notes) or "same"


def _cell_text(event: Action | None) -> str:
    if event is None:
        return ""
    text = event.label()
    if event.kind == "tool_call" and not event.success:
        text = "✗ " + text
    return text


def alignment_frame(result: Comparison) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The aligned steps (one column per run + a note) and a same-shaped frame of cell styles."""
    columns = [f"Run {label}" for label in result.labels]
    rows, styles = [], []
    for row in result.rows:
        differs = result.row_differs(row)
        cells = [_cell_text(result.cell(row, r)) for r in range(len(row))]
        rows.append([_note(result, row, differs), *cells])
        styles.append(
            [""] + [GAP_STYLE if row[r] is None else (DIFF_STYLE if differs[r] else "") for r in range(len(row))]
        )
    frame = pd.DataFrame(rows, columns=["Note", *columns])
    frame.insert(0, "#", range(1, len(frame) + 1))
    style = pd.DataFrame(styles, columns=["Note", *columns])
    style.insert(0, "#", "")
    return frame, style


def _ranges(values: Sequence[int]) -> str:
    if not values:
        return "none"
    parts, start, prev = [], values[0], values[0]
    for v in [*values[1:], None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        parts.append(str(start) if start == prev else f"{start}–{prev}")
        if v is not None:
            start = prev = v
    return ", ".join(parts)


def _by_step(ids: Sequence[int], made_in: Mapping[Any, Any]) -> str:
    """Context blocks named by the steps that made them ("from steps 1–3"), as on the Run page and
    in History, not by the engine's 0-based index; "#i" for an index with no known step."""
    if not ids:
        return "none"
    steps = sorted({int(made_in[i]) for i in ids if isinstance(made_in.get(i), int)})
    unknown = [f"#{i}" for i in ids if not isinstance(made_in.get(i), int)]
    named = [("from step " if len(steps) == 1 else "from steps ") + _ranges(steps)] if steps else []
    return ", ".join(named + unknown)


def context_frame(result: Comparison) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per step and run: blocks sent and trimmed; differing cells styled."""
    columns = [f"Run {label}" for label in result.labels]
    made_in = [
        {b.get("index"): b.get("step") for b in record.get("context_blocks") or [] if isinstance(b, Mapping)}
        for record in result.records
    ]
    rows, styles = [], []
    for entry in result.context:
        cells = []
        for run, cell in enumerate(entry["cells"]):
            if cell is None:
                cells.append("")
            else:
                trimmed = f" · trimmed {_by_step(cell['trimmed'], made_in[run])}" if cell["trimmed"] else ""
                cells.append(f"sent {_by_step(cell['sent'], made_in[run])}{trimmed}")
        rows.append([entry["step"], *cells])
        styles.append(["", *[DIFF_STYLE if d else "" for d in entry["differs"]]])
    return pd.DataFrame(rows, columns=["Step", *columns]), pd.DataFrame(styles, columns=["Step", *columns])


def _height(rows: int, limit: int = 640) -> int:
    """A table tall enough for ``rows`` rows (no inner scrolling) up to ``limit`` pixels."""
    return min(limit, 35 * (rows + 1) + 3)


def _styled(frame: pd.DataFrame, style: pd.DataFrame) -> Any:
    return frame.style.apply(lambda _: style, axis=None)


def _open_links(result: Comparison) -> None:
    row = st.container(horizontal=True, wrap=True, gap="small")
    for label, run_id in zip(result.labels, result.run_ids):
        row.page_link(
            HISTORY_PAGE,
            label=f"Open run {label}",
            icon=":material/open_in_new:",
            query_params={"run": run_id},
            help=f"Run id {run_id}",
        )


def _event_detail(result: Comparison, row_no: int, column: str) -> None:
    """The event under a picked cell, with a link to its run."""
    if not column.startswith("Run ") or not 0 <= row_no < len(result.rows):
        return
    label = column.removeprefix("Run ")
    if label not in result.labels:
        return
    r = result.labels.index(label)
    event = result.cell(result.rows[row_no], r)
    with st.container(border=True):
        if event is None:
            st.caption(
                f"Run {ui.escape_md(label)} has nothing at row {row_no + 1} (a gap: the other run(s) did something it did not)."
            )
        else:
            st.caption(f"Run {ui.escape_md(label)} · row {row_no + 1} · loop step {event.step}")
            ui.show_value(event.as_dict(), expanded=1)
        st.page_link(
            HISTORY_PAGE,
            label=f"Open run {label} in History",
            icon=":material/open_in_new:",
            query_params={"run": result.run_ids[r]},
        )


def show_comparison(records: Sequence[Mapping[str, Any]], *, key: str = "cmp") -> Comparison:
    """The whole compare view of ``records`` (2–6): controls, banner, header, alignment, ledger."""
    labels = [
        f"Run {chr(65 + i)} · {ui.one_line(r.get('provider'), 20)} · {ui.one_line(r.get('model'), 30)}"
        for i, r in enumerate(records)
    ]
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    wanted = st.query_params.get("baseline")
    ids = [str(r.get("run_id")) for r in records]
    default = ids.index(wanted) if wanted in ids else 0
    baseline = c1.selectbox(
        "Baseline",
        range(len(records)),
        index=default,
        key=f"{key}_baseline",
        format_func=lambda i: labels[i],
        help="The run every other run is measured against (deltas, highlights, first divergence).",
    )
    ignore = c2.toggle(
        "Ignore arguments",
        key=f"{key}_ignore",
        help="Align steps on the tool name only (a call with other arguments then lines up with its counterpart).",
    )
    result = compare(records, baseline=baseline, ignore_arguments=ignore)
    first = result.first
    if first is None:
        st.success(
            "No divergence: the runs made the same tool calls, got the same results and ended the same way.", icon="✅"
        )
    else:
        st.warning(f"**First divergence — {CAUSE_LABELS[first.cause]}.** {ui.escape_md(first.sentence)}", icon="🔀")
        others = [d for d in result.divergences if d is not None and d is not first]
        for d in others:
            st.caption(f"Run {ui.escape_md(d.label)}: {ui.escape_md(d.sentence)}")
    st.subheader("At a glance", help="Each value with its difference from the baseline run in brackets.")
    head = header_frame(result)
    st.dataframe(
        head,
        hide_index=True,
        width="stretch",
        height=_height(len(head)),
        column_config={"measure": st.column_config.TextColumn("", pinned=True)},
    )
    _open_links(result)
    st.subheader(
        "Aligned steps",
        help="Each row is one tool call (or the answer / stop). Calls are lined up "
        "by tool and arguments; a row only one run has is a gap in the others.",
    )
    st.caption(
        "Highlighted: differs from the baseline · grey: a gap (the run did not do this) · ✗ a failed call. "
        "Click a cell to see it and open its run."
    )
    frame, style = alignment_frame(result)
    event = st.dataframe(
        _styled(frame, style),
        hide_index=True,
        width="stretch",
        height=_height(len(frame)),
        key=f"{key}_align",
        on_select="rerun",
        selection_mode="single-cell",
        column_config={
            "#": st.column_config.NumberColumn("#", width=40, format="%d", pinned=True),
            # Narrow minimums: two runs fit beside the note at 800 px; a wide screen shares out the rest.
            "Note": st.column_config.TextColumn("Note", width=140),
            **{f"Run {label}": st.column_config.TextColumn(f"Run {label}", width=130) for label in result.labels},
        },
    )
    cells = list(getattr(getattr(event, "selection", None), "cells", []) or [])
    if cells:
        row_no, column = cells[0]
        _event_detail(result, int(row_no), str(column))
    st.subheader("Context ledger", help=ui.explain("context block") + " " + ui.explain("trimmed"))
    st.caption(
        "Which context blocks each run sent to its model at each step, and which it had trimmed. "
        "Highlighted: not what the baseline sent."
    )
    ledger, ledger_style = context_frame(result)
    if ledger.empty:
        st.info("No model turns to show.")
    else:
        st.dataframe(_styled(ledger, ledger_style), hide_index=True, width="stretch", height=_height(len(ledger), 420))
    st.download_button(
        "Download the comparison (JSON)",
        json.dumps(result.as_dict(), ensure_ascii=False, indent=2, default=str).encode("utf-8"),
        file_name="compare-" + "-".join(i[:8] for i in ids) + ".json",
        mime="application/json",
        key=f"{key}_download",
    )
    return result


# --- Replay (History's run detail) ---------------------------------------------------------------


def _compare_link(ids: Sequence[str], label: str) -> None:
    st.page_link(COMPARE_PAGE, label=label, icon=":material/compare_arrows:", query_params={"runs": ",".join(ids)})


def replay_panel(record: Mapping[str, Any], config: Any) -> None:
    """ "Replay on…": run this record again on a chosen provider/model with its recorded tools;
    the result opens in Compare against it. A replay shows a link to its source."""
    from agent_core.analysis.replay import (
        MATCH_MODES,
        SOURCE_PROVIDER,
        TOOL_MODES,
        prepare_replay,
    )
    from agent_core.errors import ProviderError
    from agent_core.providers import list_providers
    from agent_core.run.events import RunFinished, StepFinished, ToolCallFinished

    run_id = str(record.get("run_id") or "")
    if record.get("replay_of"):
        _compare_link([str(record["replay_of"]), run_id], "Compare with the run it replays")
    if record.get("status_shown", record.get("status")) == "running":
        return
    key = f"replay_{run_id}"
    with st.expander("🔁 Replay on another model…"):
        st.caption(
            "Run this goal again on another provider or model. With **recorded** tools every tool call is "
            "answered from this run's log (no tool runs, retries and fallbacks happen as they did), so "
            "only the model's choices can differ. The result opens in Compare."
        )
        available = [p for p in list_providers() if p.available]
        options = [SOURCE_PROVIDER, *(p.id for p in available)]
        names = {
            SOURCE_PROVIDER: "this run's own model turns (no model)",
            **{p.id: f"{p.id} — {p.label}" for p in available},
        }
        with st.form(key=f"{key}_form", border=False):
            c1, c2 = st.columns(2)
            provider_id = c1.selectbox(
                "Provider",
                options,
                index=options.index("offline") if "offline" in options else 0,
                format_func=lambda p: names.get(p, p),
                key=f"{key}_provider",
            )
            model = c2.text_input("Model", key=f"{key}_model", placeholder="the provider's default")
            c3, c4 = st.columns(2)
            tool_mode = c3.radio(
                "Tools",
                TOOL_MODES,
                horizontal=True,
                key=f"{key}_tools",
                help="recorded: from this run's log · live: run the tools · hybrid: recorded where "
                "the call matches, live otherwise",
            )
            match = c4.radio(
                "Matching",
                MATCH_MODES,
                horizontal=True,
                key=f"{key}_match",
                help="fifo: the next recorded call of the same tool · strict: the same arguments, and "
                "any unexpected or unmade call fails the replay",
            )
            steps = len(record.get("steps") or [])
            fork = st.number_input(
                "Fork from step (0 = replay the whole run)",
                min_value=0,
                max_value=steps + 1,
                value=0,
                step=1,
                key=f"{key}_fork",
                help="Keep this run's steps before it as they were, and let the new model go on.",
            )
            go = st.form_submit_button("Replay", type="primary")
        if go:
            try:
                replay = prepare_replay(
                    dict(record),
                    provider_id,
                    model=model,
                    tool_mode=tool_mode,
                    match=match,
                    from_step=int(fork) or None,
                    settings=config,
                )
            except (ValueError, ProviderError) as exc:
                st.error(f"Cannot replay: {ui.md_label(getattr(exc, 'message', None) or exc, 300)}", icon="🚫")
                return
            finished = None
            with st.status("Replaying…", expanded=True) as status:
                for event in replay.events():
                    if isinstance(event, ToolCallFinished):
                        call = event.call
                        status.write(
                            f"step {event.step}: {ui.md_label(call.get('tool'), 40)} · "
                            f"{ui.escape_md(call.get('source') or '')}"
                        )
                    elif isinstance(event, StepFinished):
                        status.update(label=f"Replaying… step {event.step} done")
                    elif isinstance(event, RunFinished):
                        finished = event
                status.update(
                    label=f"Replay {finished.status if finished else 'ended'} · "
                    f"{replay.tools.live_executions} live tool execution(s)",
                    state="complete" if finished and finished.status == "completed" else "error",
                )
            if finished is not None:
                st.session_state[f"{key}_done"] = finished.run_id
        done = st.session_state.get(f"{key}_done")
        if done:
            _compare_link([run_id, done], "Open the replay in Compare")
