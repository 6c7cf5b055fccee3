"""Reading many run records: the History and Tool-stats pages, the CLI and the tests use this.

:class:`RunStore` scans the runs folder and parses only new or changed files (keyed by name,
size, mtime and inode). What it learns goes into a persisted SQLite index
(:mod:`agent_core.records.index`, ``<data_dir>/index/runs.sqlite``), so a restart reads the summaries
from there instead of parsing every record again. It serves two tables, kept up to date
incrementally: one row per run and one row per tool call. Unreadable files are listed in
:meth:`RunStore.problems` and skipped. A run stored as ``running`` is re-checked on every read,
so a record left behind by a dead process shows as ``interrupted``.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Sequence
from itertools import chain
from pathlib import Path
from typing import Any

import pandas as pd

from agent_core.errors import RecordError
from agent_core.records.columns import TABLE_COLUMNS
from agent_core.records.files import effective_status, load_record
from agent_core.records.index import (
    CALL_FIELDS,
    CallColumns,
    FileRow,
    IndexUnavailable,
    RunIndex,
    StoredCalls,
    decode_calls,
    default_index_path,
    default_workers,
    extract,
    parse_files,
    read_file,
)
from agent_core.records.run_record import LIVE_STATUSES
from agent_core.records.tables import (
    CALL_ONLY,
    KEY,
    RUN_AT,
    calls_frame,
    load_calls_snapshot,
    newest_first,
    one_chunk,
    runs_columns,
    runs_frame,
    save_calls_snapshot,
)

log = logging.getLogger("agent_core.records.store")

RUN_COLUMNS = [*TABLE_COLUMNS, "path"]
"""Columns of :meth:`RunStore.runs` (the list is :data:`agent_core.records.columns.RUN_COLUMN_SPEC`)."""
CALL_COLUMNS = ["run_id", "run_started_at", "provider", "model", *CALL_ONLY]
_RACY_NS = 2_000_000_000
"""A folder changed this close to a scan may change again within the same mtime tick."""
_CALL_BATCH = 5000
"""Runs whose calls are decoded together when the tool-call table is built."""


def call_rows(record: dict[str, Any]) -> list[dict[str, Any]]:
    """One flat row per tool call of ``record`` (the Tool-stats page's unit), as dicts."""
    run, columns = extract(record, "")
    out = []
    for call in zip(*columns):
        row = dict(zip(CALL_FIELDS, call))
        row.update(run_id=run[0], run_started_at=run[1], provider=run[4], model=run[5], retried=row["attempts"] > 1)
        out.append({c: row[c] for c in CALL_COLUMNS})
    return out


class RunStore:
    """A cached, indexed view of one runs folder; thread-safe, cheap to refresh.

    Args:
        runs_dir: the folder of ``<run_id>.json`` records.
        index_path: the SQLite index file; default ``<data_dir>/index/runs.sqlite`` (see
            :func:`agent_core.records.index.default_index_path`).
        persist: keep the index on disk at all (False: memory only, e.g. for a one-off read).
        workers: processes that parse when many files are new (a cold start); default: the
            cores available, at most 4.
    """

    full_scan_interval: float = 30.0
    """Seconds between full stat scans (see :meth:`_scan`); also how long an unchanged folder
    goes without any scan. Saving a record (temp file + rename) changes the folder and is seen
    at once; this bounds how late a file edited in place is noticed."""
    keep_parsed_files: int = 20_000
    """Up to this many files read in one refresh keep their calls decoded in memory until the
    tool-call table is built; more are kept encoded (a tenth of the memory)."""
    full_scan_files: int = 20_000
    """Up to this many files every scan is a full stat scan (it takes well under 0.1 s)."""

    def __init__(
        self,
        runs_dir: Path | str,
        *,
        index_path: Path | str | None = None,
        persist: bool = True,
        workers: int | None = None,
    ) -> None:
        self.runs_dir = Path(runs_dir)
        self._prefix = os.path.join(str(self.runs_dir), "")
        self.index: RunIndex | None = (
            RunIndex(index_path if index_path is not None else default_index_path(self.runs_dir)) if persist else None
        )
        self.snapshot_path: Path | None = (
            self.index.path.with_name(self.index.path.stem + ".calls.arrow") if self.index is not None else None
        )
        """Saved copy of the tool-call table (see :mod:`agent_core.records.tables`), next to the index."""
        self.workers = workers if workers is not None else default_workers()
        self._lock = threading.RLock()
        self._keys: dict[str, tuple[int, int, int]] = {}
        self._problems: dict[str, str] = {}
        self._dirs: set[str] = set()
        self._folder_problem: str | None = None
        self._running: dict[str, dict[str, Any]] = {}
        self._shown: dict[str, str] = {}
        """Last statuses shown for ``_running`` (the re-check is skipped while they hold)."""
        self._runs = runs_frame([], self._prefix)
        self._calls: pd.DataFrame | None = None
        """The tool-call table, built on first use (the History page never needs it)."""
        self._call_src: dict[str, StoredCalls | CallColumns] = {}
        """While ``_calls`` is not built: each readable file's calls (encoded, or as parsed)."""
        self._public_runs: pd.DataFrame | None = None
        self._public_calls: pd.DataFrame | None = None
        self._loaded = False
        self._dir_sig: tuple[int, int] | None = None
        self._last_full = 0.0
        self.version = 0
        """Goes up by one whenever the tables change: a cheap cache key for pages that derive
        tables from them (``st.cache_data`` on ``(store.version, filters…)``)."""
        self._saver: threading.Thread | None = None
        self.parsed = 0
        """How many files this store parsed itself (the rest came from the index); for tests and benches."""

    # -- refresh ---------------------------------------------------------------------------
    def refresh(self) -> bool:
        """Bring the tables up to date with the folder; True when anything changed.

        Only new or changed files are parsed; deleted files disappear; the first call of a new
        store starts from the persisted index.
        """
        with self._lock:
            changed = False
            if not self._loaded:
                self._loaded = True
                changed = self._load_index()
            listing = self._scan()
            if listing is not None:
                changed |= self._apply(*listing)
            changed |= self._recheck_running()
            if changed:
                self._public_runs = self._public_calls = None
                self.version += 1
            return changed

    def _load_index(self) -> bool:
        if self.index is None:
            return False
        try:
            entries = self.index.load()
        except IndexUnavailable as exc:
            log.warning("run index not used: %s", exc)
            return False
        if not entries:
            return False
        self._install(entries)
        return True

    def _scan(self) -> tuple[list[str], list[str], set[str]] | None:
        """``(files to read, files gone, directories named *.json)``, or None when the folder
        cannot have changed since the last scan.

        A full scan stats every file and compares (size, mtime, inode) with what the tables
        hold. Above :attr:`full_scan_files` files it runs only every :attr:`full_scan_interval`;
        in between, a plain listing finds new and deleted names, and only runs stored as
        ``running`` and unreadable files are stat'ed (a finished record is not saved again;
        one edited by hand is noticed at the next full scan).
        """
        try:
            dir_st = os.stat(self.runs_dir)
        except FileNotFoundError:
            self._dir_sig = None
            self._folder_problem = None
            return [], list(self._keys), set()
        except OSError as exc:
            log.warning("cannot read %s: %s", self.runs_dir, exc)
            self._folder_problem = f"cannot read the runs folder {self.runs_dir}: {exc.strerror or exc}"
            return None
        now_ns = time.time_ns()
        sig = (dir_st.st_mtime_ns, dir_st.st_ino)
        due = time.monotonic() - self._last_full >= self.full_scan_interval
        if sig == self._dir_sig and not due:
            return None
        # A folder modified just now may change again within the same timestamp tick: only a
        # signature older than that is trusted next time.
        self._dir_sig = sig if now_ns - dir_st.st_mtime_ns > _RACY_NS else None
        try:
            if due or len(self._keys) <= self.full_scan_files:
                self._last_full = time.monotonic()
                result = self._full_scan()
            else:
                result = self._quick_scan()
        except OSError as exc:
            log.warning("cannot list %s: %s", self.runs_dir, exc)
            self._dir_sig = None
            self._folder_problem = f"cannot list the runs folder {self.runs_dir}: {exc.strerror or exc}"
            return None
        self._folder_problem = None
        return result

    def _full_scan(self) -> tuple[list[str], list[str], set[str]]:
        keys = self._keys
        cold = not keys  # everything will be read: the open file is stat'ed then
        todo: list[str] = []
        seen: set[str] = set()
        dirs: set[str] = set()
        with os.scandir(self.runs_dir) as entries:
            for item in entries:
                name = item.name
                if not name.endswith(".json") or name.startswith("."):
                    continue
                try:
                    if item.is_dir():
                        dirs.add(name)
                        continue
                    seen.add(name)
                    if cold:
                        todo.append(name)
                        continue
                    st = item.stat()
                except OSError:
                    # A broken link or a link loop: keyed by the link itself, so it is reported.
                    try:
                        st = item.stat(follow_symlinks=False)
                    except OSError:
                        seen.discard(name)
                        continue
                if keys.get(name) != (st.st_size, st.st_mtime_ns, st.st_ino):
                    todo.append(name)
        return todo, [n for n in keys if n not in seen], dirs

    def _quick_scan(self) -> tuple[list[str], list[str], set[str]]:
        names = {n for n in os.listdir(self.runs_dir) if n.endswith(".json") and not n.startswith(".")}
        known = self._keys.keys()
        dirs = {n for n in self._dirs if n in names}
        todo, gone = [], [n for n in known if n not in names]
        for name in names.difference(known):
            if name in dirs:
                continue
            if os.path.isdir(os.path.join(self.runs_dir, name)):
                dirs.add(name)
            else:
                todo.append(name)
        for name in chain(self._running, self._problems):
            if name not in names:
                continue
            try:
                st = os.stat(os.path.join(self.runs_dir, name))
            except OSError:
                try:
                    st = os.lstat(os.path.join(self.runs_dir, name))
                except OSError:
                    continue
            if self._keys.get(name) != (st.st_size, st.st_mtime_ns, st.st_ino):
                todo.append(name)
        return todo, gone, dirs

    def _apply(self, todo: list[str], deleted: list[str], dirs: set[str]) -> bool:
        """Parse what is new or changed, forget what is gone; update the index and the tables."""
        changed = dirs != self._dirs
        self._dirs = dirs
        deleted = [n for n in deleted if n in self._keys]
        if not deleted and not todo:
            return changed
        rows, gone, stored = parse_files(
            str(self.runs_dir),
            todo,
            workers=self.workers,
            index=self.index,
            keep_columns=len(todo) <= self.keep_parsed_files,
        )
        self.parsed += len(rows)
        deleted += [n for n in gone if n in self._keys]
        if self.index is not None:
            try:
                self.index.apply([r for r in rows if r[0][0] not in stored] if stored else rows, deleted)
            except IndexUnavailable as exc:
                log.warning("run index not updated: %s", exc)
        # Rows of files already in the tables go; a new file has none (nothing to filter).
        self._remove(set(deleted) | {row[0] for row, _ in rows if row[0] in self._keys})
        self._install(rows)
        return True

    # -- in-memory tables --------------------------------------------------------------------
    def _remove(self, names: set[str]) -> None:
        if not names:
            return
        self._shown = {}
        for name in names:
            self._keys.pop(name, None)
            self._problems.pop(name, None)
            self._running.pop(name, None)
            self._call_src.pop(name, None)
        if len(self._runs):
            self._runs = self._runs[~self._runs[KEY].isin(names)]
        if self._calls is not None and len(self._calls):
            self._calls = self._calls[~self._calls[KEY].isin(names)]

    def _install(self, entries: Sequence[tuple[FileRow, StoredCalls | CallColumns]]) -> None:
        """Add files that are not in the tables (from the index, or freshly parsed)."""
        at = RUN_AT
        good: list[FileRow] = []
        calls: list[StoredCalls | CallColumns] = []
        for row, file_calls in entries:
            name = row[0]
            self._keys[name] = (row[1], row[2], row[3])
            if row[4] is not None:
                self._problems[name] = row[4]
                continue
            good.append(row)
            calls.append(file_calls)
            if row[at["status"]] in LIVE_STATUSES:
                self._running[name] = {
                    "status": row[at["status"]],
                    "owner": {"pid": row[at["owner_pid"]], "host": row[at["owner_host"]]},
                    "updated_at": row[at["updated_at"]],
                    "started_at": row[at["started_at"]],
                }
        runs = runs_frame(good, self._prefix)
        if self._calls is None:
            self._call_src.update(zip((row[0] for row in good), calls))
        else:
            new_calls = calls_frame([self._decoded(row[0], c) for row, c in zip(good, calls)], runs)
            if len(self._calls):
                # New rows first: a new run is usually the newest, and a sorted frame is not moved.
                new_calls = one_chunk(
                    pd.concat([newest_first(new_calls, "run_started_at"), self._calls], ignore_index=True), most=32
                )
            self._calls = newest_first(new_calls, "run_started_at")
        if len(self._runs):
            runs = one_chunk(pd.concat([newest_first(runs, "started_at"), self._runs], ignore_index=True), most=32)
        self._runs = newest_first(runs, "started_at")
        self._public_runs = self._public_calls = None
        self._shown = {}  # new rows hold the stored status: re-check them

    def _decoded(self, name: str, stored: StoredCalls | CallColumns) -> CallColumns:
        """A file's call rows; a damaged index value is replaced by parsing the file again."""
        try:
            return decode_calls(stored)
        except ValueError:
            log.warning("run index: damaged call rows for %s; reading the file again", name)
            result = read_file(str(self.runs_dir), name)
            return result[1] if result is not None else []

    def _calls_table(self) -> pd.DataFrame:
        """The internal tool-call table, built on first use: the rows of unchanged files from the
        snapshot a previous build saved, the rest decoded from ``_call_src`` a batch of runs at
        a time (the decoded values of 100,000 runs at once would take ~0.5 GB for a moment)."""
        if self._calls is not None:
            return self._calls
        src = self._call_src
        snapshot = load_calls_snapshot(self.snapshot_path, self._keys) if self.snapshot_path else None
        parts, covered = [], set()
        if snapshot is not None and len(snapshot):
            covered = set(snapshot[KEY].unique())
            try:
                parts.append(runs_columns(snapshot, self._runs))
            except ValueError:
                parts, covered = [], set()
        names = [n for n in self._runs[KEY].tolist() if src.get(n) is not None and n not in covered]
        by_name = pd.Index(self._runs[KEY])
        for start in range(0, len(names), _CALL_BATCH):
            batch = names[start : start + _CALL_BATCH]
            runs = self._runs.iloc[by_name.get_indexer(batch)].reset_index(drop=True)
            parts.append(calls_frame([self._decoded(n, src[n]) for n in batch], runs))
        if not parts:
            parts.append(calls_frame([], self._runs.iloc[:0]))
        frame = parts[0] if len(parts) == 1 else one_chunk(pd.concat(parts, ignore_index=True))
        self._calls, self._call_src = newest_first(frame, "run_started_at"), {}
        if self.snapshot_path and len(names) > max(50, len(covered) // 20):
            # Worth saving (a tenth of this build's decoding pays for it), after the page has
            # its table: in a thread of its own, with the keys as they are now.
            self._saver = threading.Thread(
                target=self._save_snapshot,
                args=(self.snapshot_path, self._calls, dict(self._keys)),
                name="calls-snapshot",
            )
            self._saver.start()
        return self._calls

    @staticmethod
    def _save_snapshot(path: Path, calls: pd.DataFrame, keys: dict[str, tuple[int, int, int]]) -> None:
        try:
            save_calls_snapshot(path, calls, keys)
        except Exception as exc:  # noqa: BLE001 - a snapshot only saves time; never fail a read for it
            log.warning("calls snapshot not saved: %s", exc)

    def wait_for_snapshot(self, timeout: float | None = None) -> None:
        """Wait until the tool-call snapshot being saved (if any) is on disk."""
        saver = self._saver
        if saver is not None:
            saver.join(timeout)

    def _recheck_running(self) -> bool:
        """Re-evaluate runs stored as ``running``: their process may have ended since."""
        if not self._running:
            return False
        shown = {name: effective_status(mini) for name, mini in self._running.items()}
        if shown == self._shown:
            return False
        self._shown = shown
        rows = self._runs[KEY].isin(shown.keys())
        now = self._runs.loc[rows, KEY].map(shown)
        if now.eq(self._runs.loc[rows, "status"]).all():
            return False
        runs = self._runs.copy()
        runs.loc[rows, "status"] = now
        self._runs = runs
        self._public_runs = None
        self.version += 1
        return True

    # -- public reads ------------------------------------------------------------------------
    def runs(self) -> pd.DataFrame:
        """One row per readable run, newest first (columns: :data:`RUN_COLUMNS`).

        The frame is shared: treat it as read-only (pandas copy-on-write keeps it safe).
        """
        with self._lock:
            self._recheck_running()
            if self._public_runs is None:
                self._public_runs = self._runs.drop(columns=[KEY])
            return self._public_runs

    def tool_calls(self) -> pd.DataFrame:
        """One row per tool call across all readable runs, newest run first (columns: :data:`CALL_COLUMNS`)."""
        with self._lock:
            if self._public_calls is None:
                self._public_calls = self._calls_table().drop(columns=[KEY])
            return self._public_calls

    def problems(self) -> list[tuple[str, str]]:
        """(file name, reason) for every file that could not be read as a run record."""
        with self._lock:
            found = dict(self._problems)
            found.update((name, f"{name}: not a regular file") for name in self._dirs)
            if self._folder_problem:  # the folder itself (a file in its place, no permission …)
                found[f"{self.runs_dir.name}/"] = self._folder_problem
            return sorted(found.items())

    def load(self, run_id: str) -> dict[str, Any]:
        """The full record of one run, read on demand; :class:`RecordError` when missing or bad."""
        if not run_id or "/" in run_id or "\\" in run_id or run_id.startswith("."):
            raise RecordError(f"{run_id!r} is not a run id")
        path = self.runs_dir / f"{run_id}.json"
        if not path.exists():  # a record saved under another file name
            with self._lock:
                names = self._runs.loc[self._runs["run_id"] == run_id, KEY]
            if len(names):
                path = self.runs_dir / names.iloc[0]
        record = load_record(path)
        record["status_shown"] = effective_status(record)
        return record
