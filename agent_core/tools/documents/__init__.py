"""Your documents: the workspace's files read (PDF pages, DOCX sections, Markdown, text, CSV and
JSON tables), indexed in SQLite for ranked search with citations, and queried as tables.

``workspace.Workspace`` is the one way in (add, remove, list, search, read); ``tools`` builds
``query_table``. Part of the ``tools`` layer: may import the foundation modules, ``text`` and the
rest of ``tools``; imported by the tools, the CLI and the dashboard.
"""
