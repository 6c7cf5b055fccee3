"""Run records: one JSON file per run, written atomically, read tolerantly.

This module is the one path for saving and loading records; the pages, the CLI and the tests
all read through it (and through :mod:`agent_core.store` for many records at once).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import tempfile
import threading
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agent_core.errors import RecordError

SCHEMA_VERSION = 1
STATUSES = ("running", "completed", "max_steps", "error", "cancelled")
INTERRUPTED = "interrupted"
"""Shown (never written) for a record left ``running`` by a process that is gone."""
MAX_RECORD_BYTES = 64 * 1024 * 1024
_HOST = socket.gethostname()


class RecordWriteError(OSError):
    """The record could not be written (read-only or full disk); the message says where and why."""


_id_lock = threading.Lock()
_last_id: list[int] = [0, 0]  # last (milliseconds, sequence) handed out by this process


def new_run_id() -> str:
    """A UUIDv7 string: unique, and sortable by start time even within one millisecond.

    Within a process, ids in the same millisecond take an increasing 12-bit sequence (RFC 9562
    method 1); 62 random bits keep ids from different processes apart.
    """
    with _id_lock:
        ms = time.time_ns() // 1_000_000
        last_ms, last_seq = _last_id
        if ms <= last_ms:
            ms, seq = last_ms, last_seq + 1
            if seq > 0xFFF:
                ms, seq = ms + 1, 0
        else:
            seq = secrets.randbelow(0x800)
        _last_id[:] = [ms, seq]
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76  # version 7
    value |= seq << 64
    value |= 0b10 << 62  # RFC 4122 variant
    value |= secrets.randbits(62)
    return str(uuid.UUID(int=value))


def utc_now() -> str:
    """ISO 8601 UTC timestamp with milliseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def record_path(runs_dir: Path, run_id: str) -> Path:
    return Path(runs_dir) / f"{run_id}.json"


def save_record(record: dict[str, Any], runs_dir: Path) -> Path:
    """Write ``record`` to ``runs_dir/<run_id>.json`` atomically (temp file + rename).

    A failure leaves any earlier version of the file untouched and raises
    :class:`RecordWriteError` with a plain message.
    """
    runs_dir = Path(runs_dir)
    path = record_path(runs_dir, record["run_id"])
    data = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")
    tmp_name = None
    try:
        runs_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{record['run_id']}.", suffix=".tmp", dir=runs_dir)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp_name, path)
        tmp_name = None
    except OSError as exc:
        raise RecordWriteError(
            exc.errno, f"Cannot save the run record in {runs_dir}: {exc.strerror or exc}"
        ) from exc
    finally:
        if tmp_name is not None:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass
    return path


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def effective_status(record: dict[str, Any]) -> str:
    """The status to show: ``interrupted`` for a ``running`` record whose process is gone."""
    status = record.get("status", "")
    if status != "running":
        return status
    owner = record.get("owner") or {}
    pid, host = owner.get("pid"), owner.get("host")
    if isinstance(pid, int) and host == _HOST:
        return "running" if _pid_alive(pid) else INTERRUPTED
    # Another machine's run: trust it for a day since its last write.
    updated = record.get("updated_at") or record.get("started_at")
    try:
        age = datetime.now(timezone.utc) - datetime.fromisoformat(str(updated))
    except (TypeError, ValueError):
        return INTERRUPTED
    return "running" if age.total_seconds() < 86400 else INTERRUPTED


def parse_record(data: bytes, name: str = "record") -> dict[str, Any]:
    """Parse and sanity-check one record; raise :class:`RecordError` saying what is wrong."""
    if not data.strip():
        raise RecordError(f"{name}: empty file")
    try:
        record = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RecordError(f"{name}: not valid JSON ({exc})") from None
    if not isinstance(record, dict):
        raise RecordError(f"{name}: not a run record (top level is {type(record).__name__})")
    if record.get("schema_version") != SCHEMA_VERSION or "run_id" not in record:
        raise RecordError(f"{name}: not a run record (no schema_version {SCHEMA_VERSION} / run_id)")
    missing = [k for k in ("goal", "provider", "status", "steps", "tool_calls") if k not in record]
    if missing:
        raise RecordError(f"{name}: incomplete run record (missing {', '.join(missing)})")
    if not isinstance(record["steps"], list) or not isinstance(record["tool_calls"], list):
        raise RecordError(f"{name}: malformed run record (steps/tool_calls are not lists)")
    return record


def load_record(path: Path | str) -> dict[str, Any]:
    """Read one record; raise :class:`RecordError` for a file that is not a readable record."""
    path = Path(path)
    try:
        if not path.is_file():
            raise RecordError(f"{path.name}: not a regular file")
        if path.stat().st_size > MAX_RECORD_BYTES:
            raise RecordError(f"{path.name}: larger than {MAX_RECORD_BYTES // 2**20} MB")
        data = path.read_bytes()
    except OSError as exc:
        raise RecordError(f"{path.name}: cannot read ({exc.strerror or exc})") from None
    return parse_record(data, path.name)


def summarize(record: dict[str, Any], *, path: str = "") -> dict[str, Any]:
    """The flat row the History table shows for one record."""
    usage = record.get("usage") or {}
    calls = record.get("tool_calls") or []
    return {
        "run_id": record.get("run_id"),
        "started_at": record.get("started_at"),
        "goal": record.get("goal") or "",
        "provider": record.get("provider") or "",
        "model": record.get("model") or "",
        "status": effective_status(record),
        "steps": len(record.get("steps") or []),
        "tool_calls": len(calls),
        "failed_calls": sum(1 for c in calls if isinstance(c, dict) and not c.get("success")),
        "tokens": int(usage.get("total_tokens") or 0),
        "cost_usd": record.get("cost_usd"),
        "duration_ms": record.get("duration_ms"),
        "scripted": bool(record.get("scripted")),
        "path": path,
    }
