"""The team store: run records in PostgreSQL (``AGENT_STORE_URL=postgresql://…``).

The folder (``agent_data/runs/``) stays the default store. The schema is the numbered SQL files
in ``migrations/``, applied in order at start and recorded in ``schema_migrations``.
"""
