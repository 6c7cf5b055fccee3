"""A figure a result writes only as a figure of another unit is no support for the answer's.

"$1,200" is not backed by "up to 1,200 m", "1 week" not by "1 person" or "1 hour", "140 kg" not by
a product code "D-140", "1 year" not by a section heading "1. Cover levels", "2025 °F" or "$2025"
not by a year ("February 2025", "2025/26"), "12%" not by "12개", "22분" or "$22" not by a JSON
object that names its numbers' unit (``{"temperature": 22, "unit": "celsius"}``), "£1850" not by
a table cell whose column's name ends in another unit (``gas_kwh``: a CSV read whole, a JSON
row, a search snippet's row; not a rate's, ``price_per_kg``). Any other plain
occurrence of the number (a JSON value, a table cell, a number in a sentence with no unit) leaves
it possible.
Pure functions over the claims of :mod:`agent_core.checks.claims`.
"""

from __future__ import annotations

import functools
import json
import re

from agent_core.checks.claims import Claim, claims_in
from agent_core.text.months import MONTH

NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_IN_CODE = re.compile(r"(?:[A-Za-z]{1,4}[-_]|(?<![A-Za-z])[A-Za-z])$")
"""What comes right before a number that is part of a code ("D-140", "GL-1001", "HS_2025", "Q3");
not a glued currency code ("USD1200") or a run of letters ("PT2H")."""
_REFERENCE = re.compile(
    r"(?:\b(?:section|chapter|page|clause|article|step|item|no\.)|#|§|(?<![가-힣])제)\s?$", re.IGNORECASE
)
"""What comes before a number that points to a part of a document ("section 1", "page 3", "제 2")."""
_RANGE_START = re.compile(r"\b(?:rows?|lines?|pages?)\s?$", re.IGNORECASE)
"""What comes before the first number of a range of a document's parts ("rows 1–13", a table's
search hit); its last number may count them ("rows 1-12 are reserved")."""
_HEADING = re.compile(r"""(?:^|\n|["'])\s*$""")
"""What comes before a section number ("1. Cover levels" at a line's or a JSON string's start)."""
_AFTER_HEADING = re.compile(r"\.\s+(?=[^\W\d_])")
_WORD_AFTER = re.compile(r"[^\W\d_]+")
_BARE_YEAR = re.compile(r"(?:19|20)\d\d")
_YEAR = re.compile(rf"(?:\b{MONTH}\s+)?(?:19|20)\d\d(?:/\d\d\b)?", re.IGNORECASE)
"""A year: after a month ("February 2025") or as a season ("2025/26")."""
MAX_SECTION = 30
"""The largest number read as a section number ("500. Claims must …" is a wrapped line, not one)."""

_UNITS: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("year", "years", "yr", "yrs", "년"), ("time", "year")),
    **dict.fromkeys(("month", "months", "개월", "달"), ("time", "month")),
    **dict.fromkeys(("week", "weeks", "주"), ("time", "week")),
    **dict.fromkeys(("day", "days", "business days", "working days", "일", "영업일"), ("time", "day")),
    **dict.fromkeys(("night", "nights", "박"), ("time", "night")),
    **dict.fromkeys(("hour", "hours", "hr", "hrs", "시간"), ("time", "hour")),
    **dict.fromkeys(("minute", "minutes", "mins", "분"), ("time", "minute")),
    **dict.fromkeys(("second", "seconds", "secs", "초"), ("time", "second")),
    **dict.fromkeys(
        ("people", "person", "persons", "guests", "adults", "members", "attendees", "명", "인", "인분"),
        ("people", "person"),
    ),
    **dict.fromkeys(("kg", "kilogram", "kilograms", "킬로그램", "킬로"), ("mass", "kg")),
    **dict.fromkeys(("gram", "grams", "그램"), ("mass", "g")),
    **dict.fromkeys(("lb", "lbs", "pound", "pounds"), ("mass", "lb")),
    **dict.fromkeys(("km", "kilometer", "kilometers", "kilometre", "kilometres", "킬로미터"), ("length", "km")),
    **dict.fromkeys(("meter", "meters", "metre", "metres", "미터"), ("length", "m")),
    **dict.fromkeys(("cm", "centimeter", "centimeters", "centimetre", "centimetres", "센티미터"), ("length", "cm")),
    **dict.fromkeys(("mile", "miles", "mi"), ("length", "mile")),
    **dict.fromkeys(("ft", "feet", "foot"), ("length", "ft")),
    **dict.fromkeys(("liter", "liters", "litre", "litres", "리터"), ("volume", "l")),
    **dict.fromkeys(("ml", "milliliter", "milliliters", "millilitre", "millilitres"), ("volume", "ml")),
    **dict.fromkeys(
        ("unit", "units", "item", "items", "piece", "pieces", "pcs", "order", "orders", "times",
         "개", "회", "번", "건", "대"),
        ("count", "count"),
    ),
}  # fmt: skip
"""Unit words whose measure is plain, English and Korean: a figure with one of them is not backed by
the same number with another of them (a count of units is no time: "10개" is not "10분"). Words
naming what is counted ("chairs", "tickets") are left out, and so are abbreviations that read two
ways ("m", "min", "in", "s"): a figure with a unit not listed here can be anything, and leaves
support possible."""
_KOREAN_UNITS = sorted((u for u in _UNITS if "\uac00" <= u[0] <= "\ud7a3"), key=len, reverse=True)
_HANGUL = re.compile(r"[\uac00-\ud7a3]+")
_OTHER_KINDS = frozenset({"money", "percent", "temperature", "date"})
"""Figures of another kind than a quantity: "30 days" is not backed by "June 30" or "$30"."""


def _unit_word(claim: Claim) -> str:
    """What follows the number in a claim's normalised value: its unit, or its currency code
    ("24 USD" → "USD")."""
    return claim.value.partition(" ")[2]


def _unit(claim: Claim) -> tuple[str, str] | None:
    return _UNITS.get(_unit_word(claim).lower())


def unit_of(claim: Claim) -> tuple[str, str] | None:
    """A quantity's known unit as (what it measures, the unit): ``("time", "day")``, ``("people",
    "person")``; None when its unit is not a known one."""
    return _unit(claim)


def writes_with_unit(claim: Claim, text: str) -> bool:
    """Whether ``text`` writes one of the claim's numbers with the claim's own known unit ("5 years"
    for "5 years"; not "5 shelves", "5 hours" or a bare 5)."""
    unit = _unit(claim)
    values = {abs(n) for n in claim.numbers}
    if unit is None or not values:
        return False
    found = claims_in(text)
    return any(c.kind == "quantity" and _unit(c) == unit and {abs(n) for n in c.numbers} & values for c in found)


def _glued(text: str, end: int) -> tuple[str, str] | None:
    """The unit of a Korean counter written right after a number ("1인", "3박"), which the claim
    finder reads as a plain number (it lets "12입니다" count); None when there is none."""
    word = _HANGUL.match(text, end)
    if word is None:
        return None
    return next((_UNITS[u] for u in _KOREAN_UNITS if word.group().startswith(u)), None)


def _alike(claim: Claim, found: Claim, text: str) -> bool:
    """Whether a result's figure with the claim's number can be the same measure: always, unless
    both units (or currencies) are known and differ, or the result's figure is of another kind
    (a phone number's digits are no figure at all)."""
    if found.kind == "contact":
        return False
    if claim.kind == "money":  # nor an amount in another currency ("€168" is not "£168")
        return found.kind not in ("quantity", "percent", "temperature") and (
            found.kind != "money" or _unit_word(claim) == _unit_word(found)
        )
    if claim.kind == "temperature":  # not a count or a measure of another known unit ("30 days")
        return found.kind in ("temperature", "number") or (found.kind == "quantity" and _unit(found) is None)
    if claim.kind == "percent":  # "12%" is not "12개" or "12 units"
        return found.kind == "percent" or (found.kind == "number" and _glued(text, found.end) is None)
    if found.kind in _OTHER_KINDS:
        return False
    mine = _unit(claim)
    theirs = _glued(text, found.end) if found.kind == "number" else _unit(found) if found.kind == "quantity" else None
    return mine is None or theirs is None or mine == theirs


def _plain(text: str, start: int, end: int) -> bool:
    """Whether the number at ``text[start:end]`` is no code, no name, no section number and no
    reference to one."""
    if _IN_CODE.search(text[max(0, start - 3) : start]) or _REFERENCE.search(text[max(0, start - 9) : start]):
        return False
    return not _in_name(text, start, end) and not _section_number(text, start, end)


_NAME_AFTER = re.compile(r"_|\.[A-Za-z]")


def _in_name(text: str, start: int, end: int) -> bool:
    """Whether the number at ``text[start:end]`` is part of a file name or an identifier: after or
    before an underscore, before a file extension ("prices_2025.txt"), or written with a leading
    zero ("01422 860 317", a phone number)."""
    digits = text[start:end]
    return (
        text[start - 1 : start] == "_"
        or bool(_NAME_AFTER.match(text, end))
        or (len(digits) > 1 and digits[0] == "0" and digits[1].isdigit())
    )


def _section_number(text: str, start: int, end: int) -> bool:
    """A small number at a line's (or a JSON string's) start with ". " and a word after it."""
    number = NUMBER.search(text, start, end)  # a signed figure's span starts at its sign ("- 12")
    small = number is not None and float(number.group().replace(",", "")) <= MAX_SECTION
    return small and bool(_HEADING.search(text[max(0, start - 4) : start]) and _AFTER_HEADING.match(text, end))


_SEPARATORS = frozenset(" \t\n,;:()[]{}\"'")
"""What ends the run of text a number stands in, shown to say how a result writes it ("T-140")."""


def another_figure(claim: Claim, source_text: str) -> str | None:
    """How ``source_text`` writes the number of an amount of money, a quantity, a temperature or a
    percentage when it writes it only as a figure of another unit or kind, in a code, as a section
    number or as a year ("1인, 1시간", "T-140", "section 1", "February 2025"): no support for the
    claim. None when it writes it plainly anywhere, or not at all (a rounded or converted figure)."""
    if claim.kind == "number":
        return _only_in_dates(claim, source_text)
    if claim.kind not in ("money", "quantity", "temperature", "percent") or not claim.numbers:
        return None
    if (unit := _json_unit(claim, source_text) or _column_unit(claim, source_text)) is not None:
        return unit
    figures = claims_in(source_text)
    places = _occurrences(claim, source_text)
    # A text that writes its prices with a currency, or a document whose file name has the number
    # ("terms_2025.txt"), writes a bare "2025" as a year ("Terms of Service - 2025").
    priced = claim.kind == "money" and (
        any(c.kind == "money" for c in figures) or any(_in_name(source_text, *m.span()) for m in places)
    )
    shown: dict[str, None] = {}
    for found in places:
        covering = [c for c in figures if c.start <= found.start() < c.end]
        bare_year = priced and _BARE_YEAR.fullmatch(found.group()) and all(c.kind == "number" for c in covering)
        if _a_year(source_text, found) or bare_year:
            shown[f"the year {found.group()}"] = None
            continue
        if not covering and _plain(source_text, found.start(), found.end()):
            return None  # a number with no unit ("Price: 1,200", "stock: 24")
        if any(
            _alike(claim, c, source_text) and (c.kind != "number" or _plain(source_text, c.start, c.end))
            for c in covering
        ):
            return None
        start, end = found.span()
        written = _token(source_text, start, end) if _in_name(source_text, start, end) else None
        shown[written or _as_written(source_text, found, covering)] = None
    return ", ".join(list(shown)[:3]) if shown else None


def _json_unit(claim: Claim, text: str) -> str | None:
    """The claim's number written with the unit a JSON result names for it, when that is another
    measure's ("22 celsius" for "22분", from ``{"temperature": 22, "unit": "celsius"}``): an
    object with a ``unit`` and one number. None when the result is no such object, or the unit is
    the claim's own or not known."""
    if not text.lstrip().startswith("{") or '"unit"' not in text:
        return None  # not parsed for every claim and search result: most are no such object
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(unit := data.get("unit"), str):
        return None
    numbers = [v for v in data.values() if isinstance(v, int | float) and not isinstance(v, bool)]
    if len(numbers) != 1 or abs(numbers[0]) not in {abs(n) for n in claim.numbers}:
        return None
    written = f"{numbers[0]} {unit}"
    found = claims_in(written)
    if len(found) != 1 or found[0].kind == "number" or _alike(claim, found[0], written):
        return None
    return written


_NAMED_CELL = re.compile(r'(?:^|[\s{,;"])([A-Za-z][\w ]{0,48}?)"?\s*:\s*$')
"""The name before a cell's value: ``gas_kwh: 1850`` (a search snippet's row) or ``"gas_kwh": 1850``
(a JSON row)."""
_NAME_UNIT = re.compile(r"[_ ]([A-Za-z][A-Za-z0-9]{0,10})$")
_CELL_UNITS = frozenset({"kwh", "wh", "mwh", "m2", "m3", "mm", "g", "l"})
"""Units a column's name ends with that the unit words above leave out (they read two ways in prose)."""


@functools.lru_cache(maxsize=256)
def _name_unit(name: str) -> str | None:
    """The unit a column's name ends with, after an underscore or a space ("gas_kwh" → "kwh",
    "price_gbp" → "gbp", "sum of water_m3" → "m3", "sum of litres" → "litres"); None when its last word is no known unit
    (``stock``, ``unit_price``)."""
    found = _NAME_UNIT.search(name.strip())
    if found is None or re.search(r"(?i)(?:^|[_ ])per[_ ]", name):
        return None  # "price_per_kg" holds money: the unit is what the price is for
    unit = found.group(1).lower()
    written = claims_in(f"1 {unit}")
    if len(written) != 1 or written[0].kind == "number":
        return None
    if written[0].kind == "quantity" and unit not in _UNITS and unit not in _CELL_UNITS:
        return None
    return unit


def _csv_column(text: str, found: re.Match[str]) -> str | None:
    """The header of the CSV column a number is the whole cell of, in a text whose first line is
    a CSV header (a ``.csv`` file read whole); None otherwise."""
    header_end = text.find("\n")
    if header_end < 0 or found.start() < header_end or text.count(",", 0, header_end) < 2:
        return None
    names = text[:header_end].split(",")
    start = text.rfind("\n", 0, found.start()) + 1
    end = text.find("\n", found.end())
    line = text[start : end if end >= 0 else len(text)]
    cells = line.split(",")
    column = text.count(",", start, found.start())
    if len(cells) != len(names) or cells[column].strip() != found.group():
        return None
    return names[column].strip()


def _column_unit(claim: Claim, text: str) -> str | None:
    """The claim's number with the unit of the table column that holds it, when every place the
    text gives it is a cell whose column's name ends in a unit of another measure ("1850 kwh
    (gas_kwh)" for "£1850", from a CSV read whole, a JSON row or a search snippet's row); None when
    it is written anywhere else, or the column's unit is the claim's own or none."""
    if "_" not in text:
        return None  # no column named so: most results
    shown: dict[str, None] = {}
    for found in _occurrences(claim, text):
        cell = _NAMED_CELL.search(text, max(0, found.start() - 64), found.start())
        name = cell.group(1) if cell is not None else _csv_column(text, found)
        unit = _name_unit(name) if name else None
        if name is None or unit is None:
            return None
        written = f"{found.group()} {unit}"
        figure = claims_in(written)
        if len(figure) != 1 or _alike(claim, figure[0], written):
            return None
        shown[f"{written} ({name.strip()})"] = None
    return ", ".join(list(shown)[:3]) if shown else None


def _occurrences(claim: Claim, text: str) -> list[re.Match[str]]:
    """Where ``text`` writes one of ``claim``'s numbers (with or without thousands separators)."""
    values = {abs(n) for n in claim.numbers}
    return [m for m in NUMBER.finditer(text) if float(m.group().replace(",", "")) in values]


def _only_in_dates(claim: Claim, source_text: str) -> str | None:
    """The dates and times of day of ``source_text`` that hold a plain number's digits ("2025-03-19"
    for "2,025 screenings", "19:00" for "19 seats"), or the names and codes ("_2025.csv"), when it
    writes the number nowhere else; a year said alone ("by 2026") is a date's year."""
    stamps = [c for c in claims_in(source_text) if c.date is not None or c.minutes is not None]
    shown: dict[str, None] = {}
    for found in _occurrences(claim, source_text):
        covering = [c for c in stamps if c.start <= found.start() < c.end]
        start, end = found.span()
        if (
            covering
            and "," not in claim.text
            and any(c.date and c.date[0] == int(abs(claim.numbers[0])) for c in covering)
        ):
            return None  # a year, said alone ("by 2026") from a date of that year
        if covering:
            shown[covering[0].text] = None
        elif _in_name(source_text, start, end) or _GLUED.match(source_text[end : end + 1]):
            shown[_token(source_text, start, end)] = None  # part of a name: "screenings_march_2025.csv", "175ml"
        elif part := _part_of_document(source_text, start, end):
            shown[part] = None
        else:
            return None
    return ", ".join(list(shown)[:3]) if shown else None


_GLUED = re.compile(r"[A-Za-z]")
_RANGE_END = re.compile(r"[–-]\d+")
"""The rest of a range ("rows 1" + "–13")."""


def _part_of_document(text: str, start: int, end: int) -> str | None:
    """How ``text`` writes the number at ``text[start:end]`` where it points to a part of a
    document ("page 3", "section 1", the start of "rows 1–13"), the range whole; None elsewhere."""
    window = text[max(0, start - 9) : start]
    upto = _RANGE_END.match(text, end)
    reference = _REFERENCE.search(window) or (_RANGE_START.search(window) if upto else None)
    return window[reference.start() :] + text[start : upto.end() if upto else end] if reference else None


def _token(text: str, start: int, end: int) -> str:
    while start > 0 and not text[start - 1].isspace() and text[start - 1] not in "\"',;(":
        start -= 1
    while end < len(text) and not text[end].isspace() and text[end] not in "\"',;)":
        end += 1
    return text[start:end]


def _a_year(text: str, found: re.Match[str]) -> bool:
    """Whether the number ``found`` is written as a year: after a month ("February 2025") or as a
    season ("2025/26")."""
    start = max(0, found.start() - 12)
    for m in _YEAR.finditer(text, start, found.end() + 3):
        if m.end() >= found.end() and m.start() <= found.start() and (m.group() != found.group()):
            return True
    return False


def _as_written(text: str, found: re.Match[str], covering: list[Claim]) -> str:
    """How a result writes a number that backs nothing: "1,200 m", "1인", "1 March 2025", "T-140",
    "section 1", "1. Scope"."""
    start, end = found.span()
    window = text[max(0, start - 9) : start]
    if reference := _REFERENCE.search(window):
        return window[reference.start() :] + found.group()
    heading = _AFTER_HEADING.match(text, end)
    if heading and _section_number(text, start, end):
        word = _WORD_AFTER.match(text, heading.end())
        return text[start : heading.end()] + (word.group()[:20] if word else "")
    if covering and covering[0].kind != "number":
        return covering[0].text
    glued = _HANGUL.match(text, end)
    if glued:
        return text[start : glued.end()]
    left = start
    while left > max(0, start - 12) and text[left - 1] not in _SEPARATORS:
        left -= 1
    right = end
    while right < min(len(text), end + 12) and text[right] not in _SEPARATORS:
        right += 1
    return text[left:right].strip(".")
