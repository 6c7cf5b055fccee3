"""A figure a result gives for a range of a count, applied to a count outside it.

A price list reads "100 to 499 units 5% off ($22.80 per unit); 500 units or more 10% off ($21.60
per unit)". Asked what 150 units cost, the model computed 21.60 × 150 = 3,240: a figure a
calculator really returned, from a price that is in the results, and wrong. So a figure that a
result gives right after a range of a count the goal names ("10 to 24 units", "500 units or
more", "under 100 units", "3박 이상", "7 to 13 days") is no support when the goal's count lies
outside that range, and neither is arithmetic that used it. Judged only where it is plain: the
range stands before the figure in the same row or sentence (a later ``;``, line or sentence end
starts another), and every place the result gives the figure has such a range. A range written
after its figure ("$21.60 per unit on 500 units or more") is not judged: "$15 per order, free
for 20 units or more" would read the same way. Pure functions; nothing here knows a topic.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from agent_core.checks.claims import ANY_DIGITS, Claim, claims_in
from agent_core.checks.scaling import FAMILY_WORDS as _W
from agent_core.checks.scaling import WORD_FAMILY as _FAMILY
from agent_core.checks.scaling import goal_counts
from agent_core.checks.words import SCALED
from agent_core.text.number_words import with_digits

_N = r"(?<![\d.,])(\d+(?:\.\d+)?)"
_END = r"(?![a-z])"
_RANGES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"{_N}\s*(?:to|-|–|~)\s*(\d+(?:\.\d+)?)\s*({_W}){_END}", re.IGNORECASE), "between"),
    (re.compile(rf"{_N}\s*\+\s*({_W}){_END}|{_N}\s*({_W}){_END}\s*(?:\+|or\s+more|or\s+over|and\s+(?:over|above|up)|이상)", re.IGNORECASE), "from"),
    (re.compile(rf"\b(?:more\s+than|over|above)\s+{_N}\s*({_W}){_END}|{_N}\s*({_W})\s*초과", re.IGNORECASE), "above"),
    (re.compile(rf"\b(?:under|below|fewer\s+than|less\s+than)\s+{_N}\s*({_W}){_END}|{_N}\s*({_W})\s*미만", re.IGNORECASE), "below"),
    (re.compile(rf"\b(?:up\s+to|at\s+most|no\s+more\s+than)\s+{_N}\s*({_W}){_END}|{_N}\s*({_W}){_END}\s*(?:or\s+(?:fewer|less)|이하)", re.IGNORECASE), "to"),
)  # fmt: skip
"""Ranges of a count: "100 to 499 units", "10–24 units", "500 units or more", "500+ units", "more
than 45 days", "under 100 units", "up to 4 guests", "3박 이상", "2인 미만"."""
_CLAUSE_END = re.compile(r"[;\n]|[.!?](?=\s)")
"""Where the row or sentence before a figure begins: a range before it belongs to another figure."""
WINDOW = 120
"""How far before a figure its range is looked for."""


@dataclass(frozen=True)
class Range:
    """A range of a count: ``low``/``high`` (None: open), each bound inclusive or not."""

    family: str
    low: float | None
    high: float | None
    text: str
    low_in: bool = True
    high_in: bool = True

    def holds(self, value: float) -> bool:
        if self.low is not None and (value < self.low or (value == self.low and not self.low_in)):
            return False
        return self.high is None or value < self.high or (value == self.high and self.high_in)


def _range(match: re.Match[str], form: str) -> Range:
    """The :class:`Range` a match of ``_RANGES`` writes."""
    groups = [g for g in match.groups() if g is not None]
    if form == "between":
        low, high, word = float(groups[0]), float(groups[1]), groups[2]
        return Range(_FAMILY[word.lower()], low, high, match.group().strip())
    value, word = float(groups[0]), groups[1]
    family, text = _FAMILY[word.lower()], match.group().strip()
    if form in ("from", "above"):
        return Range(family, value, None, text, low_in=form == "from")
    return Range(family, None, value, text, high_in=form == "to")


def range_before(text: str, at: int, family: str) -> Range | None:
    """The range of ``family`` that stands last before ``text[at]`` in its row or sentence."""
    start = max(0, at - WINDOW)
    ends = list(_CLAUSE_END.finditer(text, start, at))
    clause = text[ends[-1].end() if ends else start : at]
    found = [(m.end(), _range(m, form)) for pattern, form in _RANGES for m in pattern.finditer(clause)]
    mine = [(end, r) for end, r in found if r.family == family]
    return max(mine, key=lambda pair: pair[0])[1] if mine else None


_THINGS = re.compile(r"(?<![\d.,])(\d+)\s+(?:[A-Z][\w-]*\s+){0,3}([a-z]{3,}s)\b")
"""A count of things the family words do not name: "12 Sola Mesh chairs", "30 mugs"."""


@functools.lru_cache(maxsize=64)
def _goal_counts(goal: str) -> dict[str, float]:
    """The goal's counts by family; a count of other things ("12 chairs") is one of units."""
    goal = with_digits(goal)
    counts = {family: value for family, (value, _word) in goal_counts(goal).items()}
    things = [m for m in _THINGS.finditer(goal) if m.group(2).lower() not in _FAMILY]
    if "units" not in counts and things:
        counts["units"] = float(things[0].group(1))
    return counts


def outside(numbers: tuple[float, ...] | list[float], goal: str, text: str) -> tuple[Range, float] | None:
    """The range ``text`` gives the figure ``numbers`` for and the goal's count outside it, when
    every place ``text`` states the figure stands after a range of a count the goal names and the
    goal's count lies outside each; None otherwise."""
    counts = _goal_counts(goal)
    if not counts or not numbers:
        return None
    value = abs(numbers[0])
    places = [c for c in claims_in(text) if c.numbers and abs(abs(c.numbers[0]) - value) < 1e-9]
    found: tuple[Range, float] | None = None
    for place in places:
        ranges = [(r, counts[f]) for f in counts if (r := range_before(text, place.start, f)) is not None]
        if not ranges or any(r.holds(count) for r, count in ranges):
            return None
        found = found or ranges[0]
    return found


def said(found: tuple[Range, float]) -> str:
    """ "the results give it for 500 units or more; the question is about 150"."""
    return f"for {found[0].text}; {SCALED} {found[1]:g}"


def claim_outside(claim: Claim, goal: str, text: str) -> str | None:
    """Why ``claim``, found in ``text``, is no support: the result gives it for a range of a count
    that does not hold the goal's ("the result gives $21.60 for 500 units or more; the question is
    about 150"); None otherwise. Times and dates are not judged."""
    if claim.kind not in ("money", "number", "quantity", "percent") or claim.date is not None:
        return None
    found = outside(claim.numbers, goal, text)
    return f"the result gives {claim.text.strip()} {said(found)}" if found else None


def inputs_outside(expressions: list[str], goal: str, earlier: list[str]) -> str | None:
    """Why arithmetic is no support: it used a figure the earlier results give only for a range of
    a count that does not hold the goal's ("computed from 21.60, which the results give for 500
    units or more; the question is about 150"); None otherwise."""
    for expression in expressions:
        for digits in dict.fromkeys(ANY_DIGITS.findall(expression.replace(",", ""))):
            holding = [
                t for t in earlier if any(abs(n - float(digits)) < 1e-9 for c in claims_in(t) for n in c.numbers)
            ]
            results = [outside((float(digits),), goal, t) for t in holding]
            if holding and all(results) and (found := results[0]):
                return f"computed from {digits}, which the results give {said(found)}"
    return None


@functools.lru_cache(maxsize=256)
def ranged_out(text: str, goal: str) -> frozenset[float]:
    """The figures ``text`` gives only for ranges of a count that do not hold the goal's: no
    operand of arithmetic that supports an answer (21.60 × 150 for 150 units)."""
    if not _goal_counts(goal):
        return frozenset()
    values = {abs(n) for c in claims_in(text) if c.date is None for n in c.numbers}
    return frozenset(v for v in values if outside((v,), goal, text))
