"""Yes/no questions the tool results decide: the offline demo's rules (rule-based, no LLM).

The offline demo model may keep rules about its sample shop; it is labelled as a rule-based demo.
Nothing else uses this module (the answer check knows no topic).

Originally: yes/no questions the tool results decide, and answers that contradict them.

A figure check cannot see a wrong yes or no: the local model answered "No, you do not need an
umbrella in New York today … the weather forecast shows rain", every figure in it found in the
weather result, and the run showed ✅. Two kinds of question are decided here, from the results
alone, because a first-time user asks them and the answer is plain once the result is in:

- **rain**: "Do I need an umbrella in New York today?", "Will it rain in Sydney?", "파리에 가는데
  오늘 우산 챙겨야 할까?" — yes when the city's weather is rain of some kind (rain, showers,
  thunderstorms, drizzle; 비, 소나기, 뇌우), no when it is not;
- **free shipping**: "Is shipping free for an order of 20 units?", "20개 주문하면 배송비 무료인가요?" —
  yes when the order's amount (the last calculator result, else a dollar amount in the question)
  meets the free-shipping threshold a result states ("free shipping on orders of $500 or more").

Only a question that is a yes/no question as a whole is decided ("How much would 30 units cost,
and would shipping be free?" is not: its answer starts with the cost), asked the plain way round
("Do I need an umbrella?"; "Can I leave my umbrella at home?" is decided the other way round;
not "Is it sunny, or …?", "Is there no rain?", "Don't I need …?"), about
now (the weather tool knows no tomorrow) and about standard shipping of one order (not express
or international delivery, not "orders under $500"), and only when every result agrees. Anything
else is left undecided: a wrong verdict would push the local model to the wrong word. The answer's verdict is the yes or no it starts with ("Yes, …", "No, …", "네, …",
"아니요, …"): a verdict buried in a sentence is not read, so this finds contradictions, never
proves agreement. Pure functions, no I/O; tool calls are record ``tool_calls`` entries.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_core.text.number_words import with_digits

_HANGUL = re.compile(r"[\uac00-\ud7a3]")

THRESHOLD = re.compile(
    r"\$\s?(\d[\d,]*(?:\.\d+)?)\s*(or more|or above|and above|or over|or less|or below|이상|미만|이하|초과)"
    r"|(at least|over|above|under|below|less than|more than)\s*\$\s?(\d[\d,]*(?:\.\d+)?)",
    re.IGNORECASE,
)
"""A dollar threshold as a policy states it: "$500 or more", "$500 이상", "under $500"."""

_LOWER_BOUND = {"or more": True, "or above": True, "and above": True, "at least": True, "이상": True}
"""Threshold words that set a lower bound, and whether the bound itself counts (inclusive)."""
_LOWER_BOUND_EXCLUSIVE = ("or over", "over", "above", "more than", "초과")

_WH_EN = re.compile(r"\b(?:what|what's|whats|how|which|who|whom|whose|where|why)\b", re.IGNORECASE)
_AUXILIARY = r"(?:do|does|did|is|are|was|were|will|would|can|could|should|shall|must|am|have|has)(?:n't)?\s+\w"
_STARTS_AS_QUESTION = re.compile(r"^\W*(?:\[[^\]]*\]\s*)?" + _AUXILIARY, re.IGNORECASE)
_CLAUSE_QUESTION = re.compile(r"(?:^|[,;:.!?]\s*)(?:" + _AUXILIARY + r"|need\s+\w)", re.IGNORECASE)
_KO_QUESTION_END = re.compile(r"(?:까|나요|가요|니|냐|죠)[.!\s]*$")
_WH_KO = re.compile(r"얼마|뭐|뭔|무엇|무슨|어디|언제|누구|누가|몇|어떻게|어떤|어느|왜|어때|어떠")

# Rain: asked the plain way round, about now.
_RAIN_ASKED = re.compile(
    r"\b(?:need|bring|take|pack|carry|want)\s+(?:an?\s+|my\s+|the\s+)?umbrella"
    r"|\bwill\s+it\s+rain|\bis\s+it\s+(?:going\s+to\s+)?rain|\bdoes\s+it\s+rain|\bwill\s+there\s+be\s+rain"
    r"|우산\S*\s*(?:챙겨|챙길|챙기|필요|가져|들고)|(?<![가-힣])비\s*(?:가\s*)?(?:와|오|올|내려|내리)",
    re.IGNORECASE,
)
_ELSEWHEN_EN = r"or|instead|not|no|tomorrow|yesterday|tonight|weekend|later|next|week"
"""A choice, a negation or another day: the question is not plainly "does it rain now"."""
_ELSEWHEN_KO = r"내일|어제|모레|주말|다음|이번\s*주|오늘\s*밤"
_RAIN_OTHERWISE = re.compile(
    rf"\b(?:without|skip|leave|unnecessary|dry|sunny|clear|stop|{_ELSEWHEN_EN})\b|n't\b"
    rf"|없이|안\s|않|필요\s*없|말까|그치|멈|맑|{_ELSEWHEN_KO}",
    re.IGNORECASE,
)
# Rain, asked as whether one can do without an umbrella: yes when it does not rain.
_RAIN_WITHOUT = re.compile(
    r"\b(?:leave|skip|forget)\b[^.?!]{0,30}\bumbrella|\b(?:go|do|manage)\s+without\s+(?:an?\s+|my\s+|the\s+)?umbrella"
    r"|우산\S*\s*(?:안\s*(?:챙겨|가져|들고)|없이|두고|놓고|챙기지\s*않)",
    re.IGNORECASE,
)
_RAIN_WITHOUT_OTHERWISE = re.compile(rf"\b(?:{_ELSEWHEN_EN})\b|n't\b|{_ELSEWHEN_KO}", re.IGNORECASE)
_KO_NEGATION = re.compile(r"안\s|않|없")
_RAINY = re.compile(r"rain|shower|drizzle|thunder|storm|비|소나기|뇌우|폭우", re.IGNORECASE)

# Free shipping: standard delivery of one order.
_FREE_ASKED = re.compile(
    r"\bfree\b.*\b(?:ship|deliver)|\b(?:ship|deliver)\w*\b.*\bfree\b|무료.*(?:배송|배달|택배)|(?:배송|배달|택배).*무료",
    re.IGNORECASE,
)
_FREE_OTHERWISE = re.compile(
    r"\bnot\b|n't\b|\b(?:express|international|overseas|abroad|tax|taxes|or)\b|아니|아닌|해외|국제|특급|빠른|익일|세금",
    re.IGNORECASE,
)
_FREE_LINE = re.compile(r"\bfree\b|무료", re.IGNORECASE)
GOAL_AMOUNT = re.compile(r"\$\s?(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s*(?:달러|dollars?\b|USD\b)", re.IGNORECASE)
"""A dollar amount as a question writes it: "$600", "600 dollars", "600달러"."""
_GOAL_CONDITION = re.compile(
    r"\b(?:under|below|over|above|less\s+than|more\s+than|at\s+least|at\s+most)\s*\$?\s?\d"
    r"|\d[\d,.]*\s*(?:달러|dollars?|USD)?\s*(?:이상|미만|이하|초과|or\s+more|or\s+less|or\s+above|or\s+below|and\s+(?:up|above))",
    re.IGNORECASE,
)
"""An amount the question sets as a condition ("orders under $500", "500달러 미만"): it asks about
a rule, not about one order."""
_PER_UNIT = re.compile(r"\b(?:each|per|apiece|a\s+unit|a\s+piece)\b|개당|단가|하나에|한\s*개에", re.IGNORECASE)
_UNIT_COUNT = re.compile(r"\d\s*(?:units?|pieces?|items?|개)|\b(?:units?|pieces?|items?)\b", re.IGNORECASE)

# How an answer starts: the word, then punctuation or the end ("No problem!" is no "no").
_STATED_YES = re.compile(r"(?:yes|yeah|yep)(?=\s*(?:[,.!:;—–*-]|$))|(?:네|예|응)(?=[,.!]|$)", re.IGNORECASE)
_STATED_NO = re.compile(
    r"(?:no|nope)(?=\s*(?:[,.!:;—–*-]|$))|(?:아니요|아니오|아뇨)(?=[\s,.!]|$)|아니(?=[,.!]|$)", re.IGNORECASE
)


@dataclass(frozen=True)
class Verdict:
    """What the results decide for a yes/no question."""

    yes: bool
    because: str
    """The result that decides it, in plain words: "get_weather says rain in New York"."""
    topic: str
    """What decided it: ``rain`` or ``free shipping``."""
    raining: bool | None = None
    """For ``rain``: whether it rains (the verdict is the opposite for "Can I leave my umbrella
    at home?")."""

    def word(self, korean: bool) -> str:
        """How an answer starts: "Yes, " / "No, "; in Korean "네, " / "아니요, "."""
        if korean:
            return "네, " if self.yes else "아니요, "
        return "Yes, " if self.yes else "No, "


def asks_yes_no(goal: str) -> bool:
    """Whether ``goal`` is a yes/no question as a whole (no what/how/which part)."""
    text = unicodedata.normalize("NFKC", goal).strip()
    if _HANGUL.search(text):
        # A question ("…무료인가요?", "…챙겨야 할까"), not a request ("…계산해 주세요").
        question = "?" in text or _KO_QUESTION_END.search(text) is not None
        return question and not _WH_KO.search(text) and not _WH_EN.search(text)
    if _WH_EN.search(text):
        return False
    # "Do I …", or a question after a sentence ("I'm in Paris today. Do I need an umbrella?").
    return _STARTS_AS_QUESTION.search(text) is not None or ("?" in text and _CLAUSE_QUESTION.search(text) is not None)


def plain_number(text: str) -> float | None:
    """``"1,234.5"`` → 1234.5; None when it is not a plain number."""
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def short_number(value: float) -> str:
    """1234.5 → ``1,234.5``, 500.0 → ``500``: as an amount is written in a sentence."""
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def _ok(calls: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [c for c in calls if c.get("success") and isinstance(c.get("output"), str)]


def _rain(calls: Sequence[Mapping[str, Any]], *, without: bool = False) -> Verdict | None:
    """The verdict when it rains in every place fetched (yes: take an umbrella) or in none (no);
    ``without`` ("Can I leave my umbrella at home?") turns it round. None for a mix, or no weather."""
    weather = []
    for call in _ok(calls):
        if call.get("tool") != "get_weather":
            continue
        try:
            data = json.loads(str(call["output"]))
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("condition"), str):
            weather.append((str(data.get("city") or "?"), data["condition"].strip()))
    rainy = {bool(_RAINY.search(condition)) for _, condition in weather}
    if len(rainy) != 1:  # no weather, or some places rainy and some not: the question decides which
        return None
    places = " and ".join(f"{condition} in {city}" for city, condition in dict.fromkeys(weather))
    wet = rainy.pop()
    return Verdict(yes=wet != without, because=f"get_weather says {places}", topic="rain", raining=wet)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"\n|(?<=[.!?])\s+", text) if s.strip()]


def _free_shipping(goal: str, calls: Sequence[Mapping[str, Any]]) -> Verdict | None:
    limits: set[tuple[float, bool]] = set()
    amounts: list[tuple[float, str]] = []  # (calculator result, the expression that gave it)
    for call in _ok(calls):
        output = str(call["output"])
        if call.get("tool") == "calculator":
            args = call.get("arguments")
            expression = str(args.get("expression", "")) if isinstance(args, Mapping) else str(args or "")
            value = plain_number(output.strip())
            if value is not None:
                amounts.append((value, expression))
            continue
        for sentence in _sentences(output):
            if not _FREE_LINE.search(sentence):
                continue
            for m in THRESHOLD.finditer(sentence):
                word = (m.group(2) or m.group(3) or "").lower()
                value = plain_number(m.group(1) or m.group(4) or "")
                if value is None:
                    continue
                if word in _LOWER_BOUND:
                    limits.add((value, True))
                elif word in _LOWER_BOUND_EXCLUSIVE:
                    limits.add((value, False))
    if len(limits) != 1:
        return None
    ((limit, inclusive),) = limits
    # The order's amount: the calculator's results not worked from the threshold itself ("600 -
    # 500" is how far above it), all on one side of it; else the one dollar amount the question
    # states, where it names no unit count or unit price ("25 units at $24 each" is no $24 order).
    own = [v for v, e in amounts if not worked_from(limit, e)]
    if own:
        sides = {v > limit or (inclusive and v == limit) for v in own}
        if len(sides) != 1:
            return None
        amount = own[-1]
    else:
        digits = with_digits(goal)
        asked = {
            v for m in GOAL_AMOUNT.finditer(digits) if (v := plain_number(m.group(1) or m.group(2) or "")) is not None
        }
        if len(asked) != 1 or _PER_UNIT.search(digits) or _UNIT_COUNT.search(digits):
            return None
        amount = asked.pop()
    meets = amount > limit or (inclusive and amount == limit)
    relation = "above" if amount > limit else "equal to" if amount == limit else "below"
    bound = f"${short_number(limit)} or more" if inclusive else f"over ${short_number(limit)}"
    return Verdict(
        yes=meets,
        because=f"${short_number(amount)} is {relation} the free-shipping threshold of {bound}",
        topic="free shipping",
    )


def operands(expression: str) -> set[float | None]:
    """The numbers a calculator expression is worked from: ``"24 * 25"`` → {24.0, 25.0}."""
    return {plain_number(n) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", expression)}


def worked_from(value: float, expression: str) -> bool:
    """Whether ``expression`` is worked from ``value`` and something else ("600 - 500" from 500)."""
    found = operands(expression)
    return value in found and len(found) > 1


def expected(goal: str, tool_calls: Sequence[Mapping[str, Any]]) -> Verdict | None:
    """The yes or no the results decide for ``goal``, or None (not a yes/no question, not one of
    the kinds decided here, asked another way round, or the results do not settle it)."""
    if not asks_yes_no(goal):
        return None
    text = unicodedata.normalize("NFKC", goal)
    rain = _RAIN_ASKED.search(text) is not None and not _RAIN_OTHERWISE.search(text)
    # "Can I leave my umbrella at home?", "우산 안 챙겨도 돼?": one negation, no other day or choice.
    without = (
        not rain
        and _RAIN_WITHOUT.search(text) is not None
        and not _RAIN_WITHOUT_OTHERWISE.search(text)
        and len(_KO_NEGATION.findall(text)) <= 1
    )
    # "Is shipping free for orders under $500?" asks about a rule, not an order.
    free = _FREE_ASKED.search(text) is not None and not _FREE_OTHERWISE.search(text)
    free = free and not _GOAL_CONDITION.search(with_digits(text))
    if (rain or without) == free:  # neither, or both at once
        return None
    return _rain(tool_calls, without=without) if rain or without else _free_shipping(text, tool_calls)


def stated(answer: str) -> tuple[bool, str] | None:
    """The yes or no ``answer`` starts with, and the word as written; None when it starts otherwise."""
    text = unicodedata.normalize("NFKC", answer or "").lstrip(" \t\n\"'“‘*_>-")
    for pattern, yes in ((_STATED_YES, True), (_STATED_NO, False)):
        m = pattern.match(text)
        if m:
            return yes, m.group(0)
    return None


def contradiction(answer: str, goal: str, tool_calls: Sequence[Mapping[str, Any]]) -> tuple[str, Verdict] | None:
    """``(the word the answer starts with, the results' verdict)`` when they disagree, else None."""
    said = stated(answer)
    if said is None:
        return None
    verdict = expected(goal, tool_calls)
    if verdict is None or verdict.yes == said[0]:
        return None
    return said[1], verdict
