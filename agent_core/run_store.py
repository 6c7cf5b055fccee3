"""The run store of the settings: the runs folder, or the team store (PostgreSQL) when
``AGENT_STORE_URL`` is set. :func:`open_store` is the one way to get it.

:class:`TeamStore` reads History and Tool stats through SQL (``queries()``, the
:class:`agent_core.pgstore.reading.PgQueries` of the database) and opens single records from the
database. When the database cannot be reached it reads the local runs folder instead and says so
(:attr:`TeamStore.problem`; the pages draw it as a banner), trying the database again at most every
:attr:`agent_core.pgstore.sink.StoreWriter.retry_after` seconds. Connecting also sends the runs the
outbox holds (steps saved while the database was away, runs of a process that died).
"""

from __future__ import annotations

import importlib
import logging
from pathlib import Path
from typing import Any

import pandas as pd

from agent_core.errors import RecordError
from agent_core.settings import Settings
from agent_core.store import RunStore

log = logging.getLogger("agent_core.run_store")


def _module(name: str) -> Any:
    """The query API's modules (:mod:`agent_core.queries`, :mod:`agent_core.pgstore.reading`), imported when first used."""
    return importlib.import_module(name)


def open_store(settings: Settings) -> RunStore | TeamStore:
    """The run store ``settings`` name: the folder (no ``AGENT_STORE_URL``), or the team store."""
    if settings.store_url:
        return TeamStore(settings)
    return RunStore(settings.runs_dir)


class TeamStore:
    """The team store for the pages and the CLI, with the local folder as its fallback."""

    def __init__(self, settings: Settings) -> None:
        from agent_core.pgstore.sink import writer_for

        assert settings.store_url, "TeamStore needs settings.store_url"
        self._url = settings.store_url
        self.label = settings.store_label
        """Where runs are stored, without the password (what the pages may show)."""
        self.runs_dir = Path(settings.runs_dir)
        self.folder = RunStore(settings.runs_dir)
        """The local runs folder: every step of this machine's runs, and the fallback for reading."""
        self.writer = writer_for(settings.store_url, settings.data_dir)
        self._queries: Any = None
        self._up = False

    # -- state ----------------------------------------------------------------------------------
    @property
    def problem(self) -> str | None:
        """Why the database is not used right now (plain, no password); None while it is."""
        return None if self._up else (self.writer.problem or f"The team store ({self.label}) was not reached yet.")

    @property
    def version(self) -> Any:
        return self.folder.version if not self._up else ("pg", self.label)

    def refresh(self) -> bool:
        """Check the database (sending the outbox when it is back); read the folder while it is down."""
        was = self._up
        self._up = self.writer.available()
        if not self._up:
            self.folder.refresh()
        return self._up != was or not self._up

    # -- reading --------------------------------------------------------------------------------
    def queries(self) -> Any:
        """History's and Tool stats' questions: SQL in the database, or the folder's tables while it is down."""
        if not self._up:
            return _module("agent_core.queries").FolderQueries(self.folder)
        if self._queries is None:
            from agent_core import pgstore

            url = self._url
            self._queries = _module("agent_core.pgstore.reading").PgQueries(
                lambda: pgstore.connect(url, migrations=False)
            )
        return self._queries

    def runs(self) -> pd.DataFrame:
        """Every run's row, newest first (the columns of :meth:`RunStore.runs`)."""
        if not self._up:
            return self.folder.runs()
        everything = _module("agent_core.queries").RunFilter()
        rows: pd.DataFrame = self.queries().page(everything, size=10**9).rows
        return rows

    def tool_calls(self) -> pd.DataFrame:
        """The local folder's tool-call table (Tool stats asks :meth:`queries` instead)."""
        return self.folder.tool_calls()

    def problems(self) -> list[tuple[str, str]]:
        """Unreadable files of the local folder, while it is what is shown."""
        return [] if self._up else self.folder.problems()

    def load(self, run_id: str) -> dict[str, Any]:
        """The record of ``run_id`` from the database (the local folder's copy when the database
        is down or does not have it yet); :class:`RecordError` when neither has it."""
        if self._up:
            import psycopg

            try:
                record: dict[str, Any] = self.queries().load(run_id)
                return record
            except RecordError:
                pass
            except psycopg.Error as exc:  # gone since the last refresh: the folder until it is back
                log.info("team store: %s", type(exc).__name__)
                self._up = False
        return self.folder.load(run_id)
