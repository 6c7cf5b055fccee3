"""A price a result gives per one thing, applied by the answer per another.

A music school's list reads "£14.00 per student per lesson ........ £182 per student per term";
asked how much more a term of individual lessons costs, the model wrote "£14.00 per student per
term". The figure is in the result, said per lesson, and the answer says it per term. So a price
found in a result counts as support only if, at some place the result states it, what it is per
("per lesson", "/night", "a month") includes what the answer says it is per, or says nothing;
judged only when the result states some other price per the answer's word in the same row or
sentence ("£182 per term"), so a word of the answer's own for the same thing ("a session" for
"per lesson", "per room" beside a resort fee "per room per night") is not judged.

English; pure functions; nothing here knows a topic. Also :func:`for_another`, the reason a figure
is given in a result for another day, another weight or another basis than the answer gives it for.
"""

from __future__ import annotations

import re

from agent_core.checks.claims import Claim, claims_in
from agent_core.checks.scaling import FAMILIES
from agent_core.checks.weekdays import other_day
from agent_core.checks.weights import weighed_for_another
from agent_core.checks.words import OTHER_BASIS, SCALED

_BASIS = re.compile(r"\s*(?:(?:[,(]\s*)?per\s+|(?:a|an)\s+|/\s*)([a-z]{3,}|mo|hr|yr|wk|nt)\b", re.IGNORECASE)
_SYNONYMS = (
    {w.removesuffix("s") for w in FAMILIES["people"]} | {"head", "pax", "visitor"},
    {"lesson", "session", "class"},
    {"ride", "trip", "journey"},
)
"""Words a price may be per that name the same thing ("per person", "a head", "per guest")."""


def same_thing(word: str, given: list[list[str]]) -> bool:
    """Whether the result gives the price per another word for ``word`` ("a head" for "per person")."""
    return any(word in group and group & set(per) for group in _SYNONYMS for per in given)


_SHORT = {"mo": "month", "hr": "hour", "yr": "year", "wk": "week", "nt": "night"}
"""Short words a price may be per ("$15/user/mo")."""


def _singular(word: str) -> str:
    word = word.lower()
    if word.endswith("sses"):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


_COMPARED = re.compile(r"\s*(?:more|less|extra|additional|cheaper|dearer|pricier)\b", re.IGNORECASE)
"""A word between a difference and what it is per: "£26 more per term"."""


def bases_after(text: str, end: int) -> list[str]:
    """What the figure ending at ``text[end]`` is per, in order: "per student per lesson" →
    ``["student", "lesson"]``; "/night" → ``["night"]``; "£26 more per term" → ``["term"]``."""
    found: list[str] = []
    if compared := _COMPARED.match(text, end):
        end = compared.end()
    while m := _BASIS.match(text, end):
        found.append(_SHORT.get(m.group(1).lower(), _singular(m.group(1))))
        end = m.end()
    return found


_ROW_END = re.compile(r"[;\n|]|\\n|(?<!\.)\.\s")
"""The end of a row or a sentence; not dot leaders ("Paired ........ £14.00 per lesson")."""


def _row(text: str, at: int) -> tuple[int, int]:
    """The bounds of the row or sentence of ``text`` around ``at``."""
    starts = [m.end() for m in _ROW_END.finditer(text, 0, at)]
    end = _ROW_END.search(text, at)
    return (starts[-1] if starts else 0, end.start() if end else len(text))


def other_basis(claim: Claim, answer: str, source_text: str) -> tuple[str, str] | None:
    """``(what the result gives the price per, what the answer gives it per)`` when ``claim`` is
    a price that ``source_text`` states only per other things than the answer says, and states
    another price per the answer's word in the same row or sentence; else None."""
    if claim.kind != "money" or not claim.numbers:
        return None
    said = bases_after(answer, claim.end)
    if not said:
        return None
    figures = [c for c in claims_in(source_text) if c.kind == "money" and c.numbers]
    places = [c for c in figures if abs(c.numbers[0]) == abs(claim.numbers[0])]
    given: list[list[str]] = []
    for place in places:
        per = bases_after(source_text, place.end)
        if not per or set(said) <= set(per):
            return None  # said per nothing, or per what the answer says: it may be that one
        given.append(per)
    rows = [_row(source_text, p.start) for p in places]
    elsewhere = {
        w
        for c in figures
        if c not in places and any(a <= c.start < b for a, b in rows)
        for w in bases_after(source_text, c.end)
    }
    missing = [
        w for w in said if w not in {w for per in given for w in per} and w in elsewhere and not same_thing(w, given)
    ]
    if not given or not missing:
        return None
    return " per ".join(given[0]), " per ".join(missing)


def for_another(claim: Claim, answer: str, goal: str, source_text: str) -> str | None:
    """Why a figure found in ``source_text`` is not support because the result gives it for
    another day of the week (:mod:`agent_core.checks.weekdays`), for another weight
    (:mod:`agent_core.checks.weights`) or per another thing than the answer does; None when none."""
    if day := other_day(claim, answer, goal, source_text):
        return f"the result gives {claim.text.strip()} for {day[0]}; the answer gives it for {day[1]}"
    if weight := weighed_for_another(claim, answer, goal, source_text):
        return f"the result gives {claim.text.strip()} for {weight[0]}; {SCALED} {weight[1]}"
    if basis := other_basis(claim, answer, source_text):
        return f"the result gives {claim.text.strip()} per {basis[0]}; {OTHER_BASIS} {basis[1]}"
    return None
