"""A run that keeps going while its person looks at another page.

The loop runs in a background thread bound to the browser session (kept in ``st.session_state``);
it only appends events to a list. The Run page *follows* the run: it draws the events so far,
then new ones as they arrive, and ticks the clock in between, so the page looks alive during a
long model call or a retry wait. Leaving the page ends the drawing, not the run; coming back
draws it again from its events, live or finished. Only our Stop (or the run's end) ends a run.

A run also sits in the process's registry of live runs (:func:`live_runs`), so a reload or a
second tab of the same person finds it and follows it too; a call that waits for approval waits
at the run's :class:`~agent_core.run.approval.ApprovalDesk`, where any of those tabs can answer it.
While it waits, the page stops following (the card's clock ticks in a fragment) and follows again
once the call is answered.

Streamlit's own toolbar Stop would only stop the drawing and leave the page frozen on
"asking the model…", so it is hidden while our Stop is on screen.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

from agent_core.masking import mask_text
from agent_core.run.approval import ApprovalDesk
from agent_core.run.events import Event, RunFinished, RunStarted
from agent_core.run.prepare import PreparedRun
from ui import approval as approval_ui
from ui import common as ui

SESSION_KEY = "run_bg"
OFFLINE_KEY = "run_on_offline"
"""Session key of a goal to run again on the offline model (the wait for a stopped run's offer)."""
POLL_S = 0.2
"""How often the page looks for new events (a click gets through with the next message: PULSE_S)."""
TICK_S = 1.0
"""How often the clock on the page moves while nothing else happens."""
PULSE_S = 0.5
"""How often, between ticks, an empty element is re-sent: a click (Stop, another page) reaches the
page only when it sends something. Every message makes the browser draw the page again: at 0.2 s
Chromium's renderer took ~0.2 of a core through a model call, at 0.5 s ~0.15, which the local model
gets back on a 2-core machine (bench/coldstart.py browser)."""

# Our own CSS (no text from a run in it): hide Streamlit's status widget (its toolbar Stop, and its
# running figure, redrawn every 200 ms for the whole run) while our Stop bar and clock are shown,
# and keep that bar in view while the steps scroll past (its wrapper is what sticks: the bar
# itself fills the wrapper, so it had nowhere to stick; only while it holds Stop: a finished run's
# "Last run" title would sit over the steps). The running step shows an hourglass, not
# Streamlit's spinning ring: its clock ticks every second anyway, and the spin cost the browser
# ~0.11 CPU (measured in Chromium), which on a 2-core machine the local model loses: 0.3 CPU of
# other work made its answer step 30 % slower.
_LIVE_CSS = """
<style>
[data-testid="stStatusWidget"] { display: none !important; }
.st-key-run_stopbar { background: var(--background-color, #fff); padding: 0.25rem 0; }
[data-testid="stLayoutWrapper"]:has(> .st-key-run_stopbar .st-key-run_stop) { position: sticky; top: 3.75rem; z-index: 990; }
[data-testid="stExpanderIconSpinner"] { animation: none !important; border-color: transparent !important;
  display: flex; align-items: center; justify-content: center; }
[data-testid="stExpanderIconSpinner"]::before { content: "⏳"; font-size: 0.95rem; line-height: 1; }
.st-key-run_follow { display: none; }
</style>
"""

# Our own script (no text from a run in it; Streamlit has no scroll API): bring the live run into
# view when it starts (after Run the page is scrolled to the form's bottom at best, the run below the
# fold), then, at presenter pace, each new step as it begins, just under the sticky Stop bar (for
# other runs that redrew the running step's icon as it scrolled; their steps stay where they are). It looks twice a second
# for as long as its hidden host (``run_follow``) is on the page: the next script run removes it.
_FOLLOW_JS = """
<script>
(() => {
  const doc = document;
  const followSteps = __FOLLOW_STEPS__;
  const t0 = Date.now();
  const scroller = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const y = getComputedStyle(p).overflowY;
      if ((y === "auto" || y === "scroll") && p.scrollHeight > p.clientHeight) return p;
    }
    return doc.scrollingElement;
  };
  const bring = (el, below) => scroller(el).scrollBy({ top: el.getBoundingClientRect().top - below });
  const header = () => {
    const h = doc.querySelector('[data-testid="stHeader"]');
    return h ? h.getBoundingClientRect().bottom : 0;
  };
  let seen = -1;
  const tick = () => {
    if (!doc.querySelector(".st-key-run_follow") || Date.now() - t0 > 3600000) {
      clearInterval(timer);
      return;
    }
    const bar = doc.querySelector(".st-key-run_stopbar");
    if (!bar) return;
    if (seen < 0) {
      bring(bar, header() + 8);
      seen = 0;
    }
    const area = doc.querySelector(".st-key-run_steps");
    const steps = area ? Array.from(area.querySelectorAll('[data-testid="stExpander"]'))
      .filter((e) => !e.parentElement.closest('.st-key-run_steps [data-testid="stExpander"]')) : [];
    if (followSteps && steps.length > seen) {
      seen = steps.length;
      bring(steps[steps.length - 1], Math.max(bar.getBoundingClientRect().bottom, header()) + 8);
    }
  };
  const timer = setInterval(tick, 150);
  tick();
})();
</script>
"""


@dataclass
class BackgroundRun:
    """One run going on in a thread: its events so far, its Stop, whether it is over."""

    goal: str
    max_steps: int
    max_context_blocks: int
    scripted: bool = False
    paced: bool = False
    """A scripted demo at presenter pace: its finished steps fold away as the next one begins."""
    banner: str = ""
    cancel: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    events: list[Event] = field(default_factory=list)
    stop_requested: bool = False
    crash: str | None = None
    """An exception that ended the thread outside the loop's own handling (a bug)."""
    started: float = field(default_factory=time.monotonic)
    provider: Any = None
    """The run's provider, asked whether its model call waits for a stopped run (``Provider.model_wait``)."""
    tools: list[str] | None = None
    """The tools the run may use (to run the same goal on another model)."""
    approvals: ApprovalDesk = field(default_factory=ApprovalDesk)
    """Where a call whose tool's policy asks waits for a person (any tab showing the run answers it)."""
    owner: tuple[str, str] = ("", "")
    """(data folder, user) of whoever started it: a reload or another tab of theirs finds it."""

    @property
    def waiting(self) -> bool:
        """A call waits for approval now."""
        return self.approvals.pending is not None and not self.done.is_set()

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


@st.cache_resource
def live_runs() -> list[BackgroundRun]:
    """Every run of this server process that may still be going (shared by all sessions)."""
    return []


def _owner(prepared_or_config: Any) -> tuple[str, str]:
    settings = getattr(prepared_or_config, "settings", prepared_or_config)
    return (str(Path(settings.data_dir).resolve()), str(settings.user or ""))


def adopt(config: Any) -> BackgroundRun | None:
    """A run still going that this person started in another session (a reload, another tab),
    made this session's run, so the page follows it (and shows its approval card, if it waits)."""
    if current() is not None:
        return None
    registry = live_runs()
    registry[:] = [r for r in registry if not r.done.is_set()]
    mine = [r for r in registry if r.owner == _owner(config)]
    if not mine:
        return None
    st.session_state[SESSION_KEY] = mine[-1]
    return mine[-1]


def start(prepared: PreparedRun, *, banner: str = "", paced: bool = False) -> BackgroundRun:
    """Start ``prepared`` in a background thread bound to this session; returns at once."""
    run = BackgroundRun(
        paced=paced,
        goal=prepared.goal,
        max_steps=prepared.settings.max_steps,
        max_context_blocks=prepared.settings.max_context_blocks,
        scripted=prepared.scripted,
        banner=banner,
        provider=prepared.provider,
        tools=prepared.registry.names(),
        owner=_owner(prepared),
    )
    if prepared.approver is None:  # a person answers, on this page (in any tab)
        prepared.approver = run.approvals
    events = prepared.events(run.cancel)
    st.session_state[SESSION_KEY] = run
    live_runs().append(run)
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


def _offline_clicked() -> None:
    """The offer while the local model finishes a stopped run: this goal on the offline model now."""
    run = current()
    if run is not None:
        st.session_state[OFFLINE_KEY] = run
        run.stop()


def offline_request() -> BackgroundRun | None:
    """The run whose goal the person asked to run on the offline model instead (once), after
    waiting (briefly) for it to end: its Stop cuts the wait for the model short."""
    run = st.session_state.pop(OFFLINE_KEY, None)
    if not isinstance(run, BackgroundRun):
        return None
    run.done.wait(5.0)
    return run


class _WaitNote:
    """Under the Stop bar, while the run's model call waits for a stopped run to let go of the local
    model: what it waits for, about how long, and the offline model offered instead."""

    def __init__(self, container: Any) -> None:
        self.slot = container.empty()
        self.text: Any = None
        self.offers = 0

    def update(self, run: BackgroundRun) -> None:
        wait = run.provider.model_wait() if run.provider is not None and not run.stop_requested else None
        if wait is None:
            if self.text is not None:
                self.slot.empty()
                self.text = None
            return
        if self.text is None:  # the offer, drawn once per wait (its button must keep its key)
            box = self.slot.container()  # the button under the note: beside it, its label was cut at 800 px
            self.text = box.empty()
            self.offers += 1
            box.button(
                "Use the instant demo",
                icon=":material/bolt:",
                key=f"run_use_offline_{self.offers}",
                on_click=_offline_clicked,
                help="Stops this run (it is saved as cancelled) and runs the same goal on the offline demo "
                "model: rule-based, no AI, answers at once.",
            )
        message = wait.message[0].upper() + wait.message[1:]
        self.text.warning(
            f"{message} (waiting {wait.waited_s:.0f} s so far). This run goes on as soon as the model is free; "
            "or run the same goal on the instant demo model now.",
            icon="⏳",
        )


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

    ``view_factory(max_steps, max_context_blocks, keep_open)`` makes the drawing object (a
    :class:`ui.run_view.RunView`; ``keep_open``: a scripted demo's steps stay open, except at
    presenter pace). The page scrolls to the live run, then (at presenter pace) to each step as it
    begins (:data:`_FOLLOW_JS`). A click or a page change ends this script run at the
    next Streamlit call (a few times a second); the run itself goes on.
    """
    st.html(_LIVE_CSS)
    steps = "true" if run.paced else "false"  # presenter pace: each step as it begins; else the run's head
    st.container(key="run_follow").html(_FOLLOW_JS.replace("__FOLLOW_STEPS__", steps), unsafe_allow_javascript=True)
    bar = st.container(key="run_stopbar")
    head, stop = bar.columns([4, 1], vertical_alignment="center")
    title = head.empty()
    title.subheader("Live run")
    stop_slot = stop.empty()
    note = _WaitNote(bar)
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
    view = view_factory(run.max_steps, run.max_context_blocks, run.scripted and not run.paced)
    pulse = st.empty()  # an empty element re-sent between ticks: how a click gets through quickly
    seen = 0
    last_tick = last_pulse = time.monotonic()
    while True:
        events = run.events
        if seen < len(events):
            while seen < len(events):
                view.handle(events[seen])
                seen += 1
            view.t0 = time.perf_counter() - (time.monotonic() - run.started)  # the run's clock, also on a replay
        if run.done.is_set() and seen == len(run.events):
            break
        pending = run.approvals.pending
        if pending is not None and view.asking is not None and view.asking[0] == pending.call_id:
            # The card in the live step; the page stops following until the call is answered
            # (the card's clock reruns the page then), so a click on the card is all it waits for.
            approval_ui.card(run.approvals, pending, view.asking[1])
            view.tick()  # the run's own time until now; its clock stays there while the call waits
            with view.wait_slot.container() if view.wait_slot is not None else st.container():
                approval_ui.wait_clock(run.approvals, pending.call_id, view.approval_wait_ms)
            note.slot.empty()
            return run
        now = time.monotonic()
        if now - last_tick >= TICK_S:
            view.tick()
            note.update(run)
            last_tick = last_pulse = now
        elif now - last_pulse >= PULSE_S:
            pulse.empty()
            last_pulse = now
        run.done.wait(POLL_S)
    stop_slot.empty()
    note.slot.empty()
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
