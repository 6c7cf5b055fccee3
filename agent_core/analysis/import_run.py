"""Bring a run in from a file: a web page made by :mod:`agent_core.analysis.export_html`, or a record's JSON.

The imported run is saved in the runs folder like any other, masked again (the file may come
from anywhere) and marked ``imported_from: html | json``. A file that holds no run, or a run
that is already saved, is refused with a plain message; nothing is overwritten.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from agent_core.analysis.export_html import RECORD_ELEMENT_ID
from agent_core.errors import RecordError
from agent_core.masking import mask
from agent_core.records.files import MAX_RECORD_BYTES, parse_record, read_capped, record_path, save_record

MAX_IMPORT_BYTES = MAX_RECORD_BYTES * 2
"""A page holds the record and its rendering."""
_RECORD_SCRIPT = re.compile(
    r"<script\b[^>]*\bid\s*=\s*[\"']?" + re.escape(RECORD_ELEMENT_ID) + r"[\"']?[^>]*>(.*?)</script\s*>",
    re.IGNORECASE | re.DOTALL,
)


class ImportProblem(ValueError):
    """The file cannot be imported; the message says why, in plain words."""


def _looks_like_html(data: bytes, name: str) -> bool:
    if name.lower().endswith((".html", ".htm")):
        return True
    head = data[:512].lstrip().lower()
    return head.startswith((b"<!doctype", b"<html", b"<"))


def record_from_html(text: str, name: str = "page") -> dict[str, Any]:
    """The record embedded in an exported page."""
    match = _RECORD_SCRIPT.search(text)
    if match is None:
        raise ImportProblem(f"{name}: this web page holds no run (it was not made by “Download as a web page”)")
    body = match.group(1).strip()
    if body.startswith("&"):  # a page saved by a browser may have escaped it
        body = html.unescape(body)
    return _parse(body.encode("utf-8"), name)


def _parse(data: bytes, name: str) -> dict[str, Any]:
    try:
        return parse_record(data, name)
    except RecordError as exc:
        raise ImportProblem(str(exc)) from None


def read_import(data: bytes, name: str = "upload") -> tuple[dict[str, Any], str]:
    """``(record, kind)`` from a file's bytes; kind is ``html`` or ``json``."""
    if not data.strip():
        raise ImportProblem(f"{name}: the file is empty")
    if len(data) > MAX_IMPORT_BYTES:
        raise ImportProblem(f"{name}: larger than {MAX_IMPORT_BYTES // 2**20} MB")
    if _looks_like_html(data, name):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ImportProblem(f"{name}: not a UTF-8 web page") from None
        return record_from_html(text, name), "html"
    return _parse(data, name), "json"


def prepare_import(record: dict[str, Any], kind: str) -> dict[str, Any]:
    """The record as it will be saved: app-only fields dropped, masked, marked as imported."""
    clean = mask({k: v for k, v in record.items() if k != "status_shown"})
    clean["imported_from"] = kind
    return clean


def save_import(record: dict[str, Any], kind: str, runs_dir: Path) -> tuple[dict[str, Any], Path]:
    """Save an imported record; refuse one whose run id is already in ``runs_dir``."""
    clean = prepare_import(record, kind)
    run_id = str(clean.get("run_id") or "")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}", run_id) or run_id.endswith(".json"):
        raise ImportProblem(f"the run id {run_id[:60]!r} cannot be used as a file name")
    target = record_path(runs_dir, run_id)
    if target.exists():
        raise ImportProblem(f"this run is already saved (run id {run_id}); nothing was changed")
    return clean, save_record(clean, runs_dir)


def import_bytes(data: bytes, name: str, runs_dir: Path) -> tuple[dict[str, Any], Path]:
    """Read and save one uploaded file; :class:`ImportProblem` says what is wrong with it."""
    record, kind = read_import(data, name)
    return save_import(record, kind, runs_dir)


def import_file(path: Path, runs_dir: Path) -> tuple[dict[str, Any], Path]:
    """Import the run in ``path`` (an exported page or a record's JSON) into ``runs_dir``."""
    return import_bytes(read_capped(path, MAX_IMPORT_BYTES, ImportProblem), path.name, runs_dir)
