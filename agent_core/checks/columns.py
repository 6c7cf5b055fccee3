"""A figure that a result's table gives in one column, applied by the answer to another column.

A policy's table row "Escape of water excess | Essentials $750 | Standard $500 | Premier $300"
holds $750; an answer that says "the Standard excess is $750" states a figure that is in the
result, yet it is the Essentials column's. So a figure counts as no support when every place the
result gives it is a table cell whose column the answer's sentence does not name, while the
sentence names another column of the same table by all of its words.

Tables are read in the two forms results carry them: Markdown pipe tables (a header row, a
``|---|`` line, rows) and the row sentences of a search snippet ("Feature: Escape of water
excess, Essentials: $750, Standard: $500;"). A figure written anywhere else in the result is
never judged. Pure functions; nothing here knows a document or a topic.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from agent_core.checks.claims import ANY_DIGITS, Claim, find_all

_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_CELL_PAIR = r"[^:;,|\"\n]{1,48}: [^,;|\"\n]+"
_ROW_SENTENCE = re.compile(rf"{_CELL_PAIR}(?:, {_CELL_PAIR})+;")


@dataclass(frozen=True)
class Cell:
    """A table cell after its row's first: its column's name, its text, the row's other such
    cells as (column, text), and where the row lies in the text."""

    column: str
    text: str
    others: tuple[tuple[str, str], ...]
    span: tuple[int, int]


def _pipe_cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _pipe_tables(text: str) -> Iterator[Cell]:
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    i = 0
    while i + 1 < len(lines):
        if "|" in lines[i] and _SEPARATOR.match(lines[i + 1]) and "|" in lines[i + 1]:
            header = _pipe_cells(lines[i])
            j = i + 2
            while j < len(lines) and lines[j].count("|") >= 2:
                # The first column names the row, not a column of figures.
                named = [(h, c) for h, c in zip(header, _pipe_cells(lines[j]), strict=False)][1:]
                yield from _row(named, (starts[j], starts[j] + len(lines[j])))
                j += 1
            i = j
        else:
            i += 1


def _row_sentences(text: str) -> Iterator[Cell]:
    for match in _ROW_SENTENCE.finditer(text):
        pairs = [pair.split(": ", 1) for pair in match.group().rstrip(";").split(", ")]
        yield from _row([(name.strip(), value.strip()) for name, value in pairs[1:]], match.span())


def _row(named: list[tuple[str, str]], span: tuple[int, int]) -> Iterator[Cell]:
    for k, (column, text) in enumerate(named):
        if column:
            yield Cell(column, text, tuple(p for n, p in enumerate(named) if n != k and p[0]), span)


def cells(text: str) -> list[Cell]:
    """Every cell after a table's first column, in both forms."""
    return [*_pipe_tables(text), *_row_sentences(text)]


def _figures(text: str) -> set[float]:
    return {float(d) for d in ANY_DIGITS.findall(text.replace(",", ""))}


def from_another_column(
    claim: Claim, sentence: str, source_text: str, words: Callable[[str], frozenset[str]]
) -> tuple[str, str] | None:
    """``(the figure's column, the column the sentence names)`` when ``source_text`` gives the
    claim's figure only in table cells of columns the answer's ``sentence`` does not name, each in
    a row where another column holding a figure of the claim's kind (and another value) is named
    by all its words (none of them the figure's column's); else None."""
    values = {abs(n) for n in claim.numbers}
    if not values:
        return None
    said = words(sentence) - words(claim.text)
    table = cells(source_text)
    holding = [c for c in table if values & _figures(c.text)]
    if not holding:
        return None
    # Anywhere outside the tables' rows, the figure is not judged.
    outside = source_text
    for start, end in sorted({c.span for c in table}, reverse=True):
        outside = outside[:start] + " " + outside[end:]
    if values & _figures(outside):
        return None
    found: tuple[str, str] | None = None
    for cell in holding:
        own = words(cell.column)
        if not own or own & said:
            return None
        named = [
            column
            for column, text in cell.others
            if (name := words(column))
            and name <= said
            and not name & own
            and any(
                f.kind == claim.kind and f.numbers and not values & {abs(n) for n in f.numbers} for f in find_all(text)
            )
        ]
        if not named:
            return None
        found = found or (cell.column, named[0])
    return found
