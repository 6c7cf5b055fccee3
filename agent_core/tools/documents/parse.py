"""A document in, its searchable parts and its tables out.

Each supported kind becomes :class:`Parsed`: *parts* to search, each with the page (PDF) or the
section (a heading; rows of a table) it cites; *tables* the ``query_table`` tool can filter and
count; and, for a PDF or a DOCX, the text ``read_file`` shows (a PDF's pages marked
``[report.pdf, p. 3]``, a DOCX as Markdown). PDF and DOCX files are read in a child process with a
time cap (:mod:`agent_core.tools.documents.extract`); text, Markdown, CSV and JSON here, since
they are plain text under the size cap.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_core.tools.docsearch import MAX_SECTION_CHARS, split_sections

KINDS: dict[str, str] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".rst": "text",
    ".csv": "csv",
    ".json": "json",
}
"""Supported file endings and the kind each is read as."""
SUPPORTED = ", ".join(sorted({s for s in KINDS if s not in (".markdown", ".rst")}))
EXTRACT_SCRIPT = Path(__file__).with_name("extract.py")
MAX_TABLE_ROWS = 200_000
"""Rows kept per table (a larger CSV is cut, and says so)."""


class DocumentError(ValueError):
    """A file that cannot be added or read, with the message a person sees."""


@dataclass(frozen=True)
class Part:
    """A searchable piece of a document and where it is: a page, or a section."""

    page: int | None
    section: str | None
    title: str
    """Words that count extra in the ranking: the heading (or the document's title)."""
    text: str
    piece: int | None = None
    """Which piece of its file the part is cut from: the chunks of one long section share it, so a
    search shows one of them; None elsewhere (a PDF page's parts: one hit per page)."""


@dataclass(frozen=True)
class Table:
    """A table the ``query_table`` tool reads: a CSV file, or a table inside a document."""

    name: str
    file: str
    columns: list[str]
    rows: list[list[str]]


@dataclass
class Parsed:
    """What one file gives the index."""

    kind: str
    parts: list[Part] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    pages: int | None = None
    text: str | None = None
    """What ``read_file`` shows for a PDF or DOCX (None: the file's own text)."""
    note: str = ""
    """Said beside the file: no text found (a scan), pages without text, a table cut short."""

    @property
    def sections(self) -> int:
        return len({(p.page, p.section) for p in self.parts})


def kind_of(name: str) -> str:
    """The kind of a file name; DocumentError for an unsupported ending."""
    suffix = os.path.splitext(name)[1].lower()
    if suffix not in KINDS:
        shown = f"'{suffix}' files are" if suffix else "files without an ending (.pdf, .md …) are"
        raise DocumentError(f"{shown} not supported; add {SUPPORTED}")
    return KINDS[suffix]


def extract(path: Path, kind: str, *, max_pages: int, timeout: float) -> dict[str, Any]:
    """Run :mod:`extract` on ``path`` in a child process; its JSON, or DocumentError."""
    try:
        done = subprocess.run(
            [sys.executable, "-I", str(EXTRACT_SCRIPT), str(path), kind, str(max_pages)],
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise DocumentError(
            f"reading it took longer than {timeout:g} s (DOCUMENT_PARSE_TIMEOUT), so it was stopped"
        ) from None
    try:
        result = json.loads(done.stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
        raise DocumentError(f"the reader stopped without a result ({tail[0][:160]})") from None
    if not isinstance(result, dict):
        raise DocumentError("the reader gave no result")
    if result.get("error"):
        raise DocumentError(str(result["error"]))
    return result


def parse(name: str, path: Path, *, max_pages: int, timeout: float) -> Parsed:
    """Parse the file at ``path``, known as ``name`` in the workspace."""
    kind = kind_of(name)
    if kind in ("pdf", "docx"):
        raw = extract(path, kind, max_pages=max_pages, timeout=timeout)
        return _pdf(name, raw["pages"]) if kind == "pdf" else _docx(name, raw["blocks"])
    data = path.read_bytes()
    if b"\x00" in data[:65_536]:
        raise DocumentError("it is a binary file, not text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError(f"it is not UTF-8 text (invalid byte at offset {exc.start}); save it as UTF-8") from None
    if kind == "csv":
        return _csv(name, text)
    if kind == "json":
        return _json(name, text)
    return Parsed(kind, _sections(name, text), note="" if text.strip() else "no text found")


def _sections(name: str, text: str) -> list[Part]:
    """Heading (or paragraph) sections, cited by their heading; the document's title counts extra too."""
    return [Part(None, s.title, s.title_words, s.text, s.piece) for s in split_sections(name, text)]


def _pdf(name: str, pages: list[str]) -> Parsed:
    parts: list[Part] = []
    shown: list[str] = []
    empty = 0
    for number, text in enumerate(pages, 1):
        text = text.strip()
        if not text:
            empty += 1
            continue
        shown.append(f"[{name}, p. {number}]\n{text}")
        for section in split_sections(os.path.splitext(name)[0] + ".txt", text):
            parts.append(Part(number, None, section.headings, section.text))
    if pages and empty == len(pages):
        note = "no text found — this looks like a scan (its pages are images), so it cannot be searched"
    elif empty:
        note = f"{empty} of {len(pages)} pages have no text (scanned pages?) and cannot be searched"
    else:
        note = ""
    return Parsed("pdf", parts, pages=len(pages), text="\n\n".join(shown), note=note)


def _markdown_table(rows: list[list[str]]) -> list[str]:
    width = max(len(r) for r in rows)
    lines = []
    for i, row in enumerate(rows):
        cells = [c.replace("|", "/") for c in row] + [""] * (width - len(row))
        lines.append("| " + " | ".join(cells) + " |")
        if i == 0:
            lines.append("|" + "---|" * width)
    return lines


def _columns(header: list[str]) -> list[str]:
    """Column names from a header row: blanks named, repeats numbered."""
    names: list[str] = []
    for i, cell in enumerate(header):
        base = " ".join(cell.split()) or f"column {i + 1}"
        candidate, n = base, 2
        while candidate in names:
            candidate, n = f"{base} ({n})", n + 1
        names.append(candidate)
    return names


def _docx(name: str, blocks: list[list[Any]]) -> Parsed:
    lines: list[str] = []
    tables: list[Table] = []
    for block in blocks:
        if block[0] == "h":
            lines += ["", "#" * min(int(block[1]), 6) + " " + str(block[2]), ""]
        elif block[0] == "p":
            lines += [str(block[1]), ""]
        elif block[0] == "t" and block[1]:
            rows = [[str(c) for c in row] for row in block[1]]
            lines += [*_markdown_table(rows), ""]
            if len(rows) > 1:
                tables.append(Table(f"{name} table {len(tables) + 1}", name, _columns(rows[0]), rows[1:]))
    text = "\n".join(lines).strip()
    parts = _sections(os.path.splitext(name)[0] + ".md", text)
    return Parsed("docx", parts, tables, text=text, note="" if parts else "no text found")


def _row_text(columns: list[str], row: list[str]) -> str:
    return "- " + ", ".join(f"{c}: {v}" for c, v in zip(columns, row, strict=False) if v.strip()) + ";"


def _row_parts(name: str, columns: list[str], rows: list[list[str]]) -> list[Part]:
    """Rows as searchable parts of about :data:`MAX_SECTION_CHARS`, cited as "rows 21–40"."""
    stem = os.path.splitext(name)[0].replace("_", " ")
    parts: list[Part] = []
    lines: list[str] = []
    first = 1
    for number, row in enumerate(rows, 1):
        line = _row_text(columns, row)
        if lines and sum(len(x) + 1 for x in lines) + len(line) > MAX_SECTION_CHARS:
            parts.append(Part(None, f"rows {first}–{number - 1}", stem, "\n".join(lines)))
            lines, first = [], number
        lines.append(line)
    if lines:
        last = first + len(lines) - 1
        parts.append(Part(None, f"row {first}" if last == first else f"rows {first}–{last}", stem, "\n".join(lines)))
    return parts


def _csv(name: str, text: str) -> Parsed:
    sample = text[:8192]
    try:
        dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = [row for row in csv.reader(io.StringIO(text), dialect) if any(c.strip() for c in row)]
    except csv.Error as exc:
        raise DocumentError(f"it is not a readable CSV ({exc})") from None
    if not rows:
        return Parsed("csv", note="no rows found")
    columns = _columns(rows[0])
    body = rows[1 : MAX_TABLE_ROWS + 1]
    note = f"only the first {MAX_TABLE_ROWS:,} rows are used" if len(rows) - 1 > MAX_TABLE_ROWS else ""
    return Parsed("csv", _row_parts(name, columns, body), [Table(name, name, columns, body)], note=note)


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _json(name: str, text: str) -> Parsed:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise DocumentError(f"it is not valid JSON ({exc})") from None
    if isinstance(data, list) and data and all(isinstance(x, dict) and all(map(_scalar, x.values())) for x in data):
        columns = _columns(list(dict.fromkeys(k for row in data for k in row)))
        keys = list(dict.fromkeys(k for row in data for k in row))
        rows = [["" if row.get(k) is None else str(row.get(k)) for k in keys] for row in data[:MAX_TABLE_ROWS]]
        return Parsed("json", _row_parts(name, columns, rows), [Table(name, name, columns, rows)])
    stem = os.path.splitext(name)[0].replace("_", " ")
    items = list(data.items()) if isinstance(data, dict) else [(stem, data)]
    parts = []
    for key, value in items:
        body = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)
        for section in split_sections(os.path.splitext(name)[0] + ".txt", body):
            # the value's own headings rank too: a heading paragraph heads the text, it is no part
            parts.append(Part(None, str(key), f"{key}\n{section.headings}", section.text))
    return Parsed("json", parts, note="" if parts else "no text found")
