"""What is made from saved runs: the normalised ``trajectory``, ``compare`` (2–6 runs side by
side), ``replay`` (a run again on another model, tools answered from its log), ``arena`` (one
goal on several models at once), ``explain`` and ``explain_ai`` (a run in plain words), and
``export_html`` / ``import_run`` (a run as one web page, and back).

May import: everything below it (foundation, ``text``, ``records``, ``tools``, ``checks``,
``providers``, ``pgstore``, ``otel``, ``run``). Imported by ``cli`` and the pages.
"""
