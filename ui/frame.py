"""Where the app's frame works around Streamlit's page routing; every page calls
:func:`ensure_app_frame` first, app.py calls :func:`open_default_page_by_name`.

The product keeps its top-level ``pages/`` folder (the design names it), and app.py builds the
navigation with ``st.navigation``. But until the first ``st.navigation`` call of a server,
Streamlit 1.67 still treats an app with a ``pages/`` folder as an old-style multipage app
(``PagesManager.uses_pages_directory``; a maintainer's note on streamlit PR #10276 describes it):
a shared link opened as the very first request on a fresh server (``/history?run=…``,
``/tool_stats``) would run ``pages/history.py`` alone, outside app.py, with every file of the
folder listed as a page. No documented option turns that mode off.

:func:`ensure_app_frame` clears the flag and reruns, which runs app.py, whose navigation opens
the same page (same URL path, same query). That happens once per server.
``tests/test_frame.py`` fails when a Streamlit upgrade stops setting the flag: then this module
can go. The browser test ``test_browser.py`` opens each page first on a fresh server.
"""

from __future__ import annotations

import streamlit as st


def ensure_app_frame() -> None:
    """Make sure this page runs inside app.py (navigation, page config, sidebar); call it first.

    (AppTest sets the flag again before every run, and a rerun would drop the widget event being
    tested: there the page runs as it is.)
    """
    try:
        from streamlit import config
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without it has no such mode
        return
    if PagesManager.uses_pages_directory and not config.get_option("global.appTest"):
        PagesManager.uses_pages_directory = False
        st.rerun()


def open_default_page_by_name(name: str) -> None:
    """Let ``/<name>`` open the default page (whose own URL is ``/``) instead of a "Page not found"
    box over it; call before ``st.navigation``.

    Streamlit gives the default page the empty URL path and looks a requested page up by its
    path, so ``/run`` (the Run page is the default) matched nothing. Clearing the request for
    that name makes navigation fall back to the default page, quietly.
    """
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx
    except ImportError:  # a Streamlit without it has no such lookup
        return
    ctx = get_script_run_ctx()
    manager = getattr(ctx, "pages_manager", None)
    if manager is None or getattr(manager, "intended_page_name", None) != name:
        return
    if not getattr(manager, "intended_page_script_hash", None):
        manager.set_script_intent("", "")
