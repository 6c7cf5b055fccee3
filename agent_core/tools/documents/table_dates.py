"""Dates in ``query_table``'s conditions: a column of dates matched by the day, month or year asked.

An export's date column holds one form ("2024-03-14", "14/03/2024", "14 Mar 2024") and a model
writes another ("14 march", "April", "2024-02", "3월 14일"). As text, ``date = 14 march`` matched
no row and ``date >= 2024-01-13`` was refused (a text column takes only = and !=). A column whose
every filled cell is a date is read as dates, and a value that names a day, a month or a year is
a :class:`Period`: ``=`` keeps the rows within it, ``<``/``>`` those before or after it, ``<=``/``>=``
those up to its end or from its start. A period without a year ("14 march", "April") matches
that day or month of any year, and compares within the year.

Slashed dates are read day first or month first as the column itself shows (a cell "14/03/2024"
can only be day first); a column where both readings fit is left as text. Pure functions.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date

import pandas as pd

from agent_core.text.months import MONTH, month_number

_MONTH = "(" + MONTH + ")"
_ORD = r"(?:st|nd|rd|th)?"
_TIME = r"(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
"""A time of day after a date ("2024-03-14 09:30"): read, and left out of the match."""

_YMD = re.compile(rf"(\d{{4}})[-/.](\d{{1,2}})(?:[-/.](\d{{1,2}}))?{_TIME}")
_SLASHED = re.compile(rf"(\d{{1,2}})[/.](\d{{1,2}})[/.](\d{{4}}){_TIME}")
_KOREAN = re.compile(r"(?:(\d{4})\s*년\s*)?(?:(\d{1,2})\s*월\s*)?(?:(\d{1,2})\s*일)?")
_DAY_MONTH = re.compile(rf"(?:(\d{{1,2}}){_ORD}\s+(?:of\s+)?)?{_MONTH}(?:,?\s+(\d{{4}}))?", re.IGNORECASE)
_MONTH_DAY = re.compile(rf"{_MONTH}\s+(\d{{1,2}}){_ORD}(?:,?\s+(\d{{4}}))?", re.IGNORECASE)
_YEAR = re.compile(r"(\d{4})")


@dataclass(frozen=True)
class Period:
    """A day, a month or a year a condition names; ``year`` None for one of any year."""

    year: int | None
    month: int | None = None
    day: int | None = None

    def __str__(self) -> str:
        if self.month is None:
            return str(self.year)
        if self.year and self.day:
            return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"  # as an export writes it
        name = calendar.month_name[self.month]
        said = f"{self.day} {name}" if self.day else name
        return f"{said} {self.year}" if self.year else f"{said} (any year)"

    def contains(self, cells: pd.Series) -> pd.Series:
        """Which of ``cells`` (Timestamps) fall within the period."""
        hit = pd.Series(True, index=cells.index)
        for part, value in (("year", self.year), ("month", self.month), ("day", self.day)):
            if value is not None:
                hit &= getattr(cells.dt, part) == value
        return hit

    def bounds(self, cells: pd.Series) -> tuple[pd.Series, tuple[int, int, int], tuple[int, int, int]] | None:
        """``(key of each cell, start, end)`` to order by: whole dates, or (month, day) within a year
        for a period of any year; None for a year alone of any year (nothing to order)."""
        if self.year is None:
            if self.month is None:
                return None
            key = cells.dt.month * 100 + cells.dt.day
            last = self.day or 31
            return key, (0, self.month, self.day or 1), (0, self.month, last)
        first_month, last_month = self.month or 1, self.month or 12
        last_day = self.day or calendar.monthrange(self.year, last_month)[1]
        key = cells.dt.year * 10000 + cells.dt.month * 100 + cells.dt.day
        return key, (self.year, first_month, self.day or 1), (self.year, last_month, last_day)


def _number(parts: tuple[int, int, int]) -> int:
    return parts[0] * 10000 + parts[1] * 100 + parts[2]


def compare(cells: pd.Series, op: str, period: Period) -> pd.Series:
    """The rows whose date (``cells``, Timestamps, NaT for an empty cell) meets ``op period``."""
    if op in ("=", "!="):
        within = period.contains(cells) & cells.notna()
        return within if op == "=" else ~within & cells.notna()
    ordered = period.bounds(cells)
    if ordered is None:
        raise ValueError(f"{period} names no day or month to compare dates with; use = for a year")
    key, start, end = ordered
    low, high = _number(start), _number(end)
    result = {"<": key < low, "<=": key <= high, ">": key > high, ">=": key >= low}[op]
    return result.fillna(False).astype(bool)


def period(value: object) -> Period | None:
    """The day, month or year ``value`` names ("2024-03-14", "2024-02", "14 march", "March 14,
    2024", "April", "3월 14일", "2024년 4월", "2024"), or None. An impossible day ("2024-02-31")
    is clamped to the month's last, as a bound of a range ("up to the 31st") means."""
    found = _parts(str(value).strip())
    if found is None:
        return None
    year, month, day = found
    if day is not None:
        day = min(day, calendar.monthrange(year or 2024, month or 1)[1])  # 2024 leaps: 29 February stands
    return Period(year, month, day)


def _parts(text: str) -> tuple[int | None, int | None, int | None] | None:
    """``(year, month, day)`` as written (any may be None), or None when ``text`` names no date."""
    found: tuple[int | None, int | None, int | None] | None = None
    if m := _YMD.fullmatch(text):
        found = int(m[1]), int(m[2]), int(m[3]) if m[3] else None
    elif m := _KOREAN.fullmatch(text):
        if not m[2] and (m[3] or not m[1]):
            return None  # "14일" or "2024년 14일" names no month
        found = (int(m[1]) if m[1] else None), (int(m[2]) if m[2] else None), (int(m[3]) if m[3] else None)
    elif m := _DAY_MONTH.fullmatch(text):
        found = (int(m[3]) if m[3] else None), month_number(m[2]), (int(m[1]) if m[1] else None)
    elif m := _MONTH_DAY.fullmatch(text):
        found = (int(m[3]) if m[3] else None), month_number(m[1]), int(m[2])
    elif m := _YEAR.fullmatch(text):
        found = int(m[1]), None, None
    if found is None or (found[1] is not None and not 1 <= found[1] <= 12):
        return None
    if found[2] is not None and not 1 <= found[2] <= 31:
        return None
    return found


def column_dates(cells: pd.Series) -> pd.Series | None:
    """``cells`` as Timestamps when every filled one is a whole date of one form, else None."""
    text = cells.astype(str).str.strip()
    filled = text[(text != "") & cells.notna()]
    if filled.empty or not filled.str.contains(r"\d", regex=True).all():
        return None
    slashed = filled.str.fullmatch(_SLASHED.pattern)
    if slashed.all():
        firsts = filled.str.extract(_SLASHED.pattern)[[0, 1]].astype(int)
        day_first = bool((firsts[0] > 12).any())
        month_first = bool((firsts[1] > 12).any())
        if day_first == month_first:
            return None  # both readings fit (or neither): not taken as dates
        days = [_slashed_day(t, day_first) for t in filled]
    elif slashed.any():
        return None
    else:
        days = [_whole_day(t) for t in filled]
    if any(d is None for d in days):
        return None
    out = pd.Series(pd.NaT, index=cells.index, dtype="datetime64[ns]")
    out[filled.index] = pd.to_datetime(days)
    return out


def _whole_day(text: str) -> date | None:
    found = _parts(text)
    if found is None or found[0] is None or found[1] is None or found[2] is None:
        return None
    try:
        return date(found[0], found[1], found[2])
    except ValueError:
        return None


def _slashed_day(text: str, day_first: bool) -> date | None:
    m = _SLASHED.fullmatch(text)
    if m is None:
        return None
    a, b, year = int(m[1]), int(m[2]), int(m[3])
    day, month = (a, b) if day_first else (b, a)
    try:
        return date(year, month, day)
    except ValueError:
        return None
