"""A figure a result gives for one weight, applied by the answer to another.

"Roast for 20 minutes per 500 g, plus an extra 20 minutes. A 1.6 kg chicken therefore needs 84
minutes." Asked about a 2 kg chicken, "84 minutes" is in the result and wrong: the issue's
unscaled quantity, by weight instead of by people (:mod:`agent_core.checks.scaling`). So a
figure counts as support only if the weight named before it in its own sentence is the goal's,
or the answer says which weight it is for, where that result states a rate by weight in the
figure's own unit ("20 minutes per 500 g", "1kg당 20분") that roughly gives it. A weight that is
a limit ("up to 23 kg", "최대 150kg") or a size with no such rate is not the quantity the figure
is for: not judged. English and Korean; pure functions; nothing here knows a topic.
"""

from __future__ import annotations

import re

from agent_core.checks.claims import Claim, claim_sentence, claims_in
from agent_core.text.number_words import with_digits

_UNIT = r"(?:kg|kilos?|kilograms?|(?-i:g)|grams?|lbs?|킬로그램|킬로(?!미터|칼로리|와트)|그램)"
_NUMBER = r"(\d+(?:\.\d+)?)"
_WEIGHT = re.compile(rf"(?<![\d.,]){_NUMBER}\s*({_UNIT})(?![A-Za-z])", re.IGNORECASE)
_RATE = re.compile(
    rf"(?<![\d.,]){_NUMBER}\s*([^\W\d_]+)\s+(?:per|every|for\s+each)\s+(?:{_NUMBER}\s*)?({_UNIT})(?![A-Za-z])"
    rf"|(?<![\d.,])(?:{_NUMBER}\s*)?({_UNIT})\s*당\s*{_NUMBER}\s*([^\W\d_]+)",
    re.IGNORECASE,
)
"""A rate by weight: "20 minutes per 500 g", "15 g per kg", "1kg당 20분"."""
_GRAMS = {"k": 1000.0, "l": 453.6, "킬": 1000.0}
_NOT_ITS_WEIGHT = re.compile(
    r"(?:\bper|\bevery|\bfor\s+each|/|up\s+to|\bmax(?:imum)?\.?|\bunder|\bover|\bbelow|\babove|less\s+than"
    r"|more\s+than|at\s+least|at\s+most|limit:?|최대|최소)\s*$",
    re.IGNORECASE,
)
"""Before a weight, what makes it a rate's unit or a limit ("per 500 g", "up to 23 kg")."""
_LIMIT_AFTER = re.compile(r"\s*(?:당|이하|이상|까지|미만|초과|or\s+(?:more|less|under|over)\b)", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?;:](?:\s|$)|\n|\\n")
WINDOW = 600
"""How far before a figure a rate by weight is looked for."""


def _grams(number: str, unit: str) -> float:
    return float(number) * _GRAMS.get(unit[0].lower(), 1.0)


def _its_weight(text: str, weight: re.Match[str]) -> bool:
    """Whether ``weight`` is a thing's weight, not a rate's unit nor a limit."""
    return not _NOT_ITS_WEIGHT.search(text[: weight.start()]) and not _LIMIT_AFTER.match(text, weight.end())


def _rate(text: str, unit: str) -> float | None:
    """The last rate by weight in ``text`` whose amount is in ``unit`` (by its first three
    letters): the amount per gram; None when there is none."""
    found = None
    for m in _RATE.finditer(text):
        if m.group(1):
            amount, word, per, per_unit = m.group(1), m.group(2), m.group(3) or "1", m.group(4)
        else:
            amount, word, per, per_unit = m.group(7), m.group(8), m.group(5) or "1", m.group(6)
        if word[:3].lower() == unit[:3].lower():
            found = float(amount) / _grams(per, per_unit)
    return found


def weighed_for_another(claim: Claim, answer: str, goal: str, source_text: str) -> tuple[str, str] | None:
    """``(the weight the result gives the figure for, the goal's weight)`` when ``claim`` is a
    quantity found in ``source_text`` only after another weight than the goal's in its sentence,
    with a rate by weight before it in the figure's unit that roughly gives it, and the answer's
    sentence does not say which weight it is for; else None."""
    unit = re.sub(r"^[-−\d.,\s]+", "", claim.text)
    goal_text = with_digits(goal)
    asked = next((m for m in _WEIGHT.finditer(goal_text) if _its_weight(goal_text, m)), None)
    if claim.kind != "quantity" or not claim.numbers or not unit[:1].isalpha() or asked is None:
        return None
    value, wanted = abs(claim.numbers[0]), _grams(asked.group(1), asked.group(2))
    said = {round(_grams(m.group(1), m.group(2)), 3) for m in _WEIGHT.finditer(claim_sentence(answer, claim))}
    found: str | None = None
    for place in (c for c in claims_in(source_text) if c.numbers and abs(abs(c.numbers[0]) - value) < 1e-9):
        before = source_text[max(0, place.start - WINDOW) : place.start]
        sentence = _SENTENCE_END.split(before)[-1]
        weights = [m for m in _WEIGHT.finditer(sentence) if _its_weight(sentence, m)]
        rate = _rate(before, unit)
        if not weights or not rate:
            return None  # no weight of its own, or no rate that makes it one weight's: not judged
        grams = _grams(weights[-1].group(1), weights[-1].group(2))
        same = [
            _grams(w.group(1), w.group(2))
            for w in weights[-2:]
            if w is weights[-1] or re.fullmatch(r"\s*[(/=]?\s*", sentence[w.end() : weights[-1].start()])
        ]
        if (
            any(abs(g - wanted) < 1e-6 for g in same)
            or round(grams, 3) in said
            or not 0.5 <= value / (rate * grams) <= 3
        ):
            return None  # the goal's weight, the answer says which, or the rate does not give it
        found = found or weights[-1].group(0).strip()
    return (found, asked.group(0).strip()) if found else None
