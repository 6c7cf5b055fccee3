"""The team store: run records in PostgreSQL (``AGENT_STORE_URL=postgresql://…``).

The folder (``agent_data/runs/``) stays the default store. The schema is the numbered SQL files
in ``migrations/``, applied in order at start and recorded in ``schema_migrations``
(:mod:`agent_core.pgstore.migrate`). :func:`connect` opens a connection with plain errors
(:mod:`agent_core.pgstore.connection`) and brings the schema up to date;
:func:`~agent_core.pgstore.write.upsert_records` writes records, guarded so that an older
snapshot never replaces a newer one.

May import: the foundation modules, ``text`` and ``records`` (it answers the same queries as the
folder). Imported by the loop (its sink), the CLI and the pages; ``otel`` and it do not import
each other.
"""

from __future__ import annotations

from typing import Any

import psycopg

from agent_core.pgstore.connection import (
    DEFAULT_CONNECT_TIMEOUT,
    StoreAddress,
    StoreAuthError,
    StoreError,
    StoreMissingDatabase,
    StoreTooOld,
    StoreUnreachable,
    StoreURLError,
    address,
    explain,
    safe_url,
    scrub,
)
from agent_core.pgstore.connection import connect as _connect
from agent_core.pgstore.migrate import migrate
from agent_core.pgstore.write import RunRows, WriteResult, rows_of, upsert_records

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "RunRows",
    "StoreAddress",
    "StoreAuthError",
    "StoreError",
    "StoreMissingDatabase",
    "StoreTooOld",
    "StoreURLError",
    "StoreUnreachable",
    "WriteResult",
    "address",
    "connect",
    "explain",
    "migrate",
    "rows_of",
    "safe_url",
    "scrub",
    "upsert_records",
]


def connect(
    url: str, *, connect_timeout: float = DEFAULT_CONNECT_TIMEOUT, migrations: bool = True
) -> psycopg.Connection[Any]:
    """An autocommit connection to the store at ``url`` with its schema up to date.

    Raises a :class:`StoreError` subclass with a plain message (host and port, never the
    password) when the server cannot be reached, refuses the login, lacks the database, is too
    old, or the schema cannot be brought up to date.
    """
    conn = _connect(url, connect_timeout=connect_timeout)
    if migrations:
        try:
            migrate(conn)
        except psycopg.Error as exc:
            conn.close()
            where = address(url).where
            reason = scrub(str(exc).strip().split("\n", 1)[0], url)
            if isinstance(exc, psycopg.errors.InsufficientPrivilege):
                raise StoreError(
                    f"The team store at {where} needs its tables created or updated, and user "
                    f"{address(url).user!r} may not do it ({reason}): start one instance with the database's owner.",
                    where=where,
                ) from None
            if isinstance(exc, psycopg.OperationalError):
                raise explain(exc, url) from None
            raise StoreError(f"The team store at {where}: the schema update failed ({reason}).", where=where) from None
    return conn
