"""The pandas tables of a runs folder, built from index rows, and the tool-call table's snapshot.

:mod:`agent_core.records.store` keeps these tables up to date; this module only builds them. Text
columns use pandas' Arrow-backed ``str`` dtype: compact, quick to filter and group, and sent
to the browser without conversion.

The tool-call table is the big one (about five rows per run). Building it from the index means
decoding every record's calls, so after a full build it is also saved as an Arrow file next to
the index (:func:`save_calls_snapshot`). Every row there carries its record's file key (size,
mtime, inode): a new process reuses exactly the rows whose file is unchanged and decodes only
the rest, so a stale, partial, foreign or damaged snapshot can cost time but never give a
wrong row.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from agent_core.records.columns import RUN_COLUMN_SPEC, RUN_FIELDS
from agent_core.records.index import CALL_FIELDS, FILE_FIELDS, INDEX_FORMAT, CallColumns, FileRow

log = logging.getLogger("agent_core.records.tables")

KEY = "_name"
"""Internal column: the file a row came from (the tables are updated file by file)."""
STR = "str"
"""dtype of text columns."""
SNAPSHOT_FORMAT = f"1/{INDEX_FORMAT}"
"""Changes with the index format (the rows it holds are made by the same code)."""
_KEY_COLUMNS = ("_size", "_mtime_ns", "_ino")
_AFTER_ATTEMPTS = CALL_FIELDS.index("attempts") + 1
CALL_ONLY = (*CALL_FIELDS[1:_AFTER_ATTEMPTS], "retried", *CALL_FIELDS[_AFTER_ATTEMPTS:])
"""Columns of the tool-call table that come from the call itself (the rest come from its run;
store.CALL_COLUMNS puts them in front): the index's calls without ``seq``, with ``retried``."""

# -- rows → tables -------------------------------------------------------------------------------
RUN_AT = {f: i for i, f in enumerate(FILE_FIELDS + RUN_FIELDS)}
_CALL_AT = {f: i for i, f in enumerate(CALL_FIELDS)}


def _columns(rows: Sequence[tuple[Any, ...]], width: int) -> list[tuple[Any, ...]]:
    return list(zip(*rows)) if rows else [()] * width


def _text_col(values: Sequence[Any]) -> Any:
    return pd.array(values, dtype=STR)


def _int_or_float(values: Sequence[Any]) -> np.ndarray:
    try:
        return np.array(values, dtype="int64")
    except (TypeError, ValueError, OverflowError):
        return np.array(values, dtype="float64")


def _time_us(values: Sequence[Any]) -> Any:
    return pd.to_datetime(np.array(values, dtype="float64"), unit="us", utc=True)


_BUILD: dict[str, Callable[[Sequence[Any]], Any]] = {
    "text": _text_col,
    "int": lambda values: np.array(values, dtype="int64"),
    "float": lambda values: np.array(values, dtype="float64"),
    "bool": lambda values: np.array(values, dtype=bool),
    "time_us": _time_us,
}
"""How each kind of :class:`~agent_core.records.columns.RunColumn` becomes a table column."""


def runs_frame(rows: Sequence[FileRow], prefix: str) -> pd.DataFrame:
    """The internal run table of readable files (``problem`` is None): the columns of
    :data:`~agent_core.records.columns.RUN_COLUMN_SPEC` that have a table kind, ``path`` and :data:`KEY`."""
    cols, at = _columns(rows, len(RUN_AT)), RUN_AT
    names = cols[at["name"]]
    data = {
        column.table_name or column.name: _BUILD[column.table](cols[at[column.name]])
        for column in RUN_COLUMN_SPEC
        if column.table is not None
    }
    data["path"] = _text_col([prefix + n for n in names])
    data[KEY] = np.array(names, dtype=object)
    return pd.DataFrame(data)


def calls_frame(calls: Sequence[CallColumns], runs: pd.DataFrame) -> pd.DataFrame:
    """The internal tool-call table: ``calls[i]`` are the call columns of the run in row ``i`` of
    ``runs``, which gives the run-level columns."""
    where = np.repeat(np.arange(len(calls)), [len(c[0]) if c else 0 for c in calls])
    present = [c for c in calls if c]
    cols = [list(chain.from_iterable(c[i] for c in present)) for i in range(len(CALL_FIELDS))]
    at = _CALL_AT
    attempts = np.array(cols[at["attempts"]], dtype="int64")
    return pd.DataFrame(
        {
            "run_id": runs["run_id"].array.take(where),
            "run_started_at": runs["started_at"].array.take(where),
            "provider": runs["provider"].array.take(where),
            "model": runs["model"].array.take(where),
            "call_id": _text_col(cols[at["call_id"]]),
            "step": _int_or_float(cols[at["step"]]),
            "tool": _text_col(cols[at["tool"]]),
            "success": np.array(cols[at["success"]], dtype=bool),
            "error_category": _text_col(cols[at["error_category"]]),
            "attempts": attempts,
            "retried": attempts > 1,
            "fallback": _text_col(cols[at["fallback"]]),
            "fallback_success": np.array(cols[at["fallback_success"]], dtype=object),
            "duplicate": np.array(cols[at["duplicate"]], dtype=bool),
            "truncated": np.array(cols[at["truncated"]], dtype=bool),
            "duration_ms": np.array(cols[at["duration_ms"]], dtype="float64"),
            "started_at": _text_col(cols[at["started_at"]]),
            "origin": _text_col(cols[at["origin"]]),
            KEY: runs[KEY].to_numpy().take(where),
        }
    )


def one_chunk(frame: pd.DataFrame, *, most: int = 1) -> pd.DataFrame:
    """Arrow text columns in one piece again once they have more than ``most`` chunks: every
    concat adds a chunk, and filters and sorts slow down with many of them (a long-running
    server adds one per saved step), while combining copies the column."""
    for name, column in frame.items():
        if isinstance(column.dtype, pd.StringDtype):
            arrow = column.array.__arrow_array__()
            if getattr(arrow, "num_chunks", 1) > most:
                frame[name] = pd.array(arrow.combine_chunks(), dtype=column.dtype)
    return frame


def newest_first(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    return frame.sort_values(column, ascending=False, kind="stable", na_position="last").reset_index(drop=True)


def runs_columns(calls: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """``calls`` (call columns and :data:`KEY`) with its run-level columns taken from ``runs``."""
    where = pd.Index(runs[KEY]).get_indexer(calls[KEY])
    if (where < 0).any():
        raise ValueError("tool calls of a run that is not in the run table")
    return pd.DataFrame(
        {
            "run_id": runs["run_id"].array.take(where),
            "run_started_at": runs["started_at"].array.take(where),
            "provider": runs["provider"].array.take(where),
            "model": runs["model"].array.take(where),
            **{name: calls[name].array for name in CALL_ONLY},
            KEY: calls[KEY].to_numpy(dtype=object),
        }
    )


def save_calls_snapshot(path: Path, calls: pd.DataFrame, keys: Mapping[str, tuple[int, int, int]]) -> None:
    """Write the call columns of ``calls`` with each row's file key to ``path`` (atomically)."""
    import pyarrow as pa

    codes, names = pd.factorize(calls[KEY])
    file_keys = np.array([keys[name] for name in names], dtype="int64").reshape(-1, 3)
    frame = pd.DataFrame({name: calls[name].array for name in CALL_ONLY})
    frame[KEY] = calls[KEY].to_numpy(dtype=object)
    for i, column in enumerate(_KEY_COLUMNS):
        frame[column] = file_keys[codes, i] if len(codes) else np.array([], dtype="int64")
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata({b"agent_core.snapshot": SNAPSHOT_FORMAT.encode()})
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle, pa.ipc.new_file(handle, table.schema) as writer:
            writer.write_table(table)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def load_calls_snapshot(path: Path, keys: Mapping[str, tuple[int, int, int]]) -> pd.DataFrame | None:
    """The snapshot's rows whose file still has the key it had (call columns and :data:`KEY`);
    None when there is no usable snapshot."""
    import pyarrow as pa

    try:
        with pa.memory_map(str(path)) as source:
            table = pa.ipc.open_file(source).read_all()
        if (table.schema.metadata or {}).get(b"agent_core.snapshot") != SNAPSHOT_FORMAT.encode():
            return None
        frame = table.to_pandas(types_mapper=_STRING_TYPES.get)
        if list(frame.columns) != [*CALL_ONLY, KEY, *_KEY_COLUMNS]:
            return None
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, KeyError, pa.ArrowException) as exc:
        log.warning("calls snapshot %s not used: %s", path, exc)
        return None
    codes, names = pd.factorize(frame[KEY])
    if not len(names):
        return frame.drop(columns=list(_KEY_COLUMNS))
    first = np.unique(codes, return_index=True)[1]
    stored = frame.loc[first, list(_KEY_COLUMNS)].to_numpy()
    fresh = np.array([keys.get(name, (-1, -1, -1)) for name in names], dtype="int64").reshape(-1, 3)
    valid = (stored == fresh).all(axis=1)
    return frame.loc[valid[codes]].drop(columns=list(_KEY_COLUMNS)).reset_index(drop=True)


def _string_types() -> dict[Any, Any]:
    import pyarrow as pa

    dtype = pd.array([], dtype=STR).dtype
    return {pa.string(): dtype, pa.large_string(): dtype}


class _LazyTypes(dict[Any, Any]):
    def get(self, key: Any, default: Any = None) -> Any:  # noqa: D102
        if not self:
            self.update(_string_types())
        return super().get(key, default)


_STRING_TYPES = _LazyTypes()
