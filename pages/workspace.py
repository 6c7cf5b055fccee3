"""Workspace page: the documents the agent's tools read — add, preview, download, remove."""

from __future__ import annotations

import streamlit as st

from ui import common as ui
from ui import workspace as ws_ui

ui.ensure_app_frame()
config = ui.settings()
ui.sample_workspace_note(config)
ws = ws_ui.workspace(config)

st.title("📁 Your documents")
st.caption(
    "The files the agent can search (search_documents), read (read_file) and query as tables "
    "(query_table). Add PDF, Word, Markdown, text, CSV or JSON files: each is read and indexed at "
    "once, and answers cite the file and page (PDF) or section (a heading) their figures came from."
)
if config.store_url:
    st.info(ws_ui.STORE_NOTE, icon="🖥️")
ws_ui.show_messages()
ws_ui.add_files(ws)

try:
    files = ws_ui.documents_table(ws)
except Exception as exc:  # noqa: BLE001 - say what is wrong instead of a stack trace
    st.error(f"The documents could not be listed: {ui.md_label(exc, 300)}", icon="✋")
    st.stop()
st.subheader(f"Documents ({len(files)})", help=f"Folder: {ws.root}")
if files.empty:
    st.caption("No documents yet. Add some above; the example goals on the Run page use the sample shop's documents.")
else:
    st.dataframe(files, hide_index=True, width="stretch", column_config=ws_ui.COLUMNS)
    ws_ui.remove_samples(ws)
    st.subheader("Preview, download or remove")
    ws_ui.manage(ws, files)
