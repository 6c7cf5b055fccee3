"""Run page: type a goal (or pick a demo scenario) and watch the agent loop live.

The loop runs in a background thread bound to the session (:mod:`ui.live`); this page follows
it, event by event. Opening another page (or clicking any widget) only ends the drawing: the run
goes on, the sidebar says so, and coming back draws it again, live or finished. Stop sets the run's
cancel event, which also cuts model calls, tool calls and retry waits short; the record is saved
as ``cancelled``.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from agent_core.errors import ProviderError, RecordError
from agent_core.providers import default_provider_id, list_providers
from agent_core.run import demo
from agent_core.run.loop import MAX_GOAL_CHARS
from agent_core.run.prepare import PreparedRun, prepare_run
from ui import common as ui
from ui import grounding as grounding_ui
from ui import live as _live
from ui import preload as _preload_ui
from ui import provider as _providers
from ui import store as _store_ui
from ui import tools as _tools_ui
from ui import workspace as _workspace_ui
from ui.arena import arena_form, live_arena
from ui.ledger import show_ledger
from ui.run_view import RunView, show_outcome, show_saved_run

EXAMPLES = ui.examples_for(demo.EXAMPLE_GOALS, st.context.locale)  # the browser's language first

ui.ensure_app_frame()
config = ui.settings()
store = ui.run_store(config, refresh=False)  # this page only loads the record it ran
_store_ui.run_banner(config)  # the team store is down: runs go on in the folder
_workspace_ui.sidebar(config, "pages/workspace.py")  # "Your documents": list and Add files


def _use_example() -> None:
    example = st.session_state.get("run_example")
    if example:
        st.session_state["run_goal"] = example


def _view(max_steps: int, max_context_blocks: int, keep_open: bool) -> RunView:
    # A scripted demo keeps every step open (each one shows something on purpose), except at
    # presenter pace: there the step under way is the one in view.
    return RunView(max_steps=max_steps, max_context_blocks=max_context_blocks, collapse_done=not keep_open)


def live_run(prepared: PreparedRun, *, banner: str = "", paced: bool = False) -> None:
    """Start the run in the background (it goes on if the page changes) and follow it here."""
    show_live(_live.start(prepared, banner=banner, paced=paced))


def show_live(run: _live.BackgroundRun) -> None:
    """Draw this session's background run until it ends (Stop stays on top meanwhile), then its outcome."""
    _live.follow(run, _view)
    if run.waiting:  # its approval card is on screen; the page follows it again once it is answered
        return
    _live.end_message(run)
    st.session_state.pop(_live.SESSION_KEY, None)
    if run.run_id:
        st.session_state["run_last"] = run.run_id
    if run.finished is not None:
        show_outcome(run.finished.as_dict())
        _store_ui.run_note(config, run.run_id)
        if run.scripted and run.run_id:
            try:
                _trimming_ledger(store.load(run.run_id))
            except RecordError:
                pass  # (the outcome above says what was saved)


def _trimming_ledger(record: dict[str, Any]) -> None:
    """Under the trimming demo, its point drawn at once: which blocks the model saw at each step."""
    if record.get("scripted") and record.get("goal") == demo.TRIMMING.goal:
        st.subheader("Context ledger", help=ui.explain("context block") + " " + ui.explain("trimmed"))
        st.caption(
            "Each row is a context block, each column a step: **sent** = the model saw it then; "
            "~~trimmed~~ = left out (the context-block limit is 2)."
        )
        show_ledger(record)


def show_last_run() -> None:
    """After a rerun: the run this session started last, drawn from its saved record."""
    run_id = st.session_state.get("run_last")
    if not run_id:
        return
    try:
        record = store.load(run_id)
    except RecordError as exc:
        st.warning(f"The last run's record could not be read: {ui.md_label(exc, 200)}")
        return
    head = "Last run" + (" · scripted demo" if record.get("scripted") else "")
    st.subheader(head, help=ui.explain("scripted") if record.get("scripted") else None)
    st.caption("Goal")
    _live.fold_goal(str(record.get("goal") or ""))
    show_saved_run(record)
    show_outcome(record)
    _trimming_ledger(record)


STEP_RANGE = (1, 50)
BLOCK_RANGE = (1, 50)


def _limit_problem(max_steps: float | None, max_blocks: float | None) -> str:
    """Why the step or context-block limit in the boxes cannot be used ('' when both are fine)."""
    for name, value, (low, high) in (
        ("step limit", max_steps, STEP_RANGE),
        ("context-block limit", max_blocks, BLOCK_RANGE),
    ):
        if value is None or value != int(value) or not low <= value <= high:
            shown = "empty" if value is None else f"{value:g}"
            return f"The {name} must be a whole number from {low} to {high} (it is {shown})."
    return ""


# --- Page -------------------------------------------------------------------------------------

st.title("▶️ Run an agent")
st.caption(
    "Type a goal, pick a model and press Run: the agent works in steps — each step the model "
    "either calls tools or answers — and you watch every step live. Every run is saved to History."
)

with st.spinner("Checking which models are available…"):  # the first check imports the SDKs (slow once)
    providers = {
        info.id: _providers.checked(info, str(st.session_state.get(f"run_base_url_{info.id}") or ""))
        for info in list_providers()
    }
    default_id = default_provider_id()
_live.adopt(config)  # a run this person started in another tab (or before a reload) that is still going
switch = _live.offline_request()  # "Use the instant demo" while the local model finished a stopped run
active = _live.running()

tab_goal, tab_demo = st.tabs(["Your goal", "Demo scenarios (scripted)"])

with tab_goal:
    st.selectbox(
        "Example goals",
        EXAMPLES,
        index=None,
        key="run_example",
        on_change=_use_example,
        placeholder="Pick an example to fill in the goal…",
        help="Goals to try, in English and Korean, on any model (the instant demo model understands each of them).",
    )
    # persist_state="session" on the form: coming back from another page (to a live run, say)
    # finds the goal and the choices as they were, not an empty box and the default model.
    st.text_area(
        "Goal",
        key="run_goal",
        persist_state="session",
        height=90,
        max_chars=MAX_GOAL_CHARS,  # the box counts the characters up to the limit
        help=ui.explain("goal") + " Pick an example above to try one.",
        placeholder="What should the agent do? For example: What is (24*7)+100? — any language.",
    )
    ids = list(providers)
    # The provider on its own line: its plain label stays readable at 800 px.
    provider_id = st.selectbox(
        "Provider",
        ids,
        index=ids.index(default_id) if default_id in ids else 0,
        key="run_provider",
        persist_state="session",
        format_func=lambda pid: _providers.label(providers[pid]),
        help=ui.explain("provider"),
    )
    info = providers[provider_id]
    if info.spec is not None and info.spec.preloads:
        _preload_ui.show()
    c_model, c_url = st.columns(2)
    model = c_model.text_input(
        "Model",
        value=info.default_model,
        key=f"run_model_{provider_id}",
        persist_state="session",
        help="Model name for this provider; the default is filled in.",
    )
    base_url = ""
    if info.uses_base_url:
        base_url = c_url.text_input(
            "Base URL",
            key=f"run_base_url_{provider_id}",
            persist_state="session",
            placeholder="empty: environment / SDK default",
            help="Where the API lives, for this run only (e.g. http://localhost:11434/v1 for Ollama).",
        )
    else:
        c_url.text_input(
            "Base URL",
            value="",
            disabled=True,
            key=f"run_base_url_na_{provider_id}",
            help="This provider does not use a base URL.",
        )
    if not info.available:
        st.warning(
            f"**{ui.md_label(_providers.PLAIN.get(info.id, (info.id,))[0])} is unavailable here:** "
            f"{ui.md_label(info.hint.rstrip(), 300)}{'' if info.hint.rstrip()[-1:] in '.!?' else '.'} "
            f"{ui.escape_md(_providers.pointers(providers))}",
            icon="🔌",
        )
    c_steps, c_blocks, c_check = st.columns(3)
    # No min/max on the boxes: the browser would keep an out-of-range number to itself (red box)
    # and Run would silently use the previous one. The number is checked here instead.
    max_steps = c_steps.number_input(
        "Step limit",
        value=config.max_steps,
        step=1,
        key="run_max_steps",
        persist_state="session",
        help=ui.explain("step") + " " + ui.explain("step limit"),
    )
    max_blocks = c_blocks.number_input(
        "Context-block limit",
        value=config.max_context_blocks,
        step=1,
        key="run_max_blocks",
        persist_state="session",
        help=ui.explain("context block") + " " + ui.explain("context-block limit"),
    )
    limit_problem = _limit_problem(max_steps, max_blocks)
    if limit_problem:
        st.error(limit_problem + " Run will not start until it is.", icon="✋")
    answer_check = grounding_ui.answer_check_control(c_check, provider_id, config.answer_check)
    run_registry = ui.tool_registry(config)
    all_tools = run_registry.names()
    chosen_tools = st.multiselect(
        "Tools the agent may use",
        all_tools,
        default=all_tools,
        key="run_tools",
        persist_state="session",
        format_func=lambda name: _tools_ui.tool_label(run_registry.get(name), name),
        help=ui.explain("tool call")
        + " Leave a tool out to see how the agent copes without it. Your own tools (MCP servers, declared "
        "tools) are added on the Tools page.",
    )
    _tools_ui.tool_choice_notes(run_registry, chosen_tools, provider_id, config)
    start_goal = st.button(
        "Run",
        icon=":material/play_arrow:",
        type="primary",
        key="run_start",
        disabled=not info.available or active is not None,
        help="A run is still going (see below)." if active is not None else None,
    )
    start_arena = arena_form(providers, provider_id, model)

with tab_demo:
    st.caption(
        "One click runs a scripted demo: fixed model turns (no model is asked) against the real tools "
        "and engine, to show on purpose what the engine does when things go wrong."
    )
    scenarios = {scenario.id: scenario for scenario in demo.SCENARIOS}
    picked = st.selectbox(
        "Scenario",
        list(scenarios),
        key="run_demo_pick",
        persist_state="session",
        format_func=lambda sid: "🎬 " + scenarios[sid].title,
        help=ui.explain("scripted"),
    )
    st.markdown("\n".join(f"- {ui.escape_md(line)}" for line in scenarios[picked].shows))
    presenter_pace = st.toggle(
        "Presenter pace",
        key="run_demo_pace",
        persist_state="session",
        help=f"About {demo.PRESENTER_PACE_S:g} s a step and real, visible retry waits, so an audience can "
        "follow the run as it unfolds. Off: the demo runs as fast as the engine goes (under a second).",
    )
    start_demo = (
        picked
        if st.button("Run this demo", icon=":material/play_circle:", key="run_demo_start", type="primary")
        else None
    )

st.divider()

if switch is not None:
    try:
        prepared = prepare_run(
            switch.goal,
            "offline",
            settings=config,
            overrides={"max_steps": switch.max_steps, "max_context_blocks": switch.max_context_blocks},
            tools=switch.tools,
        )
    except ValueError as exc:
        st.error(f"Cannot start on the instant demo model: {ui.md_label(exc, 300)}", icon="✋")
    else:
        live_run(prepared, banner="The same goal on the instant demo model (rule-based, no AI), instead of waiting.")
elif (start_goal or start_demo) and active is not None:
    st.warning("A run is still going: stop it or wait for it to end before starting another.", icon="⏳")
    show_live(active)
elif start_goal:
    try:
        if limit_problem:
            raise ValueError(limit_problem)
        prepared = prepare_run(
            st.session_state.get("run_goal", ""),
            provider_id,
            model=model,
            base_url=base_url,
            settings=config,
            overrides={
                "max_steps": int(max_steps),
                "max_context_blocks": int(max_blocks),
                "answer_check": answer_check,
            },
            tools=chosen_tools,
        )
    except ProviderError as exc:
        st.error(f"Cannot start: {ui.md_label(exc.message, 300)}", icon="🔌")
    except ValueError as exc:
        st.error(f"Cannot start: {ui.md_label(exc, 300)}", icon="✋")
    else:
        live_run(prepared)
elif start_arena:
    overrides = {"max_steps": int(max_steps), "max_context_blocks": int(max_blocks)}
    live_arena(start_arena, st.session_state.get("run_goal", ""), config, overrides, chosen_tools)
elif start_demo:
    live_run(
        demo.prepare(start_demo, config, pace_s=demo.PRESENTER_PACE_S if presenter_pace else 0.0),
        banner=f"Scripted demo — {scenarios[start_demo].title}. Fixed model turns, real tools and engine.",
        paced=presenter_pace,
    )
elif _live.current() is not None:  # the run this session started, live (or finished while away)
    show_live(_live.current())
else:
    show_last_run()
