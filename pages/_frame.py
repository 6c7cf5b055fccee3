"""The one workaround for Streamlit's legacy ``pages/`` mode; every page calls it first.

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
