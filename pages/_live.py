"""A run that keeps going while its person looks at another page.

The loop runs in a background thread bound to the browser session (kept in ``st.session_state``);
it only appends events to a list. The Run page *follows* the run: it draws the events so far,
then new ones as they arrive, and ticks the clock in between, so the page looks alive during a
long model call or a retry wait. Leaving the page ends the drawing, not the run; coming back
draws it again from its events, live or finished. Only our Stop (or the run's end) ends a run.

Streamlit's own toolbar Stop would only stop the drawing and leave the page frozen on
"asking the model…", so it is hidden while our Stop is on screen.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from agent_core.events import Event, RunFinished, RunStarted
from agent_core.masking import mask_text
from agent_core.runs import PreparedRun
from pages import _ui as ui

SESSION_KEY = "run_bg"
POLL_S = 0.2
"""How often the page looks for new events (and lets a click or a page change through)."""
TICK_S = 1.0
"""How often the clock on the page moves while nothing else happens."""

# Our own CSS (no text from a run in it): hide Streamlit's toolbar Stop while ours is shown, and
# keep our Stop bar in view while the steps scroll past.
_LIVE_CSS = """
<style>
[data-testid="stStatusWidget"] button { display: none !important; }
.st-key-run_stopbar { position: sticky; top: 3.75rem; z-index: 990;
  background: var(--background-color, #fff); padding: 0.25rem 0; }
</style>
"""


@dataclass
class BackgroundRun:
    """One run going on in a thread: its events so far, its Stop, whether it is over."""

    goal: str
    max_steps: int
    max_context_blocks: int
    scripted: bool = False
    banner: str = ""
    cancel: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    events: list[Event] = field(default_factory=list)
    stop_requested: bool = False
    crash: str | None = None
    """An exception that ended the thread outside the loop's own handling (a bug)."""
    started: float = field(default_factory=time.monotonic)

    @property
    def run_id(self) -> str:
        return self.events[0].run_id if self.events else ""

    @property
    def finished(self) -> RunFinished | None:
        last = self.events[-1] if self.events else None
        return last if isinstance(last, RunFinished) else None

    def stop(self) -> None:
        """Our Stop: cancel the run (model calls, tool calls and waits are cut short)."""
        self.stop_requested = True
        self.cancel.set()

    def _pump(self, events: Any) -> None:
        try:
            with contextlib.closing(events):
                for event in events:
                    self.events.append(event)
        except BaseException as exc:  # noqa: BLE001 - shown on the page, never lost
            self.crash = f"{type(exc).__name__}: {exc}"
        finally:
            self.done.set()


def start(prepared: PreparedRun, *, banner: str = "") -> BackgroundRun:
    """Start ``prepared`` in a background thread bound to this session; returns at once."""
    run = BackgroundRun(
        goal=prepared.goal,
        max_steps=prepared.settings.max_steps,
        max_context_blocks=prepared.settings.max_context_blocks,
        scripted=prepared.scripted,
        banner=banner,
    )
    events = prepared.events(run.cancel)
    st.session_state[SESSION_KEY] = run
    threading.Thread(target=run._pump, args=(events,), name="agent-run", daemon=True).start()
    return run


def current() -> BackgroundRun | None:
    """This session's latest background run (going or just over), if any."""
    run = st.session_state.get(SESSION_KEY)
    return run if isinstance(run, BackgroundRun) else None


def running() -> BackgroundRun | None:
    """This session's run that is still going, if any."""
    run = current()
    return run if run is not None and not run.done.is_set() else None


def sidebar_note(run_page: str) -> None:
    """In the sidebar: "1 run in progress", with a link back to it."""
    run = running()
    if run is None:
        return
    elapsed = time.monotonic() - run.started
    st.sidebar.info(f"⏳ 1 run in progress · {elapsed:.0f} s", icon=None)
    st.sidebar.page_link(run_page, label="Back to the live run", icon=":material/play_arrow:")


def _stop_clicked() -> None:
    run = current()
    if run is not None:
        run.stop()


def fold_goal(goal: str, container: Any = None, *, limit: int = 300) -> None:
    """A goal as plain text; a long one folded to its first ``limit`` characters with "show all"."""
    target = container or st
    text = mask_text(goal)  # as the record keeps it: a pasted key is never shown back
    if len(text) <= limit:
        ui.show_text(text, target)
        return
    ui.show_text(text[:limit] + "…", target)
    with target.expander(f"Show all {len(text):,} characters"):
        ui.show_text(text)


def follow(run: BackgroundRun, view_factory: Any) -> BackgroundRun:
    """Draw ``run`` from its first event and keep drawing until it ends; returns it.

    ``view_factory(max_steps, max_context_blocks, scripted)`` makes the drawing object (a
    :class:`pages._run_view.RunView`). A click or a page change ends this script run at the
    next Streamlit call (a few times a second); the run itself goes on.
    """
    st.html(_LIVE_CSS)
    bar = st.container(key="run_stopbar")
    head, stop = bar.columns([4, 1], vertical_alignment="center")
    title = head.empty()
    title.subheader("Live run")
    stop_slot = stop.empty()
    if not run.done.is_set():
        stop_slot.button(
            "Stopping…" if run.stop_requested else "Stop",
            icon=":material/stop_circle:",
            key="run_stop",
            on_click=_stop_clicked,
            disabled=run.stop_requested,
            width="stretch",
            help="Stops the run at once, even in the middle of a model or tool call; what finished so far is "
            "kept and the run is saved as cancelled. Other pages can be opened meanwhile: the run goes on.",
        )
    if run.banner:
        st.info(run.banner, icon="🎬")
    st.caption("Goal")
    fold_goal(run.goal)
    view = view_factory(run.max_steps, run.max_context_blocks, run.scripted)
    pulse = st.empty()  # an empty element re-sent between ticks: how a click gets through quickly
    seen = 0
    last_tick = time.monotonic()
    while True:
        events = run.events
        if seen < len(events):
            while seen < len(events):
                view.handle(events[seen])
                seen += 1
            view.t0 = time.perf_counter() - (time.monotonic() - run.started)  # the run's clock, also on a replay
        if run.done.is_set() and seen == len(run.events):
            break
        now = time.monotonic()
        if now - last_tick >= TICK_S:
            view.tick()
            last_tick = now
        else:
            pulse.empty()
        run.done.wait(POLL_S)
    stop_slot.empty()
    title.subheader("Last run")  # over: no longer "Live", as after a rerun
    return run


def end_message(run: BackgroundRun) -> None:
    """What to say when a followed run has ended, beyond its outcome."""
    if run.crash:
        st.error(f"The run ended unexpectedly: {ui.md_label(run.crash, 300)}", icon="💥")
    finished = run.finished
    if finished is not None and finished.status == "cancelled" and run.stop_requested:
        st.warning("Stopped. The steps finished so far were kept and the run is saved as cancelled.", icon="🛑")


def started_event(run: BackgroundRun) -> RunStarted | None:
    """The run's first event (its id and record path), once the loop has begun."""
    first = run.events[0] if run.events else None
    return first if isinstance(first, RunStarted) else None
