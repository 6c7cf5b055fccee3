"""Run page's "Try on several models" (not a page): pick 2–6 provider/model entries and a budget,
watch the runs side by side, then the verdicts and the Compare view. The engine is
:mod:`agent_core.analysis.arena`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from agent_core.analysis.arena import (
    MAX_ENTRIES,
    MIN_ENTRIES,
    ArenaEntry,
    prepare_arena,
    verdicts,
)
from agent_core.analysis.compare import run_label
from agent_core.errors import ProviderError
from agent_core.providers import ProviderInfo
from agent_core.run.events import (
    ModelCallStarted,
    RunFinished,
    StepFinished,
    ToolCallFinished,
)
from ui import common as ui
from ui import compare as cmp

COLUMNS_PER_ROW = 3
LAST_KEY = "arena_last"


@dataclass(frozen=True)
class ArenaRequest:
    """What the form asked for."""

    entries: list[ArenaEntry]
    budget_usd: float | None


def _parse_extra(text: str, providers: Mapping[str, ProviderInfo]) -> tuple[list[ArenaEntry], list[str]]:
    entries, problems = [], []
    for line in (text or "").splitlines():
        line = line.strip()
        if not line:
            continue
        pid, _, model = line.partition(":")
        pid = pid.strip()
        if pid not in providers:
            problems.append(f"unknown provider {pid!r} in {line!r}")
        elif not providers[pid].available:
            problems.append(f"{pid} is unavailable here: {providers[pid].hint}")
        else:
            entries.append(ArenaEntry(pid, model.strip() or None))
    return entries, problems


def arena_form(providers: Mapping[str, ProviderInfo], provider_id: str, model: str) -> ArenaRequest | None:
    """The "Try on several models" expander; returns the request when its button is pressed."""
    with st.expander("⚔️ Try on several models", expanded=False):
        st.caption(
            f"Run this goal on {MIN_ENTRIES}–{MAX_ENTRIES} models at the same time — same tools, same step limit — "
            "and compare what each did. The local model takes one run at a time."
        )
        available = [p for p in providers.values() if p.available]
        options = [f"{p.id}:{p.default_model}" for p in available]
        current = f"{provider_id}:{model or providers[provider_id].default_model}" if provider_id in providers else None
        if current and current not in options and providers[provider_id].available:
            options.insert(0, current)
        picked = st.multiselect(
            "Models",
            options,
            default=[current] if current in options else None,
            key="arena_models",
            max_selections=MAX_ENTRIES,
            help="provider:model — the same provider may appear with several models.",
        )
        extra = st.text_area(
            "More entries (one provider:model per line)",
            key="arena_extra",
            height=68,
            placeholder="openai:gpt-4.1-mini\nanthropic:claude-sonnet-4-5",
        )
        c1, c2 = st.columns([1, 1], vertical_alignment="bottom")
        capped = c1.checkbox(
            "Cap the cost", key="arena_capped", help="Stop every run once their summed cost passes it."
        )
        budget = c2.number_input(
            "Budget (USD)", min_value=0.0, value=0.10, step=0.05, format="%.2f", key="arena_budget", disabled=not capped
        )
        go = st.button("Run on all", icon=":material/play_arrow:", key="arena_start")
        last = st.session_state.get(LAST_KEY)
        if last and not go:
            st.caption("Last arena")
            for line in last["verdicts"]:
                st.text(line)
            cmp._compare_link(last["run_ids"], "Open the last arena in Compare")
        if not go:
            return None
        entries = [ArenaEntry(p.partition(":")[0], p.partition(":")[2] or None) for p in picked]
        more, problems = _parse_extra(extra, providers)
        for problem in problems:
            st.error(ui.md_label(problem, 200), icon="🔌")
        entries += more
        if problems:
            return None
        if not MIN_ENTRIES <= len(entries) <= MAX_ENTRIES:
            st.error(f"Pick {MIN_ENTRIES} to {MAX_ENTRIES} models (now {len(entries)}).", icon="✋")
            return None
        return ArenaRequest(entries, float(budget) if capped else None)


def _line(event: Any) -> str | None:
    if isinstance(event, ModelCallStarted):
        return f"step {event.step}: asking the model…"
    if isinstance(event, ToolCallFinished):
        call = event.call
        return f"  {'✓' if call.get('success') else '✗'} {ui.one_line(call.get('tool'), 30)}"
    if isinstance(event, RunFinished):
        return f"→ {event.status}" + (f": {ui.one_line(event.answer, 120)}" if event.answer else "")
    return None


def live_arena(
    request: ArenaRequest, goal: str, config: Any, overrides: Mapping[str, Any], tools: Sequence[str]
) -> None:
    """Run the arena here: one column per run, updated as events arrive; then verdicts + Compare."""
    try:
        arena = prepare_arena(
            goal, request.entries, settings=config, overrides=overrides, tools=tools, budget_usd=request.budget_usd
        )
    except ProviderError as exc:
        st.error(f"Cannot start: {ui.md_label(exc.message, 300)}", icon="🔌")
        return
    except ValueError as exc:
        st.error(f"Cannot start: {ui.md_label(exc, 300)}", icon="✋")
        return
    head, stop = st.columns([4, 1], vertical_alignment="center")
    head.subheader("Arena", help=f"arena id {arena.arena_id}")
    stop_slot = stop.empty()
    stop_slot.button("Stop all", icon=":material/stop_circle:", key="arena_stop", on_click=arena.stop, width="stretch")
    budget_slot = st.empty()
    boxes, logs = [], []
    for start in range(0, len(request.entries), COLUMNS_PER_ROW):
        row = st.columns(COLUMNS_PER_ROW)
        for column, entry in zip(row, request.entries[start : start + COLUMNS_PER_ROW]):
            with column.container(border=True):
                st.markdown(f"**{ui.md_label(entry.label(), 60)}**")
                boxes.append(st.empty())
                logs.append([])
    for index, event in arena.events():
        line = _line(event)
        if isinstance(event, StepFinished) and request.budget_usd is not None:
            budget_slot.caption(f"Spent ${arena.spent:.4f} of ${request.budget_usd:.2f}")
        if line is None:
            continue
        logs[index] = (logs[index] + [line])[-12:]
        boxes[index].text("\n".join(logs[index]))
    stop_slot.empty()
    if arena.budget_hit:
        st.warning(
            f"The budget of ${request.budget_usd:.2f} was passed (${arena.spent:.4f}): every run was stopped.",
            icon="💸",
        )
    store = ui.run_store(config, refresh=False)
    records, problems = cmp.load_records(store, [r for r in arena.run_ids if r])
    for problem in problems:
        st.error(ui.md_label(problem, 200))
    lines = verdicts(records)
    st.session_state[LAST_KEY] = {"run_ids": [r.get("run_id") for r in records], "verdicts": lines}
    st.subheader("Verdicts")
    for label, line in zip((run_label(i) for i in range(len(lines))), lines):
        st.text(f"Run {label} — {line}")
    if len(records) >= 2:
        cmp._compare_link([str(r.get("run_id")) for r in records], "Open in Compare")
        cmp.show_comparison(records, key="arena_cmp")
