"""Which line of the tool results answers the request: a choice the local model makes before it
writes its answer.

Shown three search hits, the 1.5B model often answered from the wrong one (a figure of the hit
about another case than the one asked about). Choosing among a few numbered lines is an
easier task for it than reading and writing at once; the answer is then written with the chosen
line in view. The candidate lines are the results' sentences, list items and table rows (a row
keeps its table's header), ranked by how many of the request's words they share (the search
tokenizer's words, in English and Korean); nothing here knows any document, tool or topic.

Pure functions, unit-tested without the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from agent_core.checks.columns import rows
from agent_core.context import ContextBlock
from agent_core.records.run_record import LineChoice
from agent_core.tools.docsearch import tokenize

LINE_CHOICE = "local_line_choice"
"""The raw item type of a line choice in a step's output."""
MAX_LINES = 6
"""Candidate lines offered (each costs ~30 prompt tokens)."""
MAX_LINE_CHARS = 240

_SENTENCE = re.compile(r"(?<=[.!?。])\s+(?=[A-Z0-9\"'(가-힣])")
_NEXT_ROW = re.compile(r"(?<=;)\s+(?=[^\s:;,][^:;,]{0,40}: )|(?<=\d;)\s+(?=[A-Z\uac00-\ud7a3])")
"""Between two table rows of a search snippet, each naming its columns ("…, B: 2; A: 3, …"), or
of a table with no header, one ending in a figure ("…, £62; Hygienist appointment, …")."""
_TABLE_RULE = re.compile(r"^\|?\s*:?-{2,}")
_OMISSION = re.compile(r"(?:^|(?<=[.!?;:。])\s+)…\s+")
"""Where a search snippet left text out ("… " after a sentence's or a row's end): the passages on
either side are not one line (the model took "5.2 Hygienist appointments: … notice. … hygienist
appointments: £40", a missed appointment's fee, for the price of a hygienist's visit). A "…" in a
line of text ("Checkup … £30") is no omission."""


def _strings(value: object) -> list[str]:
    """The text values of a JSON result (a search hit's snippet, a file's text), in order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


MAX_CELL_CHARS = 80
"""Longest text value of an object read as a record: a longer one is a passage to read sentence by
sentence (a PDF search hit has a page number beside its snippet)."""


def _texts(value: object) -> list[str]:
    """The texts of a JSON result to read lines from, in order: a record (an object with a number
    among its values and only short texts: a table's row, a reading) as one text of its cells,
    "name: value, …"; other objects' and lists' text values one by one (a search hit's file,
    section and snippet)."""
    if isinstance(value, dict):
        scalars = {k: v for k, v in value.items() if isinstance(v, str | int | float | bool)}
        short = all(len(v) <= MAX_CELL_CHARS for v in scalars.values() if isinstance(v, str))
        if short and any(isinstance(v, int | float) and not isinstance(v, bool) for v in scalars.values()):
            cells = ", ".join(f"{k}: {v if isinstance(v, str) else json.dumps(v)}" for k, v in scalars.items())
            return [cells] + [s for v in value.values() if isinstance(v, dict | list) for s in _texts(v)]
        return [s for v in value.values() for s in _texts(v)]
    if isinstance(value, list):
        return [s for v in value for s in _texts(v)]
    return [value] if isinstance(value, str) else []


def _pieces(output: str) -> list[str]:
    """The lines of one result: sentences of prose, list items, and table rows with their header
    (a JSON record's cells on one line: a figure is never left out of its row)."""
    text = output.strip()
    if text[:1] in "[{":
        try:
            texts = _texts(json.loads(text))
        except (ValueError, RecursionError):  # not JSON, or nested past Python's limit
            texts = [text]
    else:
        texts = [text]
    pieces: list[str] = []
    for chunk in texts:
        header: str | None = None
        for raw in chunk.splitlines():
            line = raw.strip()
            if not line or _TABLE_RULE.match(line):
                continue
            if line.startswith("|"):
                if header is None:
                    header = line
                    continue
                pieces.append(f"{header} {line}")
                continue
            header = None
            pieces += [
                r.strip()
                for part in _OMISSION.split(line)
                for s in _SENTENCE.split(part)
                for r in _NEXT_ROW.split(s)
                if len(r.strip()) > 3
            ]
    return pieces


def _sent(value: object) -> set[str]:
    """The text values of a call's arguments (a query, a path), as a result may write them back."""
    if isinstance(value, str):  # arguments a provider sent as JSON text
        try:
            value = json.loads(value)
        except ValueError:
            pass
    return {s.strip().casefold() for s in _strings(value)}


def _scored(goal: str, blocks: Sequence[ContextBlock]) -> list[tuple[int, int, str]]:
    """``(-words shared with the goal, position, line)`` for each distinct result line.

    A line that only writes back an argument of the call (a search's own query) is no finding: it
    shares the most words with the request, and the model picked it as the answer (its own
    query's words, given back as a hit's title)."""
    wanted = set(tokenize(goal))
    seen: set[str] = set()
    scored: list[tuple[int, int, str]] = []
    for block in blocks:
        arguments = {c.call_id: c.arguments for c in block.tool_calls}
        for output in block.outputs:
            if output.is_error:
                continue
            echoed = _sent(arguments.get(output.call_id))
            for piece in _pieces(output.output):
                line = piece if len(piece) <= MAX_LINE_CHARS else piece[: MAX_LINE_CHARS - 1] + "…"
                if line in seen or piece.strip().casefold() in echoed:
                    continue
                seen.add(line)
                scored.append((-len(wanted & set(tokenize(line))), len(scored), line))
    return scored


LABEL_WORDS = 6
"""A line of this many words or fewer, with no sentence end, that shares no word with the request
is a result's label (its file name, its section title): no finding. Offered, the model picked a
search hit's file name as the line that answers, and wrote another row's figure."""


def _label(shared: int, line: str) -> bool:
    return shared == 0 and len(line.split()) <= LABEL_WORDS and not line.rstrip().endswith((".", "!", "?", "。", ";"))


def candidate_lines(goal: str, blocks: Sequence[ContextBlock], limit: int = MAX_LINES) -> list[str]:
    """The result lines most likely to answer ``goal``, best first (ties: in the results' order),
    labels left out (:data:`LABEL_WORDS`)."""
    return [line for shared, _, line in sorted(_scored(goal, blocks)) if not _label(-shared, line)][:limit]


SHORT_RESULT_WORDS = 12
"""A successful result of this many words or fewer is a value (a sum's figure, a count), a finding
whatever its words."""


def nothing_found(goal: str, blocks: Sequence[ContextBlock]) -> bool:
    """Whether the tools called so far found nothing about the request: no successful result is a
    short value (:data:`SHORT_RESULT_WORDS`) or has a line sharing a word with ``goal`` or with the
    calls' own arguments (a search written in the documents' language for a request in another),
    beyond those arguments written back."""
    if any(len(o.output.split()) <= SHORT_RESULT_WORDS for b in blocks for o in b.outputs if not o.is_error):
        return False
    asked = " ".join(s for b in blocks for c in b.tool_calls for s in _sent(c.arguments))
    return all(shared == 0 for shared, _, _ in _scored(f"{goal} {asked}", blocks))


_FIGURE_CELL = re.compile(r"^\W{0,2}\d")
"""A cell whose value is a figure ("$12", "13.99", "3.5 kg", "₩9,000"), not a label ("AB-1")."""


def _cells(line: str) -> list[tuple[str, str]] | None:
    """A table row's ``(column, value)`` cells, read as the answer check reads rows
    (:func:`~agent_core.checks.columns.rows`): a row that names its columns ("A: 1, B: 2;") or a
    Markdown row after its header (:func:`_pieces` joins the two); None for any other line."""
    text = line.strip()
    if text.startswith("|"):
        header, between, row = text.partition("| |")
        found = rows(f"{header}|\n|---|\n|{row}") if between else []
    else:
        text = text if text.endswith(";") else text + ";"
        found = [r for r in rows(text) if r.span == (0, len(text))]  # the whole line one row
    return list(found[0].cells) if len(found) == 1 else None


def named_cells(goal: str, line: str) -> tuple[str, list[str], list[str]] | None:
    """``line`` with only the figures under the columns ``goal`` names, those columns, and the
    figures left out; None when the line is no table row, or the request names none or all of
    its figure columns.

    Shown the right row ("Item: …, A: $70, B: $50, C: $30") for a question about B, the model
    wrote the first column's figure, $70. Which columns the request names is read from the words they share (the search
    tokenizer's), nothing else; the row's other cells (its name, its notes) stay."""
    cells = _cells(line)
    if cells is None or len(cells) < 3:
        return None
    wanted = set(tokenize(goal))
    figures = [i for i, (_, value) in enumerate(cells) if _FIGURE_CELL.match(value)]
    named = [i for i in figures if wanted & set(tokenize(cells[i][0]))]
    if not named or len(named) == len(figures):
        return None
    kept = ", ".join(f"{name}: {value}" for i, (name, value) in enumerate(cells) if i not in figures or i in named)
    return kept, [cells[i][0] for i in named], [cells[i][1] for i in figures if i not in named]


def choice_question(lines: Sequence[str]) -> str:
    """The question appended to the last turn: which numbered line answers the request."""
    listed = "\n".join(f"{n}. {line}" for n, line in enumerate(lines, start=1))
    return (
        "\n\nWhich of these lines from the results answers the request? Pick its number, or 0 when "
        f'none does. Reply {{"line": <number>}}.\n{listed}\n0. none of them'
    )


def answer_note(line: str | None) -> str:
    """What the answer turn is told after the choice."""
    if line is None:
        return (
            "\n\n(None of the result lines answers the request by itself. Answer from the results if "
            "they do; otherwise say plainly what you could not find.)"
        )
    return f'\n\n(The line that answers: "{line}". Answer the request from it, with its figures.)'


def line_choice(items: Sequence[Mapping[str, Any]]) -> LineChoice | None:
    """What the record keeps of the step's line choice (the constraint's ``line_choice``): the
    lines, the one picked, its probability and the picked line as the answer saw it; None when the
    step made none."""
    item = next((i for i in reversed(items) if i.get("type") == LINE_CHOICE), None)
    if item is None:
        return None
    chosen = int(item.get("chosen") or 0)
    read: LineChoice = {"lines": [str(line) for line in item.get("lines") or []], "chosen": chosen}
    if (p := (item.get("probabilities") or {}).get(chosen)) is not None:
        read["p"] = float(p)
    if item.get("shown"):
        read["shown"] = str(item["shown"])
    return read
