"""Reading many run records: the History and Tool-stats pages, the CLI and the tests use this.

:class:`RunStore` scans the runs folder, parses only new or changed files (keyed by name, size
and mtime), and serves two tables: one row per run and one row per tool call. Unreadable files
are listed in :meth:`RunStore.problems` and skipped.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from agent_core.errors import RecordError
from agent_core.records import effective_status, load_record, parse_record, summarize

log = logging.getLogger("agent_core.store")

RUN_COLUMNS = [
    "run_id", "started_at", "goal", "provider", "model", "status", "steps", "tool_calls",
    "failed_calls", "tokens", "cost_usd", "duration_ms", "scripted", "path",
]
CALL_COLUMNS = [
    "run_id", "run_started_at", "provider", "model", "call_id", "step", "tool", "success",
    "error_category", "attempts", "retried", "fallback", "fallback_success", "duplicate",
    "truncated", "duration_ms", "started_at",
]


@dataclass(frozen=True)
class _Entry:
    key: tuple[int, int]
    summary: dict[str, Any] | None
    calls: list[dict[str, Any]]
    problem: str | None


def call_rows(record: dict[str, Any]) -> list[dict[str, Any]]:
    """One flat row per tool call of ``record`` (the Tool-stats page's unit)."""
    rows = []
    for call in record.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        attempts = call.get("attempts")
        n_attempts = len(attempts) if isinstance(attempts, list) else int(attempts or 0)
        fallback = call.get("fallback")
        rows.append(
            {
                "run_id": record.get("run_id"),
                "run_started_at": record.get("started_at"),
                "provider": record.get("provider"),
                "model": record.get("model"),
                "call_id": call.get("call_id"),
                "step": call.get("step"),
                "tool": call.get("tool"),
                "success": bool(call.get("success")),
                "error_category": call.get("error_category"),
                "attempts": n_attempts,
                "retried": n_attempts > 1,
                "fallback": fallback.get("tool") if isinstance(fallback, dict) else fallback,
                "fallback_success": bool(fallback.get("success")) if isinstance(fallback, dict) else None,
                "duplicate": bool(call.get("duplicate")),
                "truncated": bool(call.get("truncated")),
                "duration_ms": call.get("duration_ms"),
                "started_at": call.get("started_at"),
            }
        )
    return rows


class RunStore:
    """A cached view of one runs folder; thread-safe, cheap to refresh."""

    def __init__(self, runs_dir: Path | str) -> None:
        self.runs_dir = Path(runs_dir)
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self._frames: tuple[pd.DataFrame, pd.DataFrame] | None = None

    def refresh(self) -> bool:
        """Re-scan the folder; parse only new or changed files. True when anything changed."""
        seen: dict[str, tuple[int, int]] = {}
        try:
            with os.scandir(self.runs_dir) as it:
                for item in it:
                    if not item.name.endswith(".json") or item.name.startswith("."):
                        continue
                    try:
                        st = item.stat()
                    except OSError:
                        continue
                    seen[item.name] = (st.st_size, st.st_mtime_ns)
        except FileNotFoundError:
            pass
        except OSError as exc:
            log.warning("cannot list %s: %s", self.runs_dir, exc)
        changed = False
        with self._lock:
            for name in list(self._entries):
                if name not in seen:
                    del self._entries[name]
                    changed = True
            for name, key in seen.items():
                old = self._entries.get(name)
                if old is not None and old.key == key and (old.summary is None or old.summary["status"] != "running"):
                    continue
                self._entries[name] = self._parse(name, key)
                changed = True
            if changed:
                self._frames = None
        return changed

    def _parse(self, name: str, key: tuple[int, int]) -> _Entry:
        path = self.runs_dir / name
        try:
            record = load_record(path)
        except RecordError as exc:
            return _Entry(key, None, [], str(exc))
        return _Entry(key, summarize(record, path=str(path)), call_rows(record), None)

    def _build(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        with self._lock:
            if self._frames is None:
                entries = list(self._entries.values())
                runs = pd.DataFrame([e.summary for e in entries if e.summary], columns=RUN_COLUMNS)
                calls = pd.DataFrame([row for e in entries for row in e.calls], columns=CALL_COLUMNS)
                runs["started_at"] = pd.to_datetime(runs["started_at"], utc=True, errors="coerce", format="ISO8601")
                runs = runs.sort_values("started_at", ascending=False, kind="stable").reset_index(drop=True)
                calls["run_started_at"] = pd.to_datetime(
                    calls["run_started_at"], utc=True, errors="coerce", format="ISO8601"
                )
                self._frames = (runs, calls)
            return self._frames

    def runs(self) -> pd.DataFrame:
        """One row per readable run, newest first (columns: :data:`RUN_COLUMNS`)."""
        return self._build()[0]

    def tool_calls(self) -> pd.DataFrame:
        """One row per tool call across all readable runs (columns: :data:`CALL_COLUMNS`)."""
        return self._build()[1]

    def problems(self) -> list[tuple[str, str]]:
        """(file name, reason) for every file that could not be read as a run record."""
        with self._lock:
            return sorted((n, e.problem) for n, e in self._entries.items() if e.problem)

    def load(self, run_id: str) -> dict[str, Any]:
        """The full record of one run, read on demand; :class:`RecordError` when missing or bad."""
        if not run_id or "/" in run_id or "\\" in run_id or run_id.startswith("."):
            raise RecordError(f"{run_id!r} is not a run id")
        record = load_record(self.runs_dir / f"{run_id}.json")
        record["status_shown"] = effective_status(record)
        return record


def read_record_bytes(data: bytes, name: str = "upload") -> dict[str, Any]:
    """Parse a record given as bytes (an uploaded file)."""
    return parse_record(data, name)
