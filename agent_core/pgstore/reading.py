"""History and Tool stats as SQL: :class:`PgQueries`, the PostgreSQL side of
:class:`agent_core.records.queries.RunQueries`.

Paging, every filter, ordering, counts, filter choices and the Tool-stats aggregates (p50/p95
with ``percentile_cont``, error categories, retries, fallbacks, duplicates) run in the database;
only a page of runs or the finished tables come back. Every value is a query parameter; column
names come from fixed lists (:data:`agent_core.records.queries.SORTABLE`), never from input.

The results equal the folder's (:class:`agent_core.records.queries.FolderQueries`) on the same runs:
same columns and dtypes, same order (ties broken newest first), a dead process's ``running``
run shown as ``interrupted`` (the few rows stored as running are re-checked in Python, as the
folder does, and the verdict is passed to the SQL).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta, timezone
from typing import Any

import pandas as pd
import psycopg
from psycopg import sql

from agent_core.errors import RecordError
from agent_core.pgstore.connection import StoreError
from agent_core.pgstore.stats_sql import _EPOCH, ToolStatsSQL, _texts, day_us
from agent_core.records.columns import RUN_COLUMN_SPEC
from agent_core.records.files import INTERRUPTED, effective_status, parse_record
from agent_core.records.filters import GROUNDING_STATUSES
from agent_core.records.queries import (
    NEWEST,
    Choices,
    HistoryPage,
    RunFilter,
    check_order,
    page_bounds,
)
from agent_core.records.run_record import LIVE_STATUSES
from agent_core.records.tables import _BUILD

log = logging.getLogger("agent_core.pgstore.reading")
_TABLE = [(c.table_name or c.name, c.name, c.table) for c in RUN_COLUMN_SPEC if c.table is not None]
"""(run-table column, SQL column, kind) of every column History's table shows."""
_SQL_OF = {table: column for table, column, _ in _TABLE}
_TEXT_KINDS = {table for table, _, kind in _TABLE if kind == "text"}
_LIVE = sql.SQL(", ").join(sql.Literal(s) for s in LIVE_STATUSES)
STATUS = sql.SQL("CASE WHEN status IN ({}) AND run_id = ANY(%(dead)s) THEN {} ELSE status END").format(
    _LIVE, sql.Literal(INTERRUPTED)
)
"""The status as shown: ``%(dead)s`` holds the running (or waiting-for-approval) runs whose process is gone."""
_NEWEST = sql.SQL("started_us DESC NULLS LAST, run_id DESC")


def _day(us: int | None) -> date | None:
    return None if us is None else (_EPOCH + timedelta(microseconds=int(us))).date()


class PgQueries(ToolStatsSQL):
    """:class:`agent_core.records.queries.RunQueries` in a PostgreSQL database of the team store's schema.

    Args:
        connect: opens a connection (e.g. ``lambda: psycopg.connect(url)``); called again after
            a connection is lost. One connection is kept and shared under a lock.
        work_mem: the sort memory of this session (Tool stats sorts every call for its p50/p95).
    """

    retry_after: float = 15.0
    """Seconds after a failed connection attempt during which reads fail at once with the same
    error (a page rerun does not wait for the connect timeout again)."""

    def __init__(self, connect: Callable[[], psycopg.Connection[Any]], *, work_mem: str = "64MB") -> None:
        self._connect = connect
        self._conn: psycopg.Connection[Any] | None = None
        self._lock = threading.RLock()
        self._work_mem = work_mem
        self._failed: tuple[float, Exception] | None = None
        self._choices: tuple[Any, float, Choices] | None = None
        self._used: tuple[Any, float, list[tuple[Any, ...]]] | None = None
        self._icu = False
        self.url: str | None = None
        """The store's URL when made by :meth:`from_url` (it holds the password: never show it)."""

    @classmethod
    def from_url(cls, url: str, **options: Any) -> PgQueries:
        """Reads from the team store at ``url`` (its schema brought up to date on connect); errors
        are :class:`agent_core.pgstore.StoreError` with plain messages, never the password."""
        from agent_core.pgstore import connect, explain

        def opened() -> psycopg.Connection[Any]:
            try:
                return connect(url)
            except psycopg.Error as exc:
                raise explain(exc, url) from None

        reader = cls(opened, **options)
        reader.url = url
        return reader

    def ping(self) -> None:
        """Raise when the database cannot be read now (a cheap round trip)."""
        self._all(sql.SQL("SELECT 1"))

    def _connection(self) -> psycopg.Connection[Any]:
        conn = self._conn
        if conn is not None and not conn.closed:
            return conn
        failed = self._failed
        if failed is not None and time.monotonic() - failed[0] < self.retry_after:
            raise failed[1]
        try:
            conn = self._connect()
            conn.autocommit = True
            # Sorts in memory (Tool stats sorts every call); no JIT: these queries are short and
            # compiling them cost more than it saved.
            conn.execute("SELECT set_config('work_mem', %s, false), set_config('jit', 'off', false)", [self._work_mem])
            # lower() folds only ASCII under the C locale; ICU's root collation folds every script,
            # as the folder's search does ("été" finds "Été"). Servers built without ICU keep lower().
            self._icu = conn.execute("SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu'").fetchone() is not None
        except Exception as exc:
            self._failed = (time.monotonic(), exc)
            raise
        self._failed = None
        self._conn = conn
        return conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _all(self, query: sql.SQL | sql.Composed, params: Any = None) -> list[tuple[Any, ...]]:
        """Run one read on the shared connection (autocommit); a connection that was lost is
        opened again once."""
        with self._lock:
            for attempt in (1, 2):
                conn = self._connection()
                try:
                    with conn.cursor() as cur:
                        cur.execute(query, params)
                        return cur.fetchall()
                except psycopg.OperationalError:
                    if attempt == 2 or not conn.closed:
                        raise
                    self._conn = None
            raise AssertionError("unreachable")

    def _one(self, query: sql.SQL | sql.Composed, params: Any = None) -> tuple[Any, ...]:
        rows = self._all(query, params)
        return rows[0]

    # -- helpers ---------------------------------------------------------------------------------
    def dead_runs(self) -> list[str]:
        """Runs stored as ``running`` or ``waiting_for_approval`` whose process is gone (shown as
        interrupted)."""
        return self._running()[0]

    def _running(self) -> tuple[list[str], dict[str, int]]:
        """(the dead runs, how many runs each live status has that are still alive)."""
        rows = self._all(
            sql.SQL(
                "SELECT run_id, status, owner_pid, owner_host, updated_at, started_at FROM runs WHERE status IN ({})"
            ).format(_LIVE)
        )
        dead: list[str] = []
        alive: dict[str, int] = {s: 0 for s in LIVE_STATUSES}
        for run_id, status, pid, host, updated, started in rows:
            owner = {"pid": pid, "host": host}
            shown = effective_status({"status": status, "owner": owner, "updated_at": updated, "started_at": started})
            if shown == INTERRUPTED:
                dead.append(run_id)
            else:
                alive[status] += 1
        return dead, alive

    def _where(self, where: RunFilter, params: dict[str, Any]) -> sql.Composable:
        """The SQL condition of ``where`` on ``runs``; its values go into ``params``."""
        parts: list[sql.Composable] = []
        if where.days:
            params["day0"] = day_us(where.days[0])
            params["day1"] = day_us(where.days[-1] + timedelta(days=1))
            parts.append(sql.SQL("started_us >= %(day0)s AND started_us < %(day1)s"))
        for name, values in (("provider", where.providers), ("model", where.models), ("user_name", where.users)):
            if values:
                params[name] = _texts(values)
                parts.append(sql.SQL("{} = ANY(%({})s)").format(sql.Identifier(name), sql.SQL(name)))
        if where.statuses:
            # The status as shown (STATUS) tested on the stored one, so the status index serves it:
            # a stored "running" run is shown as interrupted when its process is gone (%(dead)s).
            # A stored live status (running, waiting for approval) shows as interrupted when dead.
            wanted = set(_texts(where.statuses))
            interrupted = INTERRUPTED in wanted
            params["statuses"] = sorted(wanted | (set(LIVE_STATUSES) if interrupted else set()))
            parts.append(sql.SQL("status = ANY(%(statuses)s)"))
            params["live_wanted"] = sorted(wanted & set(LIVE_STATUSES))
            dead = sql.SQL("run_id = ANY(%(dead)s)")
            parts.append(
                sql.SQL("(status NOT IN ({}) OR {} OR (NOT {} AND status = ANY(%(live_wanted)s)))").format(
                    _LIVE, dead if interrupted else sql.SQL("false"), dead
                )
            )
        text = where.text.strip()
        if "\x00" in text:  # no stored text holds a NUL (PostgreSQL refuses it): nothing matches
            parts.append(sql.SQL("false"))
        elif text:
            params["text"] = text
            # runs.search is lower(goal || ' ' || run_id), folded the same way (migration 0003)
            if self._icu:
                parts.append(sql.SQL('strpos(search, lower(%(text)s COLLATE "und-x-icu")) > 0'))
            else:
                parts.append(sql.SQL("strpos(search, lower(%(text)s)) > 0"))
        if where.checks:
            params["checks"] = [c for c in _texts(where.checks) if c]
            params["known"] = list(GROUNDING_STATUSES)
            condition: sql.Composable = sql.SQL("grounding = ANY(%(checks)s)")
            if "" in where.checks:
                condition = sql.SQL("({} OR grounding IS NULL OR NOT grounding = ANY(%(known)s))").format(condition)
            parts.append(condition)
        if where.run_ids is not None:
            params["run_ids"] = _texts(where.run_ids)
            parts.append(sql.SQL("run_id = ANY(%(run_ids)s)"))
        if not where.include_demos:
            parts.append(sql.SQL("NOT scripted"))
        if where.sources:  # runs.source (migration 0008); an older writer's NULL is a person's own run
            params["sources"] = _texts(where.sources)
            parts.append(sql.SQL("coalesce(source, 'own') = ANY(%(sources)s)"))
        if where.min_cost_usd is not None:
            params["min_cost"] = float(where.min_cost_usd)
            parts.append(sql.SQL("cost_usd > %(min_cost)s"))
        if where.min_retries is not None:
            params["min_retries"] = int(where.min_retries)
            parts.append(sql.SQL("retries > %(min_retries)s"))
        if where.labels:  # people's verdicts, kept beside the runs (run_labels, migration 0006)
            params["verdicts"] = [v for v in _texts(where.labels) if v]
            labelled: sql.Composable = sql.SQL(
                "run_id IN (SELECT l.run_id FROM run_labels l WHERE l.verdict = ANY(%(verdicts)s))"
            )
            if "" in where.labels:
                nobody = sql.SQL("NOT EXISTS (SELECT 1 FROM run_labels l WHERE l.run_id = runs.run_id)")
                labelled = sql.SQL("({} OR {})").format(labelled, nobody) if params["verdicts"] else nobody
            parts.append(labelled)
        return sql.SQL(" AND ").join(parts) if parts else sql.SQL("true")

    def _frame(self, rows: Sequence[tuple[Any, ...]]) -> pd.DataFrame:
        """Rows of :func:`_select` as the folder's run table (same columns, same dtypes)."""
        cols = list(zip(*rows)) if rows else [()] * len(_TABLE)
        data = {name: _BUILD[kind](list(values)) for (name, _, kind), values in zip(_TABLE, cols)}
        data["path"] = _BUILD["text"]([None] * len(rows))
        return pd.DataFrame(data)

    @staticmethod
    def _select() -> sql.Composable:
        return sql.SQL(", ").join(STATUS if column == "status" else sql.Identifier(column) for _, column, _ in _TABLE)

    # -- RunQueries --------------------------------------------------------------------------------
    def version(self) -> Any:
        """The newest write (``written_at`` is set by every insert and update; one index probe),
        the runs shown as interrupted (their process ended without a write) and the state of
        people's labels (History and Tool stats filter by them)."""
        newest, labels = self._one(
            sql.SQL("SELECT max(written_at), (SELECT count(*) || ' ' || max(written_at) FROM run_labels) FROM runs")
        )
        return (newest, tuple(self.dead_runs()), labels)

    choices_ttl: float = 10.0
    """Seconds the filter choices are reused while :meth:`version` is unchanged (a write
    committed out of order is seen this late at worst)."""

    def choices(self) -> Choices:
        version = self.version()
        cached = self._choices
        if cached is not None and cached[0] == version and time.monotonic() - cached[1] < self.choices_ttl:
            return cached[2]
        found = self._choices_now(list(version[1]))
        self._choices = (version, time.monotonic(), found)
        return found

    def _choices_now(self, dead: list[str]) -> Choices:
        saved, first, last, pairs, values = self._distinct(
            "runs", "provider", "model", ("status", "user_name", "grounding")
        )
        dead_now, alive = self._running()
        statuses = set(values["status"])
        statuses -= {s for s in LIVE_STATUSES if not alive[s]}  # every one shown as interrupted
        if dead_now:
            statuses.add(INTERRUPTED)
        checks = {g if g in GROUNDING_STATUSES else "" for g in values["grounding"]}
        today = datetime.now(timezone.utc).date()
        # each source's count (the runs_source index, migration 0008); an older writer's NULL is 'own'
        sources = {
            str(k): int(n)
            for k, n in self._all(sql.SQL("SELECT coalesce(source, 'own'), count(*) FROM runs GROUP BY 1"))
        }
        return Choices(
            saved=saved,
            providers=sorted({p for p, _ in pairs}),
            models=sorted({m for _, m in pairs}),
            statuses=sorted(s for s in statuses if s is not None),
            users=sorted(u for u in values["user_name"] if u is not None),
            checks=[c for c in (*GROUNDING_STATUSES, "") if c in checks],
            sources=sources,
            first_day=_day(first) if first is not None else (today if saved else None),
            last_day=_day(last) if last is not None else (today if saved else None),
        )

    def _distinct(
        self, table: str, first: str, second: str, singles: Sequence[str] = ()
    ) -> tuple[int, int | None, int | None, list[tuple[Any, Any]], dict[str, list[Any]]]:
        """(runs saved, first and last start, the distinct (first, second) pairs of ``table``, the
        distinct values of each of ``singles`` in ``runs`` — None among them when a row has none).

        Each distinct value is one probe of an index that starts with that column (a "skip
        scan" as a recursive query), so this costs a few dozen index probes, not a pass over
        every run or call. ``table`` and the column names are fixed names, never input."""
        at = sql.Identifier(table)
        a, b = sql.Identifier(first), sql.Identifier(second)
        started = sql.Identifier("started_us" if table == "runs" else "run_started_us")
        parts = [
            sql.SQL(
                "WITH RECURSIVE pairs(a, b) AS ("
                " (SELECT {a}, {b} FROM {t} ORDER BY {a}, {b} LIMIT 1)"
                " UNION ALL SELECT n.a, n.b FROM pairs CROSS JOIN LATERAL"
                " (SELECT {a} AS a, {b} AS b FROM {t} WHERE ({a}, {b}) > (pairs.a, pairs.b) ORDER BY {a}, {b} LIMIT 1) n"
                ") SELECT 'pair', a, b FROM pairs"
            ).format(a=a, b=b, t=at),
            sql.SQL(
                "SELECT 'saved', (SELECT count(*) FROM runs)::text, NULL "
                "UNION ALL SELECT 'days', min({s})::text, max({s})::text FROM {t}"
            ).format(s=started, t=at),
        ]
        for name in singles:
            column = sql.Identifier(name)
            parts.append(
                sql.SQL(
                    "SELECT {name}, v, NULL FROM (WITH RECURSIVE d(v) AS ("
                    " (SELECT {c} FROM runs WHERE {c} IS NOT NULL ORDER BY {c} LIMIT 1)"
                    " UNION ALL SELECT (SELECT {c} FROM runs WHERE {c} > d.v ORDER BY {c} LIMIT 1) FROM d"
                    " WHERE d.v IS NOT NULL) SELECT v FROM d WHERE v IS NOT NULL"
                    " UNION ALL SELECT NULL WHERE EXISTS (SELECT 1 FROM runs WHERE {c} IS NULL)) {alias}"
                ).format(name=sql.Literal(name), c=column, alias=sql.Identifier(f"d_{name}"))
            )
        rows = self._all(sql.SQL(" UNION ALL ").join(sql.SQL("({})").format(p) for p in parts))
        saved, low, high = 0, None, None
        pairs: list[tuple[Any, Any]] = []
        values: dict[str, list[Any]] = {name: [] for name in singles}
        for kind, x, y in rows:
            if kind == "pair":
                pairs.append((x, y))
            elif kind == "saved":
                saved = int(x)
            elif kind == "days":
                low, high = (None if x is None else int(x)), (None if y is None else int(y))
            else:
                values[kind].append(x)
        return saved, low, high, pairs, values

    def call_choices(self) -> Choices:
        saved, first, last, pairs, _ = self._distinct("tool_calls", "provider", "model")
        today = datetime.now(timezone.utc).date()
        return Choices(
            saved=saved,
            providers=sorted({p for p, _ in pairs if p is not None}),
            models=sorted({m for _, m in pairs if m is not None}),
            first_day=_day(first) if first is not None else (today if pairs else None),
            last_day=_day(last) if last is not None else (today if pairs else None),
        )

    def page(
        self, where: RunFilter, *, order: tuple[str, bool] = NEWEST, page: int = 1, size: int = 500
    ) -> HistoryPage:
        column, ascending = check_order(order)
        params: dict[str, Any] = {"dead": self.dead_runs()}
        condition = self._where(where, params)
        if (column, ascending) == NEWEST:
            order_by: sql.Composable = _NEWEST
        else:
            target: sql.Composable = STATUS if column == "status" else sql.Identifier(_SQL_OF[column])
            if column in _TEXT_KINDS:
                target = sql.SQL('{} COLLATE "C"').format(target)
            order_by = sql.SQL("{} {} NULLS LAST, {}").format(target, sql.SQL("ASC" if ascending else "DESC"), _NEWEST)
        saved_sql = sql.SQL("(SELECT count(*) FROM runs)")
        if where.text.strip() and "\x00" not in where.text:
            # A search has no index: one pass over the runs counts the matches (a window over the
            # matching rows) and picks the page, instead of a pass for each.
            offset, limit = page_bounds(page, size, (max(1, int(page)) - 1) * max(1, int(size)) + 1)
            params.update(limit=limit, offset=offset)
            found = self._all(
                sql.SQL(
                    "SELECT {}, count(*) OVER (), {} FROM runs WHERE {} ORDER BY {} LIMIT %(limit)s OFFSET %(offset)s"
                ).format(self._select(), saved_sql, condition, order_by),
                params,
            )
            if found or offset == 0:  # (nothing on a later page: past the end, counted below)
                matching, saved = (
                    (found[0][-2], found[0][-1]) if found else (0, self._one(sql.SQL("SELECT {}").format(saved_sql))[0])
                )
                return HistoryPage(self._frame([r[:-2] for r in found]), matching, saved)
        # two counts, each through its own index (one pass over every run with both conditions
        # cannot use the filter's index)
        matching, saved = self._one(
            sql.SQL("SELECT (SELECT count(*) FROM runs WHERE {}), {}").format(condition, saved_sql), params
        )
        offset, limit = page_bounds(page, size, matching)
        params.update(limit=limit, offset=offset)
        rows = self._all(
            sql.SQL("SELECT {} FROM runs WHERE {} ORDER BY {} LIMIT %(limit)s OFFSET %(offset)s").format(
                self._select(), condition, order_by
            ),
            params,
        )
        return HistoryPage(self._frame(rows), matching, saved)

    def summaries(self) -> pd.DataFrame:
        """Every run's summary row, newest first (for readers that want the whole run table)."""
        rows = self._all(
            sql.SQL("SELECT {} FROM runs ORDER BY {}").format(self._select(), _NEWEST), {"dead": self.dead_runs()}
        )
        return self._frame(rows)

    def rows(self, run_ids: Sequence[str]) -> pd.DataFrame:
        params = {"dead": self.dead_runs(), "ids": _texts(run_ids)}
        rows = self._all(
            sql.SQL("SELECT {} FROM runs WHERE run_id = ANY(%(ids)s) ORDER BY {}").format(self._select(), _NEWEST),
            params,
        )
        return self._frame(rows)

    def load(self, run_id: str) -> dict[str, Any]:
        if not isinstance(run_id, str) or not run_id or "\x00" in run_id:
            raise RecordError(f"{run_id!r} is not a run id")
        rows = self._all(sql.SQL("SELECT record::text FROM runs WHERE run_id = %s"), [run_id])
        if not rows:
            raise RecordError(f"no run {run_id!r} in the team store")
        record = parse_record(rows[0][0].encode("utf-8"), run_id)
        record["status_shown"] = effective_status(record)
        return record


class TeamRunStore:
    """The team store for readers that want a store's tables and records (Compare, the CLI's
    ``compare`` / ``replay`` / ``export --otlp``): :meth:`runs` is the summary table of every
    run (summary columns only, read with SQL; no ``path``), :meth:`load` reads a record from the
    database and falls back to the local folder (a run kept there while the store was down).
    History and Tool stats use :meth:`queries` instead (SQL per page)."""

    def __init__(self, reader: PgQueries, folder: Any) -> None:
        self.reader = reader
        self.folder = folder

    @property
    def runs_dir(self) -> Any:
        return self.folder.runs_dir

    @property
    def version(self) -> Any:
        return self.reader.version()

    def queries(self) -> PgQueries:
        return self.reader

    def refresh(self) -> bool:
        """Nothing to bring up to date (every read asks the database); False."""
        return False

    def problems(self) -> list[tuple[str, str]]:
        return []

    def runs(self) -> pd.DataFrame:
        """Every run's summary row, newest first (the columns of the folder's run table); the
        local folder's while the database cannot be read (logged, with host and port)."""
        try:
            return self.reader.summaries()
        except (StoreError, psycopg.Error) as exc:
            log.warning("team store not read, using the local folder: %s", _plain(exc, self.reader.url))
            self.folder.refresh()
            frame: pd.DataFrame = self.folder.runs()
            return frame

    def load(self, run_id: str) -> dict[str, Any]:
        """The record from the database; from the local folder when it is not there (kept
        locally while the store was down) or the database cannot be read."""
        try:
            return self.reader.load(run_id)
        except (RecordError, StoreError, psycopg.Error):
            record: dict[str, Any] = self.folder.load(run_id)
            return record


def _plain(exc: BaseException, url: str | None) -> str:
    from agent_core.pgstore import explain

    return str(explain(exc, url)) if url else type(exc).__name__


def reading_store(settings: Any, *, persist: bool = True) -> Any:
    """The store the CLI reads runs from: the team store when ``settings.store_url`` is set
    (:class:`TeamRunStore`), else the runs folder (:class:`agent_core.records.store.RunStore`)."""
    from agent_core.records.store import RunStore

    folder = RunStore(settings.runs_dir, persist=persist)
    url = getattr(settings, "store_url", None)
    return TeamRunStore(PgQueries.from_url(url), folder) if url else folder
