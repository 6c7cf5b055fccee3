"""The person's documents: add, remove, list, search and read them, with the index kept in step.

A :class:`Workspace` is a folder (``settings.workspace_dir``) and its index
(:class:`~agent_core.tools.documents.index.DocumentIndex`, ``<data_dir>/index/documents*.sqlite``).
Every way in — the Workspace page, the Run page's sidebar, ``python -m agent_core workspace``,
the tools — goes through it, so each says the same plain thing about a bad file.

Adding a file: its name is checked (no folder parts, a supported ending), then its size; it is
written to a hidden temporary file in the folder and parsed there (PDF and DOCX in a child
process with a time cap); only a file that parsed is renamed into place and indexed. A refused
file leaves the folder and the index as they were. Adding the same bytes again adds nothing; the
same name with other bytes asks: replace, or keep both (``name (2).pdf``).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agent_core.settings import Settings
from agent_core.tools.documents.index import DocumentIndex, FileEntry, Hit, TableInfo
from agent_core.tools.documents.parse import KINDS, DocumentError, Parsed, Table, kind_of, parse
from agent_core.tools.knowledge import FACTS_FILE

log = logging.getLogger("agent_core.tools.documents.workspace")

OnConflict = Literal["ask", "replace", "keep_both"]
MAX_NAME_CHARS = 200
MAX_FILES = 2000
"""Files indexed at most (the first, by name)."""
_TEMP_PREFIX = ".adding-"


@dataclass(frozen=True)
class Limits:
    """What a document may be: its size, its pages, how long reading it may take."""

    max_bytes: int = 50 * 1024 * 1024
    max_pages: int = 2000
    parse_timeout: float = 60.0

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        return cls(
            max_bytes=int(settings.max_document_mb * 1024 * 1024),
            max_pages=settings.max_document_pages,
            parse_timeout=settings.document_parse_timeout,
        )


@dataclass(frozen=True)
class Added:
    """What :meth:`Workspace.add` did: ``added``, ``replaced``, ``unchanged`` (the same bytes were
    there already) or ``conflict`` (another file has that name: ask replace or keep both)."""

    name: str
    status: Literal["added", "replaced", "unchanged", "conflict"]
    parts: int = 0
    note: str = ""

    @property
    def message(self) -> str:
        """One plain sentence for the person."""
        if self.status == "unchanged":
            return f"{self.name} is already there with the same content: nothing added."
        if self.status == "conflict":
            return f"A different file named {self.name} is already there: replace it, or keep both?"
        done = "Replaced" if self.status == "replaced" else "Added"
        parts = f" ({self.parts} searchable part{'s' if self.parts != 1 else ''})" if self.parts else ""
        return f"{done} {self.name}{parts}." + (f" Note: {self.note}." if self.note else "")


def check_name(name: str) -> str:
    """``name`` as a file name in the workspace; DocumentError for one with a folder in it, a
    hidden one, or an unsupported ending."""
    clean = name.strip()
    if not clean:
        raise DocumentError("the file name is empty")
    if "/" in clean or "\\" in clean or "\x00" in clean or clean in (".", "..") or ".." in clean.split("."):
        raise DocumentError(f"{clean[:80]!r} is not a plain file name (no folders, '/', '\\' or '..'): rename it")
    if clean.startswith(".") or len(clean) > MAX_NAME_CHARS or any(ord(c) < 32 for c in clean):
        raise DocumentError(f"{clean[:80]!r} cannot be used as a file name (hidden, too long, or control characters)")
    kind_of(clean)
    return clean


def default_index_path(settings: Settings) -> Path:
    """``<data_dir>/index/documents.sqlite``; another workspace folder (AGENT_WORKSPACE) gets
    its own file, named after its resolved path."""
    folder = settings.data_dir / "index"
    if settings.workspace is None:
        return folder / "documents.sqlite"
    digest = hashlib.sha1(str(settings.workspace.resolve()).encode("utf-8")).hexdigest()[:10]
    return folder / f"documents-{digest}.sqlite"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _both_name(name: str, taken: Callable[[str], bool]) -> str:
    stem, suffix = os.path.splitext(name)
    stem = re.sub(r" \(\d+\)$", "", stem)
    n = 2
    while taken(f"{stem} ({n}){suffix}"):
        n += 1
    return f"{stem} ({n}){suffix}"


class Workspace:
    """A documents folder and its index (see the module docstring)."""

    def __init__(self, root: Path, index_path: Path | None = None, limits: Limits | None = None) -> None:
        self.root = root
        self.limits = limits or Limits()
        self.index = DocumentIndex(index_path)

    @classmethod
    def for_settings(cls, settings: Settings) -> Workspace:
        """The workspace of ``settings``, its index in the data folder."""
        return cls(settings.workspace_dir, default_index_path(settings), Limits.from_settings(settings))

    # --- the folder -------------------------------------------------------------------------

    def names(self) -> list[str]:
        """Supported files in the folder and its subfolders (relative POSIX paths, sorted; hidden
        and unsupported ones and symlinks left out)."""
        found: list[str] = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in filenames:
                if name.startswith(".") or os.path.splitext(name)[1].lower() not in KINDS:
                    continue
                full = Path(dirpath) / name
                if full.is_symlink() or not full.is_file():
                    continue
                found.append(full.relative_to(self.root).as_posix())
                if len(found) >= MAX_FILES:
                    return sorted(found)
        return sorted(found)

    def path(self, name: str) -> Path:
        """The path of the listed file ``name``; DocumentError when there is none."""
        if name not in self.names():
            check_name(name.rsplit("/", 1)[-1])
            raise DocumentError(f"no document named {name!r}; the documents are: {', '.join(self.names()) or '(none)'}")
        return self.root / name

    def _parse(self, name: str, path: Path) -> Parsed:
        return parse(name, path, max_pages=self.limits.max_pages, timeout=self.limits.parse_timeout)

    # --- keeping the index in step ----------------------------------------------------------

    def sync(self) -> list[str]:
        """Index new and changed files, forget removed ones; the names (re)indexed."""
        known = self.index.files()
        present = self.names()
        done = []
        for name in present:
            path = self.root / name
            try:
                info = path.stat()
            except OSError:
                continue
            entry = known.get(name)
            if entry is not None and entry.size == info.st_size and entry.mtime_ns == info.st_mtime_ns:
                continue
            self._index_file(name, path, info.st_size, info.st_mtime_ns)
            done.append(name)
        for name in set(known) - set(present):
            self.index.drop(name)
        if not known or done:
            self.clean_temporary()
        return done

    def _index_file(self, name: str, path: Path, size: int, mtime_ns: int) -> int:
        """Parse and index a file already in the folder; a file that cannot be read is kept
        with its reason (so it is not tried again until it changes)."""
        try:
            sha = _sha256(path)
        except OSError as exc:
            log.warning("cannot read %s: %s", path, exc)
            return 0
        if size > self.limits.max_bytes:
            return self.index.put(
                name, size=size, mtime_ns=mtime_ns, sha256=sha, parsed=None, error=self._too_big(size)
            )
        try:
            parsed = self._parse(name, path)
        except (DocumentError, OSError) as exc:
            return self.index.put(name, size=size, mtime_ns=mtime_ns, sha256=sha, parsed=None, error=str(exc))
        return self.index.put(name, size=size, mtime_ns=mtime_ns, sha256=sha, parsed=parsed)

    def _too_big(self, size: int) -> str:
        return (
            f"it is {size / 1024 / 1024:,.1f} MB; the limit is {self.limits.max_bytes / 1024 / 1024:,.0f} MB "
            "(MAX_DOCUMENT_MB)"
        )

    # --- adding and removing ----------------------------------------------------------------

    def add(self, name: str, data: bytes, *, on_conflict: OnConflict = "ask") -> Added:
        """Add a file (see the module docstring); DocumentError, with nothing changed, when it
        cannot be added."""
        name = check_name(name)
        if len(data) > self.limits.max_bytes:
            raise DocumentError(f"{name}: {self._too_big(len(data))}")
        self.root.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256(data).hexdigest()
        target = self.root / name
        status: Literal["added", "replaced"] = "added"
        if target.exists() or target.is_symlink():
            if target.is_file() and not target.is_symlink() and _sha256(target) == digest:
                if name not in self.index.files():
                    info = target.stat()
                    self._index_file(name, target, info.st_size, info.st_mtime_ns)
                return Added(name, "unchanged")
            if on_conflict == "ask":
                return Added(name, "conflict")
            if on_conflict == "keep_both":
                name = _both_name(name, lambda n: (self.root / n).exists())
                target = self.root / name
            else:
                status = "replaced"
        handle, temp_name = tempfile.mkstemp(prefix=_TEMP_PREFIX, suffix=os.path.splitext(name)[1], dir=self.root)
        temp = Path(temp_name)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            try:
                parsed = self._parse(name, temp)
            except DocumentError as exc:
                raise DocumentError(f"{name}: {exc}. Nothing was added.") from None
            if parsed.kind == "pdf" and not parsed.parts and parsed.pages:
                log.info("%s has no text layer", name)
            os.replace(temp, target)  # the file is in place before its rows: a crash here is repaired by sync
            info = target.stat()
            parts = self.index.put(name, size=info.st_size, mtime_ns=info.st_mtime_ns, sha256=digest, parsed=parsed)
        finally:
            if temp.exists():
                temp.unlink()
        return Added(name, status, parts, parsed.note)

    def add_path(self, source: Path, *, name: str | None = None, on_conflict: OnConflict = "ask") -> Added:
        """Add the file at ``source`` (under its own name unless ``name`` is given)."""
        shown = name or source.name
        check_name(shown)
        try:
            size = source.stat().st_size
            if not source.is_file():
                raise DocumentError(f"{source} is not a file")
            if size > self.limits.max_bytes:
                raise DocumentError(f"{shown}: {self._too_big(size)}")
            data = source.read_bytes()
        except OSError as exc:
            raise DocumentError(f"cannot read {source}: {exc.strerror or exc}") from None
        return self.add(shown, data, on_conflict=on_conflict)

    def remove(self, name: str) -> None:
        """Delete a file and its rows; DocumentError when there is no such file."""
        if "\\" in name or ".." in name.split("/") or name.startswith("/"):
            raise DocumentError(f"{name[:80]!r} is not the name of a document here (no '..', '\\' or absolute paths)")
        self.path(name).unlink()
        self.index.drop(name)

    def clean_temporary(self, older_than_s: float = 3600.0) -> None:
        """Delete temporary files a killed add left behind (old ones: another process may be adding)."""
        now = time.time()
        for entry in self.root.glob(f"{_TEMP_PREFIX}*"):
            try:
                if now - entry.stat().st_mtime > older_than_s:
                    entry.unlink()
            except OSError:
                pass

    # --- reading ----------------------------------------------------------------------------

    def entries(self) -> list[FileEntry]:
        """The files, as indexed (after a :meth:`sync`)."""
        self.sync()
        files = self.index.files()
        return [files[name] for name in self.names() if name in files]

    def search(self, query: str, limit: int = 3) -> list[Hit]:
        """The best parts for ``query`` (the index brought up to date first)."""
        self.sync()
        # facts.md is lookup's (agent_core.tools.knowledge): its "Also:" lines of other words
        # would rank first, so it is listed and readable but not searched.
        hits = self.index.search(query, limit + 1)
        return [h for h in hits if h.file != FACTS_FILE][:limit]

    def document_text(self, name: str) -> str | None:
        """What ``read_file`` shows for a PDF or DOCX (None for a text file: read it as it is)."""
        if kind_of(name) not in ("pdf", "docx"):
            return None
        self.sync()
        entry = self.index.files().get(name)
        if entry is None:
            raise DocumentError(f"no document named {name!r}")
        if entry.error:
            raise DocumentError(f"{name} could not be read: {entry.error}")
        return self.index.text(name) or ""

    def tables(self) -> list[TableInfo]:
        """Every table: CSV files, JSON lists of records, tables inside DOCX files."""
        self.sync()
        return self.index.tables()

    def table(self, name: str) -> Table | None:
        return self.index.table(name)
