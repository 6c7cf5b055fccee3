"""The local model's early load: started with the app, its progress on the Run page.

The engine side is :mod:`agent_core.providers.local.preload`; a Run click during the load waits for
it (with the same progress in the run view) and never loads a second copy.
"""

from __future__ import annotations

import os

import streamlit as st

from agent_core.providers.local import preload
from agent_core.settings import Settings
from ui import common as ui


def start(config: Settings) -> None:
    """Start loading the local model in the background, once per server process, when it is the
    default provider (``LOCAL_PRELOAD=0`` turns this off). Under ``streamlit run serve.py`` the
    server's start has already begun it."""
    if preload.current() is None:
        preload.start_if_default(config, os.environ)


def show() -> None:
    """The early load's state under the provider box: a progress bar while it runs (redrawn every
    second), a short line when it is done or failed."""
    state = preload.current()
    if state is None:
        return
    if state.running:
        _progress()
    elif state.error:
        st.caption(f"⚠ Loading the local model early failed: {ui.escape_md(state.error[:300])}. A run tries again.")
    else:
        st.caption(f"✅ Local model ready ({ui.escape_md(state.summary)})")


@st.fragment(run_every=1.0)
def _progress() -> None:
    state = preload.current()
    if state is None or not state.running:
        if state is not None and not state.error:
            st.caption(f"✅ Local model ready ({ui.escape_md(state.summary)})")
        return
    progress = state.progress
    share = progress.done / progress.total if progress and progress.total else 0.0
    text = progress.message if progress else "starting"
    st.progress(
        min(1.0, max(0.0, share)),
        text=f"Loading the local model in the background: {ui.escape_md(text)} · {state.elapsed_s():.0f} s "
        "(a run started now waits for it)",
    )
