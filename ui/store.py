"""The team store in the pages (writing side; the reading pages' banner is in ``_query_ui``): who
runs are recorded as, the outbox sent at start, the Run page's banner when the database cannot be
reached, and the note after a run whose steps did not all reach it. The password never shows:
only :attr:`Settings.store_label` and the store's own plain messages do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from agent_core.settings import Settings
from ui.common import escape_md


@st.cache_resource(show_spinner=False)
def _send_outbox_at_start(url: str, data_dir: str) -> None:
    from agent_core.pgstore.sink import writer_for

    writer_for(url, Path(data_dir)).available()  # connecting sends the runs the outbox holds


def send_outbox_at_start(config: Settings) -> None:
    """Once per process, when the app starts: send the runs an earlier session could not (steps
    saved while the database was away, runs of a process that died)."""
    if config.store_url:
        _send_outbox_at_start(config.store_url, str(config.data_dir.resolve()))


def run_banner(config: Settings) -> None:
    """On the Run page: runs go on when the team store is down; this says where they are kept."""
    if not config.store_url:
        return
    from agent_core.pgstore.sink import writer_for

    writer = writer_for(config.store_url, config.data_dir)
    if writer.available():
        return
    st.warning(
        f"**Team store unavailable** — {_plain(writer.problem or config.store_label)} Runs still work: every "
        f"step is saved in {_plain(config.runs_dir)} and sent to the team store when it is back.",
        icon="🛰️",
    )


def run_note(config: Settings, run_id: str | None) -> None:
    """After a run: say so when some of its steps did not reach the team store."""
    if not config.store_url or not run_id:
        return
    from agent_core.pgstore.sink import team_note

    note = team_note(config, run_id)
    if note:
        st.info(_plain(note), icon="🛰️")


def _plain(text: Any) -> str:
    """Text shown as it is (no markdown, no HTML)."""
    return str(escape_md(str(text)))
