"""Agent Workbench — the frame around every page: page config, shared setup, navigation.

Run with ``streamlit run serve.py`` (or ``streamlit run app.py``; serve.py also starts loading the
local model with the server). The pages are thin scripts in ``pages/``, their helpers the ``ui``
package; the engine is ``agent_core`` (it never imports streamlit). ``st.navigation`` lists the
pages explicitly, which also turns off Streamlit's automatic ``pages/`` discovery.
"""

from __future__ import annotations

import streamlit as st

from ui import common as ui
from ui import live as _live
from ui import mcp_servers as _mcp_ui
from ui import preload as _preload_ui
from ui import store as _store_ui

st.set_page_config(page_title="Agent Workbench", page_icon="🧰", layout="wide")

try:
    config = ui.settings()
except ValueError as exc:  # a bad value in the environment or .env
    st.error(f"The settings could not be read: {ui.escape_md(exc)}. Fix the environment or .env and reload.")
    st.stop()

_mcp_ui.start_at_app_start(config)  # MCP servers of mcp.json connect in the background
_preload_ui.start(config)  # the local model starts loading with the server's first page, not the first Run

_store_ui.send_outbox_at_start(config)  # AGENT_STORE_URL: runs an earlier session could not send
_note = ui.sample_workspace_note(config)  # a data folder without workspace/ gets the samples (said once)
if _note:  # in the sidebar of the session that copied them: a toast covered the title at 800 px
    st.session_state["app_workspace_note"] = _note

PAGES = [
    st.Page("pages/run.py", title="Run", icon=":material/play_arrow:", url_path="run", default=True),
    st.Page("pages/history.py", title="History", icon=":material/history:", url_path="history"),
    st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"),
    st.Page("pages/review.py", title="Review", icon=":material/label:", url_path="review"),
    st.Page("pages/tool_stats.py", title="Tool stats", icon=":material/bar_chart:", url_path="tool_stats"),
    st.Page("pages/evals.py", title="Evals", icon=":material/fact_check:", url_path="evals"),
    st.Page("pages/tools.py", title="Tools", icon=":material/build:", url_path="tools"),
    st.Page("pages/workspace.py", title="Workspace", icon=":material/folder_open:", url_path="workspace"),
]

if config.read_only:  # AGENT_READ_ONLY=1, a viewer instance: History (and Compare) and Tool stats, no runs
    PAGES = [
        st.Page("pages/history.py", title="History", icon=":material/history:", url_path="history", default=True),
        st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"),
        st.Page("pages/tool_stats.py", title="Tool stats", icon=":material/bar_chart:", url_path="tool_stats"),
    ]
else:
    ui.open_default_page_by_name("run")  # /run opens Run (the default page, whose URL is /)
page = st.navigation(PAGES, position="sidebar")
ui.fold_sidebar_when_narrow()  # at 800 px the sidebar took 300 px: folded once, the arrow opens it
with st.sidebar:
    st.caption("Agent Workbench — run tool-calling agents and see every step, tool call and context block they used.")
    st.caption(f"Data folder: {ui.escape_md(config.data_dir)}", help="AGENT_DATA_DIR: runs/ and workspace/ live here.")
    if note := st.session_state.get("app_workspace_note"):
        st.caption(f"📁 {ui.escape_md(note)}")
    if config.store_url:
        st.caption(
            f"Team store: {ui.escape_md(config.store_label)}",
            help="AGENT_STORE_URL: runs are shared in this PostgreSQL database (and kept in the data folder too).",
        )
    if config.read_only:
        st.caption("Read-only instance (AGENT_READ_ONLY=1): History, Compare and Tool stats; no runs start here.")
    elif page.title != "Run":
        _live.sidebar_note(PAGES[0])
page.run()
