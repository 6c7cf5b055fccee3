"""Agent Workbench's server: ``streamlit run serve.py`` serves the app (``app.py``) and starts
loading the local model as the server starts, before any page is open.

``streamlit run app.py`` serves the same app; there the load starts with the first page a browser
opens, and a Run clicked at once waits for it. Here a person who opens the page and clicks Run
finds the model loaded and its prompt ready. The load runs in a background thread (the server
answers at once); ``LOCAL_PRELOAD=0`` turns it off, and it only happens when the local model is the
default provider (:func:`agent_core.providers.local.preload.start_if_default`).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import streamlit as st

log = logging.getLogger("agent_workbench.serve")


def preload_at_start() -> None:
    """Start the local model's early load with this process's settings (the environment and
    ``.env``); settings it cannot read are left for the page to report."""
    from agent_core.providers.local import preload
    from agent_core.settings import Settings

    try:
        settings = Settings.from_env()
    except ValueError as exc:
        log.warning("the local model is not loaded at the server's start: %s", exc)
        return
    preload.start_if_default(settings, os.environ)


@asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    # A thread, not the event loop: importing the engine and checking the model take a moment,
    # and the server should answer its first request meanwhile.
    threading.Thread(target=preload_at_start, name="preload-at-start", daemon=True).start()
    yield


app = st.App("app.py", lifespan=lifespan)
