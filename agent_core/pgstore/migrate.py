"""The migration runner: the numbered SQL files of ``migrations/``, applied in order at start.

Each file runs in its own transaction and is recorded in ``schema_migrations`` (number, name,
when) in that same transaction, so a file is applied completely or not at all. Several app
instances starting at once are safe: the one that finds work to do takes a session advisory lock,
reads the table again under it, and applies what is still missing; the others wait on the lock
and then find nothing to do. A store whose migrations are all applied is only read (one query), so
a viewer with a read-only database user starts too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
LOCK_KEY = 0x4157_5053_7430_0001
"""``pg_advisory_lock`` key of the runner (an arbitrary constant, the same in every instance)."""
_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    path: Path

    def sql(self) -> str:
        return self.path.read_text(encoding="utf-8")


def migrations(folder: Path = MIGRATIONS_DIR) -> list[Migration]:
    """The migration files, in order; ValueError for a misnamed file or a number used twice."""
    found: dict[int, Migration] = {}
    for path in sorted(folder.glob("*.sql")):
        match = _NAME.match(path.name)
        if not match:
            raise ValueError(f"migration file {path.name!r} is not named NNNN_name.sql")
        version = int(match.group(1))
        if version in found:
            raise ValueError(f"migrations {found[version].path.name!r} and {path.name!r} share the number {version}")
        found[version] = Migration(version, path.stem, path)
    return [found[v] for v in sorted(found)]


def applied(conn: psycopg.Connection[Any]) -> set[int]:
    """Versions recorded in ``schema_migrations`` (empty when the table is not there yet)."""
    row = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return set()
    return {int(v) for (v,) in conn.execute("SELECT version FROM schema_migrations").fetchall()}


def migrate(conn: psycopg.Connection[Any], folder: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply the migrations ``conn``'s database does not have yet; the names applied, in order.

    ``conn`` must be in autocommit mode (as :func:`agent_core.pgstore.connect` returns it).
    """
    wanted = migrations(folder)
    if {m.version for m in wanted} <= applied(conn):
        return []
    done: list[str] = []
    conn.execute("SELECT pg_advisory_lock(%s)", (LOCK_KEY,))
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        have = applied(conn)  # again, under the lock: another instance may have just applied them
        for migration in wanted:
            if migration.version in have:
                continue
            with conn.transaction():
                conn.execute(migration.sql().encode("utf-8"))  # no parameters: several statements per file
                conn.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (migration.version, migration.name)
                )
            done.append(migration.name)
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (LOCK_KEY,))
    return done
