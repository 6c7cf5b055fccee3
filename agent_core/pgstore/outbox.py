"""Runs the team store has not got in full yet: one empty marker file per run, ``<data_dir>/outbox/<run_id>``.

The runs folder keeps every step of every run, whatever the database does; the outbox only says
which runs still have to be sent. A run is marked when it starts and unmarked once its final
record is in the store, so a run whose process died, or whose steps were saved while the database
was down, is still marked at the next start: :func:`send_pending` then sends the folder's copy
(the store's guard keeps whichever snapshot is newer, so sending twice does no harm).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import psycopg

from agent_core.errors import RecordError
from agent_core.pgstore.write import WriteResult, upsert_records
from agent_core.records.files import effective_status, load_record, record_path
from agent_core.records.run_record import LIVE_STATUSES

log = logging.getLogger("agent_core.pgstore.outbox")

BATCH = 200


def outbox_dir(data_dir: Path) -> Path:
    return Path(data_dir) / "outbox"


def _safe(run_id: str) -> bool:
    return bool(run_id) and "/" not in run_id and "\\" not in run_id and not run_id.startswith(".")


def mark(data_dir: Path, run_id: str) -> None:
    """Note that ``run_id`` has to be sent (idempotent; OSError when the folder is not writable)."""
    if not _safe(run_id):
        return
    folder = outbox_dir(data_dir)
    try:
        (folder / run_id).touch()
    except FileNotFoundError:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / run_id).touch()


def clear(data_dir: Path, run_id: str) -> None:
    """``run_id`` is in the store in full."""
    if _safe(run_id):
        try:
            os.unlink(outbox_dir(data_dir) / run_id)
        except FileNotFoundError:
            pass


def pending(data_dir: Path) -> list[str]:
    """The run ids still to be sent, oldest first (run ids sort by start time)."""
    try:
        return sorted(name for name in os.listdir(outbox_dir(data_dir)) if not name.startswith("."))
    except FileNotFoundError:
        return []


def is_final(record: dict[str, Any]) -> bool:
    """The record will not change any more: finished, or left ``running`` by a process that is gone."""
    return effective_status(record) not in LIVE_STATUSES


def send_pending(conn: psycopg.Connection[Any], data_dir: Path, runs_dir: Path | None = None) -> WriteResult:
    """Send the folder's copy of every marked run; unmark those that are final. Raises psycopg's
    errors (the caller decides the database is down)."""
    runs_dir = Path(runs_dir) if runs_dir is not None else Path(data_dir) / "runs"
    ids = pending(data_dir)
    result = WriteResult()
    for start in range(0, len(ids), BATCH):
        records, done = [], []
        for run_id in ids[start : start + BATCH]:
            path = record_path(runs_dir, run_id)
            try:
                record = load_record(path)
            except RecordError as exc:
                if not path.exists():
                    done.append(run_id)  # deleted from the folder: nothing to send
                else:
                    log.warning("outbox: %s cannot be sent: %s", run_id, exc)
                continue
            records.append(record)
            if is_final(record):
                done.append(run_id)
        result.add(upsert_records(conn, records))
        for run_id in done:
            clear(data_dir, run_id)
    return result
