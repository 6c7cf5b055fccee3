"""The person's documents on screen: the Workspace page and the Run page's "Your documents".

Everything goes through :class:`agent_core.tools.documents.workspace.Workspace`, so the page, the
sidebar and ``python -m agent_core workspace`` say the same things. What happened (added, refused,
removed) is kept in the session and shown after the rerun that follows, so a message is never
lost to a rerun. Session-state keys start with ``ws_``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pandas as pd
import streamlit as st

from agent_core.settings import Settings
from agent_core.tools.documents.parse import SUPPORTED, DocumentError
from agent_core.tools.documents.samples import sample_names
from agent_core.tools.documents.tables import frame
from agent_core.tools.documents.workspace import Workspace
from ui import common as ui

UPLOAD_TYPES = [s.lstrip(".") for s in SUPPORTED.split(", ")]
KIND_WORDS = {"pdf": "PDF", "docx": "Word", "markdown": "Markdown", "text": "text", "csv": "CSV table", "json": "JSON"}
STORE_NOTE = "Documents stay on this machine: the team store shares runs, not documents."
PREVIEW_CHARS = 3000


def workspace(config: Settings) -> Workspace:
    """The workspace of this session's settings (cheap: the index is a file)."""
    return Workspace.for_settings(config)


def _say(kind: str, text: str) -> None:
    st.session_state.setdefault("ws_messages", []).append((kind, text))


def show_messages(where: Any = None) -> None:
    """What the last actions did (kept across the rerun that followed them)."""
    target = where or st
    for kind, text in st.session_state.pop("ws_messages", []):
        icon = {"success": "✅", "warning": "⚠️", "error": "✋", "info": "ℹ️"}[kind]
        getattr(target, kind)(ui.escape_md(text), icon=icon)


def _size(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MB" if n >= 1024 * 1024 else f"{n / 1024:.0f} KB" if n >= 1024 else f"{n} B"


def _extent(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def documents_table(ws: Workspace) -> pd.DataFrame:
    """One row per document: name, kind, size, pages or sections, when indexed, sample, note."""
    samples = sample_names(ws.root)
    table_rows = {t.file: t.rows for t in ws.index.tables() if t.name == t.file}
    rows = []
    for e in ws.entries():
        rows.append(
            {
                "name": e.name,
                "kind": KIND_WORDS.get(e.kind, e.kind or "?"),
                "size": _size(e.size),
                "extent": _extent(e.pages, "page")
                if e.pages
                else _extent(table_rows[e.name], "row")
                if e.name in table_rows
                else _extent(e.sections, "section"),
                "indexed": datetime.fromtimestamp(e.indexed_at, UTC).strftime("%Y-%m-%d %H:%M"),
                "sample": "sample" if e.name in samples else "",
                "note": f"could not be read: {e.error}" if e.error else e.note,
            }
        )
    return pd.DataFrame(rows, columns=["name", "kind", "extent", "sample", "note", "size", "indexed"])


COLUMNS = {
    "name": st.column_config.TextColumn("Document"),
    "kind": st.column_config.TextColumn("Kind", width="small"),
    "size": st.column_config.TextColumn("Size", width="small"),
    "extent": st.column_config.TextColumn(
        "Extent", help="A PDF's pages; a table's rows (CSV, JSON records); the headed sections of other files."
    ),
    "indexed": st.column_config.TextColumn("Indexed (UTC)", help="When it was last read into the search index."),
    "sample": st.column_config.TextColumn("Sample", width="small", help="Sample documents that came with the app."),
    "note": st.column_config.TextColumn("Note"),
}


def _add(ws: Workspace, name: str, data: bytes, mode: str) -> None:
    try:
        with st.spinner(f"Reading {name}…"):
            added = ws.add(name, data, on_conflict=mode)  # type: ignore[arg-type]
    except DocumentError as exc:
        _say("error", f"{exc}")
        return
    if added.status == "conflict":
        st.session_state.setdefault("ws_conflicts", {})[name] = data
        return
    _say("warning" if added.note else "success" if added.status != "unchanged" else "info", added.message)


def add_files(ws: Workspace, *, where: Any = None, key: str = "ws_upload", compact: bool = False) -> None:
    """**Add files**: drag and drop, several at once; each is checked, read and indexed."""
    target = where or st
    round_key = f"{key}_round"
    uploads = target.file_uploader(
        "Add files",
        type=UPLOAD_TYPES,
        accept_multiple_files=True,
        key=f"{key}_{st.session_state.get(round_key, 0)}",
        help=f"Drag and drop or browse: {SUPPORTED}. Each file is read and indexed for search at once; "
        "a PDF is cited by page, other documents by their headings.",
        label_visibility="collapsed" if compact else "visible",
        max_upload_size=max(1, int(ws.limits.max_bytes / 1024 / 1024)),
    )
    if uploads:
        for upload in uploads:
            _add(ws, upload.name, upload.getvalue(), "ask")
        st.session_state[round_key] = st.session_state.get(round_key, 0) + 1  # an empty uploader next time
        st.rerun()
    conflicts: dict[str, bytes] = st.session_state.get("ws_conflicts", {})
    for name, data in list(conflicts.items()):
        box = target.container(border=True)
        box.warning(f"A different file named **{ui.md_label(name)}** is already here.", icon="⚠️")
        replace, both, skip = box.columns(3)
        choice = ""
        if replace.button("Replace it", key=f"{key}_replace_{name}", width="stretch"):
            choice = "replace"
        if both.button(
            "Keep both", key=f"{key}_both_{name}", width="stretch", help="The new one gets a number: name (2).pdf"
        ):
            choice = "keep_both"
        if skip.button("Skip", key=f"{key}_skip_{name}", width="stretch"):
            choice = "skip"
        if choice:
            conflicts.pop(name, None)
            if choice == "skip":
                _say("info", f"{name}: skipped; the file already there is unchanged.")
            else:
                _add(ws, name, data, choice)
            st.rerun()


def preview(ws: Workspace, name: str, where: Any = None) -> None:
    """The start of a document (a table's first rows) as data, never rendered."""
    target = where or st
    tables = [t for t in ws.index.tables() if t.file == name]
    try:
        text = ws.document_text(name)
        if text is None and not tables:
            text = ws.path(name).read_bytes()[: PREVIEW_CHARS * 4].decode("utf-8", "replace")
    except (DocumentError, OSError) as exc:
        target.warning(f"No preview: {ui.md_label(exc, 200)}", icon="⚠️")
        return
    for info in tables[:3]:
        table = ws.table(info.name)
        if table is not None:
            target.caption(f"{ui.md_label(info.name)} · {info.rows:,} rows · the first 50")
            target.dataframe(frame(table).head(50), hide_index=True, width="stretch")
    if text and not (tables and name == tables[0].name):
        cut = len(text) > PREVIEW_CHARS
        ui.show_code(text[:PREVIEW_CHARS] + ("\n…" if cut else ""), target, height=320)


def manage(ws: Workspace, files: pd.DataFrame) -> None:
    """Pick a document: its preview, Download and Remove."""
    if files.empty:
        return
    name = st.selectbox("Document", list(files["name"]), key="ws_pick", help="Preview, download or remove it.")
    if not name:
        return
    row = st.container(horizontal=True, gap="small")
    try:
        data = ws.path(name).read_bytes()
    except (DocumentError, OSError):
        data = b""
    row.download_button(
        "Download",
        data=data,
        file_name=name.rsplit("/", 1)[-1],
        key="ws_download",
        icon=":material/download:",
        width="content",
    )
    confirm = row.popover(
        "Remove", icon=":material/delete:", help="Delete the file and its rows from the search index."
    )
    confirm.caption(f"Delete {ui.md_label(name, 80)} from the workspace? This cannot be undone.")
    if confirm.button("Yes, remove it", key="ws_remove", type="primary"):
        try:
            ws.remove(name)
            _say("success", f"Removed {name}.")
        except (DocumentError, OSError) as exc:
            _say("error", f"{name} could not be removed: {exc}")
        st.rerun()
    preview(ws, name)


def remove_samples(ws: Workspace, where: Any = None) -> None:
    """One click: remove the sample documents that came with the app (edited ones stay)."""
    samples = sorted(sample_names(ws.root) & set(ws.names()))
    if not samples:
        return
    target = where or st
    if target.button(
        f"Remove the {len(samples)} sample documents",
        key="ws_remove_samples",
        icon=":material/delete_sweep:",
        help="The sample shop's documents (" + ", ".join(samples) + "). A sample you edited is yours and stays.",
    ):
        for name in samples:
            try:
                ws.remove(name)
            except (DocumentError, OSError) as exc:
                _say("error", f"{name} could not be removed: {exc}")
        _say("success", f"Removed the sample documents: {', '.join(samples)}.")
        st.rerun()


def sidebar(config: Settings, workspace_page: Any) -> None:
    """The Run page's sidebar: "Your documents", a list and Add files; the rest on the Workspace page."""
    ws = workspace(config)
    with st.sidebar:
        st.subheader(
            "Your documents",
            help="The files the agent's document tools read: search_documents, read_file, query_table.",
        )
        show_messages()
        try:
            files = documents_table(ws)
        except Exception as exc:  # noqa: BLE001 - the Run page must draw even with a broken index
            st.warning(f"The documents could not be listed: {ui.md_label(exc, 200)}")
            return
        if files.empty:
            st.caption("No documents yet: add PDF, Word, Markdown, text, CSV or JSON files.")
        else:
            lines = [
                f"- {ui.md_label(r.name, 40)} · {ui.escape_md(r.extent)}"
                + (" · *sample*" if r.sample else "")
                + (" ⚠️" if r.note else "")
                for r in files.itertuples()
            ]
            st.markdown("\n".join(lines))
        add_files(ws, key="ws_side_upload", compact=True)
        st.page_link(workspace_page, label="Preview, download or remove", icon=":material/folder_open:")
        if config.store_url:
            st.caption(STORE_NOTE)
