"""Connecting to the team store, with messages a person can act on and no password in them.

:func:`connect` turns libpq's failures into :class:`StoreError` subclasses whose text names the
host and port (never the password): the server cannot be reached, the password is wrong, the
database does not exist, the server is too old. The original psycopg exception is never chained
(its ``pgconn`` carries the password), so a traceback or a log line cannot leak it either.
"""

from __future__ import annotations

import re
from typing import Any

import psycopg

from agent_core.store_url import (  # noqa: F401 (part of this module's API)
    SCHEMES,
    StoreAddress,
    StoreError,
    StoreURLError,
    address,
    password_of,
    safe_url,
    scrub,
)

MIN_SERVER_VERSION = 120000
"""PostgreSQL 12: the first with generated columns (``tool_calls.retried``)."""
DEFAULT_CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a server before it counts as unreachable."""
APPLICATION_NAME = "agent-workbench"


class StoreUnreachable(StoreError):
    """No server answers at that host and port (down, firewalled, wrong port): fall back to the folder."""


class StoreAuthError(StoreError):
    """The server refused the user or the password."""


class StoreMissingDatabase(StoreError):
    """The server is there but the database named in the URL is not."""


class StoreTooOld(StoreError):
    """The server's PostgreSQL version is older than :data:`MIN_SERVER_VERSION`."""


STATEMENT_TIMEOUT_MS = 120_000
"""The longest one statement may run (a Tool-stats aggregate over a large store takes seconds)."""
SESSION_OPTIONS = (
    f"-c statement_timeout={STATEMENT_TIMEOUT_MS} -c agent_workbench.writes_origin=on "
    "-c agent_workbench.writes_retries=on"
)
"""Settings of every session. ``agent_workbench.writes_origin``: this code writes the call rows'
``origin`` and ``first_model_use`` itself, so the trigger that fills them in for an app instance
still on older code (migration 0005) leaves its inserts alone; ``agent_workbench.writes_retries``:
the same for ``runs.retries`` (migration 0006)."""


def _reason(exc: BaseException, url: str) -> str:
    """libpq's reason, on one line, without the password."""
    message = str(exc).strip()
    # "connection failed: connection to server at "h", port p failed: FATAL:  <reason>"
    message = message.split("\n", 1)[0]
    message = re.sub(r"^connection failed:\s*", "", message)
    message = re.sub(r'^connection to server at "[^"]*"(?: \([^)]*\))?, port \d+ failed:\s*', "", message)
    message = re.sub(r"^FATAL:\s*", "", message)
    return scrub(message, url) or type(exc).__name__


def explain(exc: BaseException, url: str) -> StoreError:
    """The :class:`StoreError` for a failure to connect to ``url`` (or to use the connection)."""
    if isinstance(exc, StoreError):
        return exc
    where = address(url)
    reason = _reason(exc, url)
    low = reason.lower()
    if "password authentication failed" in low or "no password supplied" in low or "authentication failed" in low:
        return StoreAuthError(
            f"The team store at {where.where} refused user {where.user!r}: wrong user name or password "
            "(check AGENT_STORE_URL).",
            where=where.where,
        )
    if re.search(r'role "[^"]*" does not exist', reason):
        return StoreAuthError(
            f"The team store at {where.where} has no user {where.user!r} (check AGENT_STORE_URL).", where=where.where
        )
    if re.search(r'database "[^"]*" does not exist', reason):
        return StoreMissingDatabase(
            f"The team store at {where.where} has no database {where.dbname!r}: create it "
            f"(createdb -O {where.user or 'USER'} {where.dbname}) or fix AGENT_STORE_URL.",
            where=where.where,
        )
    return StoreUnreachable(f"Cannot reach the team store at {where.where} ({reason}).", where=where.where)


def server_version_text(number: int) -> str:
    """``150004`` → ``15.4``."""
    return f"{number // 10000}.{number % 10000}" if number >= 100000 else f"{number // 10000}.{number // 100 % 100}"


def connect(url: str, *, connect_timeout: float = DEFAULT_CONNECT_TIMEOUT) -> psycopg.Connection[Any]:
    """An autocommit connection to the store at ``url`` (write inside ``conn.transaction()``).

    Raises :class:`StoreURLError` (not a PostgreSQL URL), :class:`StoreUnreachable`,
    :class:`StoreAuthError`, :class:`StoreMissingDatabase` or :class:`StoreTooOld`, each with a
    message that names host and port and never the password.
    """
    where = address(url)  # StoreURLError for a URL that is not one
    try:
        conn = psycopg.connect(
            url,
            autocommit=True,
            connect_timeout=max(1, round(connect_timeout)),
            application_name=APPLICATION_NAME,
            # A dead network path or a stuck query must not hold a page (and every page waiting
            # behind the same connection) for the kernel's 15 minutes.
            keepalives=1,
            keepalives_idle=30,
            keepalives_interval=10,
            keepalives_count=3,
            tcp_user_timeout=60_000,
            options=SESSION_OPTIONS,
        )
    except psycopg.Error as exc:
        raise explain(exc, url) from None
    version = conn.info.server_version
    if version < MIN_SERVER_VERSION:
        conn.close()
        raise StoreTooOld(
            f"The team store at {where.where} runs PostgreSQL {server_version_text(version)}, which is too old: "
            f"it needs {server_version_text(MIN_SERVER_VERSION)} or newer.",
            where=where.where,
        )
    return conn
