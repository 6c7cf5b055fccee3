"""English month names and their short forms, as dates are written in answers, documents and tables."""

from __future__ import annotations

MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
    "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
"""A month's name or short form, lower case → its number."""

MONTH = r"(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
"""A regex for one month name ("September", "Sept.", "sep"); longest first, so "sept" is not "sep"."""


def month_number(name: str) -> int:
    """The number of a month name :data:`MONTH` matched ("Sept." → 9)."""
    return MONTHS[name.lower().rstrip(".")]
