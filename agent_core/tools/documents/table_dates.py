"""Dates in ``query_table``'s conditions: a column of dates matched by the day, month or year asked.

An export's date column holds one form ("2024-03-14", "14/03/2024", "14 Mar 2024") and a model
writes another ("14 march", "April", "2024-02", "3월 14일"). As text, ``date = 14 march`` matched
no row and ``date >= 2024-01-13`` was refused (a text column takes only = and !=). A column whose
every filled cell is a date is read as dates, and a value that names a day, a month or a year is
a :class:`Period`: ``=`` keeps the rows within it, ``<``/``>`` those before or after it, ``<=``/``>=``
those up to its end or from its start. A period without a year ("14 march", "April") is that day
or month of any year for ``=``; to order by it, the column's dates must all fall in one year.

Slashed dates are read day first or month first as the column itself shows (a cell "14/03/2024"
can only be day first); a column where both readings fit is left as text. Dates are kept as
``yyyymmdd`` integers, so any year from 1 to 9999 reads. Pure functions.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass

import pandas as pd

from agent_core.text.months import MONTH, month_number

_ORD = r"(?:st|nd|rd|th)?"
_TIME = r"(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
"""A time of day after a date in a cell ("2024-03-14 09:30"): read, and left out of the match."""

_YMD = r"(\d{4})[-/.](\d{1,2})(?:[-/.](\d{1,2}))?"
_SLASHED = re.compile(rf"(\d{{1,2}})[/.](\d{{1,2}})[/.](\d{{4}}){_TIME}")
_KOREAN = re.compile(r"(?:(\d{4})\s*년\s*)?(?:(\d{1,2})\s*월\s*)?(?:(\d{1,2})\s*일)?")
_DAY_MONTH = re.compile(rf"(?:(\d{{1,2}}){_ORD}\s+(?:of\s+)?)?({MONTH})(?:,?\s+(\d{{4}}))?", re.IGNORECASE)
_MONTH_DAY = re.compile(rf"({MONTH})\s+(\d{{1,2}}){_ORD}(?:,?\s+(\d{{4}}))?", re.IGNORECASE)
_YEAR = re.compile(r"(\d{4})")

Parts = tuple[int | None, int | None, int | None]
"""(year, month, day) as written; any may be None."""


@dataclass(frozen=True)
class Period:
    """A day, a month or a year a condition names; ``year`` None for one of any year. ``past_end``:
    the day was past the month's end ("2024-04-31"), so ``day`` is its last and the period's end
    is its end."""

    year: int | None
    month: int | None = None
    day: int | None = None
    past_end: bool = False

    def __str__(self) -> str:
        if self.month is None:
            return str(self.year)
        if self.year and self.day:
            return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"  # as an export writes it
        name = calendar.month_name[self.month]
        said = f"{self.day} {name}" if self.day else name
        return f"{said} {self.year}" if self.year else f"{said} (any year)"

    def contains(self, keys: pd.Series) -> pd.Series:
        """Which of ``keys`` (``yyyymmdd``) fall within the period."""
        hit = keys.notna()
        for value, part in ((self.year, keys // 10000), (self.month, keys // 100 % 100), (self.day, keys % 100)):
            if value is not None:
                hit &= part == value
        return hit.fillna(False).astype(bool)

    def bounds(self, year: int) -> tuple[int, int]:
        """The first and last day of the period as ``yyyymmdd``, in ``year`` when it names none."""
        year = self.year or year
        first_month, last_month = self.month or 1, self.month or 12
        last_day = self.day or calendar.monthrange(year, last_month)[1]
        return year * 10000 + first_month * 100 + (self.day or 1), year * 10000 + last_month * 100 + last_day


def compare(keys: pd.Series, op: str, period: Period) -> pd.Series:
    """The rows whose date (``keys``, ``yyyymmdd``; NA for an empty cell) meets ``op period``.
    ValueError for a day past its month's end with ``=``/``!=``, or a period of any year to
    order a column of several years by."""
    if op in ("=", "!="):
        if period.past_end:
            month = f"{calendar.month_name[period.month or 1]} {period.year or ''}".strip()
            raise ValueError(f"no such day: {month} ends on the {period.day}th")
        within = period.contains(keys)
        return within if op == "=" else ~within
    years = sorted({int(k) // 10000 for k in keys.dropna()})
    if period.year is None and len(years) > 1:
        raise ValueError(f"the dates run from {years[0]} to {years[-1]}: give {period} a year")
    low, high = period.bounds(years[0] if years else 2000)
    if period.past_end:  # "< 2024-04-31": before May, "up to and with 30 April"
        low = high + 1
    result = {"<": keys < low, "<=": keys <= high, ">": keys > high, ">=": keys >= low}[op]
    return result.fillna(False).astype(bool)


def period(value: object) -> Period | None:
    """The day, month or year ``value`` names ("2024-03-14", "2024-02", "14 march", "March 14,
    2024", "April", "3월 14일", "2024년 4월", "2024"), or None; a time of day is not read. A day
    past its month's end ("2024-04-31") is its last, marked :attr:`Period.past_end`, as a range's
    bound ("up to the 31st") means."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    found = _parts(str(value).strip(), _YMD)
    if found is None:
        return None
    year, month, day = found
    longest = calendar.monthrange(year or 2024, month or 1)[1]  # 2024 leaps: 29 February of any year
    if day is None or day <= longest:
        return Period(year, month, day)
    return Period(year, month, longest, past_end=True)


def _parts(text: str, ymd: str) -> Parts | None:
    """``(year, month, day)`` as ``text`` writes it, or None when it names no date."""
    found: Parts | None = None
    if m := re.fullmatch(ymd, text):
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
    if found is None or found[0] == 0 or (found[1] is not None and not 1 <= found[1] <= 12):
        return None
    if found[2] is not None and not 1 <= found[2] <= 31:
        return None
    return found


def column_dates(cells: pd.Series) -> pd.Series | None:
    """``cells`` as ``yyyymmdd`` (NA where empty) when every filled one is a whole date, else None."""
    text = cells.astype(str).str.strip()
    filled = text[(text != "") & cells.notna()]
    if filled.empty or not filled.str.contains(r"\d", regex=True).all():
        return None
    slashed = filled.str.fullmatch(_SLASHED.pattern)
    if slashed.all():
        firsts = filled.str.extract(_SLASHED.pattern)[[0, 1]].astype(int)
        day_first = bool((firsts[0] > 12).any())
        if day_first == bool((firsts[1] > 12).any()):
            return None  # both readings fit (or neither): not taken as dates
        days = [_slashed_day(t, day_first) for t in filled]
    elif slashed.any():
        return None
    else:
        days = [_whole_day(t) for t in filled]
    if any(d is None for d in days):
        return None
    out = pd.Series(pd.NA, index=cells.index, dtype="Int64")
    out[filled.index] = days
    return out


def _key(year: int, month: int, day: int) -> int | None:
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]):
        return None
    return year * 10000 + month * 100 + day


def _whole_day(text: str) -> int | None:
    year, month, day = _parts(text, _YMD + _TIME) or (None, None, None)
    if year is None or month is None or day is None:
        return None
    return _key(year, month, day)


def _slashed_day(text: str, day_first: bool) -> int | None:
    m = _SLASHED.fullmatch(text)
    if m is None:
        return None
    a, b, year = int(m[1]), int(m[2]), int(m[3])
    return _key(year, b, a) if day_first else _key(year, a, b)
