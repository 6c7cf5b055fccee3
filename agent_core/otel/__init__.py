"""OpenTelemetry: a saved run as GenAI spans (``export``, ``encode``, ``conventions``), sent over
OTLP/HTTP (``send``, and ``auto`` after each run), and OTLP JSON files read back into runs
(``importer``). The commands are in :mod:`agent_core.cli.otel`.

May import: the foundation modules, ``text`` and ``records``. Imported by the loop (``auto``),
the CLI and the pages; ``pgstore`` and it do not import each other.
"""
