"""One tool call as a bordered box, live or saved: its outcome, flags, arguments, result, its
approval (when a person had to approve it) and its attempts."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from agent_core.records import decided
from agent_core.tools.mcp import describe_annotations
from ui import approval as approval_ui
from ui import common as ui


def call_flags(entry: dict[str, Any]) -> list[str]:
    """Short markers of what happened to a tool call (our own words, safe as Markdown)."""
    flags = []
    attempts = entry.get("attempts") or []
    if isinstance(attempts, list) and len(attempts) > 1:
        flags.append(f":orange-badge[🔁 {len(attempts)} attempts]")
    fallback = entry.get("fallback")
    if isinstance(fallback, dict):
        ok = "✓" if fallback.get("success") else "✗"
        flags.append(f":violet-badge[↪️ fallback {ui.md_label(fallback.get('tool'), 40)} {ok}]")
    if entry.get("duplicate"):
        flags.append(":red-badge[🚫 duplicate refused]")
    if entry.get("truncated"):
        flags.append(":gray-badge[✂️ truncated]")
    decided_by = approval_ui.call_flag(entry)
    if decided_by:
        flags.append(decided_by)
    category = entry.get("error_category")
    if category and not entry.get("success") and not entry.get("duplicate"):
        flags.append(f":red-badge[{ui.md_label(category, 20)} error]")
    return flags


def waited_text(attempt: dict[str, Any]) -> str:
    """How long the engine waited after this attempt, with its cap: "waited 0.06 s of at most
    0.2 s, randomised" ("" when it was not retried)."""
    wait = attempt.get("wait_s")
    if not isinstance(wait, (int, float)):
        return ""
    cap = attempt.get("wait_cap_s")
    if not isinstance(cap, (int, float)) and not wait:
        return ""  # not retried (older records say wait_s 0)
    if isinstance(cap, (int, float)):
        return f"waited {wait:.2f} s of at most {cap:g} s, randomised"
    return f"waited {wait:.2f} s"


def _attempt_rows(tool: Any, attempts: list[Any]) -> list[dict[str, Any]]:
    # Few, short columns, the wait and the duration first: at 800 px they stay in view (the
    # error text may run off the right; the sentence above the table says each wait in full).
    return [
        {
            "attempt": f"{a.get('attempt')} {'✓' if a.get('success') else '✗'}",
            "waited": f"{a['wait_s']:.2f} s" if waited_text(a) else "",
            "duration": ui.fmt_ms(a.get("duration_ms")),
            "tool": tool,
            "error": a.get("error") or "",
        }
        for a in attempts
        if isinstance(a, dict)
    ]


def render_tool_call(entry: dict[str, Any], container: Any) -> None:
    """One tool call as a bordered box: name, outcome, flags, arguments, result, attempts."""
    box = container.container(border=True)
    ok = bool(entry.get("success"))
    icon = "✅" if ok else "🛑" if entry.get("cancelled") else "❌"
    head = f"{icon} 🔧 **{ui.md_label(entry.get('tool'), 64)}** · {ui.fmt_ms(entry.get('duration_ms'))}"
    flags = call_flags(entry)
    box.markdown(" ".join([head, *flags]), help=ui.explain("tool call"))
    approval = entry.get("approval") if isinstance(entry.get("approval"), dict) else {}
    edited = approval.get("decision") == "edited"
    asked = {**entry, "arguments": approval.get("original_arguments")} if edited else entry  # who chose what
    box.caption(ui.escape_md(decided.choice_words(asked)), help=ui.explain("origin"))
    if entry.get("tool_source") in ("mcp", "declared"):
        where = "MCP server" if entry["tool_source"] == "mcp" else "declared in"
        hints = ", ".join(describe_annotations(entry.get("annotations"))) or "no hints"
        box.caption(f"From {where} {ui.md_label(entry.get('server'), 40)} · hints: {ui.escape_md(hints)}")
    approval_ui.show_approval(entry, box)
    if (
        entry.get("fallback")
        or entry.get("duplicate")
        or entry.get("truncated")
        or len(entry.get("attempts") or []) > 1
    ):
        notes = []
        if len(entry.get("attempts") or []) > 1:
            notes.append("Retry: " + ui.explain("retry"))
        if entry.get("fallback"):
            notes.append("Fallback: " + ui.explain("fallback"))
        if entry.get("duplicate"):
            notes.append("Duplicate: " + ui.explain("duplicate"))
        if entry.get("truncated"):
            notes.append("Truncated: " + ui.explain("truncated"))
        box.caption(ui.escape_md("\n".join(notes)))
    left, right = box.columns(2)
    left.caption(
        "Arguments (as they ran: a person edited them)"
        if edited
        else "Arguments (what the model asked for)"
        if entry.get("origin") != "harness"
        else "Arguments (set by the workbench)"
    )
    ui.show_value(entry.get("arguments"), left, expanded=True)
    right.caption(
        "Result (what went back to the model)"
        if ok
        else "Stopped (the run ended here; nothing went back to the model)"
        if entry.get("cancelled")
        else "Error (sent back to the model so it can adapt)"
    )
    ui.show_code(entry.get("output"), right, height=None)
    attempts = entry.get("attempts") or []
    fallback = entry.get("fallback") if isinstance(entry.get("fallback"), dict) else None
    if isinstance(attempts, list) and (len(attempts) > 1 or (attempts and not ok) or fallback):
        rows = _attempt_rows(entry.get("tool"), attempts)
        if fallback:
            rows += _attempt_rows(fallback.get("tool"), fallback.get("attempts") or [])
        groups = [(entry.get("tool"), attempts)]
        if fallback:
            groups.append((fallback.get("tool"), fallback.get("attempts") or []))
        waits = [
            f"attempt {a.get('attempt')} of {ui.md_label(tool, 40)}: {waited_text(a)}"
            for tool, group in groups
            for a in group
            if isinstance(a, dict) and waited_text(a)
        ]
        box.caption(
            "Attempts (a failed attempt that is temporary is retried after a wait)"
            + "".join(f"  \n⏳ {w}" for w in waits)
        )
        box.dataframe(
            pd.DataFrame(rows),
            hide_index=True,
            width="stretch",
            column_config={
                "attempt": st.column_config.TextColumn("attempt", width="small"),
                "waited": st.column_config.TextColumn("waited", width="small", help=ui.explain("retry")),
                "duration": st.column_config.TextColumn("duration", width="small"),
            },
        )
