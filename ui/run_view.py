"""How a run looks on screen: live from the loop's events, or afterwards from its record.

Both paths draw the same things (a gauge, one ``st.status`` per step, a box per tool call, the
answer), so a run looks the same while it runs, after a rerun, and in History. Every text from
the goal, the model or a tool goes through the safe helpers of :mod:`ui.common`.
"""

from __future__ import annotations

import time
from typing import Any, assert_never

import streamlit as st

from agent_core.providers import tokens_estimated
from agent_core.records import decided, stats
from agent_core.run import events as ev
from agent_core.run.events import events_from_record
from agent_core.text.words import plural
from ui import common as ui
from ui import grounding as grounding_ui
from ui.call_box import call_flags, render_tool_call, waited_text  # noqa: F401 (their home before)

HISTORY_PAGE = "pages/history.py"


def name_blocks(ids: list[int] | None, made_in: dict[int, int]) -> str:
    """Context blocks named by the step that made them: "the blocks from steps 1, 2" (an index
    with no known step, e.g. from an imported record, is named "block #i")."""
    if not ids:
        return "none"
    steps = [made_in[i] for i in ids if i in made_in]
    unknown = [f"block #{i}" for i in ids if i not in made_in]
    named = []
    if steps:
        named.append(
            ("the block from step " if len(steps) == 1 else "the blocks from steps ") + ", ".join(map(str, steps))
        )
    return ", ".join(named + unknown)


def _line_choice(constraint: dict[str, Any] | None) -> None:
    """The result lines a model chose among before answering, the picked one marked (drawn in the
    step's box: a box cannot hold an expander)."""
    read = (constraint or {}).get("line_choice")
    chosen = decided.picked_number(read)
    if chosen is None or not read["lines"]:
        return
    st.caption(
        f"The {plural(len(read['lines']), 'result line')} the model chose among before answering"
        + (" (it picked none: no line answers, it judged)" if chosen == 0 else "")
    )
    listed = []
    for n, line in enumerate(read["lines"], start=1):
        text = ui.escape_md(ui.one_line(line, 240))
        listed.append(f"{n}. **{text}** ← picked" if n == chosen else f"{n}. {text}")
    if chosen and (shown := read.get("shown")) and isinstance(shown, str):
        listed.append(f"\nThe answer saw the picked line as: {ui.escape_md(ui.one_line(shown, 240))}")
    st.markdown("\n".join(listed))


class StepView:
    """One step as an ``st.status``: the model call, then each tool call as it finishes."""

    def __init__(self, parent: Any, step: int, *, expanded: bool = True) -> None:
        self.step = step
        self.tools: list[str] = []
        self.flags: set[str] = set()
        self.summary = "asking the model…"
        self.duration = ""
        self.expanded = expanded
        self.status = parent.status(self._label(), expanded=expanded, state="running")
        self.model_area = self.status.container()
        self.model_slot = self.model_area.empty()
        self.calls_area = self.status.container()
        self.call_slots: dict[str, Any] = {}
        self.retry: tuple[int, float] | None = None
        self.estimated = False
        """Its token counts are an estimate (a rule-based provider: no model counted them)."""

    def _label(self) -> str:
        marks = "".join(sorted(self.flags))
        parts = [f"Step {self.step}", self.summary]
        if self.duration:
            parts.append(self.duration)
        return " · ".join(parts) + (f"  {marks}" if marks else "")

    def _relabel(self, **kwargs: Any) -> None:
        # The frontend resets a status to collapsed when its label changes, unless the update
        # says how it should be: so always say.
        self.expanded = kwargs.pop("expanded", self.expanded)
        self.status.update(label=self._label(), expanded=self.expanded, **kwargs)

    def collapse(self) -> None:
        """Fold the step away (when the next one starts)."""
        self._relabel(expanded=False)

    def model_started(self, sent: list[int], trimmed: list[int], made_in: dict[int, int] | None = None) -> None:
        """Say which context blocks go to the model (and which were trimmed), each named by the
        step that made it (``made_in``: block index -> step)."""
        made_in = made_in or {}
        text = (
            f"Context sent: the goal and {name_blocks(sent, made_in)}"
            if sent
            else "Context sent: the goal only (no blocks yet)"
        )
        if trimmed:
            text += f" · trimmed: {name_blocks(trimmed, made_in)}"
        self.model_area.caption(text, help=ui.explain("context block") + " " + ui.explain("trimmed"))
        self.model_slot = self.model_area.empty()
        self.model_slot.caption("🧠 Asking the model…")
        self.retry = None

    def waiting(self, seconds: float) -> None:
        """The model call still going ("processing your text… N s"), or the wait before a retry."""
        if self.model_slot is None:
            return
        retry = self.retry
        if retry is None:
            self.model_slot.caption(f"🧠 Asking the model — processing your text… {seconds:.0f} s")
        elif seconds < retry[1]:
            self.model_slot.caption(f"⏳ Waiting before attempt {retry[0] + 1}: {seconds:.1f} of {retry[1]:.1f} s")
        else:
            self.model_slot.caption(
                f"🧠 Asking the model again (attempt {retry[0] + 1}) — processing your text… {seconds - retry[1]:.0f} s"
            )

    def model_retrying(self, attempt: int, error_type: str, message: str, status: int | None, wait_s: float) -> None:
        """A failed model attempt that will be retried after ``wait_s`` seconds."""
        self.flags.add("🔁")
        code = f" (HTTP {status})" if status else ""
        self.model_area.warning(
            f"Model attempt {attempt} failed{code}: {ui.md_label(error_type, 40)} — "
            f"{ui.md_label(message, 200)}{'' if str(message).rstrip()[-1:] in '.?!' else '.'} "
            f"Retrying in {wait_s:.2f} s.",
            icon="🔁",
        )
        self.retry = (attempt, wait_s)
        self.summary = f"retrying the model call (attempt {attempt + 1})…"
        self._relabel()
        self.model_slot = self.model_area.empty()

    def model_finished(
        self,
        *,
        ok: bool,
        duration_ms: float | None,
        attempts: int,
        usage: dict[str, Any],
        text: str,
        tool_calls: int,
        error: str | None,
        choices: list[dict[str, Any]] | None = None,
        constraint: dict[str, Any] | None = None,
    ) -> None:
        """Timing, tokens and attempts of the model call, who chose each tool call and how the
        output was held (:mod:`agent_core.records.decided`); its text, if any."""
        if not ok:
            self.model_slot.error(f"Model call failed: {ui.md_label(error, 300)}", icon="❌")
            self.summary = "model call failed"
            self._relabel(state="error")
            return
        tokens = (
            f"{ui.fmt_int(usage.get('total_tokens'))} tokens "
            f"({ui.fmt_int(usage.get('input_tokens'))} in / {ui.fmt_int(usage.get('output_tokens'))} out)"
        )
        if self.estimated:
            tokens = f"~{ui.fmt_int(usage.get('total_tokens'))} tokens (estimated)"
        tries = f" · {attempts} attempts" if attempts > 1 else ""
        choices = choices or []
        by_model = sum(1 for c in choices if c.get("origin") == "model")
        calls = plural(tool_calls, "tool call")
        if (constraint or {}).get("kind") == "rules":  # the offline demo: no model at all
            what = (
                f"⚙ **Rule-based demo** chose {calls}" if tool_calls else "⚙ **Rule-based demo** wrote the final answer"
            )
        elif not tool_calls:
            what = "🧠 **Model** wrote the final answer"
        elif choices and by_model == 0 and all(c.get("origin") == "harness" for c in choices):
            what = f"⚙ **Workbench** chose {calls} for the model"
        elif choices and by_model == len(choices):
            what = f"🧠 **Model** chose {calls}"
        else:
            what = f"🧠 **Model turn** with {calls}"
        with self.model_slot.container():
            st.markdown(
                f"{what} · {ui.fmt_ms(duration_ms)} · {tokens}{tries}",
                help=ui.explain("estimated tokens") if self.estimated else ui.explain("token"),
            )
            lines = [decided.choice_words(c) for c in choices]
            lines.append(decided.constraint_words(constraint, answered=not tool_calls, quote=False))
            st.caption(ui.escape_md("\n".join(lines)), help=ui.explain("origin"))
            _line_choice(constraint)
            if text and tool_calls:
                st.caption("The model's note with its tool calls")
                ui.show_text(text)
        self.summary = "calling tools…" if tool_calls else "final answer"
        self._relabel()

    def tool_started(self, call_id: str, tool: str) -> None:
        """A placeholder while a tool runs."""
        slot = self.calls_area.empty()
        slot.caption(f"🔧 Running {ui.md_label(tool, 64)}…")
        self.call_slots[call_id] = slot
        self.tools.append(tool)
        self.summary = "tools: " + ", ".join(ui.md_label(t, 32) for t in self.tools)
        self._relabel()

    def ask(self, call_id: str, tool: str) -> Any:
        """The call waits for a person: its place in the step (where the card goes)."""
        slot = self.call_slots.get(call_id) or self.calls_area.empty()
        self.call_slots[call_id] = slot
        slot.caption(f"✋ {ui.md_label(tool, 64)} waits for a person's approval…")
        self.summary = f"waiting for approval: {ui.md_label(tool, 32)}"
        self._relabel()
        return slot

    def answered(self, call_id: str, tool: str, decision: str) -> None:
        """The waiting call was answered: it runs now (or was rejected)."""
        slot = self.call_slots.get(call_id)
        if slot is not None:
            slot.caption(
                f"✋ {decision} · 🔧 {'Running ' + ui.md_label(tool, 64) + '…' if decision != 'rejected' else ''}"
            )
        self.summary = "tools: " + ", ".join(ui.md_label(t, 32) for t in self.tools)
        self._relabel()

    def tool_finished(self, entry: dict[str, Any]) -> None:
        """Replace the placeholder with the finished call."""
        slot = self.call_slots.pop(str(entry.get("call_id")), None) or self.calls_area.empty()
        render_tool_call(entry, slot)
        if entry.get("cancelled"):
            self.flags.add("🛑")
        elif not entry.get("success"):
            self.flags.add("❌")
        if len(entry.get("attempts") or []) > 1:
            self.flags.add("🔁")
        if entry.get("fallback"):
            self.flags.add("↪️")
        if entry.get("duplicate"):
            self.flags.add("🚫")
        if entry.get("truncated"):
            self.flags.add("✂️")
        self._relabel()

    def finished(self, duration_ms: float | None) -> None:
        """Mark the step done."""
        self.duration = ui.fmt_ms(duration_ms)
        if self.summary.endswith("…") and self.tools:
            self.summary = "tools: " + ", ".join(ui.md_label(t, 32) for t in self.tools)
        self._relabel(state="error" if self.summary == "model call failed" else "complete")


class RunView:
    """A whole run on screen: loading bar, gauge, steps, outcome."""

    def __init__(
        self,
        *,
        max_steps: int,
        max_context_blocks: int,
        live: bool = True,
        collapse_done: bool = True,
        gauge: bool = True,
    ) -> None:
        self.max_steps = max_steps
        self.collapse_done = collapse_done
        self.show_gauge = gauge
        self.max_context_blocks = max_context_blocks
        self.live = live
        self.t0 = time.perf_counter()
        self.run_id = ""
        self.steps_done = 0
        self.current_step = 0
        self.tokens: dict[str, Any] = {}
        self.estimated = False
        """The run's token counts are an estimate (:func:`agent_core.providers.tokens_estimated`)."""
        self.cost: float | None = 0.0
        self.calls = 0
        self.failed_calls = 0
        self.blocks_sent = 0
        self.block_steps: list[int] = []
        """The step that made each context block, in block order: a step with tool calls (or an
        answer sent back) makes exactly one block, the engine numbers them from 0."""
        self.loaded: str | None = None
        self.loading: ev.ModelLoading | None = None
        self.loading_t0 = 0.0
        self.waiting_t0: float | None = None
        """When the current model call (or retry wait) began, while it goes (for :meth:`tick`)."""
        self.approval_wait_ms = 0.0
        """Time the run spent waiting for a person: not the run's own time (the gauge's clock leaves it out)."""
        self.asking: tuple[str, Any] | None = None
        """The call that waits for approval now, and its place in its step (where the card goes)."""
        self.loading_slot = st.empty()
        self.gauge_slot = st.empty()
        self.time_slot: Any = None
        self.wait_slot: Any = None
        """Beside the clock: the time spent waiting for approval (it ticks while a call waits)."""
        """The Time metric's place in the drawn gauge (None until it is drawn)."""
        if live:
            st.caption(
                "**Steps** — "
                + ui.explain("step")
                + " Markers: 🔁 retry · ↪️ fallback · 🚫 duplicate refused · ✂️ truncated · ❌ failed call · 🛑 stopped by Stop."
            )
        self.steps_area = st.container(key="run_steps" if live else None)  # the live run's: scrolled to
        self.outcome_area = st.container()
        self.step_views: dict[int, StepView] = {}

    # -- gauge --------------------------------------------------------------------------------

    def draw_gauge(self, elapsed_ms: float | None = None, *, final: bool = False) -> None:
        """Steps, tokens, cost and time against their limits (a saved run's only once, at its end)."""
        if not self.show_gauge or (not self.live and not final):
            return
        elapsed = elapsed_ms if elapsed_ms is not None else (time.perf_counter() - self.t0) * 1000
        with self.gauge_slot.container(border=True):
            shown = max(self.current_step, self.steps_done)
            st.progress(  # over: a full bar, not "Step 2 of at most 10" at 20 %
                1.0 if final else min(1.0, shown / max(1, self.max_steps)),
                text=f"Ended after {shown} step{'s' if shown != 1 else ''} (step limit {self.max_steps})"
                if final
                else f"Step {shown} of at most {self.max_steps} (step limit)",
            )
            row = ui.metric_row()
            row.metric(
                "Steps",
                f"{self.steps_done} / {self.max_steps}",
                help=ui.explain("step") + " " + ui.explain("step limit"),
                width="content",
            )
            row.metric(
                "Tool calls",
                f"{self.calls}" + (f" ({self.failed_calls} failed)" if self.failed_calls else ""),
                help=ui.explain("tool call"),
                width="content",
            )
            row.metric(
                "Tokens",
                ui.fmt_tokens(self.tokens.get("total_tokens", 0), self.estimated),
                help=(ui.explain("estimated tokens") + " " if self.estimated else "")
                + ui.explain("token")
                + f" In: {ui.fmt_int(self.tokens.get('input_tokens', 0))}, "
                f"out: {ui.fmt_int(self.tokens.get('output_tokens', 0))}.",
                width="content",
            )
            row.metric("Cost", ui.fmt_cost(self.cost), help=ui.explain("cost"), width="content")
            self.time_slot = row.empty()
            self.wait_slot = row.empty()
        self._draw_time(elapsed)

    def _draw_time(self, elapsed_ms: float) -> None:
        """The gauge's Time metric alone: all a tick changes. The whole gauge redrawn every second
        kept Chromium's renderer at ~0.2 of a core through a model call, this one metric at ~0.17:
        a share the local model loses on 2 cores (bench/coldstart.py browser)."""
        if self.time_slot is not None:
            waited = (
                f" Not counted: {ui.fmt_ms(self.approval_wait_ms)} waiting for approval."
                if self.approval_wait_ms
                else ""
            )
            self.time_slot.metric(
                "Time",
                ui.fmt_ms(max(0.0, elapsed_ms - self.approval_wait_ms) if self.live else elapsed_ms),
                help=f"The run's own time so far.{waited} Context blocks sent per step: at most "
                f"{self.max_context_blocks} (the context-block limit).",
                width="content",
            )
            if self.approval_wait_ms and self.live and self.wait_slot is not None:
                self.wait_slot.metric(
                    "Approval wait",
                    ui.fmt_ms(self.approval_wait_ms),
                    help="Time tool calls waited for a person's answer: not part of the run's own time.",
                    width="content",
                )

    # -- live events --------------------------------------------------------------------------

    def handle(self, event: ev.RunEvent) -> None:
        """Draw one event from :func:`agent_core.run.loop.run_agent`."""
        match event:
            case ev.RunStarted():
                self.run_id = event.run_id
                self.estimated = tokens_estimated(event.provider)
                self.t0 = time.perf_counter()
                self.draw_gauge()
            case ev.ModelLoading():
                self.loaded = event.message or event.stage
                if self.loading is None or self.loading.message != event.message:
                    self.loading_t0 = time.perf_counter()
                self.loading = event
                self._draw_loading()
            case ev.ModelCallStarted():
                if self.loaded is not None:
                    ready = "" if self.loaded in ("ready", "load") else f" · {ui.md_label(self.loaded, 120)}"
                    self.loading_slot.caption(f"✅ Model ready{ready}")
                    self.loaded = None
                    self.loading = None
                self.waiting_t0 = time.perf_counter()
                previous = self.step_views.get(self.current_step)
                if previous is not None and self.collapse_done:
                    previous.collapse()
                self.current_step = event.step
                view = StepView(self.steps_area, event.step, expanded=True)
                view.estimated = self.estimated
                self.step_views[event.step] = view
                view.model_started(event.blocks_sent, event.blocks_trimmed, dict(enumerate(self.block_steps)))
                self.blocks_sent = len(event.blocks_sent)
                self.draw_gauge()
            case ev.ModelCallRetrying():
                self.waiting_t0 = time.perf_counter()
                self._step(event.step).model_retrying(
                    event.attempt, event.error_type, event.message, event.status, event.wait_s
                )
            case ev.ModelCallFinished():
                self.waiting_t0 = None
                self._step(event.step).model_finished(
                    ok=event.ok,
                    duration_ms=event.duration_ms,
                    attempts=event.attempts,
                    usage=event.usage.as_dict(),
                    text=event.text,
                    tool_calls=event.tool_calls,
                    error=event.error,
                    choices=event.choices,
                    constraint=event.constraint,
                )
            case ev.AnswerSentBack():
                self._made_block(event.step)
                grounding_ui.mark_step(self._step(event.step), event.unsupported, event.message, event.answer)
            case ev.ToolCallStarted():
                self._made_block(event.step)
                self._step(event.step).tool_started(event.call_id, event.tool)
            case ev.ApprovalRequested():
                self.asking = (event.call_id, self._step(event.step).ask(event.call_id, event.tool))
            case ev.ApprovalAnswered():
                self.approval_wait_ms += event.wait_ms
                self.asking = None
                self._step(event.step).answered(event.call_id, event.tool, event.decision)
            case ev.ToolCallFinished():
                self.calls += 1
                self.failed_calls += stats.call_failed(event.call)
                self._step(event.step).tool_finished(dict(event.call))
                self.draw_gauge()
            case ev.StepFinished():
                self.steps_done = event.step
                self.tokens = event.total_usage.as_dict()
                self.cost = event.cost_usd
                self._step(event.step).finished(event.duration_ms)
                self.draw_gauge()
            case ev.RunFinished():
                for view in self.step_views.values():
                    if view.status is not None and view.duration == "":
                        view.finished(None)
                self.draw_gauge(event.duration_ms, final=True)
            case _:
                assert_never(event)

    def _draw_loading(self) -> None:
        event = self.loading
        if event is None:
            return
        share = event.done / event.total if event.total else 0.0
        waited = time.perf_counter() - self.loading_t0
        if event.stage == "load" and "warming up" in event.message.lower():
            # No progress to report while the model reads its instructions: a bar that moves.
            share = min(0.95, share + 0.45 * (1 - 0.9**waited))
            text = f"{ui.md_label(event.message, 120)} · {waited:.0f} s"
        else:
            pct = f" {share:.0%}" if event.total else ""
            text = f"Loading the local model ({ui.md_label(event.stage, 40)}){pct} {ui.md_label(event.message, 120)}"
            if waited >= 1:
                text += f" · {waited:.0f} s"
        self.loading_slot.progress(min(1.0, max(0.0, share)), text=text)

    def tick(self) -> None:
        """Move the clock while nothing happens: the Time metric, the wait on the model, the
        warm-up bar (called about once a second by the page that follows a live run)."""
        if self.loaded is not None:
            self._draw_loading()
        view = self.step_views.get(self.current_step)
        if self.waiting_t0 is not None and view is not None:
            view.waiting(time.perf_counter() - self.waiting_t0)
        if self.time_slot is not None:  # the gauge is drawn: only its clock moves
            self._draw_time((time.perf_counter() - self.t0) * 1000)

    def _made_block(self, step: int) -> None:
        if step not in self.block_steps:
            self.block_steps.append(step)

    def _step(self, step: int) -> StepView:
        view = self.step_views.get(step)
        if view is None:
            view = self.step_views[step] = StepView(self.steps_area, step)
            view.estimated = self.estimated
        return view


def show_saved_run(record: dict[str, Any], *, expand_last: bool = True, gauge: bool = True) -> RunView:
    """Draw a finished (or stopped) run from its saved record: its events, rebuilt from the record
    (:func:`agent_core.run.events.events_from_record`), go through the view that draws a live run."""
    settings = record.get("settings") if isinstance(record.get("settings"), dict) else {}
    view = RunView(
        max_steps=int(settings.get("max_steps") or 0) or len(record.get("steps") or []) or 1,
        max_context_blocks=int(settings.get("max_context_blocks") or 0),
        live=False,
        gauge=gauge,
    )
    for event in events_from_record(record):
        view.handle(event)
    last = view.step_views.get(view.current_step)
    if last is not None and not expand_last:
        last.collapse()
    return view


def show_outcome(record_or_event: dict[str, Any], *, container: Any = None, link: bool = True) -> None:
    """The answer (or what went wrong) and a link to the run in History."""
    target = container or st
    status = str(record_or_event.get("status_shown") or record_or_event.get("status") or "")
    answer = record_or_event.get("answer")
    error = record_or_event.get("error") or {}
    box = target.container(border=True)
    from ui import outcome as _outcome_ui  # Answered / No answer / Stopped / Failed, and "Based on:"

    record = _outcome_ui.show(record_or_event, box)
    if answer:
        box.markdown("**Answer**")
        ui.show_text(answer, box)
        _outcome_ui.show_sources(record, box)
        grounding_ui.show_badge(record_or_event, box, calls_from=record, show_call=render_tool_call)
    if status != "completed" and isinstance(error, dict) and error.get("message"):
        box.markdown("**What the program said**", help=f"Error type: {ui.one_line(error.get('type'), 60)}")
        ui.show_text(error.get("message"), box)
    run_id = str(record_or_event.get("run_id") or "")
    from ui.explain import show_summary

    show_summary(
        record_or_event, box, show_call=render_tool_call, key=f"summary_{run_id}", ai=not link
    )  # History (no link): with AI
    if link and run_id:
        box.page_link(
            HISTORY_PAGE, label="Open this run in History (shareable link)", icon="🔎", query_params={"run": run_id}
        )
