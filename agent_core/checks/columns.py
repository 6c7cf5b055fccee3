"""A figure that a result's table gives in one column or row, applied by the answer to another.

A policy's table row "Escape of water excess | Essentials $750 | Standard $500 | Premier $300"
holds $750; an answer that says "the Standard excess is $750" states a figure that is in the
result, yet it is the Essentials column's. So a figure counts as no support when every place the
result gives it is a table cell whose column the answer's sentence does not name, while the
sentence names another column of the same table by all of its words; or, where the sentence
names no column of that row, when the goal names another ("What's the excess on Standard?"
answered "The excess is $750.") and the answer gives no figure of that other column's cell.

Rows are weighed the same way: a figure whose row shares fewer of the words the answer says
about it than another row of the same table is that other row's (:func:`from_another_row`).

Tables are read in the two forms results carry them: Markdown pipe tables (a header row, a
``|---|`` line, rows) and the row sentences of a search snippet ("Feature: Escape of water
excess, Essentials: $750, Standard: $500;"). A figure written anywhere else in the result is
never judged. Pure functions; nothing here knows a document or a topic.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from agent_core.checks.claims import ANY_DIGITS, Claim, claims_in, find_all, fmt, sentence_bounds
from agent_core.checks.filters import objects
from agent_core.checks.units import another_figure, writes_with_unit

_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_CELL_NAME = r"[^:;,|\"\n]{1,48}"
_CELL_PAIR = rf"{_CELL_NAME}: (?>(?:[^,;|\"\n]|,(?! {_CELL_NAME}: ))+)"
"""A cell of a row sentence: a comma inside its text ("Minivan, 7 seats", "$1,200") is one not
followed by the next cell's "Name: ". The text is read whole (an atomic group): read two ways, a
long list of commas made the pattern try exponentially many."""
_ROW_SENTENCE = re.compile(rf"{_CELL_PAIR}(?:, {_CELL_PAIR})+;")
_OMISSION = re.compile(r"^\s*(?:…|\\u2026)\s*")


@dataclass(frozen=True)
class Row:
    """A table row: (column, text) per cell, the first naming the row, and where it lies in the text."""

    cells: tuple[tuple[str, str], ...]
    span: tuple[int, int]

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.cells)


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


def _pipe_tables(text: str) -> Iterator[Row]:
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
                named = tuple(zip(header, _pipe_cells(lines[j]), strict=False))
                yield Row(named, (starts[j], starts[j] + len(lines[j])))
                j += 1
            i = j
        else:
            i += 1


def _row_sentences(text: str) -> Iterator[Row]:
    for match in _ROW_SENTENCE.finditer(text):
        pairs = _PAIR_IN_ROW.findall(match.group().rstrip(";"))
        # A snippet marks an omission before a row with "…" (in JSON perhaps "\u2026"): not part
        # of its first column's name.
        yield Row(tuple((_OMISSION.sub("", name).strip(), value.strip()) for name, value in pairs), match.span())


def rows(text: str) -> list[Row]:
    """Every table row in both forms."""
    return [*_pipe_tables(text), *_row_sentences(text)]


def _cells(row: Row) -> Iterator[Cell]:
    # The first column names the row, not a column of figures.
    named = row.cells[1:]
    for k, (column, text) in enumerate(named):
        if column:
            yield Cell(column, text, tuple(p for n, p in enumerate(named) if n != k and p[0]), row.span)


def cells(text: str) -> list[Cell]:
    """Every cell after a table's first column, in both forms."""
    return [cell for row in rows(text) for cell in _cells(row)]


def _outside(text: str, spans: set[tuple[int, int]]) -> str:
    """``text`` with the given spans (its tables' rows) blanked out."""
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    return text


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
    if values & _figures(_outside(source_text, {c.span for c in table})):
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


def _holding(claim: Claim, source_text: str) -> list[Cell]:
    """The table cells of ``source_text`` that give the claim's figure."""
    values = {abs(n) for n in claim.numbers}
    return [c for c in cells(source_text) if values & _figures(c.text)]


def names_a_column(claim: Claim, sentence: str, source_text: str, words: Callable[[str], frozenset[str]]) -> bool:
    """Whether ``sentence`` names, by all its words, a column of a table row of ``source_text``
    that gives the claim's figure."""
    said = words(sentence) - words(claim.text)
    return any(
        (name := words(column)) and name <= said
        for cell in _holding(claim, source_text)
        for column in (cell.column, *dict(cell.others))
    )


def named_cell_figures(claim: Claim, column: str, source_text: str) -> set[float]:
    """The figures of the ``column`` cells in the table rows of ``source_text`` that give the
    claim's figure (what the column the goal names says in those rows)."""
    return {
        f
        for cell in _holding(claim, source_text)
        for name, text in cell.others
        if name == column
        for f in _figures(text)
    }


def _row_words(row: Row, words: Callable[[str], frozenset[str]]) -> frozenset[str]:
    """What a row says about its subject: the words and figures of its cells' texts (its column
    names are every row's)."""
    return frozenset().union(*(words(text) | _figure_words(text) for _, text in row.cells))


def _figure_words(text: str) -> frozenset[str]:
    """The figures of ``text`` as words ("#10"): "the 10 litre watering can" names the row of
    "Watering can 10 L" by its 10 where the words alone ("water") fit the garden hose's as well."""
    return frozenset("#" + fmt(float(d)) for d in ANY_DIGITS.findall(text.replace(",", "")))


def _label(row: Row, column: str) -> str:
    return next((text for name, text in row.cells if name == column), row.cells[0][1])


def from_another_row(
    claim: Claim, clause: str, source_text: str, words: Callable[[str], frozenset[str]]
) -> tuple[str, str] | None:
    """``(the figure's row, the row the clause names)`` when ``source_text`` gives the claim's
    figure only in table rows, and for each such row another row of the same table (same columns),
    holding another figure in the figure's column, shares more of the answer's words about
    the figure (``clause``, of two words or more) than the figure's row does: "the 10 litre
    watering can is $34.99" where $34.99 is the garden hose's row and the watering can's row is
    there too; "the damage excess on the minivan is $1,200", where only the minivan's row has the
    word "minivan" and $1,200 is the economy car's. Else None. A row is named by its cells'
    texts (not its columns' names), each row by the column that best matches."""
    values = {abs(n) for n in claim.numbers}
    said = (words(clause) | _figure_words(clause)) - words(claim.text) - _figure_words(claim.text)
    if not values or len(said) < 2:
        return None
    table = rows(source_text)
    holding = [r for r in table if values & _figures(" ".join(text for _, text in r.cells))]
    if not holding or values & _figures(_outside(source_text, {r.span for r in table})):
        return None
    found: tuple[str, str] | None = None
    for row in holding:
        mine = len(said & _row_words(row, words))
        at = {name for name, text in row.cells if values & _figures(text)}
        peers = [
            r
            for r in table
            if r.columns == row.columns
            and not values & _figures(" ".join(text for _, text in r.cells))
            and any(name in at and _figures(text) for name, text in r.cells)
        ]
        if not peers:
            return None
        best = max(peers, key=lambda r: len(said & _row_words(r, words)))
        theirs = len(said & _row_words(best, words))
        if theirs <= mine:
            return None
        column = max(best.columns, key=lambda c: len(said & words(_label(best, c))))
        found = found or (_label(row, column), _label(best, column))
    return found


_PAIR_IN_ROW = re.compile(r'([^:;,|"\n]{1,48}): (.*?)(?=, [^:;,|"\n]{1,48}: |;|$)')
"""A cell of a row sentence read whole: its text runs to the next ", Column: " (a comma inside a
cell does not end it)."""


def _row_start(row: Row, source_text: str) -> int:
    """Where a row sentence begins: one whose cell holds a comma ("Hand trowel (steel, short)") is
    matched by :data:`_ROW_SENTENCE` from that cell on."""
    return _row_start_of(row.span, source_text)


def _row_start_of(span: tuple[int, int], source_text: str) -> int:
    return min(span[0], max(source_text.rfind(mark, 0, span[0]) for mark in ';\n"[') + 1)


def _whole_row(row: Row, source_text: str, start: int) -> tuple[tuple[str, str], ...]:
    """A row's cells as (column, text), a row sentence's read from its ``start`` (:func:`_row_start`)."""
    if start >= row.span[0]:
        return row.cells
    segment = source_text[start : row.span[1]].strip().rstrip(";")
    pairs = tuple((m.group(1).strip(), m.group(2).strip()) for m in _PAIR_IN_ROW.finditer(segment))
    return pairs or row.cells


def _before_figure(text: str, values: set[float]) -> str:
    """``text`` up to the first of ``values`` it writes (all of it when it writes none)."""
    found = (m.start() for m in ANY_DIGITS.finditer(text) if float(m.group().replace(",", "")) in values)
    return text[: next(found, len(text))]


_SHORT_CELL = 3
"""The most words of a cell past a row's figure that can name the row (a name, not a note)."""


def unnamed_row(claim: Claim, sentence: str, source_text: str, words: Callable[[str], frozenset[str]]) -> str | None:
    """When ``source_text`` gives the claim's figure only in table rows, and the answer's
    ``sentence`` shares no word with what any of those rows says about its subject (its cells'
    texts up to the figure, not the column names every row has), the first such row's label (its
    first cell with no figure): "the total stock of the seed products is 24" where 24 is the stock
    of the hand trowel's row. Else None."""
    values = {abs(n) for n in claim.numbers}
    if not values:
        return None
    whole, outside = _whole_rows(source_text)
    holding = [cells for cells in whole if values & _figures(" ".join(text for _, text in cells))]
    # Outside the rows only as a figure of another kind or unit ("10%" for "$10"): no other source.
    if not holding or (values & _figures(outside) and another_figure(claim, outside) is None):
        return None
    # Rows that write the figure with the answer's own unit are where it came from ("5 years" is
    # the warranty rows', not the bookcase row's "5 shelves").
    holding = [cells for cells in holding if writes_with_unit(claim, " ".join(t for _, t in cells))] or holding
    said = (words(sentence) | _figure_words(sentence)) - words(claim.text) - _figure_words(claim.text)
    for cells in holding:
        columns = frozenset().union(*(words(name) for name, _ in cells))
        # What follows the figure in its own cell says what it measures ("£12 per wheel"), not
        # which row it is ("Garden hose 30 m" names its row before its 30).
        # Nor does a note after it ("Notes: not for electric cargo bikes"): past the figure's cell,
        # a row names its subject by the words of a short cell ("wine: Barolo" after "bin: 403")
        # if at all; its other figures there are its data ("Per week: £45"), not its name.
        at = next((i for i, (_, text) in enumerate(cells) if values & _figures(text)), len(cells))
        texts = [_before_figure(text, values) for _, text in cells[: at + 1]]
        after = [text for _, text in cells[at + 1 :] if len(text.split()) <= _SHORT_CELL]
        # A figure names a row inside a name ("Watering can 10 L"), not as a cell of its own ("£4").
        named = frozenset().union(
            *(words(text) | (_figure_words(text) if words(text) else frozenset()) for text in texts), *map(words, after)
        )
        if said & (named - columns - _figure_words(claim.text)):
            return None
    return next((text for _, text in holding[0] if text and not _figures(text)), holding[0][0][1])


def _dates(text: str) -> list[Claim]:
    return [c for c in claims_in(text) if c.kind == "date" and c.date is not None]


def _day(claim: Claim) -> tuple[int | None, int, int]:
    assert claim.date is not None  # only dates are read (:func:`_dates`)
    return claim.date


def _same_day(a: tuple[int | None, int, int], b: tuple[int | None, int, int]) -> bool:
    """The same day of the year, and of the same year where both say one."""
    return a[1:] == b[1:] and (a[0] is None or b[0] is None or a[0] == b[0])


def _whole_rows(source_text: str) -> tuple[list[tuple[tuple[str, str], ...]], str]:
    """Each table row of ``source_text`` as its cells read whole (:func:`_whole_row`), and the text
    outside the rows."""
    table = rows(source_text)
    starts = [_row_start(row, source_text) for row in table]
    whole = [_whole_row(row, source_text, start) for row, start in zip(table, starts, strict=True)]
    spans = {(start, row.span[1]) for row, start in zip(table, starts, strict=True)}
    return whole, _outside(source_text, spans)


def _records(source_text: str) -> tuple[list[str], str]:
    """The text of each table row of ``source_text`` and the text outside them; with no such row,
    each record of a JSON list of records (``query_table``'s rows: ``[{"date": "2024-03-14",
    "litres": 31.42}, …]``), and nothing outside."""
    whole, outside = _whole_rows(source_text)
    if whole:
        return [" ".join(text for _, text in cells) for cells in whole], outside
    items = list(objects(source_text))
    if not items or any(isinstance(v, (dict, list)) or len(str(v)) > _LONGEST_FIELD for i in items for v in i.values()):
        return [], source_text  # no records, or passages (a search's hits) rather than a table's rows
    return [" ".join(f"{k}: {v}" for k, v in item.items()) for item in items], ""


_LONGEST_FIELD = 80
"""The longest field of a JSON record read as a table row; a longer one is a passage of text."""
_RANGE_WORDS = re.compile(
    r"\b(?:before|after|since|until|till|by|from|to|between|through|prior\s+to|up\s+to|as\s+of|and)\s*$"
    r"|^\s*(?:이전|이후|부터|까지|전|후|사이|and|to|-|–)",
    re.IGNORECASE,
)
"""Words that make a date a bound or a point of reference rather than the row's own day: "before 14
March", "since 13 January", "3월 14일 이후", "between 13 January and 14 March"."""


def from_another_date(claim: Claim, clause: str, source_text: str) -> tuple[str, str] | None:
    """``(the date of the figure's row, the date the clause says)`` when the answer's ``clause``
    applies the claim's figure to a date, every row of ``source_text`` that gives the figure is
    dated on other days only, and another row of the result is dated on the clause's day: "the
    Yaris took 29.56 litres on 14 March", where 29.56 is the 29 June row's and the 14 March row
    is there too. Else None. A figure also written outside the rows is not judged."""
    said = _dates(clause)
    values = {abs(n) for n in claim.numbers}
    if claim.kind == "date" or len(said) != 1 or not values:
        return None
    if _RANGE_WORDS.search(clause[: said[0].start]) or _RANGE_WORDS.search(clause[said[0].end :]):
        return None  # "before 14 March": a bound, not the row's day
    records, outside = _records(source_text)
    holding = [r for r in records if values & _figures(_without_dates(r))]
    if not holding or len(holding) == len(records) or values & _figures(_without_dates(outside)):
        return None
    day = _day(said[0])
    own = [[_day(d) for d in _dates(r)] for r in holding]
    if not all(own) or any(_same_day(d, day) for days in own for d in days):
        return None
    others = [r for r in records if not values & _figures(_without_dates(r))]
    if any(_same_day(_day(d), day) for r in others for d in _dates(r)):
        return _dates(holding[0])[0].text, said[0].text
    return None


def _without_dates(text: str) -> str:
    """``text`` with its dates blanked, so a date's digits ("2024-06-29") are no figure of its row."""
    for d in sorted(_dates(text), key=lambda c: c.start, reverse=True):
        text = text[: d.start] + " " + text[d.end :]
    return text


_HOW_MANY = re.compile(r"\bhow\s+many\b|몇\s?(?:개|가지|종류|권|곳|대|번)|개수", re.IGNORECASE)
"""A goal that asks a count of things ("how many co-op games …", "몇 개", "몇 가지")."""


def cell_for_a_count(
    claim: Claim, sentence: str, goal: str, source_text: str, words: Callable[[str], frozenset[str]]
) -> str | None:
    """The column of the table cells that give a bare figure the answer offers as the count a
    "how many" goal asks for, when those cells are all the result holds of it and neither the
    answer's sentence nor the goal names their column: "There are 36 Italian red wines" from one
    row's ``bottles_in_cellar: 36`` counts no rows. Else None."""
    if claim.kind != "number" or not _HOW_MANY.search(goal):
        return None
    values = {abs(n) for n in claim.numbers}
    holding = [cell for cell in cells(source_text) if values & _figures(cell.text)]
    outside = _outside(source_text, {(_row_start_of(cell.span, source_text), cell.span[1]) for cell in holding})
    if not holding or values & _figures(outside):
        return None
    said = words(sentence) | words(goal)
    if any(words(cell.column) & said for cell in holding):
        return None
    return holding[0].column


def claim_clause(answer: str, claim: Claim) -> str:
    """What the answer's sentence says about ``claim``: from the figure of the same kind before it
    (or the sentence's start) to its end, and on to the sentence's end when no such figure follows
    ("the Atlas costs $449 while the Sola Mesh costs $259": "the Atlas costs $449" for $449)."""
    start, finish = sentence_bounds(answer, claim.start, claim.end)
    sentence = answer[start:finish]
    at, end = claim.start - start, claim.end - start
    same = [c for c in claims_in(sentence) if c.kind == claim.kind and (c.end <= at or c.start >= end)]
    lo = max((c.end for c in same if c.end <= at), default=0)
    hi = end if any(c.start >= end for c in same) else len(sentence)
    return sentence[lo:hi]
