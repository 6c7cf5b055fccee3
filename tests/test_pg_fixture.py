"""The throwaway PostgreSQL server the ``postgres`` tests use, and the first schema on it."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.postgres
psycopg = pytest.importorskip("psycopg")
MIGRATIONS = Path(__file__).resolve().parent.parent / "agent_core" / "pgstore" / "migrations"


def test_each_test_gets_an_empty_database_on_loopback(pg_url: str) -> None:
    assert "@127.0.0.1:" in pg_url
    with psycopg.connect(pg_url) as conn:
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
        major = conn.execute("SHOW server_version_num").fetchone()
    assert tables == (0,)
    assert int(major[0]) >= 150000


def test_the_first_migration_applies_and_computes_retried(pg_url: str) -> None:
    with psycopg.connect(pg_url) as conn:
        conn.execute((MIGRATIONS / "0001_initial.sql").read_text())
        conn.execute("INSERT INTO runs (run_id, record) VALUES ('r1', '{}'::jsonb)")
        conn.execute(
            "INSERT INTO tool_calls (run_id, seq, success, attempts) VALUES ('r1', 0, true, 2), ('r1', 1, false, 1)"
        )
        retried = conn.execute("SELECT seq, retried FROM tool_calls ORDER BY seq").fetchall()
        conn.execute("DELETE FROM runs WHERE run_id = 'r1'")
        left = conn.execute("SELECT count(*) FROM tool_calls").fetchone()
    assert retried == [(0, True), (1, False)]
    assert left == (0,)  # a run's calls go with it
