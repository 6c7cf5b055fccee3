"""The dashboard's helpers: what the page scripts in ``pages/`` draw with (Streamlit widgets,
safe text, the live and saved run views), one module per feature.

May import: streamlit and ``agent_core``. Imported by ``app.py``, ``serve.py`` and ``pages/``;
``agent_core`` never imports it, and it never imports ``pages``.
"""
