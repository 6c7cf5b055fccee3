"""People's labels in the team store: the ``run_labels`` table (migration 0006).

:class:`PgLabels` answers :class:`agent_core.records.labels.LabelStore` with SQL. :class:`TeamLabels`
is what the pages and the command line use with ``AGENT_STORE_URL`` set: every label is written to
the folder's journal first (so a database outage loses none) and then to the table; reads come from
the table, or from the folder while the database cannot be read (:attr:`TeamLabels.problem` says
why, host and port only). ``sync`` sends the folder's labels to the table and back
(:func:`sync_labels`); the newer ``labelled_at`` of a run wins everywhere.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import psycopg

from agent_core.pgstore.connection import StoreError, explain
from agent_core.records.columns import epoch_us
from agent_core.records.labels import FolderLabels, ImportCount, Label, LabelStore, from_mapping

log = logging.getLogger("agent_core.pgstore.labels")
_COLUMNS = "run_id, verdict, reason, corrected_answer, user_name, labelled_at"


def _label(row: Sequence[Any]) -> Label:
    run_id, verdict, reason, corrected, user, at = row
    return from_mapping(
        {
            "run_id": run_id,
            "verdict": verdict,
            "reason": reason,
            "corrected_answer": corrected,
            "user": user,
            "labelled_at": at,
        }
    )


def _newest_each(labels: Iterable[Label]) -> list[Label]:
    """One label per run (the newest; the later one of equal times), in run-id order."""
    from agent_core.records.labels import newer

    best: dict[str, Label] = {}
    for label in labels:
        have = best.get(label.run_id)
        if have is None or newer(label, have) or label.labelled_at == have.labelled_at:
            best[label.run_id] = label
    return [best[k] for k in sorted(best)]


class PgLabels:
    """Labels in the ``run_labels`` table of the team store.

    Args:
        connect: opens an autocommit connection whose schema is up to date (e.g.
            ``lambda: agent_core.pgstore.connect(url)``); called again after a connection is lost.
    """

    def __init__(self, connect: Callable[[], psycopg.Connection[Any]]) -> None:
        self._connect = connect
        self._conn: psycopg.Connection[Any] | None = None
        self._lock = threading.RLock()

    @classmethod
    def from_url(cls, url: str) -> PgLabels:
        from agent_core.pgstore import connect

        def opened() -> psycopg.Connection[Any]:
            try:
                return connect(url)
            except psycopg.Error as exc:
                raise explain(exc, url) from None

        return cls(opened)

    def _run(self, query: str, params: Any = None, *, rows: bool = True) -> list[tuple[Any, ...]]:
        with self._lock:
            for attempt in (1, 2):
                if self._conn is None or self._conn.closed:
                    self._conn = self._connect()
                    self._conn.autocommit = True
                conn = self._conn
                try:
                    with conn.cursor() as cur:
                        cur.execute(query, params)
                        return cur.fetchall() if rows else []
                except psycopg.OperationalError:
                    if attempt == 2 or not conn.closed:
                        raise
                    self._conn = None
            raise AssertionError("unreachable")

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def get(self, run_ids: Sequence[str]) -> dict[str, Label]:
        ids = [str(r) for r in run_ids if "\x00" not in str(r)]
        if not ids:
            return {}
        found = self._run(f"SELECT {_COLUMNS} FROM run_labels WHERE run_id = ANY(%s)", [ids])
        return {row[0]: _label(row) for row in found}

    def all(self) -> list[Label]:
        return [_label(row) for row in self._run(f"SELECT {_COLUMNS} FROM run_labels ORDER BY labelled_us, run_id")]

    def by_verdict(self, verdicts: Iterable[str]) -> set[str]:
        wanted = [v for v in verdicts if v]
        found = self._run("SELECT run_id FROM run_labels WHERE verdict = ANY(%s)", [wanted])
        return {row[0] for row in found}

    def version(self) -> Any:
        (row,) = self._run("SELECT count(*), max(written_at) FROM run_labels")
        return tuple(row)

    def put(self, labels: Iterable[Label]) -> ImportCount:
        batch = _newest_each(labels)
        count = ImportCount()
        if not batch:
            return count
        columns = list(
            zip(*[(x.run_id, x.verdict, x.reason, x.corrected_answer, x.user, x.labelled_at) for x in batch])
        )
        stamps = [epoch_us(x.labelled_at.replace("Z", "+00:00")) or 0 for x in batch]
        written = self._run(
            "INSERT INTO run_labels AS l (run_id, verdict, reason, corrected_answer, user_name, labelled_at, labelled_us)"
            " SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::bigint[])"
            " ON CONFLICT (run_id) DO UPDATE SET verdict = EXCLUDED.verdict, reason = EXCLUDED.reason,"
            " corrected_answer = EXCLUDED.corrected_answer, user_name = EXCLUDED.user_name,"
            " labelled_at = EXCLUDED.labelled_at, labelled_us = EXCLUDED.labelled_us, written_at = now()"
            " WHERE EXCLUDED.labelled_us > l.labelled_us"
            " RETURNING (l.xmax = 0)",
            [*[list(c) for c in columns], stamps],
        )
        count.added = sum(1 for (inserted,) in written if inserted)
        count.replaced = len(written) - count.added
        count.kept = len(batch) - len(written)
        return count

    def remove(self, run_id: str) -> bool:
        return bool(self._run("DELETE FROM run_labels WHERE run_id = %s RETURNING run_id", [run_id]))


class TeamLabels:
    """The folder's journal and the team store's table together (see the module docstring)."""

    def __init__(self, table: PgLabels, folder: FolderLabels, url: str | None = None) -> None:
        self.table = table
        self.folder = folder
        self.url = url
        self.problem: str | None = None
        """Why the last read or write did not reach the team store (plain words); None when it did."""

    def _failed(self, exc: BaseException) -> None:
        self.problem = str(explain(exc, self.url)) if self.url and not isinstance(exc, StoreError) else str(exc)
        log.warning("team store labels: %s", self.problem)

    def _read(self, ask: Callable[[LabelStore], Any]) -> Any:
        try:
            found = ask(self.table)
        except (StoreError, psycopg.Error) as exc:
            self._failed(exc)
            return ask(self.folder)
        self.problem = None
        return found

    def get(self, run_ids: Sequence[str]) -> dict[str, Label]:
        found: dict[str, Label] = self._read(lambda s: s.get(run_ids))
        return found

    def all(self) -> list[Label]:
        found: list[Label] = self._read(lambda s: s.all())
        return found

    def by_verdict(self, verdicts: Iterable[str]) -> set[str]:
        wanted = list(verdicts)
        found: set[str] = self._read(lambda s: s.by_verdict(wanted))  # type: ignore[attr-defined]
        return found

    def version(self) -> Any:
        try:
            return ("team", self.table.version())
        except (StoreError, psycopg.Error):
            return ("folder", self.folder.version())

    def put(self, labels: Iterable[Label]) -> ImportCount:
        batch = list(labels)
        local = self.folder.put(batch)
        try:
            shared = self.table.put(batch)
        except (StoreError, psycopg.Error) as exc:
            self._failed(exc)
            return local
        self.problem = None
        return shared

    def remove(self, run_id: str) -> bool:
        here = self.folder.remove(run_id)
        try:
            there = self.table.remove(run_id)
        except (StoreError, psycopg.Error) as exc:
            self._failed(exc)
            return here
        self.problem = None
        return here or there


def label_store(settings: Any) -> FolderLabels | TeamLabels:
    """The labels of ``settings``' runs: the team store's (with the folder's journal as its local
    copy) when ``AGENT_STORE_URL`` is set, else the folder's journal."""
    folder = FolderLabels.beside(settings.runs_dir)
    url = getattr(settings, "store_url", None)
    return TeamLabels(PgLabels.from_url(url), folder, url) if url else folder


def sync_labels(table: PgLabels, folder: FolderLabels) -> tuple[ImportCount, ImportCount]:
    """The folder's labels to the table, then the table's to the folder (newest wins both ways):
    (what the table took, what the folder took)."""
    up = table.put(folder.all())
    down = folder.put(table.all())
    return up, down
