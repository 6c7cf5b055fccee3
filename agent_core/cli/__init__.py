"""The command line, ``python -m agent_core``: ``main`` (the parser, ``run`` and ``runs``, and the
wiring of the others), ``common`` (exit codes, bad input), and one module per group of commands:
``compare`` (compare, replay, arena), ``explain`` (summary, export --html, import), ``store``
(sync), ``evals`` (eval) and ``otel`` (export --otlp, OTLP import).

May import: all of ``agent_core``. Nothing in ``agent_core`` imports it (the pages do not either).
"""
