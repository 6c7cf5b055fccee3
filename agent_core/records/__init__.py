"""Saved runs: the record's type and JSON file, the summary index, and the tables read from them.

Here: ``run_record`` (the record's TypedDicts, ``docs/run.schema.json`` is made from them),
``files`` (one JSON file per run, written atomically, read tolerantly), ``columns`` (the run
summary columns, once), ``index`` (the SQLite summary index), ``store`` and ``tables`` (many
records as pandas tables), ``queries`` (what the History and Tool-stats pages ask of a store),
``filters``, ``stats``, ``answer_check_stats`` and ``coverage`` (tables computed from them), and
``decided`` (who chose each tool call and how each step was held, in plain words).

May import: the foundation modules (``errors``, ``masking``, ``store_url``, ``settings``) and
``text``. Imported by everything above: tools never need it, the loop writes records, pages read them.
"""
