"""Run page: type a goal (or pick a demo scenario) and watch the agent loop live.

The loop runs inside this script, event by event. Clicking Stop (or any widget) makes Streamlit
start a new script run at once and stop the old one at its next ``st`` call. The new run sets the
run's cancel event (which also cuts model calls, tool calls and retry waits short) and waits for
the old run to end; the old run's generator is closed by ``contextlib.closing``, which saves the
record as ``cancelled``; the new run then shows that saved record.
"""

from __future__ import annotations

import contextlib
import threading

import streamlit as st

from agent_core import demo
from agent_core.errors import ProviderError, RecordError
from agent_core.events import RunFinished, RunStarted
from agent_core.masking import mask_text
from agent_core.providers import ProviderInfo, default_provider_id, list_providers
from agent_core.runs import PreparedRun, prepare_run
from pages import _ui as ui
from pages._arena_ui import arena_form, live_arena
from pages._run_view import RunView, show_outcome

EXAMPLES = (
    "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.",
    "What is (24*7)+100?",
    "What's the weather in Seoul in fahrenheit?",
    "서울 날씨 알려줘",
    "Search the documents for the refund policy",
    "Read notes.txt and summarize it",
    'Count the words in "the quick brown fox jumps over the lazy dog"',
    "Search the web for streamlit",
    "hello",
)

STOP_WAIT_S = 20.0  # how long a rerun waits for an interrupted run to save itself

ui.ensure_app_frame()
config = ui.settings()
store = ui.run_store(config, refresh=False)  # this page only loads the record it ran


def _use_example() -> None:
    example = st.session_state.get("run_example")
    if example:
        st.session_state["run_goal"] = example


def _request_stop() -> None:
    st.session_state["run_stop_requested"] = True
    cancel = st.session_state.get("run_cancel")
    if isinstance(cancel, threading.Event):
        cancel.set()


def _provider_label(info: ProviderInfo) -> str:
    text = f"{info.id} — {info.label}"
    return text if info.available else f"{text} (unavailable)"


def live_run(prepared: PreparedRun, *, banner: str = "") -> None:
    """Run the loop here, drawing each event as it arrives; Stop cancels it at once."""
    head, stop = st.columns([4, 1], vertical_alignment="center")
    head.subheader("Live run")
    stop_slot = stop.empty()
    stop_slot.button(
        "Stop",
        icon=":material/stop_circle:",
        key="run_stop",
        on_click=_request_stop,
        width="stretch",
        help="Stops the run at once, even in the middle of a model or tool call; what finished so far is kept "
        "and the run is saved as cancelled.",
    )
    if banner:
        st.info(banner, icon="🎬")
    st.caption("Goal")
    ui.show_text(mask_text(prepared.goal))  # as the record keeps it: a pasted key is never shown back
    cancel, done = threading.Event(), threading.Event()
    st.session_state["run_cancel"] = cancel
    st.session_state["run_done"] = done
    # A scripted demo keeps every step open: each one shows something on purpose.
    view = RunView(
        max_steps=prepared.settings.max_steps,
        max_context_blocks=prepared.settings.max_context_blocks,
        collapse_done=not prepared.scripted,
    )
    finished: RunFinished | None = None
    events = prepared.events(cancel)
    try:
        with contextlib.closing(events):  # an interruption closes the loop: record saved as cancelled
            for event in events:
                if isinstance(event, RunStarted):
                    st.session_state["run_active"] = event.run_id
                    st.session_state["run_last"] = event.run_id
                view.handle(event)
                if isinstance(event, RunFinished):
                    finished = event
    finally:
        done.set()
    st.session_state.pop("run_active", None)
    stop_slot.empty()
    if finished is not None:
        show_outcome(finished.as_dict())


def stop_interrupted_run() -> bool:
    """Cancel the run an earlier script run was drawing, and wait until it has saved itself.

    False when it has not ended after :data:`STOP_WAIT_S` (it ends within ~0.1 s of the cancel
    event; this only guards against a page that stopped drawing it).
    """
    cancel, done = st.session_state.get("run_cancel"), st.session_state.get("run_done")
    if isinstance(cancel, threading.Event):
        cancel.set()
    if not isinstance(done, threading.Event) or done.is_set():
        return True
    with st.spinner("Stopping the run…"):
        return done.wait(STOP_WAIT_S)


def show_last_run(interrupted_id: str | None) -> None:
    """After a rerun: the run this session started last, drawn from its saved record."""
    stop_requested = st.session_state.pop("run_stop_requested", False)
    run_id = interrupted_id or st.session_state.get("run_last")
    if not run_id:
        return
    settled = stop_interrupted_run() if interrupted_id else True
    try:
        record = store.load(run_id)
    except RecordError as exc:
        st.warning(f"The last run's record could not be read: {ui.md_label(exc, 200)}")
        return
    if interrupted_id:
        if not settled:
            st.warning(
                "The run has not finished stopping yet; it will be saved as cancelled. Reload the page in a moment.",
                icon="⏳",
            )
        elif record.get("status") != "cancelled":
            st.info(f"The run had already ended ({ui.md_label(record.get('status'), 20)}) when it was stopped.")
        elif stop_requested:
            st.warning("Stopped. The steps finished so far were kept and the run is saved as cancelled.", icon="🛑")
        else:
            st.warning(
                "The run was interrupted because the page changed while it ran; it is saved as cancelled.",
                icon="🛑",
            )
    head = "Last run" + (" · scripted demo" if record.get("scripted") else "")
    st.subheader(head, help=ui.explain("scripted") if record.get("scripted") else None)
    st.caption("Goal")
    ui.show_text(record.get("goal"))
    RunView.from_record(record)
    show_outcome(record)


# --- Page -------------------------------------------------------------------------------------

st.title("▶️ Run an agent")
st.caption(
    "Type a goal, pick a model and press Run: the agent works in steps — each step the model "
    "either calls tools or answers — and you watch every step live. Every run is saved to History."
)

with st.spinner("Checking which models are available…"):  # the first check imports the SDKs (slow once)
    providers = {info.id: info for info in list_providers()}
    default_id = default_provider_id()
if "run_goal" not in st.session_state:
    st.session_state["run_goal"] = EXAMPLES[0]

tab_goal, tab_demo = st.tabs(["Your goal", "Demo scenarios (scripted)"])

with tab_goal:
    st.selectbox(
        "Example goals",
        EXAMPLES,
        index=None,
        key="run_example",
        on_change=_use_example,
        placeholder="Pick an example to fill in the goal…",
        help="Goals the offline demo model understands.",
    )
    st.text_area(
        "Goal",
        key="run_goal",
        height=90,
        help=ui.explain("goal"),
        placeholder="What should the agent do? Any language.",
    )
    c_provider, c_model, c_url = st.columns([1.4, 1, 1])
    ids = list(providers)
    provider_id = c_provider.selectbox(
        "Provider",
        ids,
        index=ids.index(default_id) if default_id in ids else 0,
        key="run_provider",
        format_func=lambda pid: _provider_label(providers[pid]),
        help=ui.explain("provider"),
    )
    info = providers[provider_id]
    model = c_model.text_input(
        "Model",
        value=info.default_model,
        key=f"run_model_{provider_id}",
        help="Model name for this provider; the default is filled in.",
    )
    base_url = ""
    if info.uses_base_url:
        base_url = c_url.text_input(
            "Base URL",
            key=f"run_base_url_{provider_id}",
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
        st.warning(f"**{ui.md_label(info.id)} is unavailable here:** {ui.md_label(info.hint, 200)}", icon="🔌")
    c_steps, c_blocks = st.columns(2)
    max_steps = c_steps.number_input(
        "Step limit",
        min_value=1,
        max_value=50,
        value=config.max_steps,
        step=1,
        key="run_max_steps",
        help=ui.explain("step") + " " + ui.explain("step limit"),
    )
    max_blocks = c_blocks.number_input(
        "Context-block limit",
        min_value=1,
        max_value=50,
        value=config.max_context_blocks,
        step=1,
        key="run_max_blocks",
        help=ui.explain("context block") + " " + ui.explain("context-block limit"),
    )
    all_tools = ui.tool_registry(config).names()
    chosen_tools = st.multiselect(
        "Tools the agent may use",
        all_tools,
        default=all_tools,
        key="run_tools",
        help=ui.explain("tool call") + " Leave a tool out to see how the agent copes without it.",
    )
    start_goal = st.button(
        "Run", icon=":material/play_arrow:", type="primary", key="run_start", disabled=not info.available
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
        format_func=lambda sid: "🎬 " + scenarios[sid].title,
        help=ui.explain("scripted"),
    )
    st.markdown("\n".join(f"- {ui.escape_md(line)}" for line in scenarios[picked].shows))
    start_demo = (
        picked
        if st.button("Run this demo", icon=":material/play_circle:", key="run_demo_start", type="primary")
        else None
    )

interrupted = st.session_state.pop("run_active", None)
st.divider()

if start_goal:
    try:
        prepared = prepare_run(
            st.session_state.get("run_goal", ""),
            provider_id,
            model=model,
            base_url=base_url,
            settings=config,
            overrides={"max_steps": int(max_steps), "max_context_blocks": int(max_blocks)},
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
        demo.prepare(start_demo, config),
        banner=f"Scripted demo — {scenarios[start_demo].title}. Fixed model turns, real tools and engine.",
    )
else:
    show_last_run(interrupted)
