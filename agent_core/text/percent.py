"""The factors a stated percentage gives to arithmetic: "17%" → 0.17, "15% off" → 0.85 (1 − 0.15),
"8% more" → 1.08.

A figure a text states as a percentage is written as a factor to be computed with ("2340 * 0.17",
"240 * 0.85"). The local model's tool arguments may only hold figures the goal or a result gives,
and the answer check counts a calculation's inputs as known only when the goal or a result gives
them; without these forms both would refuse the most ordinary arithmetic there is (the model wrote
"2340 * 0. 17", which no calculator reads). Pure functions; nothing here knows a topic.
"""

from __future__ import annotations

import re
import unicodedata

PERCENT_SIGN = r"(?:%|％|percent\b|per\s?cent\b|퍼센트|프로(?:예요|이에요|입니다|(?![가-힣]{2})))"
"""What makes a number a percentage, after it: a sign or a word, 프로 with at most a particle after it
("20프로만", "20프로예요"; not "3 프로야구", "2 프로듀서").
The answer check reads percentages with it too (:mod:`agent_core.checks.claims`)."""
_PERCENT = re.compile(rf"(?<![\d.])(\d{{1,3}}(?:\.\d+)?)\s?{PERCENT_SIGN}", re.IGNORECASE)


def _decimal(value: float) -> str:
    """0.17 → ``"0.17"``, 0.5 → ``"0.5"``, 1.0 → ``"1"``: as a factor is written in an expression."""
    return f"{value:.6f}".rstrip("0").rstrip(".")


def percentages(text: str) -> list[float]:
    """The percentages ``text`` states, in order, each once (``"5% off; 10%"`` → ``[5.0, 10.0]``)."""
    found: dict[float, None] = {}
    for m in _PERCENT.finditer(unicodedata.normalize("NFKC", text)):
        value = float(m.group(1))
        if 0 < value <= 100:
            found[value] = None
    return list(found)


def factors(text: str) -> list[str]:
    """The factors the percentages of ``text`` give, as written in arithmetic: p/100, 1 − p/100 and
    1 + p/100 ("17%" → ``0.17``, ``0.83``, ``1.17``), and ``100`` (to write "× 17 / 100") when
    there is any. Empty when ``text`` states no percentage."""
    forms: dict[str, None] = {}
    for p in percentages(text):
        for value in (p / 100, 1 - p / 100, 1 + p / 100):
            if value > 0:
                forms[_decimal(value)] = None
    if forms:
        forms["100"] = None
    return list(forms)
