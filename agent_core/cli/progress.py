"""The progress a command prints on stderr while a run goes on (``run``, ``replay``)."""

from __future__ import annotations

import json
from typing import TextIO, assert_never

from agent_core.run import events as ev


def print_progress(event: ev.RunEvent, out: TextIO) -> None:
    """One line on ``out`` per model turn, tool call, model load or retry, and answer sent back."""
    match event:
        case ev.ModelLoading():
            pct = f" {100 * event.done / event.total:.0f}%" if event.total else ""
            out.write(f"  loading model: {event.stage}{pct} {event.message}\n")
        case ev.ModelCallRetrying():
            out.write(
                f"  step {event.step}: model call failed ({event.error_type}); retrying in {event.wait_s:.1f} s\n"
            )
        case ev.ModelCallFinished():
            what = f"{event.tool_calls} tool call(s)" if event.tool_calls else "final answer"
            if event.ok:
                out.write(
                    f"step {event.step}: model {event.duration_ms or 0:.0f} ms, "
                    f"{event.usage.total_tokens} tokens → {what}\n"
                )
        case ev.ToolCallFinished():
            call = event.call
            result = call["output"].replace("\n", " ")
            result = result if len(result) <= 100 else result[:99] + "…"
            args = json.dumps(call["arguments"], ensure_ascii=False)
            flags = [f for f in ("duplicate", "truncated") if call.get(f)]
            fallback = call.get("fallback")
            if fallback:
                flags.append(f"fallback→{fallback['tool']}")
            if len(call.get("attempts") or []) > 1:
                flags.append(f"{len(call['attempts'])} attempts")
            out.write(f"  {call['tool']}({args}) → {result}" + (f"  [{', '.join(flags)}]" if flags else "") + "\n")
        case ev.ApprovalRequested():
            pass  # the terminal's prompt (cli/approve.py) says it, when there is one
        case ev.ApprovalAnswered():
            out.write(f"  {event.tool}: {event.decision} by {event.by} (waited {event.wait_ms / 1000:.1f} s)\n")
        case ev.AnswerSentBack():
            out.write(
                f"step {event.step}: answer sent back by the answer check "
                f"(not backed by the tool results: {'; '.join(event.unsupported)})\n"
            )
        case ev.RunStarted() | ev.ModelCallStarted() | ev.ToolCallStarted() | ev.StepFinished() | ev.RunFinished():
            pass  # the CLI prints a line per model turn and per tool call, and the outcome at the end
        case _:
            assert_never(event)
    out.flush()
