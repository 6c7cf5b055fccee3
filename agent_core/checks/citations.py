"""Where in a document a figure came from: ``annual_report.pdf, p. 7`` or ``policy.md, Refund window``.

The answer check credits each figure to a tool call; when that call read documents, this names
the file and the page or section the figure is in, from the shape of the call's output alone
(no tool is known by name): a list of hits with ``file`` and ``page`` or ``section``; an object
with a ``file`` or ``table``; text with page marks ``[report.pdf, p. 3]``; or the text of a file
the call was given (its ``path``/``file`` argument), cited by the Markdown heading above the figure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

_PAGE_MARK = re.compile(r"^\[(?P<file>[^\]\n]+?), p\. (?P<page>\d+)\]$", re.MULTILINE)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)
_DOCUMENT = re.compile(r"\.(?:pdf|docx|md|markdown|txt|rst|csv|json)$", re.IGNORECASE)


def _where(item: Mapping[str, Any]) -> str | None:
    file = item.get("file") or item.get("table")
    if not isinstance(file, str) or not file:
        return None
    if isinstance(item.get("page"), int):
        return f"{file}, p. {item['page']}"
    section = item.get("section")
    return f"{file}, {section}" if isinstance(section, str) and section else file


def _in_text(text: str, holds: Callable[[str], bool], name: str) -> str | None:
    """The page mark or heading over the first stretch of ``text`` that holds the figure."""
    marks = sorted(
        [(m.start(), f"{m.group('file')}, p. {m.group('page')}") for m in _PAGE_MARK.finditer(text)]
        + [(m.start(), f"{name}, {m.group(1)}") for m in _HEADING.finditer(text) if name]
    )
    if not marks:
        return name or None
    bounds = [0, *(at for at, _ in marks), len(text)]
    labels = [name or None, *(label for _, label in marks)]
    for label, start, end in zip(labels, bounds, bounds[1:], strict=False):
        if text[start:end].strip() and holds(text[start:end]):
            return label
    return None


def cite(call: Mapping[str, Any], holds: Callable[[str], bool]) -> str | None:
    """The file and page or section in ``call``'s output that ``holds`` the figure (None: not a
    document, or not found in one piece)."""
    output = call.get("output")
    text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)
    raw_args = call.get("arguments")
    args: Mapping[str, Any] = raw_args if isinstance(raw_args, Mapping) else {}
    named = next((str(args[k]) for k in ("path", "file") if isinstance(args.get(k), str)), "")
    try:
        data = json.loads(text) if text.strip()[:1] in ("[", "{") else None
    except ValueError:
        data = None
    items = data if isinstance(data, list) else [data] if isinstance(data, dict) else []
    dicts = [i for i in items if isinstance(i, Mapping)]
    if dicts and any(_where(i) for i in dicts):
        for item in dicts:
            where = _where(item)
            said = " ".join(str(v) for k, v in item.items() if k not in ("score", "page"))
            if where and holds(said):
                return where
        return None
    if dicts and named:  # rows of a table the call named
        return named if _DOCUMENT.search(named) or " table " in named else None
    if named and _DOCUMENT.search(named) or _PAGE_MARK.search(text):
        return _in_text(text, holds, named if _DOCUMENT.search(named) else "")
    return None
