"""The engine's save path to the team store: each step's record is upserted after it is written
to the runs folder.

The folder is written first and always, so the run never depends on the database: when the
database is down (or goes away mid-run) a save is skipped with a note (:attr:`StoreWriter.problem`),
the run is left in the outbox (:mod:`agent_core.pgstore.outbox`), and the connection is tried again
at most every :attr:`StoreWriter.retry_after` seconds. Once it is back, the outbox is sent first
(the steps saved meanwhile, and runs of earlier sessions), then the save goes on as usual.

One writer per process and store (:func:`writer_for`), shared by every run of the process under
a lock.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import psycopg

from agent_core.pgstore import outbox
from agent_core.pgstore.connection import DEFAULT_CONNECT_TIMEOUT, StoreError, address, explain, scrub
from agent_core.pgstore.write import WriteResult, upsert_records
from agent_core.records.run_record import LIVE_STATUSES

log = logging.getLogger("agent_core.pgstore")


class StoreWriter:
    """Upserts records to the store at ``url``; never raises for a database problem."""

    retry_after: float = 15.0
    """Seconds between attempts to reach a store that was down (a save in between skips it)."""

    def __init__(self, url: str, data_dir: Path, *, connect_timeout: float = DEFAULT_CONNECT_TIMEOUT) -> None:
        self._url = url
        self.where = address(url).where
        self.data_dir = Path(data_dir)
        self.connect_timeout = connect_timeout
        self._lock = threading.Lock()
        self._conn: psycopg.Connection[Any] | None = None
        self._failed_at: float | None = None
        self.problem: str | None = None
        """Why the last save did not reach the store (plain, no password); None when it did."""
        self.missed: set[str] = set()
        """Runs of this process with a snapshot the store has not got (sent later from the outbox)."""
        self.sent_pending = WriteResult()
        """What sending the outbox did, over this writer's life (for notes and tests)."""

    # -- connection ---------------------------------------------------------------------------
    def _connection(self) -> psycopg.Connection[Any] | None:
        if self._conn is not None and not self._conn.closed:
            return self._conn
        if self._failed_at is not None and time.monotonic() - self._failed_at < self.retry_after:
            return None
        from agent_core.pgstore import connect  # connect + migrations

        try:
            self._conn = connect(self._url, connect_timeout=self.connect_timeout)
        except StoreError as exc:
            self._down(exc)
            return None
        self._failed_at = None
        try:
            self.sent_pending.add(outbox.send_pending(self._conn, self.data_dir))
        except psycopg.Error as exc:
            self._down(exc)
            return None
        return self._conn

    def _down(self, exc: BaseException) -> None:
        error = explain(exc, self._url) if isinstance(exc, psycopg.OperationalError) else exc
        message = scrub(str(error), self._url)
        if message != self.problem:  # once per outage (the person is told by the page or the CLI)
            log.info("team store: %s", message)
        self.problem = message
        self._failed_at = time.monotonic()
        if self._conn is not None:
            try:
                self._conn.close()
            except psycopg.Error:
                pass
            self._conn = None

    def available(self) -> bool:
        """Whether the store can be reached now (tries to connect unless it failed just now)."""
        with self._lock:
            return self._connection() is not None

    # -- saving -------------------------------------------------------------------------------
    def save(self, record: Mapping[str, Any]) -> bool:
        """Send one record (a run's latest snapshot); True when the store has it.

        The run is marked in the outbox until its final record is in; a database failure is
        noted in :attr:`problem` and logged, never raised.
        """
        run_id = str(record.get("run_id") or "")
        final = record.get("status") not in LIVE_STATUSES
        try:
            if not final:
                outbox.mark(self.data_dir, run_id)
        except OSError as exc:  # the folder save worked (it came first): go on without the mark
            log.warning("team store: cannot mark %s in the outbox: %s", run_id, exc)
        with self._lock:
            conn = self._connection()
            if conn is None:
                if final:
                    self._mark_quietly(run_id)
                return False
            try:
                upsert_records(conn, [record])
            except psycopg.OperationalError as exc:
                self._down(exc)
                self._mark_quietly(run_id)
                return False
            except (psycopg.Error, ValueError) as exc:
                if conn.closed or conn.broken:  # the connection went away in the middle
                    self._down(exc)
                    self._mark_quietly(run_id)
                    return False
                # this record, not the connection, is the problem
                self.problem = scrub(f"The team store at {self.where} refused run {run_id}: {exc}", self._url)
                log.warning("team store: %s", self.problem)
                self._mark_quietly(run_id)
                return False
            self.problem = None
        if final:
            outbox.clear(self.data_dir, run_id)
            self.missed.discard(run_id)
        return True

    def note(self, run_id: str, runs_dir: Path) -> str | None:
        """What to tell the person about ``run_id`` when the store did not get all of it; None when it did."""
        if run_id not in self.missed:
            return None
        why = self.problem or f"the team store at {self.where} could not be reached"
        return (
            f"{why.rstrip('.')}. This run is saved in {runs_dir} and will be sent to the team store at the next "
            "start, or now with: python -m agent_core sync"
        )

    def _mark_quietly(self, run_id: str) -> None:
        self.missed.add(run_id)
        try:
            outbox.mark(self.data_dir, run_id)
        except OSError as exc:
            log.warning("team store: cannot mark %s in the outbox: %s", run_id, exc)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


_writers: dict[tuple[str, str], StoreWriter] = {}
_writers_lock = threading.Lock()


def writer_for(url: str, data_dir: Path) -> StoreWriter:
    """The process's writer for the store at ``url`` (outbox under ``data_dir``)."""
    key = (url, str(Path(data_dir).resolve()))
    with _writers_lock:
        writer = _writers.get(key)
        if writer is None:
            writer = _writers[key] = StoreWriter(url, data_dir)
        return writer


def team_note(settings: Any, run_id: str) -> str | None:
    """The note for a run of this process whose steps did not all reach the team store (None: they did, or
    there is no team store)."""
    if not getattr(settings, "store_url", None):
        return None
    return writer_for(settings.store_url, settings.data_dir).note(run_id, settings.runs_dir)


def missed_note(settings: Any) -> str | None:
    """For a command that ran several runs (eval, arena, replay): one note when some of them did not
    all reach the team store; None when they did (or there is no team store)."""
    url = getattr(settings, "store_url", None)
    if not url:
        return None
    with _writers_lock:
        writer = _writers.get((url, str(Path(settings.data_dir).resolve())))
    if writer is None or not writer.missed:
        return None
    why = (writer.problem or f"the team store at {writer.where} could not be reached").rstrip(".")
    return (
        f"{why}. {len(writer.missed)} run(s) are saved in {settings.runs_dir} and will be sent to the team store "
        "at the next start, or now with: python -m agent_core sync"
    )


def forget_writers() -> None:
    """Close and drop every writer (tests; a process that changes its settings)."""
    with _writers_lock:
        for writer in _writers.values():
            writer.close()
        _writers.clear()
