"""Run records: one JSON file per run, written atomically, read tolerantly.

This module is the one path for saving and loading records; the pages, the CLI and the tests
all read through it (and through :mod:`agent_core.records.store` for many records at once).
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
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agent_core.errors import RecordError
from agent_core.records.run_record import LIVE_STATUSES, READABLE_VERSIONS, SCHEMA_VERSION, Status, upgrade

STATUSES: tuple[Status, ...] = ("running", "waiting_for_approval", "completed", "max_steps", "error", "cancelled")
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


_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode
"""The one JSON form of a record (compact, UTF-8 text kept as is)."""


class RecordEncoder:
    """Encodes one growing record again and again, encoding each list item only once.

    A run is saved after every step, and re-encoding every earlier step, block, call and message
    each time is most of the engine's own time per step on long runs. Items of the list fields
    (:attr:`LIST_FIELDS`) are encoded when first seen and reused while the very same object is
    still in the list; everything else is encoded each time. The output is byte for byte what
    ``json.dumps`` gives. An item must not be changed after it was appended (the loop appends
    finished items only); ``full=True`` encodes everything afresh (the final save of a run).
    """

    LIST_FIELDS = ("steps", "context_blocks", "tool_calls", "history")

    def __init__(self) -> None:
        self._seen: dict[str, dict[int, tuple[Any, str]]] = {}
        # Placeholders for the list fields in one encoding of the rest of the record; random, so
        # no value can contain one by chance.
        token = secrets.token_hex(16)
        self._holders = {key: f"\x00{token}:{key}" for key in self.LIST_FIELDS}
        self._encoded_holders = {key: _encode(holder) for key, holder in self._holders.items()}

    def encode(self, record: Mapping[str, Any], *, full: bool = False) -> str:
        """``record`` as JSON text, identical to :func:`json.dumps` with the record settings."""
        if full:
            self._seen = {}
            return _encode(record)
        lists = {key: value for key, value in record.items() if key in self._holders and isinstance(value, list)}
        text = _encode({key: self._holders[key] if key in lists else value for key, value in record.items()})
        for key, items in lists.items():
            text = text.replace(self._encoded_holders[key], "[" + ",".join(self._items(key, items)) + "]", 1)
        return text

    def _items(self, key: str, items: list[Any]) -> list[str]:
        old = self._seen.get(key, {})
        new: dict[int, tuple[Any, str]] = {}
        out = []
        for item in items:
            hit = old.get(id(item))
            # The object itself is kept in the cache, so its id cannot be reused by another.
            text = hit[1] if hit is not None and hit[0] is item else _encode(item)
            new[id(item)] = (item, text)
            out.append(text)
        self._seen[key] = new
        return out


def save_record(
    record: Mapping[str, Any], runs_dir: Path, *, encoder: RecordEncoder | None = None, final: bool = True
) -> Path:
    """Write ``record`` to ``runs_dir/<run_id>.json`` atomically (temp file + rename).

    ``encoder`` (one per run) saves re-encoding what earlier saves already encoded; ``final=False``
    lets it reuse those parts. A failure leaves any earlier version of the file untouched and
    raises :class:`RecordWriteError` with a plain message.
    """
    runs_dir = Path(runs_dir)
    path = record_path(runs_dir, record["run_id"])
    text = encoder.encode(record, full=final) if encoder is not None else _encode(record)
    # errors="replace": a lone surrogate left in some field becomes "?" instead of stopping the save.
    data = text.encode("utf-8", "replace")
    tmp_name = None
    try:
        if not runs_dir.is_dir():
            runs_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{record['run_id']}.", suffix=".tmp", dir=runs_dir)
        os.fchmod(fd, 0o644)  # mkstemp makes 0600: a dashboard run by another user must read CLI runs
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp_name, path)
        tmp_name = None
    except OSError as exc:
        raise RecordWriteError(exc.errno, f"Cannot save the run record in {runs_dir}: {exc.strerror or exc}") from exc
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
    """The status to show: ``interrupted`` for a ``running`` (or ``waiting_for_approval``) record
    whose process is gone."""
    status = record.get("status", "")
    if status not in LIVE_STATUSES:
        return status
    owner = record.get("owner") or {}
    pid, host = owner.get("pid"), owner.get("host")
    if isinstance(pid, int) and host == _HOST:
        return status if _pid_alive(pid) else INTERRUPTED
    # Another machine's run: trust it for a day since its last write.
    updated = record.get("updated_at") or record.get("started_at")
    try:
        age = datetime.now(timezone.utc) - datetime.fromisoformat(str(updated))
    except (TypeError, ValueError):
        return INTERRUPTED
    return status if age.total_seconds() < 86400 else INTERRUPTED


_FIELD_TYPES: dict[str, type | tuple[type, ...]] = {
    "run_id": str,
    "goal": str,
    "provider": str,
    "model": (str, type(None)),
    "status": str,
    "settings": dict,
    "usage": dict,
    "error": (dict, type(None)),
    "answer": (str, type(None)),
    "context_blocks": list,
    "history": list,
}
"""Types of the top-level fields every reader relies on (a field may be absent, never mistyped)."""
_LIST_OF_OBJECTS = ("steps", "tool_calls", "context_blocks", "history")


def parse_record(data: bytes, name: str = "record") -> dict[str, Any]:
    """Parse and sanity-check one record; raise :class:`RecordError` saying what is wrong."""
    if not data.strip():
        raise RecordError(f"{name}: empty file")
    try:
        record = json.loads(data)
    except (ValueError, RecursionError) as exc:  # bad JSON or UTF-8, a 5,000-digit number, deep nesting
        raise RecordError(f"{name}: not valid JSON ({exc})") from None
    if not isinstance(record, dict):
        raise RecordError(f"{name}: not a run record (top level is {type(record).__name__})")
    if record.get("schema_version") not in READABLE_VERSIONS or "run_id" not in record:
        raise RecordError(f"{name}: not a run record (no schema_version {SCHEMA_VERSION} / run_id)")
    record = upgrade(record)
    missing = [k for k in ("goal", "provider", "status", "steps", "tool_calls") if k not in record]
    if missing:
        raise RecordError(f"{name}: incomplete run record (missing {', '.join(missing)})")
    if not isinstance(record["steps"], list) or not isinstance(record["tool_calls"], list):
        raise RecordError(f"{name}: malformed run record (steps/tool_calls are not lists)")
    wrong = [key for key, kinds in _FIELD_TYPES.items() if key in record and not isinstance(record[key], kinds)]
    wrong += [
        f"{key}[]"
        for key in _LIST_OF_OBJECTS
        # (set of the items' types: one C-level pass, where a generator costs ~30 µs per record)
        if isinstance(record.get(key), list) and not set(map(type, record[key])) <= {dict}
    ]
    if wrong:
        raise RecordError(f"{name}: malformed run record (wrong type: {', '.join(wrong)})")
    return record


def read_capped(path: Path, limit: int, problem: Callable[[str], Exception]) -> bytes:
    """The bytes of the regular file ``path`` (``limit`` bytes at most); ``problem(message)`` is
    raised for anything else: not a regular file (a FIFO is never opened), too large, unreadable."""
    try:
        if not path.is_file():
            raise problem(f"{path.name}: not a regular file")
        if path.stat().st_size > limit:
            raise problem(f"{path.name}: larger than {limit // 2**20} MB")
        return path.read_bytes()
    except OSError as exc:
        raise problem(f"{path.name}: cannot read ({exc.strerror or exc})") from None


def load_record(path: Path | str) -> dict[str, Any]:
    """Read one record; raise :class:`RecordError` for a file that is not a readable record."""
    path = Path(path)
    return parse_record(read_capped(path, MAX_RECORD_BYTES, RecordError), path.name)
