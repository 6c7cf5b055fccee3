"""The persisted summary index of a runs folder: one SQLite file (stdlib ``sqlite3``, WAL mode).

The index keeps one row for every file in the runs folder: its key (name, size, mtime, inode), its
summary values (or the reason it could not be read) and its tool calls (one JSON array of rows, so a
record is one SQLite row to write and to read), so a new process can draw the History and Tool-stats
pages without parsing every record again. It is a cache: the run files stay the truth. It is checked
on every use and thrown away and rebuilt when it is corrupt, written by another format version, or
replaced by another process; when it cannot be written at all (read-only folder, locked for too
long) :class:`agent_core.records.store.RunStore` goes on in memory.

Several processes (two Streamlit servers, the CLI) may share one index: WAL lets readers run
beside a writer, each write is one short transaction, and writes are idempotent (the same file
key always gives the same rows), so the last writer winning is harmless.
"""

from __future__ import annotations

import json
import logging
import marshal
import os
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from agent_core.errors import RecordError
from agent_core.records.columns import COLUMNS_VERSION, RUN_FIELDS, as_float, as_int, as_text, rejected_call, run_values
from agent_core.records.files import MAX_RECORD_BYTES, parse_record

log = logging.getLogger("agent_core.records.index")

INDEX_FORMAT = f"5-{COLUMNS_VERSION}"
"""Changes with the stored columns (bump the number when their meaning changes): older indexes are rebuilt."""

FILE_FIELDS = ("name", "size", "mtime_ns", "ino", "problem")
CALL_FIELDS = (
    "seq",
    "call_id",
    "step",
    "tool",
    "success",
    "error_category",
    "attempts",
    "fallback",
    "fallback_success",
    "duplicate",
    "truncated",
    "duration_ms",
    "started_at",
    "origin",
)
"""One row per tool call of a record (``seq``: its position in the record's ``tool_calls``)."""
ORIGINS = ("model", "harness")  # who chose a call; any other value (or none) is stored as None

FileRow = tuple[Any, ...]
"""``FILE_FIELDS + RUN_FIELDS`` values; the run fields are None when ``problem`` is set."""
CallColumns = Sequence[list[Any]]
"""A record's tool calls by column: one list per :data:`CALL_FIELDS` entry (empty: no calls).
Stored and combined column-wise, which is what the tool-call table is built from."""
StoredCalls = str | None
""":data:`CallColumns` encoded (see :func:`encode_calls`)."""

_TABLES = f"""
DROP TABLE IF EXISTS files;
DROP TABLE IF EXISTS calls;
CREATE TABLE files (
    name TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, ino INTEGER, problem TEXT,
    {", ".join(RUN_FIELDS)}, calls TEXT
);
"""
_COLUMNS = ", ".join(FILE_FIELDS + RUN_FIELDS + ("calls",))
_CORRUPT_CODES = {
    getattr(sqlite3, "SQLITE_CORRUPT", 11),
    getattr(sqlite3, "SQLITE_NOTADB", 26),
    getattr(sqlite3, "SQLITE_FORMAT", 24),
}
_BUSY_CODES = {getattr(sqlite3, "SQLITE_BUSY", 5), getattr(sqlite3, "SQLITE_LOCKED", 6)}
_PARSE_ERRORS = (RecordError, OSError, ValueError, TypeError, AttributeError, KeyError, OverflowError)
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


# -- one record → rows --------------------------------------------------------------------------
_text, _int, _float = as_text, as_int, as_float
_I64 = 2**63


def extract(record: dict[str, Any], name: str) -> tuple[tuple[Any, ...], CallColumns]:
    """The summary values (:data:`~agent_core.records.columns.RUN_FIELDS`) and tool calls (by :data:`CALL_FIELDS` column) of one record.

    Values are reduced to what SQLite stores (str, int, float, None), whatever a foreign or
    hand-edited record holds.
    """
    columns: list[list[Any]] = [[] for _ in CALL_FIELDS]
    (
        seqs,
        ids,
        steps,
        tools,
        oks,
        categories,
        attempts_,
        fallbacks,
        fallback_oks,
        duplicates,
        truncated,
        durations,
        starts,
        origins,
    ) = (column.append for column in columns)
    failed = 0
    # The common types are checked inline (this loop runs for every call of every record).
    for seq, call in enumerate(record.get("tool_calls") or ()):
        if not isinstance(call, dict) or call.get("cancelled") is True or rejected_call(call):  # not the tool
            continue
        get = call.get
        attempts = get("attempts")
        fallback = get("fallback")
        if isinstance(fallback, dict):
            fb_tool, fb_ok = _text(fallback.get("tool")), bool(fallback.get("success"))
        else:
            fb_tool, fb_ok = (_text(fallback) if fallback else None), None
        success = bool(get("success"))
        failed += not success
        seqs(seq)
        v = get("call_id")
        ids(v if v is None or type(v) is str else _text(v))
        v = get("step")
        steps(v if type(v) is int and -_I64 <= v < _I64 else _int(v))
        v = get("tool")
        tools(v if v is None or type(v) is str else _text(v))
        oks(success)
        v = get("error_category")
        categories(v if v is None or type(v) is str else _text(v))
        attempts_(len(attempts) if isinstance(attempts, list) else (_int(attempts) or 0))
        fallbacks(fb_tool)
        fallback_oks(fb_ok)
        duplicates(bool(get("duplicate")))
        truncated(bool(get("truncated")))
        v = get("duration_ms")
        durations(v if type(v) is float and v == v else _float(v))
        v = get("started_at")
        starts(v if v is None or type(v) is str else _text(v))
        origins(v if (v := get("origin")) in ORIGINS else None)
    run = run_values(record, failed)
    return run, columns if columns[0] else []


def read_file(runs_dir: str, name: str) -> tuple[FileRow, CallColumns] | None:
    """Parse one file into its index rows; None when it is gone. Never raises: a bad file gets
    a ``problem`` instead of summary values."""
    path = os.path.join(runs_dir, name)
    size = mtime = ino = None
    try:
        # Opened non-blocking and checked to be a regular file: a FIFO or a device (a link to
        # /dev/zero) named *.json is reported, never waited on or read without end.
        with open(os.open(path, _OPEN_FLAGS), "rb") as handle:
            st = os.fstat(handle.fileno())
            size, mtime, ino = st.st_size, st.st_mtime_ns, st.st_ino
            if not stat.S_ISREG(st.st_mode):
                raise RecordError(f"{name}: not a regular file")
            if size > MAX_RECORD_BYTES:
                raise RecordError(f"{name}: larger than {MAX_RECORD_BYTES // 2**20} MB")
            # Sized by fstat (a 64 MB read buffer per file would cost more than the parse);
            # a file still growing is read on, up to the limit.
            data = handle.read(size + 1)
            if len(data) > size:
                data += handle.read(MAX_RECORD_BYTES + 1 - len(data))
            if len(data) > MAX_RECORD_BYTES:
                raise RecordError(f"{name}: larger than {MAX_RECORD_BYTES // 2**20} MB")
        record = parse_record(data, name)
        run, calls = extract(record, name)
    except FileNotFoundError:
        if not os.path.islink(path):
            return None
        reason = f"{name}: cannot read (a link to a file that does not exist)"
    except _PARSE_ERRORS as exc:
        if isinstance(exc, RecordError):
            reason = str(exc)
        elif isinstance(exc, OSError):
            reason = f"{name}: cannot read ({exc.strerror or exc})"
        else:
            reason = f"{name}: malformed run record ({type(exc).__name__}: {exc})"
    else:
        return (name, size, mtime, ino, None) + run, calls
    if size is None:  # never opened (a broken link, a link loop): keyed by the entry itself
        try:
            st = os.lstat(path)
            size, mtime, ino = st.st_size, st.st_mtime_ns, st.st_ino
        except OSError:
            pass
    return (name, size, mtime, ino, reason) + (None,) * len(RUN_FIELDS), []


class IndexUnavailable(Exception):
    """The index cannot be used right now (locked by another process, unwritable, …)."""


def default_index_path(runs_dir: Path | str) -> Path:
    """``<data_dir>/index/<runs folder name>.sqlite`` (``agent_data/index/runs.sqlite``)."""
    runs_dir = Path(runs_dir)
    return runs_dir.parent / "index" / f"{runs_dir.name or 'runs'}.sqlite"


def _is_corrupt(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _CORRUPT_CODES
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


def _is_foreign(exc: sqlite3.Error) -> bool:
    """Tables that are not ours (another program's file, or a schema changed behind our back)."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("no such table" in text or "no such column" in text)


def _is_busy(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    return "locked" in str(exc).lower() or "busy" in str(exc).lower()


class RunIndex:
    """One SQLite index file; every method is safe to call from several threads.

    Methods raise :class:`IndexUnavailable` when the index cannot be used right now; a corrupt
    or foreign file is removed and recreated empty on the spot (the caller then re-parses).
    """

    def __init__(self, path: Path | str, *, timeout: float = 2.0) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._ino: int | None = None
        self.rebuilt = 0
        """How many times this object threw the file away and started again (for tests/logs)."""

    # -- connection -----------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        """An open, checked connection; recreates a corrupt or outdated file."""
        if self._conn is not None:
            try:
                ino = os.stat(self.path).st_ino
            except OSError:
                ino = None
            if ino == self._ino:
                return self._conn
            # Another process replaced (rebuilt) or removed the file: follow it.
            self.close()
        for attempt in (1, 2):
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False)
            except (OSError, sqlite3.Error) as exc:
                raise IndexUnavailable(f"cannot open {self.path}: {exc}") from exc
            try:
                self._prepare(conn)
            except sqlite3.Error as exc:
                conn.close()
                if _is_busy(exc):
                    raise IndexUnavailable(f"{self.path} is busy: {exc}") from exc
                if attempt == 2:
                    raise IndexUnavailable(f"cannot use {self.path}: {exc}") from exc
                log.warning("run index %s is unusable (%s); rebuilding it", self.path, exc)
                self._discard()
                continue
            self._conn = conn
            try:
                self._ino = os.stat(self.path).st_ino
            except OSError:
                self._ino = None
            return conn
        raise IndexUnavailable(f"cannot use {self.path}")  # pragma: no cover - loop always returns

    def _prepare(self, conn: sqlite3.Connection) -> None:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        row = conn.execute("SELECT value FROM meta WHERE key='format'").fetchone()
        if row is not None and row[0] == INDEX_FORMAT:
            return
        # New file, or written by another format: start from new, empty tables.
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute("SELECT value FROM meta WHERE key='format'").fetchone()
            if row is None or row[0] != INDEX_FORMAT:
                if row is not None:
                    log.info("run index %s has format %s (want %s); rebuilding", self.path, row[0], INDEX_FORMAT)
                for statement in _TABLES.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('format', ?)", (INDEX_FORMAT,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _discard(self) -> None:
        """Remove a corrupt index file (and its WAL/SHM companions)."""
        self.rebuilt += 1
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.unlink(f"{self.path}{suffix}")
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise IndexUnavailable(f"cannot remove the corrupt index {self.path}: {exc}") from exc

    def close(self) -> None:
        """Close the connection (it reopens on next use)."""
        with self._lock:
            if self._conn is not None:
                try:
                    self._conn.close()
                except sqlite3.Error:
                    pass
            self._conn = None
            self._ino = None

    def _run(self, work: Any) -> Any:
        """Run ``work(conn)``; on corruption rebuild once and retry; busy → IndexUnavailable."""
        with self._lock:
            for attempt in (1, 2):
                conn = self._connect()
                try:
                    return work(conn)
                except sqlite3.Error as exc:
                    if conn.in_transaction:
                        try:
                            conn.execute("ROLLBACK")
                        except sqlite3.Error:
                            pass
                    if _is_busy(exc):
                        raise IndexUnavailable(f"{self.path} is busy: {exc}") from exc
                    if attempt == 2 or not (_is_corrupt(exc) or _is_foreign(exc)):
                        raise IndexUnavailable(f"{self.path}: {exc}") from exc
                    log.warning("run index %s is corrupt (%s); rebuilding it", self.path, exc)
                    self.close()
                    self._discard()
            raise IndexUnavailable(f"cannot use {self.path}")  # pragma: no cover

    # -- reading and writing ---------------------------------------------------------------
    def load(self) -> list[tuple[FileRow, str | None]]:
        """Every stored file: its row, and its call rows still encoded (see :func:`decode_calls`; pages
        that never look at tool calls never pay for decoding them). Empty for a new or rebuilt index."""

        def work(conn: sqlite3.Connection) -> list[tuple[FileRow, str | None]]:
            return [(row[:-1], row[-1]) for row in conn.execute(f"SELECT {_COLUMNS} FROM files")]

        return self._run(work)

    def apply(self, upserts: Sequence[tuple[FileRow, StoredCalls | CallColumns]], deletes: Iterable[str]) -> None:
        """Store new or changed files (with their encoded calls) and forget deleted ones, atomically."""
        deleted = [(name,) for name in deletes]
        if not upserts and not deleted:
            return
        sql = f"INSERT OR REPLACE INTO files ({_COLUMNS}) VALUES ({', '.join('?' * (len(_COLUMNS.split(','))))})"
        values = [(*row, c if c is None or isinstance(c, str) else encode_calls(c)) for row, c in upserts]

        def work(conn: sqlite3.Connection) -> None:
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("DELETE FROM files WHERE name=?", deleted)
            conn.executemany(sql, values)
            conn.execute("COMMIT")

        self._run(work)


_dumps = json.JSONEncoder(separators=(",", ":")).encode


def encode_calls(columns: CallColumns) -> StoredCalls:
    """A record's call columns as stored (compact JSON text; None when it made no calls).

    Parsed records keep only this text until the tool-call table is needed: a few hundred bytes
    per record instead of a dozen Python objects per call (100,000 runs: ~50 MB, not ~500 MB).
    """
    return _dumps(columns) if columns else None


def decode_calls(stored: str | CallColumns | None) -> CallColumns:
    """A record's call columns as :meth:`RunIndex.load` returns them (encoded) or as parsed;
    ValueError when a stored value is damaged."""
    if stored is None:
        return []
    if not isinstance(stored, str):
        return stored
    columns = json.loads(stored)
    # (map/set: one C-level pass each; this runs for every stored record)
    if (
        type(columns) is not list
        or len(columns) != len(CALL_FIELDS)
        or set(map(type, columns)) != {list}
        or len(set(map(len, columns))) != 1
    ):
        raise ValueError("stored call rows are damaged")
    return columns


# -- parsing many files, on every core --------------------------------------------------------
PARALLEL_MIN_FILES = 1000
"""Below this many files to parse, helper processes cost more than they save."""
_ROOT = str(Path(__file__).resolve().parents[2])
_WORKER = (
    "import sys; sys.path.insert(0, sys.argv[1]); from agent_core.records.index import _worker_main; _worker_main()"
)


def idle_cores(window: float = 0.05) -> int:
    """Cores not busy with other work right now: a helper process on a core that is already
    busy only adds its start-up and the transfer of its results.

    Measured from the CPU time counters over ``window`` seconds (Linux ``/proc/stat``); the
    1-minute load average is only the fallback, since it still counts work that ended up to a
    minute ago (a benchmark's previous step, the tests that ran before).
    """
    cores = default_workers()
    busy = _busy_cores(window)
    if busy is None:
        try:
            busy = os.getloadavg()[0]
        except (AttributeError, OSError):
            return cores
    return max(1, min(cores, round(cores - busy + 0.4)))


def _cpu_times() -> tuple[int, int] | None:
    """(idle, total) jiffies of all CPUs, or None where ``/proc/stat`` is not there."""
    try:
        with open("/proc/stat", "rb") as handle:
            fields = handle.readline().split()
    except OSError:
        return None
    if len(fields) < 6 or fields[0] != b"cpu":
        return None
    values = [int(v) for v in fields[1:9]]
    return values[3] + values[4], sum(values)  # idle + iowait, all (guest time is inside user)


def _busy_cores(window: float) -> float | None:
    first = _cpu_times()
    if first is None:
        return None
    time.sleep(window)
    second = _cpu_times()
    if second is None or second[1] <= first[1]:
        return None
    idle, total = second[0] - first[0], second[1] - first[1]
    return (os.cpu_count() or 1) * (1 - idle / total)


def default_workers() -> int:
    """Processes to parse with: the cores this process may use (at most 4)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def _parse_here(
    runs_dir: str, names: Iterable[str], keep_columns: bool
) -> tuple[list[tuple[FileRow, StoredCalls | CallColumns]], list[str]]:
    rows: list[tuple[FileRow, StoredCalls | CallColumns]] = []
    gone = []
    for name in names:
        result = read_file(runs_dir, name)
        if result is None:
            gone.append(name)
        else:
            rows.append((result[0], result[1] if keep_columns else encode_calls(result[1])))
    return rows, gone


def parse_files(
    runs_dir: str,
    names: Sequence[str],
    *,
    workers: int = 1,
    index: RunIndex | None = None,
    keep_columns: bool = True,
) -> tuple[list[tuple[FileRow, StoredCalls | CallColumns]], list[str], set[str]]:
    """Parse ``names`` in ``runs_dir``: ``(rows of the files read, names that vanished, names
    whose rows a helper already stored in index)``. Each file's calls come as columns, or
    encoded (:func:`encode_calls`, far smaller in memory) when ``keep_columns`` is false.

    With ``workers > 1`` and many files, helper processes (plain ``python -I -S`` subprocesses
    running only stdlib code, so they start in milliseconds and never re-import the caller's
    main module) each parse a share and store it in ``index`` themselves, while this process
    parses its own share. A helper that fails is replaced by parsing its share here.
    """
    # (idle_cores takes 50 ms to measure: only asked when helpers are an option at all)
    workers = min(workers, idle_cores()) if workers > 1 and len(names) >= PARALLEL_MIN_FILES else 1
    if workers <= 1:
        rows, gone = _parse_here(runs_dir, names, keep_columns)
        return rows, gone, set()
    size = -(-len(names) // workers)
    shares = [list(names[i : i + size]) for i in range(0, len(names), size)]
    helpers: list[tuple[subprocess.Popen[bytes] | None, list[str], threading.Thread | None]] = []
    for share in shares[1:]:
        try:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-I",
                    "-S",
                    "-c",
                    _WORKER,
                    _ROOT,
                    runs_dir,
                    str(index.path) if index else "",
                    "columns" if keep_columns else "encoded",
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as exc:
            log.warning("cannot start a parse helper (%s); parsing here", exc)
            helpers.append((None, share, None))
            continue
        feeding = threading.Thread(target=_feed, args=(proc, share), daemon=True)
        feeding.start()
        helpers.append((proc, share, feeding))
    rows, gone = _parse_here(runs_dir, shares[0], keep_columns)
    stored: set[str] = set()
    if index is not None:
        # Stored now, while the helpers still parse (they store their own shares when done).
        try:
            index.apply(rows, [])
            stored.update(row[0] for row, _ in rows)
        except IndexUnavailable:
            pass  # the caller tries again with everything that is not stored
    for helper, share, feeder in helpers:
        result = _collect(helper, feeder) if helper is not None else None
        if result is None:
            more, more_gone = _parse_here(runs_dir, share, keep_columns)
        else:
            written, more, more_gone = result
            if written:
                stored.update(row[0] for row, _ in more)
        rows.extend(more)
        gone.extend(more_gone)
    return rows, gone, stored


def _feed(proc: subprocess.Popen[bytes], names: list[str]) -> None:
    try:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(names).encode("utf-8"))
        proc.stdin.close()
    except OSError:
        pass


def _collect(proc: subprocess.Popen[bytes], feeder: threading.Thread | None) -> Any:
    try:
        assert proc.stdout is not None
        data = proc.stdout.read()
        code = proc.wait()
        if feeder is not None:
            feeder.join()
        if code != 0:
            log.warning("parse helper exited with %s; parsing its share here", code)
            return None
        return marshal.loads(data)
    except (OSError, ValueError, EOFError, TypeError) as exc:
        log.warning("parse helper failed (%s); parsing its share here", exc)
        proc.kill()
        return None


def _worker_main() -> None:
    """Helper process: argv = root, runs_dir, index path ('' = none), "columns" or "encoded"; stdin =
    JSON list of names. Calls are sent back as columns (marshal loads them far faster than JSON
    text decodes) or, when the caller keeps many files encoded, as stored.

    Writes ``marshal((stored_in_index, rows, vanished))`` to stdout.
    """
    runs_dir, index_path, calls_as = sys.argv[2], sys.argv[3], sys.argv[4]
    names = json.loads(sys.stdin.buffer.read())
    rows, gone = _parse_here(runs_dir, names, calls_as == "columns")
    written = False
    if index_path:
        try:
            RunIndex(index_path).apply(rows, [])
            written = True
        except IndexUnavailable:
            pass
    sys.stdout.buffer.write(marshal.dumps((written, rows, gone)))
    sys.stdout.buffer.flush()
