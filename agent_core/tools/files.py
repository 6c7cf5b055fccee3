"""File tools confined to one workspace folder: ``read_file`` and ``search_documents``.

Both are built by factories bound to a folder (no globals), so two registries with different
data folders never see each other's files.

Confinement of ``read_file``: absolute paths are refused; the path is resolved (``..`` and
symlinks followed) and must stay under the resolved workspace; only regular files are opened
(never devices, FIFOs or sockets), without following a final symlink, non-blocking; files over
:data:`MAX_FILE_BYTES` and files that are not UTF-8 text are refused with a clear message.
"""

from __future__ import annotations

import json
import logging
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Annotated

from pydantic import Field

from agent_core.tools.documents.parse import DocumentError
from agent_core.tools.documents.workspace import Workspace

logger = logging.getLogger("agent_core.tools.files")

MAX_FILE_BYTES = 1_000_000
"""Largest file ``read_file`` reads (and ``search_documents`` indexes)."""
MAX_LISTED = 50
"""How many file names an error message lists at most."""
WORKSPACE_PREFIXES = ("agent_data/workspace/", "workspace/")
"""Leading folders that ``read_file`` ignores when the path is not found as given."""

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def list_workspace_files(root: Path, *, limit: int = MAX_LISTED) -> list[str]:
    """Readable-looking files under ``root`` (relative POSIX paths, sorted, hidden ones skipped)."""
    try:
        base = root.resolve()
    except (OSError, RuntimeError):
        return []
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            full = Path(dirpath) / name
            try:
                if not full.resolve().is_relative_to(base) or not full.is_file():
                    continue
            except (OSError, RuntimeError):
                continue
            found.append(full.relative_to(base).as_posix())
            if len(found) >= limit:
                return found
    return found


def _files_hint(root: Path) -> str:
    names = list_workspace_files(root)
    return ", ".join(names) if names else "(none — the workspace is empty)"


def resolve_in_workspace(root: Path, path: str) -> Path:
    """The resolved path of ``path`` inside ``root``; ValueError when it would leave ``root``."""
    raw = path.strip()
    if not raw:
        raise ValueError(f"path is empty; files in the workspace: {_files_hint(root)}")
    if "\x00" in raw:
        raise ValueError("path contains a NUL character")
    posix = PurePosixPath(raw.replace("\\", "/"))
    if posix.is_absolute() or re.match(r"^[A-Za-z]:", raw):
        raise ValueError(
            f"absolute paths are not allowed ({path!r}); give a path relative to the workspace, "
            f"e.g. one of: {_files_hint(root)}"
        )
    try:
        base = root.resolve()
        target = (base / posix).resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: symlink loop (Python 3.11)
        raise ValueError(f"cannot resolve {path!r}: {exc}") from None
    if not target.is_relative_to(base):
        raise ValueError(
            f"{path!r} points outside the workspace; only files inside it can be read: {_files_hint(root)}"
        )
    return target


def read_workspace_file(root: Path, path: str, max_chars: int = 2000) -> str:
    """Text of a UTF-8 file inside ``root`` (first ``max_chars`` characters, with a note if cut)."""
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    if not root.is_dir():
        raise ValueError(f"the workspace folder {str(root)!r} does not exist")
    target = resolve_in_workspace(root, path)
    try:
        missing = not target.exists() and not target.is_symlink()
    except OSError as exc:  # e.g. a name too long: exists() only hides "not found"
        raise ValueError(f"cannot open {path[:200]!r}: {exc.strerror or exc}") from None
    if missing:
        # Models often repeat the folder ("agent_data/workspace/pricing.md"); allow that.
        alias = path.strip().replace("\\", "/")
        for prefix in WORKSPACE_PREFIXES:
            if alias.startswith(prefix) and len(alias) > len(prefix):
                target = resolve_in_workspace(root, alias[len(prefix) :])
                break
    try:
        fd = os.open(target, _OPEN_FLAGS)
    except FileNotFoundError:
        raise ValueError(f"no file {path!r} in the workspace; available files: {_files_hint(root)}") from None
    except PermissionError:
        raise ValueError(f"permission denied reading {path!r}") from None
    except OSError as exc:
        raise ValueError(f"cannot open {path!r}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            names = list_workspace_files(target)
            raise ValueError(f"{path!r} is a folder, not a file; files in it: {', '.join(names) or '(none)'}")
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{path!r} is not a regular file (device, pipe or socket)")
        if info.st_size > MAX_FILE_BYTES:
            raise ValueError(
                f"{path!r} is too large ({info.st_size:,} bytes; read_file reads files up to {MAX_FILE_BYTES:,} bytes)"
            )
        data = _read_at_most(fd, MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"{path!r} is too large (over {MAX_FILE_BYTES:,} bytes)")
    text = decode_text(data, path)
    if len(text) <= max_chars:
        return text
    return (
        f"{text[:max_chars]}\n\n[read_file: showing the first {max_chars:,} of {len(text):,} "
        "characters; call again with a larger max_chars to see more]"
    )


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    remaining = limit
    while remaining > 0:
        chunk = os.read(fd, min(remaining, 65_536))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def decode_text(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text (a BOM is dropped); ValueError for binary or other encodings."""
    if b"\x00" in data:
        raise ValueError(f"{name!r} is a binary file, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{name!r} is not UTF-8 text (invalid byte at offset {exc.start}); only UTF-8 text files can be read"
        ) from None


class WorkspaceSearch:
    """``search_documents`` over a :class:`~agent_core.tools.documents.workspace.Workspace`: its
    persistent index, brought up to date (new, changed and removed files) before each search."""

    def __init__(self, root: Path, workspace: Workspace | None = None) -> None:
        self.root = root
        self.workspace = workspace or Workspace(root)

    def search(self, query: str, limit: int = 3) -> str:
        """One JSON hit per line, best first (file, page or section, snippet), or a "No results" message."""
        if not query.strip():
            raise ValueError("query is empty; give a few words to search for")
        if limit < 1:
            raise ValueError("limit must be at least 1")
        hits = self.workspace.search(query, limit)
        if not hits:
            documents = self.workspace.names()
            listing = ", ".join(documents[:MAX_LISTED]) if documents else "(no documents in the workspace)"
            # A document may say it in other words ("walking poles" for "hiking sticks"): told only
            # that nothing matched, the model went to the web search instead.
            return (
                f"No results for {query!r}. Documents searched: {listing}. The search matches words: "
                "the documents may use other words for it; search again with those."
            )
        return "[\n" + ",\n".join(json.dumps(h.as_json(), ensure_ascii=False) for h in hits) + "\n]"


def _from_page(text: str, name: str, page: int) -> str:
    """A PDF's text (pages marked ``[name, p. N]``) from page ``page`` on."""
    marker = f"[{name}, p. {page}]"
    at = text.find(marker)
    if at < 0:
        pages = re.findall(r"^\[.*?, p\. (\d+)\]$", text, re.MULTILINE)
        shown = f"pages with text: {pages[0]}–{pages[-1]}" if pages else "it has no text"
        raise ValueError(f"{name} has no page {page} with text ({shown})")
    return text[at:]


def read_document(root: Path, workspace: Workspace, path: str, max_chars: int, page: int | None = None) -> str:
    """``read_file``: a PDF's pages (each marked with the file and page) or a DOCX as Markdown
    (its headings are its sections); any other file as its UTF-8 text."""
    name = path.strip().replace("\\", "/")
    for prefix in WORKSPACE_PREFIXES:
        if name.startswith(prefix) and name[len(prefix) :] in workspace.names():
            name = name[len(prefix) :]
    if name.lower().endswith((".pdf", ".docx")):
        target = resolve_in_workspace(root, name)
        relative = target.relative_to(root.resolve()).as_posix()
        if relative not in workspace.names():
            raise ValueError(f"no file {path!r} in the workspace; available files: {_files_hint(root)}")
        try:
            text = workspace.document_text(relative) or ""
        except DocumentError as exc:
            raise ValueError(str(exc)) from None
        if not text.strip():
            raise ValueError(f"{relative} has no text to read (a scan, or an empty document)")
        if page is not None and relative.lower().endswith(".pdf"):
            text = _from_page(text, relative, page)
        if len(text) <= max_chars:
            return text
        return (
            f"{text[:max_chars]}\n\n[read_file: showing the first {max_chars:,} of {len(text):,} characters; "
            "call again with a page number or a larger max_chars to see more]"
        )
    return read_workspace_file(root, path, max_chars)


def make_file_tools(root: Path, workspace: Workspace | None = None) -> tuple[Callable[..., str], Callable[..., str]]:
    """``(read_file, search_documents)`` tool functions bound to the workspace ``root`` (and its
    index; without one, an index in memory)."""
    documents = workspace or Workspace(root)
    searcher = WorkspaceSearch(root, documents)

    def read_file(
        path: str,
        max_chars: Annotated[int, Field(ge=1, le=100_000)] = 2000,
        page: Annotated[int | None, Field(ge=1)] = None,
    ) -> str:
        """Read a file from the workspace (path relative to it, e.g. 'pricing.md'); PDF pages are marked with their number.

        Args:
            path: File path relative to the workspace, e.g. 'pricing.md' or 'notes.txt'.
            max_chars: Return at most this many characters (default 2000).
            page: For a PDF: start at this page.
        """
        return read_document(root, documents, path, max_chars, page)

    def search_documents(query: str, limit: Annotated[int, Field(ge=1, le=10)] = 3) -> str:
        """Search the workspace documents; returns the best passages with their file and page or section.

        Args:
            query: What to look for, in English or Korean, e.g. 'refund within how many days'.
            limit: How many results to return (1-10, default 3).
        """
        return searcher.search(query, limit)

    return read_file, search_documents
