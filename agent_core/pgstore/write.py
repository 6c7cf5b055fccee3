"""Writing records to the team store: a batch upsert by run id, guarded by the snapshot's rank.

The values of ``runs`` and ``tool_calls`` are computed by the folder index's own code
(:func:`agent_core.records.index.extract`, i.e. :func:`agent_core.records.columns.run_values`), so the two
backends show the same numbers for the same record.

**The guard.** A run is saved after every step, and the same run may reach the store twice (the
engine's save and a later ``sync`` of the folder copy, or a slow writer whose step arrives after
the next one). A snapshot replaces the stored one only when its rank is higher::

    (steps, finished, tool calls, updated_at)

``finished`` (status is not ``running``) comes after the step count, so the final record, which
usually has as many steps as the last running snapshot, wins over it, and that running snapshot
arriving late never replaces the final one. A snapshot of the same rank is the same snapshot: it
is left alone (which is what makes ``sync`` idempotent: a second pass writes 0 rows).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql

from agent_core.records.columns import RUN_FIELDS, as_text
from agent_core.records.index import CALL_FIELDS, extract
from agent_core.records.run_record import LIVE_STATUSES

RUN_SQL_TYPES: Mapping[str, str] = {
    "started_us": "bigint",
    "steps": "integer",
    "tool_calls": "integer",
    "failed_calls": "integer",
    "blocks_trimmed": "integer",
    "tokens": "bigint",
    "cost_usd": "double precision",
    "duration_ms": "double precision",
    "scripted": "boolean",
    "owner_pid": "bigint",
    "retries": "integer",
}
"""SQL types of the summary columns that are not ``text`` (see migrations/0001_initial.sql)."""
RUN_SQL_COLUMNS: tuple[str, ...] = (
    *RUN_FIELDS,
    *(() if "user_name" in RUN_FIELDS else ("user_name",)),
    "record",
)
"""The ``runs`` columns one record fills, in order (``written_at`` is the server's clock)."""
CALL_SQL_COLUMNS: tuple[str, ...] = (
    "run_id",
    "run_started_at",
    "run_started_us",
    "provider",
    "model",
    *CALL_FIELDS,
    "first_use",
    "first_model_use",
)
"""The ``tool_calls`` columns one call fills (``retried`` is computed by the database;
``first_use``: the run's first call of that tool, what Coverage counts runs by;
``first_model_use``: the run's first call of that tool the model chose)."""
_AT = {name: i for i, name in enumerate(RUN_FIELDS)}
_INT4 = 2**31
_INT4_CALL_FIELDS = tuple(i for i, name in enumerate(CALL_FIELDS) if name in ("seq", "step", "attempts"))
_TOOL = CALL_FIELDS.index("tool")
_ORIGIN = CALL_FIELDS.index("origin")
_NUL_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u0000")
_strict_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str, allow_nan=False).encode


@dataclass
class WriteResult:
    """What one :func:`upsert_records` call did."""

    inserted: int = 0
    """Runs new to the store."""
    updated: int = 0
    """Runs whose stored snapshot was older and was replaced."""
    unchanged: int = 0
    """Runs whose stored snapshot was as new or newer (the guard kept it)."""
    calls: int = 0
    """Tool-call rows written."""

    @property
    def written(self) -> int:
        return self.inserted + self.updated

    def add(self, other: WriteResult) -> None:
        self.inserted += other.inserted
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.calls += other.calls


# -- values PostgreSQL accepts, whatever a record holds ------------------------------------------
def clean_text(value: str) -> str:
    """Text PostgreSQL can store: a NUL becomes U+FFFD, a lone surrogate ``?`` (as the folder's save does)."""
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            value = value.encode("utf-8", "replace").decode("utf-8")
    return value.replace("\x00", "\ufffd") if "\x00" in value else value


def _finite(value: Any) -> Any:
    """``value`` with every NaN and infinity replaced by None (JSON has no such numbers)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def record_json(record: Mapping[str, Any]) -> str:
    """The record as JSON text for the ``record`` column (``jsonb`` refuses NUL, lone surrogates
    and NaN: they become U+FFFD, ``?`` and null)."""
    try:
        text = _strict_encode(record)
    except ValueError:  # NaN or infinity somewhere (a hand-made record)
        text = _strict_encode(_finite(dict(record)))
    text = clean_text(text)
    return _NUL_ESCAPE.sub(lambda m: m.group(1) + "\\ufffd", text) if "\\u0000" in text else text


def _cell(value: Any) -> Any:
    return clean_text(value) if isinstance(value, str) else value


def _int4(value: Any) -> Any:
    return value if value is None or -_INT4 <= value < _INT4 else None


@dataclass(frozen=True)
class RunRows:
    """One record as rows: its ``runs`` row and its ``tool_calls`` rows."""

    run: tuple[Any, ...]
    calls: list[tuple[Any, ...]]

    @property
    def run_id(self) -> str:
        return str(self.run[0])

    @property
    def rank(self) -> tuple[int, bool, int, str]:
        """The guard's order of snapshots of one run (see the module docstring)."""
        run = self.run
        return (
            run[_AT["steps"]],
            run[_AT["status"]] not in LIVE_STATUSES,
            run[_AT["tool_calls"]],
            run[_AT["updated_at"]] or "",
        )


def rows_of(record: Mapping[str, Any]) -> RunRows:
    """The rows of one parsed record; ValueError when it has no usable ``run_id``."""
    run_id = record.get("run_id")
    if not isinstance(run_id, str) or not run_id.strip():
        raise ValueError(f"not a run record: run_id is {as_text(run_id)!r}")
    values, columns = extract(dict(record), "")
    run = [_cell(v) for v in values]
    if "user_name" not in RUN_FIELDS:
        user = record.get("user")
        run.append(clean_text(as_text(user) or "") or None)
    run.append(record_json(record))
    head = (run[0], run[_AT["started_at"]], run[_AT["started_us"]], run[_AT["provider"]], run[_AT["model"]])
    calls = []
    used: set[str] = set()
    chosen: set[str] = set()
    for call in zip(*columns):  # in the record's order (seq)
        cells = [_cell(v) for v in call]
        for i in _INT4_CALL_FIELDS:
            cells[i] = _int4(cells[i])
        tool = cells[_TOOL]
        first_use = tool is not None and tool not in used
        if first_use:
            used.add(tool)
        first_model_use = tool is not None and cells[_ORIGIN] == "model" and tool not in chosen
        if first_model_use:
            chosen.add(tool)
        calls.append((*head, *cells, first_use, first_model_use))
    return RunRows(tuple(run), calls)


# -- the statements -------------------------------------------------------------------------------
# A batch goes through a temporary table of the connection (COPY is ~10x faster than parameters
# for big JSON values), then one INSERT … ON CONFLICT moves it into ``runs`` in run-id order.
_STAGE = "runs_in"
_CREATE_STAGE = sql.SQL(
    "CREATE TEMPORARY TABLE IF NOT EXISTS {stage} ON COMMIT DELETE ROWS AS SELECT {cols} FROM runs WITH NO DATA"
).format(stage=sql.Identifier(_STAGE), cols=sql.SQL(", ").join(sql.Identifier(c) for c in RUN_SQL_COLUMNS))
_COPY_STAGE = sql.SQL("COPY {stage} ({cols}) FROM STDIN").format(
    stage=sql.Identifier(_STAGE), cols=sql.SQL(", ").join(sql.Identifier(c) for c in RUN_SQL_COLUMNS)
)


def _upsert_sql() -> sql.Composed:
    cols = [sql.Identifier(c) for c in RUN_SQL_COLUMNS]
    updates = sql.SQL(", ").join(sql.SQL("{0} = EXCLUDED.{0}").format(c) for c in cols[1:])
    rank = "({0}.steps, {0}.status <> 'running', {0}.tool_calls, coalesce({0}.updated_at, ''))"
    return sql.SQL(
        "INSERT INTO runs AS r ({cols}) SELECT {cols} FROM {stage} ORDER BY run_id "
        "ON CONFLICT (run_id) DO UPDATE SET {updates}, written_at = now() "
        "WHERE {new_rank} > {old_rank} "
        "RETURNING r.run_id, (r.xmax = 0) AS inserted"
    ).format(
        cols=sql.SQL(", ").join(cols),
        stage=sql.Identifier(_STAGE),
        updates=updates,
        new_rank=sql.SQL(rank.format("EXCLUDED")),
        old_rank=sql.SQL(rank.format("r")),
    )


_UPSERT = _upsert_sql().as_bytes(None)

CALL_SQL_TYPES: Mapping[str, str] = {
    "run_started_us": "bigint",
    "seq": "integer",
    "step": "integer",
    "success": "boolean",
    "attempts": "integer",
    "fallback_success": "boolean",
    "duplicate": "boolean",
    "truncated": "boolean",
    "duration_ms": "double precision",
    "first_use": "boolean",
    "first_model_use": "boolean",
}
"""SQL types of the ``tool_calls`` columns that are not ``text``."""


def _upsert_one_sql() -> sql.Composed:
    """One run in one statement (one round trip: the engine's per-step save). Calls are upserted
    by (run_id, seq) and the ones no longer in the record deleted, all only if the run was written."""
    cols = [sql.Identifier(c) for c in RUN_SQL_COLUMNS]
    values = sql.SQL(", ").join(
        sql.SQL("%s::jsonb") if c == "record" else sql.SQL("%s::{}").format(sql.SQL(RUN_SQL_TYPES.get(c, "text")))
        for c in RUN_SQL_COLUMNS
    )
    updates = sql.SQL(", ").join(sql.SQL("{0} = EXCLUDED.{0}").format(c) for c in cols[1:])
    rank = "({0}.steps, {0}.status <> 'running', {0}.tool_calls, coalesce({0}.updated_at, ''))"
    call_cols = [sql.Identifier(c) for c in CALL_SQL_COLUMNS]
    arrays = sql.SQL(", ").join(
        sql.SQL("%s::{}[]").format(sql.SQL(CALL_SQL_TYPES.get(c, "text"))) for c in CALL_SQL_COLUMNS
    )
    call_updates = sql.SQL(", ").join(sql.SQL("{0} = EXCLUDED.{0}").format(c) for c in call_cols[2:])
    return sql.SQL(
        "WITH up AS ("
        " INSERT INTO runs AS r ({cols}) VALUES ({values})"
        " ON CONFLICT (run_id) DO UPDATE SET {updates}, written_at = now() WHERE {new_rank} > {old_rank}"
        " RETURNING r.run_id, (r.xmax = 0) AS inserted"
        "), put AS ("
        " INSERT INTO tool_calls ({call_cols}) SELECT {call_cols} FROM unnest({arrays}) AS c({call_cols})"
        " WHERE EXISTS (SELECT 1 FROM up)"
        " ON CONFLICT (run_id, seq) DO UPDATE SET {call_updates}"
        "), gone AS ("
        " DELETE FROM tool_calls t WHERE EXISTS (SELECT 1 FROM up) AND t.run_id = %s AND t.seq <> ALL(%s::integer[])"
        ") SELECT run_id, inserted FROM up"
    ).format(
        cols=sql.SQL(", ").join(cols),
        values=values,
        updates=updates,
        new_rank=sql.SQL(rank.format("EXCLUDED")),
        old_rank=sql.SQL(rank.format("r")),
        call_cols=sql.SQL(", ").join(call_cols),
        arrays=arrays,
        call_updates=call_updates,
    )


_UPSERT_ONE = _upsert_one_sql().as_bytes(None)  # composed once (composing costs ~1 ms a save)
_SEQ = CALL_SQL_COLUMNS.index("seq")
_COPY_CALLS = sql.SQL("COPY tool_calls ({}) FROM STDIN").format(
    sql.SQL(", ").join(sql.Identifier(c) for c in CALL_SQL_COLUMNS)
)


def _newest(rows: Iterable[RunRows]) -> list[RunRows]:
    """One snapshot per run (the highest rank), sorted by run id: a batch's rows are locked in one
    order by every writer, so two writers never deadlock."""
    best: dict[str, RunRows] = {}
    for row in rows:
        have = best.get(row.run_id)
        if have is None or row.rank > have.rank:
            best[row.run_id] = row
    return [best[k] for k in sorted(best)]


def _write_one(conn: psycopg.Connection[Any], row: RunRows) -> WriteResult:
    columns: list[list[Any]] = [list(c) for c in zip(*row.calls)] if row.calls else [[] for _ in CALL_SQL_COLUMNS]
    params = [*row.run, *columns, row.run_id, columns[_SEQ]]
    found = conn.execute(_UPSERT_ONE, params).fetchone()
    if found is None:
        return WriteResult(unchanged=1)
    return WriteResult(inserted=int(found[1]), updated=int(not found[1]), calls=len(row.calls))


def _write_batch(conn: psycopg.Connection[Any], batch: list[RunRows]) -> WriteResult:
    if len(batch) == 1:
        return _write_one(conn, batch[0])
    result = WriteResult()
    with conn.transaction(), conn.cursor() as cur:
        cur.execute(_CREATE_STAGE)
        with cur.copy(_COPY_STAGE) as copy:
            for row in batch:
                copy.write_row(row.run)
        cur.execute(_UPSERT)
        written = {run_id: bool(inserted) for run_id, inserted in cur.fetchall()}
        result.inserted = sum(written.values())
        result.updated = len(written) - result.inserted
        result.unchanged = len(batch) - len(written)
        replaced = [run_id for run_id, inserted in written.items() if not inserted]
        if replaced:
            cur.execute("DELETE FROM tool_calls WHERE run_id = ANY(%s)", (replaced,))
        calls = [call for row in batch if row.run_id in written for call in row.calls]
        if calls:
            with cur.copy(_COPY_CALLS) as copy:
                for call in calls:
                    copy.write_row(call)
        result.calls = len(calls)
    return result


def upsert_records(
    conn: psycopg.Connection[Any], records: Iterable[Mapping[str, Any] | RunRows], *, batch_size: int = 500
) -> WriteResult:
    """Write ``records`` (parsed records, or their :func:`rows_of`) to ``runs`` and ``tool_calls``.

    One transaction per batch of ``batch_size`` runs; a run's row and its call rows are written
    together or not at all. A stored snapshot of higher or equal rank is kept (see the module
    docstring). ``conn`` must be in autocommit mode (:func:`agent_core.pgstore.connect`).
    ValueError for a record without a run id (nothing of its batch is written).
    """
    rows = _newest(r if isinstance(r, RunRows) else rows_of(r) for r in records)
    result = WriteResult()
    for start in range(0, len(rows), batch_size):
        result.add(_write_batch(conn, rows[start : start + batch_size]))
    return result
