"""Tools page: each registered tool, its schema in the three wire formats, and a form to call it."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from agent_core.run.dispatcher import Dispatcher
from agent_core.tools.builtins import BUILTIN_TOOL_NAMES
from agent_core.tools.catalog import cost_warning, load_catalog
from ui import approval as _approval_ui
from ui import common as ui
from ui import declared_tools as _declared_ui
from ui import mcp_servers as _mcp_ui
from ui import tools as _tools_ui

ui.ensure_app_frame()
config = ui.settings()
registry = ui.tool_registry(config)
catalog = load_catalog(config, builtin_names=BUILTIN_TOOL_NAMES)

st.title("🔧 Tools")
st.caption(
    "The tools an agent can call: the built-in ones, your MCP servers' and the ones you declare here. A model "
    "sees only each tool's name, description and argument schema; below is that schema in the three formats the "
    "APIs expect, and a form to try a tool yourself."
)
warning = cost_warning(list(registry))
if warning:
    st.warning(ui.escape_md(warning), icon="🧮")

st.subheader("Try a tool")
st.caption(
    "Runs the tool through the same dispatcher an agent uses: arguments are checked first, "
    "temporary failures are retried, and you get the same log entry a run records."
)
names = registry.names()
name = st.selectbox("Tool", names, key="tools_pick", help=ui.explain("tool call"))
tool = registry.get(name)
assert tool is not None
st.caption(ui.md_label(tool.description, 300))
fields = ui.schema_fields(tool.parameters)
raw_mode = st.toggle(
    "Edit the arguments as JSON",
    key="tools_raw",
    help="Type the arguments exactly as a model would send them — try broken JSON or a wrong type to see the errors.",
)
with st.form(f"tools_form_{name}", border=True):
    values: dict[str, Any] = {}
    if raw_mode:
        example = {f.name: f.default if f.default is not None else "" for f in fields}
        raw = st.text_area("Arguments (JSON)", value=json.dumps(example, ensure_ascii=False), key=f"tools_raw_{name}")
    else:
        if not fields:
            st.caption("This tool takes no arguments.")
        for spec in fields:
            label = spec.name + ("" if spec.required else " (optional)")
            key = f"tools_arg_{name}_{spec.name}"
            help_text = spec.description or None
            if name == "read_file" and spec.name == "path" and not raw_mode:
                # The workspace's files to pick from (another path can still be typed).
                files = (
                    sorted(
                        str(p.relative_to(config.workspace_dir)) for p in config.workspace_dir.rglob("*") if p.is_file()
                    )
                    if config.workspace_dir.is_dir()
                    else []
                )
                values[spec.name] = st.selectbox(
                    label,
                    files,
                    index=0 if files else None,
                    key=key,
                    help=help_text,
                    accept_new_options=True,
                    placeholder="a file in the workspace",
                )
            elif spec.kind == "enum":
                options = list(spec.options)
                index = options.index(spec.default) if spec.default in options else (0 if spec.required else None)
                values[spec.name] = st.selectbox(label, options, index=index, key=key, help=help_text)
            elif spec.kind == "boolean":
                values[spec.name] = st.checkbox(label, value=bool(spec.default), key=key, help=help_text)
            elif spec.kind == "integer":
                values[spec.name] = st.number_input(
                    label,
                    value=int(spec.default) if isinstance(spec.default, (int, float)) else None,
                    step=1,
                    key=key,
                    help=help_text,
                )
            elif spec.kind == "number":
                values[spec.name] = st.number_input(
                    label,
                    value=float(spec.default) if isinstance(spec.default, (int, float)) else None,
                    key=key,
                    help=help_text,
                    format="%g",
                )
            elif spec.kind == "text":
                values[spec.name] = st.text_input(
                    label, value=str(spec.default) if spec.default is not None else "", key=key, help=help_text
                )
            else:
                values[spec.name] = st.text_input(
                    label + " — JSON",
                    value=json.dumps(spec.default) if spec.default is not None else "",
                    key=key,
                    help=(help_text or "") + " Enter a JSON value.",
                )
    submitted = st.form_submit_button("Call the tool", type="primary")

if submitted:
    arguments: Any
    try:
        if raw_mode:
            arguments = raw  # the dispatcher parses it, like a model's JSON string
        else:
            arguments = ui.collect_arguments(fields, values)
    except ValueError as exc:
        st.error(ui.md_label(exc, 200))
    else:
        attempts = st.empty()  # the attempt count while a failed attempt waits for its retry
        with st.spinner(f"Calling {ui.md_label(name, 64)}… (failed attempts are retried)", show_time=True):
            dispatcher = Dispatcher(registry, config, sleep=_tools_ui.retry_waiter(attempts, name))
            entry = dispatcher.call_direct(name, arguments)
        attempts.empty()
        st.session_state["tools_last"] = entry

last = st.session_state.get("tools_last")
if last and last.get("tool") != name:  # the last result was another tool's: clear it
    st.session_state.pop("tools_last", None)
    last = None
if last:
    with st.container(border=True):
        ok = last.get("success")
        st.markdown(
            f"{'✅' if ok else '❌'} **{ui.md_label(last.get('tool'), 64)}** "
            f"{'returned' if ok else 'failed'} in {ui.fmt_ms(last.get('duration_ms'))}"
            + (f" · {len(last.get('attempts') or [])} attempts" if len(last.get("attempts") or []) > 1 else "")
            + (" · fallback used" if last.get("fallback") else ""),
        )
        left, right = st.columns(2)
        left.caption("Result (what a model would get back)")
        ui.show_code(last.get("output"), left)
        right.caption("Log entry (as saved in a run record)")
        ui.show_value(last, right, expanded=1)

st.subheader("Your MCP servers")
st.caption(
    "MCP servers offer tools over a standard protocol. They are kept in "
    f"{ui.escape_md(config.mcp_config_path)} (the usual mcpServers shape, so other MCP clients' entries work)."
)
for problem in catalog.problems:
    st.warning(ui.md_label(problem, 300), icon="📄")
for server in catalog.servers:
    _mcp_ui.health_card(config, server, catalog, editable=not config.read_only)
if not config.read_only:
    _mcp_ui.add_form(config)

st.subheader("Tools declared without code")
_declared_ui.declared_section(config, editable=not config.read_only)

st.subheader(f"Registered tools ({len(registry)})")
st.caption(
    "Open a tool to see its schema as the OpenAI Responses, OpenAI Chat and Anthropic APIs want it, and to set "
    "whether it runs without asking, asks you first on the Run page, or never runs. Built-in tools and tools that "
    "say they only read run; the others ask. A choice is saved at once (approvals.json in the data folder)."
)
policies = _approval_ui.saved_policies(config)
for tool in registry:
    extras = []
    if tool.fallback:
        extras.append(f"fallback: {ui.md_label(tool.fallback, 40)}")
    if tool.tags:
        extras.append("tags: " + ", ".join(ui.md_label(t, 20) for t in tool.tags))
    if tool.source != "builtin":
        extras.append(f"{'MCP server' if tool.source == 'mcp' else 'declared in'} {ui.md_label(tool.server, 40)}")
    policy = _approval_ui.policy_of(tool, policies)
    with st.expander(
        f"**{ui.md_label(tool.name, 64)}** {_approval_ui.POLICY_BADGES[policy]} — {ui.md_label(tool.description, 90)}"
    ):
        ui.show_text(tool.description)
        _approval_ui.policy_control(config, tool, policies, editable=not config.read_only)
        if tool.annotations or tool.source == "mcp":
            st.markdown(_mcp_ui.badges(tool.annotations) or "no hints from the server")
        if extras:
            st.caption(" · ".join(extras), help=ui.explain("fallback") if tool.fallback else None)
        # Side by side on a wide screen; they wrap under each other on a narrow one.
        formats = st.container(horizontal=True, wrap=True, gap="small")
        for title, spec in (
            ("OpenAI Responses (flat)", tool.to_openai_responses()),
            ("OpenAI Chat Completions (under “function”)", tool.to_openai_chat()),
            ("Anthropic Messages (“input_schema”)", tool.to_anthropic()),
        ):
            with formats.container(width=280):
                st.caption(title)
                st.code(json.dumps(spec, indent=2, ensure_ascii=False), language="json", wrap_lines=True)
