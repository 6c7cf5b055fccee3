"""The Tools page's MCP servers: a health card per server (with per-tool checkboxes), add, test, remove.

Everything a server says (its name, tool descriptions, stderr) is untrusted text: it is shown with
``st.code`` / ``st.text`` or escaped. Tokens are shown masked; they stay in ``mcp.json`` (or, better,
in ``.env`` named as ``${NAME}``) and never reach a record or a log.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from agent_core.settings import Settings
from agent_core.tools import mcp, mcp_config
from agent_core.tools.catalog import Catalog
from ui import common as ui


@st.cache_resource(show_spinner=False)
def _start_once(data_dir: str, _config: Settings) -> bool:
    try:
        servers = mcp_config.load(_config).servers
    except OSError:
        return False
    if servers:
        mcp.start_all(servers, _config)
    return True


def start_at_app_start(config: Settings) -> None:
    """Start connecting the configured servers once per process and data folder, in the
    background (the pages wait for them only when they need their tools, at most their timeout)."""
    _start_once(str(config.data_dir.resolve()), config)


def badges(annotations: dict[str, Any] | None) -> str:
    """The annotation badges as Markdown (fixed words, so nothing to escape)."""
    colours = {"only reads": "green", "may change or delete": "orange", "reaches the internet": "blue"}
    return " ".join(f":{colours.get(b, 'gray')}-badge[{b}]" for b in mcp.describe_annotations(annotations))


def health_card(config: Settings, server: mcp_config.ServerConfig, catalog: Catalog, *, editable: bool) -> None:
    """One server: where it is, whether it answers, what it offers and costs, its tools to pick."""
    health = catalog.health.get(server.name)
    with st.container(border=True, key=f"tools_card_{server.name}"):
        title = f"**{ui.md_label(server.name, 40)}** · {'streamable HTTP' if server.url else 'local command (stdio)'}"
        st.markdown(title)
        st.code(server.where, language=None, wrap_lines=True)
        if server.headers:
            st.caption("Headers: " + ui.md_label(mcp_config.masked_headers(server.headers), 200))
        if server.disabled:
            st.caption("Disabled in mcp.json: its tools are not offered.")
        elif health is None:
            st.caption("Not checked yet.")
        elif health.ok:
            st.success(ui.md_label(health.sentence, 200), icon="✅")
            facts = [
                f"protocol {ui.md_label(health.protocol_version, 20)}",
                f"{len(health.tools)} tools",
                f"about {health.tokens:,} tokens of definitions",
                f"answered in {health.seconds:.2f} s",
            ]
            if health.server_info:
                facts.insert(0, ui.md_label(health.server_info, 60))
            st.caption(
                " · ".join(facts),
                help="Tokens: what the tools' names, descriptions and schemas cost in every request (estimated).",
            )
        else:
            st.error(ui.md_label(health.sentence, 400), icon="🔌")
        if health is not None and health.stderr_tail:
            with st.expander("What the server printed (stderr, last lines)"):
                st.code(health.stderr_tail, language=None, wrap_lines=True)
        if health is not None and health.ok and health.tools:
            _tool_checkboxes(config, server, health, editable=editable)
        if editable:
            test, remove = st.columns(2)
            if test.button("Test again", key=f"tools_test_{server.name}", icon=":material/refresh:"):
                with st.spinner(f"Connecting to {ui.md_label(server.name, 40)}…", show_time=True):
                    mcp.hub().connection(server, config).check()
                st.rerun()
            if remove.button("Remove", key=f"tools_remove_{server.name}", icon=":material/delete:"):
                mcp_config.remove_server(config, server.name)
                mcp.hub().forget(server.name)
                st.rerun()


def _tool_checkboxes(config: Settings, server: mcp_config.ServerConfig, health: mcp.Health, *, editable: bool) -> None:
    st.caption(
        "Tick the tools runs may use. Each is called **server\\_\\_tool** so two servers can offer the same name. "
        "Badges come from the server's own hints (not guarantees)."
    )
    for remote in health.tools:
        name = mcp.tool_name(server.name, remote.name)
        on = remote.name not in server.disabled_tools
        row = st.container(horizontal=True, vertical_alignment="center", gap="small")
        picked = row.checkbox(
            ui.md_label(name, 64),
            value=on,
            key=f"tools_pick_{server.name}_{remote.name}",
            disabled=not editable,
            help=ui.one_line(remote.description, 300) or None,
        )
        marks = badges(remote.annotations)
        if marks:
            row.markdown(marks)
        if picked != on:
            mcp_config.set_tool_enabled(config, server.name, remote.name, picked)
            st.rerun()


def add_form(config: Settings) -> None:
    """Add a server by URL (streamable HTTP) or by command (stdio, when the operator allows it)."""
    with st.form("tools_add_server", border=True):
        st.markdown("**Add an MCP server**")
        name = st.text_input("Name", key="tools_new_name", placeholder="tickets", help="Letters, digits, _ or -.")
        kind = st.radio(
            "How to reach it",
            ["URL (streamable HTTP)", "Command on this machine (stdio)"],
            key="tools_new_kind",
            horizontal=True,
        )
        url = st.text_input("URL", key="tools_new_url", placeholder="https://example.com/mcp")
        token = st.text_input(
            "Bearer token (optional)",
            key="tools_new_token",
            type="password",
            help="Sent as 'Authorization: Bearer …'. Write ${NAME} to take it from .env instead of keeping it "
            "in mcp.json. Never written to a run record or a log.",
        )
        command = st.text_input("Command", key="tools_new_command", placeholder="uvx mcp-server-time")
        env = st.text_area("Environment for the command (NAME=value per line)", key="tools_new_env", height=68)
        allowed = ", ".join(config.mcp_stdio_commands) or "none (local commands are off)"
        st.caption(f"Commands the operator allows (MCP_STDIO_COMMANDS): {ui.escape_md(allowed)}.")
        submitted = st.form_submit_button("Add and test", type="primary", icon=":material/add:")
    if not submitted:
        return
    try:
        server = _server_from_form(name, kind, url, token, command, env)
    except mcp_config.ConfigError as exc:
        st.error(ui.md_label(exc, 300), icon="✋")
        return
    mcp_config.put_server(config, server)
    with st.spinner(f"Connecting to {ui.md_label(server.name, 40)}…", show_time=True):
        mcp.hub().connection(server, config).check()
    st.rerun()


def _server_from_form(name: str, kind: str, url: str, token: str, command: str, env: str) -> mcp_config.ServerConfig:
    import shlex

    entry: dict[str, Any] = {}
    if kind.startswith("URL"):
        entry["url"] = url.strip()
        if token.strip():
            entry["headers"] = {"Authorization": f"Bearer {token.strip()}"}
            if "${" not in token:
                from agent_core.masking import register_secret

                register_secret(token.strip())
    else:
        try:
            parts = shlex.split(command)
        except ValueError as exc:
            raise mcp_config.ConfigError(f"The command could not be read ({exc}).") from None
        if not parts:
            raise mcp_config.ConfigError("Give the command that starts the server.")
        entry["command"], entry["args"] = parts[0], parts[1:]
        pairs = [line.split("=", 1) for line in env.splitlines() if line.strip()]
        if any(len(p) != 2 for p in pairs):
            raise mcp_config.ConfigError("Environment lines must look like NAME=value.")
        if pairs:
            entry["env"] = {k.strip(): v.strip() for k, v in pairs}
    return mcp_config.parse_server(name.strip(), entry)
