"""``python -m agent_core sync``: runs from a folder to the team store, or from the store to a folder.

Both ways compare each run's snapshot rank (steps, finished, tool calls, updated_at; see
:mod:`agent_core.pgstore.write`) before sending it, and only a newer snapshot is written, so a
second sync writes nothing. Work is committed a batch at a time (a file at a time into a folder,
atomically), so a sync killed halfway is simply run again: what was done is skipped.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from agent_core.errors import RecordError
from agent_core.pgstore import outbox
from agent_core.pgstore.write import RunRows, rows_of, upsert_records
from agent_core.records.files import load_record, parse_record, record_path, save_record

Rank = tuple[int, bool, int, str]
_RANKS = "SELECT run_id, steps, status <> 'running', tool_calls, coalesce(updated_at, '') FROM runs"


@dataclass
class SyncReport:
    """What one sync did."""

    seen: int = 0
    """Runs looked at in the source."""
    written: int = 0
    """Runs written to the target (new, or a newer snapshot)."""
    unchanged: int = 0
    """Runs the target already had (as new or newer)."""
    calls: int = 0
    """Tool-call rows written (to the store)."""
    problems: list[str] = field(default_factory=list)
    """Files that are not readable records (skipped, named here)."""
    seconds: float = 0.0

    def line(self, total: int) -> str:
        rate = self.seen / self.seconds if self.seconds > 0 else 0.0
        skipped = f", {len(self.problems)} unreadable" if self.problems else ""
        return (
            f"{self.seen:,}/{total:,} runs: {self.written:,} written, {self.unchanged:,} already there{skipped}"
            f" ({rate:,.0f} runs/s)"
        )


def runs_folder(path: Path) -> Path:
    """The runs folder of ``path``: ``path/runs`` for a data folder (``agent_data``, or a new folder),
    ``path`` itself for a folder named ``runs`` or one that holds records."""
    path = Path(path)
    if (path / "runs").is_dir():
        return path / "runs"
    if path.name == "runs" or (path.is_dir() and any(n.endswith(".json") for n in os.listdir(path))):
        return path
    return path / "runs"


def stored_ranks(conn: psycopg.Connection[Any]) -> dict[str, Rank]:
    """Every run's snapshot rank in the store."""
    return {row[0]: (row[1], row[2], row[3], row[4]) for row in conn.execute(_RANKS).fetchall()}


def _names(runs_dir: Path) -> list[str]:
    try:
        return sorted(n for n in os.listdir(runs_dir) if n.endswith(".json") and not n.startswith("."))
    except FileNotFoundError:
        return []


def folder_to_store(
    conn: psycopg.Connection[Any],
    folder: Path,
    *,
    batch: int = 500,
    progress: Callable[[str], None] | None = None,
) -> SyncReport:
    """Send every run of ``folder`` (a data folder or a runs folder) that the store lacks or has older."""
    started = time.perf_counter()
    runs_dir = runs_folder(folder)
    data_dir = runs_dir.parent  # the outbox sits beside runs/
    names = _names(runs_dir)
    have = stored_ranks(conn)
    report = SyncReport()
    for start in range(0, len(names), batch):
        rows: list[RunRows] = []
        final: list[str] = []
        for name in names[start : start + batch]:
            report.seen += 1
            try:
                record = load_record(runs_dir / name)
                row = rows_of(record)
            except (RecordError, ValueError) as exc:
                report.problems.append(str(exc) if name in str(exc) else f"{name}: {exc}")
                continue
            if outbox.is_final(record):
                final.append(row.run_id)
            stored = have.get(row.run_id)
            if stored is not None and stored >= row.rank:
                report.unchanged += 1
                continue
            rows.append(row)
        result = upsert_records(conn, rows, batch_size=batch)
        report.written += result.written
        report.unchanged += result.unchanged
        report.calls += result.calls
        for run_id in final:  # the store has it in full now
            outbox.clear(data_dir, run_id)
        report.seconds = time.perf_counter() - started
        if progress is not None:
            progress(report.line(len(names)))
    report.seconds = time.perf_counter() - started
    return report


def _local_rank(path: Path) -> Rank | None:
    try:
        return rows_of(load_record(path)).rank
    except (RecordError, ValueError):
        return None


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def store_to_folder(
    conn: psycopg.Connection[Any],
    folder: Path,
    *,
    batch: int = 500,
    progress: Callable[[str], None] | None = None,
) -> SyncReport:
    """Write every run of the store that ``folder`` lacks or has older (each file atomically)."""
    started = time.perf_counter()
    runs_dir = runs_folder(folder)
    runs_dir.mkdir(parents=True, exist_ok=True)
    ranks = stored_ranks(conn)
    ids = sorted(ranks)
    report = SyncReport()
    for chunk in _chunks(ids, batch):
        wanted = []
        for run_id in chunk:
            report.seen += 1
            path = record_path(runs_dir, run_id)
            local = _local_rank(path) if path.exists() else None
            if local is not None and local >= ranks[run_id]:
                report.unchanged += 1
            else:
                wanted.append(run_id)
        if wanted:
            rows = conn.execute("SELECT run_id, record::text FROM runs WHERE run_id = ANY(%s)", (wanted,)).fetchall()
            for run_id, text in rows:
                try:
                    record = parse_record(text.encode("utf-8"), run_id)
                    if "/" in run_id or "\\" in run_id or run_id.startswith("."):
                        raise RecordError(f"{run_id!r}: not a run id that can name a file")
                    save_record(record, runs_dir)
                except RecordError as exc:
                    report.problems.append(str(exc))
                    continue
                report.written += 1
        report.seconds = time.perf_counter() - started
        if progress is not None:
            progress(report.line(len(ids)))
    report.seconds = time.perf_counter() - started
    return report
