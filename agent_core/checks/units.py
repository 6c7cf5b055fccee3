"""A figure a result writes only as a figure of another unit is no support for the answer's.

"$1,200" is not backed by "up to 1,200 m", "1 week" not by "1 person" or "1 hour", "140 kg" not by
a product code "D-140", "1 year" not by a section heading "1. Cover levels". Any plain occurrence
of the number (a JSON value, a table cell, a number in a sentence with no unit) leaves it possible.
Pure functions over the claims of :mod:`agent_core.checks.claims`.
"""

from __future__ import annotations

import re

from agent_core.checks.claims import Claim, find_all

NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_IN_CODE = re.compile(r"[A-Za-z][-_]?$")
"""What comes right before a number that is part of a code or name ("D-140", "GL-1001", "Q3")."""
_HEADING = re.compile(r"""(?:^|\n|["'])\s*$""")
_REFERENCE = re.compile(r"(?:section|chapter|page|clause|article|step|item|no\.|#|§|제)\s?$", re.IGNORECASE)
"""What comes before a number that points to a part of a document ("section 1", "page 3", "제 2")."""
"""What comes before a section number ("1. Cover levels" at a line's or a JSON string's start)."""
_AFTER_HEADING = re.compile(r"\.\s+(?=[^\W\d_])")
_WORD_AFTER = re.compile(r"[^\W\d_]+")

_SAME_UNIT: dict[str, str] = {
    **dict.fromkeys(("year", "years", "yr", "yrs", "년"), "year"),
    **dict.fromkeys(("month", "months", "개월", "달"), "month"),
    **dict.fromkeys(("week", "weeks", "주"), "week"),
    **dict.fromkeys(("day", "days", "business days", "working days", "일", "영업일"), "day"),
    **dict.fromkeys(("night", "nights", "박"), "night"),
    **dict.fromkeys(("hour", "hours", "hr", "hrs", "시간"), "hour"),
    **dict.fromkeys(("minute", "minutes", "min", "mins", "분"), "minute"),
    **dict.fromkeys(("second", "seconds", "sec", "secs", "초"), "second"),
    **dict.fromkeys(("people", "person", "persons", "명", "인", "인분"), "person"),
    **dict.fromkeys(("kg", "kilogram", "kilograms", "킬로그램"), "kg"),
    **dict.fromkeys(("g", "gram", "grams"), "g"),
    **dict.fromkeys(("km", "kilometer", "kilometers", "kilometre", "kilometres", "킬로미터"), "km"),
    **dict.fromkeys(("m", "meter", "meters", "metre", "metres", "미터"), "m"),
    **dict.fromkeys(("l", "liter", "liters", "litre", "litres", "리터"), "l"),
    **dict.fromkeys(
        ("unit", "units", "item", "items", "piece", "pieces", "pcs", "개", "order", "orders", "times", "회", "번"),
        "count",
    ),
}
"""Unit words that measure the same thing, English and Korean; a unit not listed is only like itself."""
_KOREAN_UNITS = sorted((u for u in _SAME_UNIT if "\uac00" <= u[0] <= "\ud7a3"), key=len, reverse=True)
_HANGUL = re.compile(r"[\uac00-\ud7a3]+")


def _unit(claim: Claim) -> str:
    word = claim.value.partition(" ")[2].lower()
    return _SAME_UNIT.get(word, _SAME_UNIT.get(word.rstrip("s"), word))


def _glued(text: str, end: int) -> str | None:
    """The unit of a Korean counter written right after a number ("1인", "3박"), which the claim
    finder reads as a plain number (it lets "12입니다" count); None when there is none."""
    word = _HANGUL.match(text, end)
    if word is None:
        return None
    return next((_SAME_UNIT[u] for u in _KOREAN_UNITS if word.group().startswith(u)), None)


def _alike(claim: Claim, found: Claim, text: str) -> bool:
    """Whether a result's figure with the claim's number can be the same measure."""
    if claim.kind == "money":
        return found.kind not in ("quantity", "percent")
    if found.kind == "number":
        glued = _glued(text, found.end)
        return glued is None or glued == _unit(claim)
    return found.kind == "quantity" and _unit(found) == _unit(claim)


def _plain(text: str, start: int, end: int) -> bool:
    """Whether the number at ``text[start:end]`` is no code, no section number and no reference to one."""
    if _IN_CODE.search(text[max(0, start - 3) : start]) or _REFERENCE.search(text[max(0, start - 9) : start]):
        return False
    return not (_HEADING.search(text[max(0, start - 4) : start]) and _AFTER_HEADING.match(text, end))


_AROUND = re.compile(r"[^\s,;:()\[\]{}\"']+")
"""The run of text a number stands in, to show how a result writes it ("T-140", "1인")."""


def another_figure(claim: Claim, source_text: str) -> str | None:
    """How ``source_text`` writes the number of an amount of money or a quantity when it writes it
    only as a figure of another unit, in a code or as a section number ("1인, 1시간", "T-140",
    "section 1"): no support for the claim. None when it writes it plainly anywhere, or not at all
    (a rounded or converted figure)."""
    if claim.kind not in ("money", "quantity") or not claim.numbers:
        return None
    values = {abs(n) for n in claim.numbers}
    figures = find_all(source_text)
    shown: dict[str, None] = {}
    for found in NUMBER.finditer(source_text):
        if float(found.group().replace(",", "")) not in values:
            continue
        covering = [c for c in figures if c.start <= found.start() < c.end]
        if not covering and _plain(source_text, found.start(), found.end()):
            return None  # a number with no unit ("Price: 1,200", "stock: 24")
        if any(
            _alike(claim, c, source_text) and (c.kind != "number" or _plain(source_text, c.start, c.end))
            for c in covering
        ):
            return None
        shown[_as_written(source_text, found, covering)] = None
    return ", ".join(list(shown)[:3]) if shown else None


def _as_written(text: str, found: re.Match[str], covering: list[Claim]) -> str:
    """How a result writes a number that backs nothing: "1,200 m", "1인", "1 March 2025", "T-140",
    "section 1", "1. Scope"."""
    start, end = found.span()
    window = text[max(0, start - 9) : start]
    if reference := _REFERENCE.search(window):
        return window[reference.start() :] + found.group()
    heading = _AFTER_HEADING.match(text, end)
    if heading and _HEADING.search(text[max(0, start - 4) : start]):
        word = _WORD_AFTER.match(text, heading.end())
        return text[start : heading.end()] + (word.group()[:20] if word else "")
    if covering and covering[0].kind != "number":
        return covering[0].text
    glued = _HANGUL.match(text, end)
    if glued:
        return text[start : glued.end()]
    around = next(
        (m for m in _AROUND.finditer(text, max(0, start - 12)) if m.start() <= start and m.end() >= end), None
    )
    return around.group().strip(".") if around else found.group()
