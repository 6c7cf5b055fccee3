"""The team store's URL (``AGENT_STORE_URL``) read without a database: where it points, and
how to show it or a message about it with no password in it.

Settings check the URL with it; :mod:`agent_core.pgstore` connects with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

SCHEMES = ("postgresql://", "postgres://")


class StoreError(Exception):
    """The team store cannot be used; the message is plain, names host and port, has no password."""

    def __init__(self, message: str, *, where: str = "") -> None:
        super().__init__(message)
        self.where = where
        """``host:port`` of the server (empty when the URL itself is wrong)."""


class StoreURLError(StoreError, ValueError):
    """``AGENT_STORE_URL`` is not a PostgreSQL URL (bad input: exit code 2)."""


@dataclass(frozen=True)
class StoreAddress:
    """Where a store URL points, without its password (what messages and the UI may show)."""

    host: str
    port: str
    user: str
    dbname: str

    @property
    def where(self) -> str:
        """``host:port`` (a Unix socket folder stands for the host)."""
        return f"{self.host}:{self.port}"

    def __str__(self) -> str:
        user = f"{self.user}@" if self.user else ""
        return f"postgresql://{user}{self.where}/{self.dbname}"


def _parse(url: str) -> dict[str, Any]:
    text = (url or "").strip()
    if not text:
        raise StoreURLError("AGENT_STORE_URL is empty: set it to postgresql://user:password@host:port/database")
    if "://" in text and not text.startswith(SCHEMES):
        scheme = text.split("://", 1)[0]
        raise StoreURLError(
            f"AGENT_STORE_URL must start with postgresql:// (got a {scheme[:20]!r} URL); "
            "the folder store needs no URL (leave AGENT_STORE_URL unset)"
        )
    try:
        return conninfo_to_dict(text)
    except psycopg.Error:
        # libpq's message may quote the URL (and so the password): say what is wrong without it.
        raise StoreURLError(
            "AGENT_STORE_URL is not a valid PostgreSQL URL: expected postgresql://user:password@host:port/database"
        ) from None


def address(url: str) -> StoreAddress:
    """Host, port, user and database of ``url`` (libpq's defaults filled in); :class:`StoreURLError` if it is not a URL."""
    params = _parse(url)
    host = str(params.get("host") or params.get("hostaddr") or "localhost")
    port = str(params.get("port") or "5432")
    if not re.fullmatch(r"\d{1,5}(,\d{1,5})*", port):
        raise StoreURLError(f"AGENT_STORE_URL has a port that is not a number ({port[:20]!r})")
    if (
        "@" in host
    ):  # postgresql://ana:p@ss@db/runs: libpq splits at the first @, so the host holds part of the password
        raise StoreURLError(
            "AGENT_STORE_URL has an '@' after the host's start: write an '@' in the user or password as %40"
        )
    return StoreAddress(
        host=host, port=port, user=str(params.get("user") or ""), dbname=str(params.get("dbname") or "")
    )


def safe_url(url: str) -> str:
    """``url`` as it may be shown: ``postgresql://user@host:port/db``, the password left out."""
    try:
        return str(address(url))
    except StoreURLError:
        return "(an invalid AGENT_STORE_URL)"


def password_of(url: str) -> str:
    """The password in ``url`` ('' when none), so messages can be scrubbed of it."""
    try:
        return str(_parse(url).get("password") or "")
    except StoreURLError:
        return ""


def scrub(text: str, url: str) -> str:
    """``text`` with the URL's password (and any ``user:password@`` in a URL) replaced by ``***``."""
    password = password_of(url)
    if len(password) >= 3:
        text = text.replace(password, "***")
    return re.sub(r"(postgres(?:ql)?://[^:/@\s]*):[^@\s]*@", r"\1:***@", text)
