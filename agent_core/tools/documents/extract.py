"""Text out of a PDF or a DOCX, run in a child process with a time and a memory cap.

A PDF or a Word file from a stranger may be corrupt, encrypted, a zip bomb, or built to make a
parser loop: so it is read by ``python -I extract.py FILE KIND MAX_PAGES`` in a process of its
own (:func:`agent_core.tools.documents.parse.extract`), which the parent kills past the time cap
and which caps its own memory. This file imports only the standard library and the two parsers
(pypdf, python-docx), so the child starts in a fraction of a second.

It prints one JSON object: ``{"pages": [text, ...]}`` for a PDF (one text per page),
``{"blocks": [...]}`` for a DOCX (``["h", level, text]``, ``["p", text]``, ``["t", rows]`` in
document order), or ``{"error": "plain message"}``.
"""

from __future__ import annotations

import json
import sys
import zipfile
from typing import Any

MAX_UNZIPPED_BYTES = 300_000_000
"""A DOCX whose parts unpack to more than this is refused (a zip bomb)."""
MAX_RATIO = 200
"""Nor may one part unpack to more than this many times its packed size."""
MEMORY_CAP_BYTES = 2_000_000_000
"""The child's address-space limit: a decompression bomb ends in MemoryError, not a frozen machine."""


class Refused(Exception):
    """A file that cannot be read, with the message a person sees."""


def _cap_memory() -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP_BYTES, MEMORY_CAP_BYTES))
    except (ImportError, ValueError, OSError):  # not on every platform
        pass


def read_pdf(path: str, max_pages: int) -> dict[str, Any]:
    """The text of each page (empty for a page with no text layer)."""
    import logging

    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    logging.disable(logging.WARNING)  # pypdf warns on stderr about every small flaw
    try:
        reader = PdfReader(path)
        if reader.is_encrypted:
            try:
                opened = bool(reader.decrypt(""))  # an owner password only: readable without asking
            except Exception:  # noqa: BLE001 - an unsupported cipher is a refusal too
                opened = False
            if not opened:
                raise Refused(
                    "it is password-protected; remove the password (save an unprotected copy) and add it again"
                )
        count = len(reader.pages)
    except (PdfReadError, FileNotDecryptedError, ValueError, KeyError, TypeError) as exc:
        raise Refused(f"it is not a readable PDF ({type(exc).__name__}: {str(exc)[:120]})") from None
    if count > max_pages:
        raise Refused(f"it has {count:,} pages; the limit is {max_pages:,} (MAX_DOCUMENT_PAGES)")
    pages = []
    for page in reader.pages:
        try:
            pages.append(page.extract_text() or "")
        except Exception:  # noqa: BLE001 - one bad page must not lose the others
            pages.append("")
    return {"pages": pages}


def _check_zip(path: str) -> None:
    try:
        with zipfile.ZipFile(path) as archive:
            total = 0
            for info in archive.infolist():
                total += info.file_size
                if info.file_size > MAX_RATIO * max(info.compress_size, 1) and info.file_size > 10_000_000:
                    raise Refused("it unpacks to far more than its size (a zip bomb?), so it was not opened")
            if total > MAX_UNZIPPED_BYTES:
                raise Refused(f"it unpacks to {total / 1e6:,.0f} MB (a zip bomb?), so it was not opened")
            if "word/document.xml" not in archive.namelist():
                raise Refused("it is not a Word document (no word/document.xml inside)")
    except zipfile.BadZipFile:
        raise Refused(
            "it is not a valid .docx (a .docx is a zip archive; this one is damaged or another format)"
        ) from None


def read_docx(path: str, max_pages: int) -> dict[str, Any]:
    """Headings, paragraphs and tables in document order."""
    _check_zip(path)
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = docx.Document(path)
    except Exception as exc:  # noqa: BLE001 - python-docx raises many kinds on a damaged file
        raise Refused(f"it is not a readable .docx ({type(exc).__name__}: {str(exc)[:120]})") from None
    blocks: list[list[Any]] = []
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            text = item.text.strip()
            if not text:
                continue
            style = (item.style.name if item.style is not None else "") or ""
            level = 0
            if style == "Title":
                level = 1
            elif style.startswith("Heading"):
                digits = "".join(ch for ch in style if ch.isdigit())
                level = int(digits) if digits else 1
            blocks.append(["h", level, text] if level else ["p", text])
        elif isinstance(item, Table):
            rows = []
            for row in item.rows:
                cells: list[str] = []
                for cell in row.cells:
                    cells.append(" ".join(cell.text.split()))
                rows.append(cells)
            if rows:
                blocks.append(["t", rows])
        if len(blocks) > max_pages * 200:
            raise Refused(f"it is longer than the limit ({max_pages:,} pages' worth, MAX_DOCUMENT_PAGES)")
    return {"blocks": blocks}


def main(argv: list[str]) -> int:
    path, kind, max_pages = argv[0], argv[1], int(argv[2])
    _cap_memory()
    try:
        result = read_pdf(path, max_pages) if kind == "pdf" else read_docx(path, max_pages)
    except Refused as exc:
        result = {"error": str(exc)}
    except MemoryError:
        result = {"error": "reading it needed more memory than allowed (a decompression bomb?)"}
    except RecursionError:
        result = {"error": "it is nested too deeply to read"}
    sys.stdout.write(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
