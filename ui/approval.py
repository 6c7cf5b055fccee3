"""Approval on screen: the card of a call that waits (Run page), the approval of a finished call
(its box, live or in History), and the policy of a tool (Tools page).

The waiting call lives with the run (:class:`agent_core.run.approval.ApprovalDesk`), not with a
browser session: any tab that shows the run shows the same card and can answer it; the first
answer counts, the others are told it was answered already.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pandas as pd
import streamlit as st

from agent_core.run.approval import Answer, ApprovalDesk, ApprovalRequest
from agent_core.tools.approvals import (
    POLICIES,
    POLICY_WORDS,
    Policy,
    default_policy,
    load_policies,
    policy_for,
    save_policy,
)
from agent_core.tools.forms import FieldSpec, collect_arguments, schema_fields
from agent_core.tools.registry import Tool
from ui import common as ui

BY = "a person, on the Run page"
NOTE_KEY = "run_approval_note"
"""A message for the next draw (an answer that came too late, an edit the schema refused)."""
DECISION_BADGES = {
    "approved": ":green-badge[✋ approved]",
    "edited": ":orange-badge[✏️ edited, then approved]",
    "rejected": ":red-badge[✋ rejected]",
    "stopped": ":gray-badge[✋ stopped while waiting]",
}
POLICY_BADGES: dict[str, str] = {
    "auto": ":green-badge[runs without asking]",
    "ask": ":orange-badge[✋ asks first]",
    "blocked": ":red-badge[⛔ blocked]",
}
_BADGE_COLOURS = {"only reads": "green", "may change or delete": "red", "reaches the internet": "blue"}


def explain() -> str:
    """What approval is, in one line (help texts)."""
    return (
        "Tools that may change things ask a person first: approve the call, edit its arguments and approve, or "
        "reject it (the model gets your reason). Set each tool's policy on the Tools page."
    )


def _badges(words: list[str]) -> str:
    return " ".join(f":{_BADGE_COLOURS.get(w, 'orange')}-badge[{ui.md_label(w, 40)}]" for w in words)


def _key(call_id: str) -> str:
    return "run_approval_" + "".join(ch if ch.isalnum() else "_" for ch in call_id)[:80]


# -- the card ----------------------------------------------------------------------------------


def card(desk: ApprovalDesk, request: ApprovalRequest, container: Any) -> None:
    """The waiting call: what it is, where it comes from, its arguments in a form made from the
    tool's schema, and the four answers."""
    key = _key(request.call_id)
    box = container.container(border=True, key=key)
    box.markdown(
        f"✋ **Waiting for your approval** · {POLICY_BADGES['ask']}", help=explain() + " " + ui.explain("tool call")
    )
    where = (
        f" from the MCP server **{ui.md_label(request.server, 40)}**"
        if request.source == "mcp"
        else f" declared in **{ui.md_label(request.server, 40)}**"
        if request.source == "declared"
        else " (built in)"
    )
    box.markdown(f"The agent wants to run **{ui.md_label(request.tool, 64)}**{where}. {_badges(request.badges)}")
    box.caption(ui.md_label(request.description, 300))
    box.caption(
        "The run's own clock is paused while it waits; the wait shows beside it (Approval wait) and is recorded "
        "apart, out of the tool's timings."
    )
    note = st.session_state.pop(NOTE_KEY, None)
    if note:
        box.error(ui.md_label(note, 400), icon="✋")
    fields = schema_fields(request.parameters)
    with box.form(f"{key}_form", border=False, enter_to_submit=False):
        st.caption("Arguments — as the model asked; change them and press **Edit & approve** to run other values.")
        if not fields:
            st.caption("This tool takes no arguments.")
        for spec in fields:
            _field(spec, request.arguments.get(spec.name), f"{key}_arg_{spec.name}")
        st.text_input(
            "Reason, if you reject",
            key=f"{key}_reason",
            placeholder="e.g. not this ticket: it is still open",
            help="The model gets it as the tool's output, so it can take another way.",
        )
        st.radio(
            "Always allow this tool",
            ["run", "saved"],
            key=f"{key}_scope",
            horizontal=True,
            format_func=lambda s: "for this run" if s == "run" else "from now on (saved; undo on the Tools page)",
            help="Used by the Always allow button: it approves this call and does not ask again.",
        )
        row = st.container(horizontal=True, gap="small", key=f"{key}_buttons")
        args = (desk, request, key, fields)
        row.form_submit_button("Approve", type="primary", icon=":material/check:", on_click=_approve, args=args)
        row.form_submit_button("Edit & approve", icon=":material/edit:", on_click=_edit, args=args)
        row.form_submit_button("Reject", icon=":material/block:", on_click=_reject, args=args)
        row.form_submit_button("Always allow", icon=":material/verified:", on_click=_always, args=args)


@st.fragment(run_every=1.0)
def wait_clock(desk: ApprovalDesk, call_id: str, waited_before_ms: float = 0.0) -> None:
    """The gauge's approval wait, ticking once a second while the call waits; a rerun of the page
    once it no longer waits (answered, in this tab or another, or stopped), to follow the run again."""
    pending = desk.pending
    if pending is None or pending.call_id != call_id:
        st.rerun()
    st.metric(
        "Approval wait",
        ui.fmt_ms(waited_before_ms + desk.waited_s() * 1000),
        help="Time tool calls waited for a person's answer: not part of the run's own time.",
        width="content",
    )


def _kind(spec: FieldSpec, value: Any) -> str:
    """How an argument is edited: as its schema says, or as JSON when the model's value has another
    type (the person sees it as it came)."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if spec.kind in ("enum", "boolean", "json"):
        return spec.kind
    if spec.kind == "integer" and (value is None or (number and isinstance(value, int))):
        return "integer"
    if spec.kind == "number" and (value is None or number):
        return "number"
    if spec.kind == "text" and (value is None or isinstance(value, str)):
        return "text"
    return "json"


def _field(spec: FieldSpec, value: Any, key: str) -> None:
    """One argument as a form field, filled with the model's value."""
    label = spec.name + ("" if spec.required else " (optional)")
    help_text = spec.description or None
    kind = _kind(spec, value)
    if kind == "enum":
        options = list(spec.options)
        st.selectbox(label, options, index=options.index(value) if value in options else None, key=key, help=help_text)
    elif kind == "boolean":
        st.checkbox(label, value=bool(value), key=key, help=help_text)
    elif kind == "integer":
        st.number_input(label, value=value, step=1, key=key, help=help_text)
    elif kind == "number":
        st.number_input(label, value=None if value is None else float(value), key=key, help=help_text, format="%g")
    elif kind == "text":
        st.text_input(label, value=value or "", key=key, help=help_text)
    else:
        st.text_input(
            label + " — JSON",
            value="" if value is None else json.dumps(value, ensure_ascii=False),
            key=key,
            help=(help_text or "") + " A JSON value.",
        )


def edited_arguments(request: ApprovalRequest, fields: list[FieldSpec], key: str) -> dict[str, Any]:
    """The form's arguments (ValueError for a JSON field that is not JSON); arguments the schema
    does not list are kept as the model sent them."""
    values = {spec.name: st.session_state.get(f"{key}_arg_{spec.name}") for spec in fields}
    specs = [dataclasses.replace(spec, kind=_kind(spec, request.arguments.get(spec.name))) for spec in fields]
    listed = {spec.name for spec in fields}
    return {**{k: v for k, v in request.arguments.items() if k not in listed}, **collect_arguments(specs, values)}


def _send(desk: ApprovalDesk, request: ApprovalRequest, answer: Answer) -> None:
    try:
        if not desk.answer(request.call_id, answer):
            st.session_state[NOTE_KEY] = "This call was already answered (in another tab?) or the run was stopped."
    except ValueError as exc:  # an edit the schema refuses: the call keeps waiting
        st.session_state[NOTE_KEY] = f"Not run: {exc}"


def _approve(desk: ApprovalDesk, request: ApprovalRequest, key: str, fields: list[FieldSpec]) -> None:
    _send(desk, request, Answer("approve", by=BY))


def _edit(desk: ApprovalDesk, request: ApprovalRequest, key: str, fields: list[FieldSpec]) -> None:
    try:
        arguments = edited_arguments(request, fields, key)
    except ValueError as exc:
        st.session_state[NOTE_KEY] = f"Not run: {exc}"
        return
    _send(desk, request, Answer("edit", arguments=arguments, by=BY))


def _reject(desk: ApprovalDesk, request: ApprovalRequest, key: str, fields: list[FieldSpec]) -> None:
    reason = str(st.session_state.get(f"{key}_reason") or "").strip()
    _send(desk, request, Answer("reject", reason=reason, by=BY))


def _always(desk: ApprovalDesk, request: ApprovalRequest, key: str, fields: list[FieldSpec]) -> None:
    scope = "saved" if st.session_state.get(f"{key}_scope") == "saved" else "run"
    _send(desk, request, Answer("approve", by=BY, always=scope))


# -- a finished call ---------------------------------------------------------------------------


def call_flag(entry: dict[str, Any]) -> str | None:
    """The call's approval as a badge (None when it ran without asking)."""
    approval = entry.get("approval")
    if not isinstance(approval, dict):
        return None
    if approval.get("policy") == "blocked":
        return POLICY_BADGES["blocked"]
    return DECISION_BADGES.get(str(approval.get("decision")))


def show_approval(entry: dict[str, Any], box: Any) -> None:
    """Who decided, after how long, why; and what changed when the arguments were edited."""
    approval = entry.get("approval")
    if not isinstance(approval, dict):
        return
    wait = approval.get("wait_ms")
    waited = f" after {ui.fmt_ms(wait)} of waiting" if isinstance(wait, (int, float)) and wait >= 1 else ""
    decision = str(approval.get("decision") or "")
    words = {"approved": "Approved", "edited": "Edited, then approved", "rejected": "Rejected"}.get(
        decision, "Stopped while it waited for approval"
    )
    reason = f" — reason: {ui.one_line(approval.get('reason'), 200)}" if approval.get("reason") else ""
    box.caption(
        ui.escape_md(f"✋ {words} by {ui.one_line(approval.get('by'), 80)}{waited}{reason}."),
        help=explain() + " The wait is not part of the call's duration.",
    )
    if decision == "edited":
        box.dataframe(arguments_diff(approval.get("original_arguments"), approval.get("arguments")), hide_index=True)


def arguments_diff(before: Any, after: Any) -> pd.DataFrame:
    """The arguments that changed: argument, what the model asked, what ran."""
    old = before if isinstance(before, dict) else {}
    new = after if isinstance(after, dict) else {}
    rows = [
        {
            "argument": name,
            "the model asked": _shown(old.get(name, "—") if name in old else "—"),
            "ran with": _shown(new[name]) if name in new else "—",
        }
        for name in dict.fromkeys([*old, *new])
        if old.get(name, ...) != new.get(name, ...)
    ]
    return pd.DataFrame(rows, columns=["argument", "the model asked", "ran with"])


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# -- the Tools page ----------------------------------------------------------------------------


def policy_of(tool: Tool, saved: dict[str, Policy]) -> Policy:
    """The tool's policy: the saved one, else its default."""
    return policy_for(tool, saved)


def policy_control(config: Any, tool: Tool, saved: dict[str, Policy], *, editable: bool = True) -> None:
    """The tool's policy: a badge, and a menu that saves a change at once (the default is marked)."""
    default = default_policy(tool)
    current = policy_of(tool, saved)

    def changed() -> None:
        chosen = st.session_state.get(f"tools_policy_{tool.name}")
        save_policy(config, tool.name, None if chosen == default else chosen)

    st.selectbox(
        "Before it runs",
        list(POLICIES),
        index=list(POLICIES).index(current),
        key=f"tools_policy_{tool.name}",
        format_func=lambda p: f"{p}: {POLICY_WORDS[p]}" + (" (default)" if p == default else ""),
        on_change=changed,
        disabled=not editable,
        help=explain(),
    )


def saved_policies(config: Any) -> dict[str, Policy]:
    """The policies saved in the data folder (``approvals.json``)."""
    return load_policies(config)
