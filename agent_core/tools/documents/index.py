"""The persistent search index of a workspace: one SQLite file in the data folder.

BM25 is computed here over postings SQLite keeps (``term → part, frequency``), with the
English/Korean tokens of :func:`agent_core.tools.docsearch.tokenize` (so "환불은" meets "환불"),
heading and title words counting :data:`~agent_core.tools.docsearch.TITLE_WEIGHT` times, as the
in-memory search did. A search reads only the postings of its own terms.

Each file is written in one transaction (its old rows deleted, the new ones inserted), so a
process killed mid-index leaves the file's old rows or its new ones, never half; WAL lets the
app's sessions and the CLI read while one writes. The index is a cache: the workspace's files
are the truth, and :meth:`agent_core.tools.documents.workspace.Workspace.sync` brings it back in
line after anything (a file copied in by hand, a crash between writing a file and indexing it).
A corrupt index file or one of another format is set aside and rebuilt.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import sqlite3
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_core.tools.docsearch import K1, TITLE_WEIGHT, B, near_spellings, snippet_of, tokenize
from agent_core.tools.documents.parse import Parsed, Table

log = logging.getLogger("agent_core.tools.documents.index")

INDEX_FORMAT = "5"
"""Bump when the stored rows change meaning: an index of another format is rebuilt."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files (
    name TEXT PRIMARY KEY, kind TEXT, size INTEGER, mtime_ns INTEGER, sha256 TEXT,
    pages INTEGER, sections INTEGER, indexed_at REAL, note TEXT, error TEXT, text TEXT
);
CREATE TABLE IF NOT EXISTS parts (
    id INTEGER PRIMARY KEY, file TEXT, page INTEGER, section TEXT, piece INTEGER, text TEXT, length REAL
);
CREATE INDEX IF NOT EXISTS parts_file ON parts(file);
CREATE TABLE IF NOT EXISTS postings (term TEXT, part INTEGER, tf REAL);
CREATE INDEX IF NOT EXISTS postings_term ON postings(term);
CREATE INDEX IF NOT EXISTS postings_part ON postings(part);
CREATE TABLE IF NOT EXISTS tables (name TEXT PRIMARY KEY, file TEXT, columns TEXT, rows TEXT, nrows INTEGER);
"""


@dataclass(frozen=True)
class FileEntry:
    """One file as the index knows it."""

    name: str
    kind: str
    size: int
    mtime_ns: int
    sha256: str
    pages: int | None
    sections: int
    indexed_at: float
    note: str
    error: str
    """Why it could not be read ('' when it was): kept so a bad file is not re-read on every search."""


def _postings_of(conn: sqlite3.Connection, terms: list[str]) -> list[tuple[str, int, float, float]]:
    """``(term, part, tf, part length)`` of each posting of ``terms``."""
    if not terms:
        return []
    marks = ",".join("?" * len(terms))
    return conn.execute(
        f"SELECT p.term, p.part, p.tf, parts.length FROM postings p JOIN parts ON parts.id = p.part "  # noqa: S608
        f"WHERE p.term IN ({marks})",
        terms,
    ).fetchall()


@contextlib.contextmanager
def _reading(conn: sqlite3.Connection) -> Iterator[None]:
    """One read transaction: every read in it sees the index as it was at the first. Without it, a
    search read a file's postings, another process indexed the file again (its parts deleted and
    made anew), and the search's next read found no part for a posting and raised TypeError."""
    conn.execute("BEGIN")
    try:
        yield
    finally:
        conn.execute("COMMIT")


@dataclass(frozen=True)
class Hit:
    """One search result: the file, its page or section, a score and a snippet."""

    file: str
    page: int | None
    section: str | None
    score: float
    snippet: str

    def as_json(self) -> dict[str, Any]:
        """Few, short keys: the local model reads each hit as one line. No score: the hits come best
        first, and a score is a figure that is no fact of the documents (the model wrote "36
        degrees" from a hit scored 5.36, and the answer check counted a score as support)."""
        where: dict[str, Any] = {"page": self.page} if self.page is not None else {"section": self.section or ""}
        return {"file": self.file, **where, "snippet": self.snippet}


@dataclass(frozen=True)
class TableInfo:
    """A table's name, the file it is in, its columns and how many rows it has."""

    name: str
    file: str
    columns: list[str]
    rows: int


MIN_ROWS_NAMED = 3
"""Lines of table rows a part needs before the words every row has count once."""


def _postings(title: str, text: str) -> tuple[dict[str, float], float]:
    tf: dict[str, float] = dict(Counter(tokenize(text)))
    rows = text.splitlines()
    if len(rows) >= MIN_ROWS_NAMED and all(r.startswith("- ") and r.endswith(";") for r in rows):
        # A table's rows each name their columns ("- month: 2023-01, gas_cost_gbp: 190.55;"): a
        # column's name is said once per row, and counted so it outweighed what a question asks
        # ("hygienist … cost" found a bills table's 36 "cost"s before the price list's hygienist).
        for token in set.intersection(*(set(tokenize(r)) for r in rows)):
            tf[token] = 1.0
    for token in tokenize(title):
        tf[token] = tf.get(token, 0.0) + TITLE_WEIGHT
    return tf, float(sum(tf.values()))


class DocumentIndex:
    """The SQLite index at ``path`` (None: in memory, for a workspace whose index has no home)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.RLock()
        self._memory: sqlite3.Connection | None = None
        self._ready = False

    # --- connections ------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        if self.path is None:
            if self._memory is None:
                self._memory = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            return self._memory
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        conn.execute("PRAGMA busy_timeout = 30000")
        return conn

    def _prepare(self, conn: sqlite3.Connection) -> None:
        if self.path is not None:
            conn.execute("PRAGMA journal_mode = WAL")
        conn.executescript(_SCHEMA)
        row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        if row is None or row[0] != INDEX_FORMAT:
            if row is not None:
                log.info("document index %s is of format %s: rebuilding", self.path, row[0])
            conn.execute("BEGIN IMMEDIATE")
            for table in ("files", "parts", "postings", "tables"):  # made again: their columns may differ
                conn.execute(f"DROP TABLE IF EXISTS {table}")  # noqa: S608 - fixed names
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('format', ?)", (INDEX_FORMAT,))
            conn.execute("COMMIT")

    @contextlib.contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A ready connection (the schema made; a corrupt file set aside and started again; a
        folder that cannot be written: an index in memory instead)."""
        with self._lock:
            if not self._ready:
                self._make_ready()
            conn = self._open()
            try:
                yield conn
            finally:
                if conn is not self._memory:
                    conn.close()

    def _make_ready(self) -> None:
        try:
            conn = self._open()
        except (OSError, sqlite3.OperationalError) as exc:
            self._go_to_memory(exc)
            conn = self._open()
        try:
            try:
                self._prepare(conn)
                conn.execute("SELECT COUNT(*) FROM parts").fetchone()
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) or self.path is None:
                    raise
                conn.close()
                self._go_to_memory(exc)
                conn = self._open()
                self._prepare(conn)
            except sqlite3.DatabaseError as exc:
                if self.path is None:
                    raise
                conn.close()
                aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
                log.warning("document index %s is unreadable (%s): set aside as %s", self.path, exc, aside)
                for suffix in ("", "-wal", "-shm"):
                    with contextlib.suppress(OSError):
                        os.replace(f"{self.path}{suffix}", f"{aside}{suffix}")
                conn = self._open()
                self._prepare(conn)
            self._ready = True
        finally:
            if conn is not self._memory:
                conn.close()

    def _go_to_memory(self, exc: Exception) -> None:
        log.warning("document index %s cannot be written (%s): keeping it in memory", self.path, exc)
        self.path = None

    # --- writing ----------------------------------------------------------------------------

    def put(self, name: str, *, size: int, mtime_ns: int, sha256: str, parsed: Parsed | None, error: str = "") -> int:
        """Index one file (replacing what was there) in one transaction; the parts written."""
        parts = parsed.parts if parsed is not None else []
        with self.connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                self._delete(conn, name)
                conn.execute(
                    "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        name,
                        parsed.kind if parsed else "",
                        size,
                        mtime_ns,
                        sha256,
                        parsed.pages if parsed else None,
                        parsed.sections if parsed else 0,
                        time.time(),
                        parsed.note if parsed else "",
                        error,
                        parsed.text if parsed else None,
                    ),
                )
                for part in parts:
                    tf, length = _postings(part.title, part.text)
                    cursor = conn.execute(
                        "INSERT INTO parts (file, page, section, piece, text, length) VALUES (?, ?, ?, ?, ?, ?)",
                        (name, part.page, part.section, part.piece, part.text, length),
                    )
                    conn.executemany(
                        "INSERT INTO postings VALUES (?, ?, ?)", [(t, cursor.lastrowid, f) for t, f in tf.items()]
                    )
                for table in parsed.tables if parsed else []:
                    conn.execute(
                        "INSERT OR REPLACE INTO tables VALUES (?, ?, ?, ?, ?)",
                        (
                            table.name,
                            table.file,
                            json.dumps(table.columns, ensure_ascii=False),
                            json.dumps(table.rows, ensure_ascii=False),
                            len(table.rows),
                        ),
                    )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return len(parts)

    @staticmethod
    def _delete(conn: sqlite3.Connection, name: str) -> None:
        conn.execute("DELETE FROM postings WHERE part IN (SELECT id FROM parts WHERE file = ?)", (name,))
        conn.execute("DELETE FROM parts WHERE file = ?", (name,))
        conn.execute("DELETE FROM tables WHERE file = ?", (name,))
        conn.execute("DELETE FROM files WHERE name = ?", (name,))

    def drop(self, name: str) -> None:
        """Forget one file (its rows, in one transaction)."""
        with self.connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                self._delete(conn, name)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    # --- reading ----------------------------------------------------------------------------

    def files(self) -> dict[str, FileEntry]:
        """Every file the index knows, by name."""
        with self.connect() as conn:
            rows = conn.execute(
                "SELECT name, kind, size, mtime_ns, sha256, pages, sections, indexed_at, note, error FROM files"
            ).fetchall()
        return {r[0]: FileEntry(*r) for r in rows}

    def counts(self) -> dict[str, int]:
        """Rows per table (what a test of "adding twice adds nothing" compares)."""
        with self.connect() as conn:
            return {
                t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                for t in ("files", "parts", "postings", "tables")
            }  # noqa: S608

    def text(self, name: str) -> str | None:
        """The text ``read_file`` shows for a PDF or DOCX (None for other kinds)."""
        with self.connect() as conn:
            row = conn.execute("SELECT text FROM files WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None

    def tables(self) -> list[TableInfo]:
        """Every table, by name."""
        with self.connect() as conn:
            rows = conn.execute("SELECT name, file, columns, nrows FROM tables ORDER BY name").fetchall()
        return [TableInfo(r[0], r[1], json.loads(r[2]), r[3]) for r in rows]

    def table(self, name: str) -> Table | None:
        """One table with its rows."""
        with self.connect() as conn:
            row = conn.execute("SELECT name, file, columns, rows FROM tables WHERE name = ?", (name,)).fetchone()
        return Table(row[0], row[1], json.loads(row[2]), json.loads(row[3])) if row else None

    def search(self, query: str, limit: int = 3) -> list[Hit]:
        """The best ``limit`` parts for ``query`` by BM25, one per page or section (paragraphs cited by
        the heading they are under are hits of their own: their ``piece`` differs)."""
        terms = list(dict.fromkeys(tokenize(query)))
        if not terms:
            return []
        with self.connect() as conn, _reading(conn):
            n, avg = conn.execute("SELECT COUNT(*), AVG(length) FROM parts").fetchone()
            if not n:
                return []
            rows = _postings_of(conn, terms)
            found = {term for term, _, _, _ in rows}
            for term in list(terms):  # a word no document has: its near spellings that one has
                if term not in found and (near := _postings_of(conn, sorted(near_spellings(term)))):
                    rows += near
                    terms += sorted({t for t, _, _, _ in near} - set(terms))
            df: Counter[str] = Counter(term for term, _, _, _ in rows)
            scores: dict[int, float] = defaultdict(float)
            for term, part, tf, length in rows:
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                norm = K1 * (1 - B + B * length / (avg or 1.0))
                scores[part] += idf * tf * (K1 + 1) / (tf + norm)
            ranked = sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
            hits: list[Hit] = []
            seen: set[tuple[str, int | None, str | None, int | None]] = set()
            for part, score in ranked:
                file, page, section, piece, text = conn.execute(
                    "SELECT file, page, section, piece, text FROM parts WHERE id = ?", (part,)
                ).fetchone()
                if (file, page, section, piece) in seen:
                    continue
                seen.add((file, page, section, piece))
                hits.append(Hit(file, page, section, round(score, 2), snippet_of(text, terms)))
                if len(hits) >= limit:
                    break
        return hits
