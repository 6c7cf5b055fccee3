"""Yes/no questions the tool results decide, and answers that contradict them.

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
and would shipping be free?" is not: its answer starts with the cost), and only when every result
agrees. The answer's verdict is the yes or no it starts with ("Yes, …", "No, …", "네, …",
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

from agent_core.number_words import with_digits

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
_AUXILIARY = re.compile(
    r"(?:^|[,;:.!?\]]\s*)(?:do|does|did|is|are|was|were|will|would|can|could|should|shall|must|am|have|has|need)"
    r"(?:n't)?\s+\w",
    re.IGNORECASE,
)
_KO_QUESTION_END = re.compile(r"(?:까|나요|가요|니|냐|죠)[.!\s]*$")
_WH_KO = re.compile(r"얼마|뭐|뭔|무엇|무슨|어디|언제|누구|누가|몇|어떻게|어떤|어느|왜|어때|어떠")

_RAIN_ASKED = re.compile(r"umbrella|\brain|raining|우산|비가|비 와|비와|비 올|비올|비 오|비오", re.IGNORECASE)
_RAINY = re.compile(r"rain|shower|drizzle|thunder|storm|비|소나기|뇌우|폭우", re.IGNORECASE)
_FREE_ASKED = re.compile(r"\bfree\b.*\b(?:ship|deliver)|\b(?:ship|deliver)\w*\b.*\bfree\b|무료", re.IGNORECASE)
_NEGATED_FREE = re.compile(r"\bnot\s+(?:be\s+)?free\b|n't\s+(?:be\s+)?free\b|무료가\s*아니|무료\s*아닌", re.IGNORECASE)
_FREE_LINE = re.compile(r"\bfree\b|무료", re.IGNORECASE)
GOAL_AMOUNT = re.compile(r"\$\s?(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s*(?:달러|dollars?\b|USD\b)", re.IGNORECASE)
"""A dollar amount as a question writes it: "$600", "600 dollars", "600달러"."""

_STATED_YES = re.compile(
    r"(?:yes|yeah|yep|sure|of course|absolutely|definitely|indeed)\b|(?:네|예|응|그렇습니다|그럼요|물론)(?=$|[\s,.!])",
    re.IGNORECASE,
)
_STATED_NO = re.compile(r"(?:no|nope|not really)\b|(?:아니요|아니오|아뇨|아니)(?=$|[\s,.!])", re.IGNORECASE)


@dataclass(frozen=True)
class Verdict:
    """What the results decide for a yes/no question."""

    yes: bool
    because: str
    """The result that decides it, in plain words: "the weather result says New York: rain"."""
    topic: str
    """What decided it: ``rain`` or ``free shipping``."""

    def word(self, korean: bool) -> str:
        """How an answer starts: "Yes" / "No"; in Korean "네, " / "아니요, " (with the comma)."""
        if korean:
            return "네, " if self.yes else "아니요, "
        return "Yes" if self.yes else "No"


def asks_yes_no(goal: str) -> bool:
    """Whether ``goal`` is a yes/no question as a whole (no what/how/which part)."""
    text = unicodedata.normalize("NFKC", goal).strip()
    if _HANGUL.search(text):
        # A question ("…무료인가요?", "…챙겨야 할까"), not a request ("…계산해 주세요").
        question = "?" in text or _KO_QUESTION_END.search(text) is not None
        return question and not _WH_KO.search(text) and not _WH_EN.search(text)
    return not _WH_EN.search(text) and _AUXILIARY.search(text) is not None


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


def _rain(calls: Sequence[Mapping[str, Any]]) -> Verdict | None:
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
    places = "; ".join(f"{city}: {condition}" for city, condition in dict.fromkeys(weather))
    return Verdict(yes=rainy.pop(), because=f"the weather result says {places}", topic="rain")


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
    # The order's amount: the last calculator result not worked from the threshold itself
    # ("600 - 500" is how far above it), else the one dollar amount the question states.
    own = [v for v, e in amounts if not _number_in(limit, e)]
    asked = {
        v
        for m in GOAL_AMOUNT.finditer(with_digits(goal))
        if (v := plain_number(m.group(1) or m.group(2) or "")) is not None
    }
    if own:
        amount = own[-1]
    elif len(asked) == 1:
        amount = asked.pop()
    else:
        return None
    meets = amount > limit or (inclusive and amount == limit)
    relation = "above" if amount > limit else "equal to" if amount == limit else "below"
    bound = f"${short_number(limit)} or more" if inclusive else f"over ${short_number(limit)}"
    return Verdict(
        yes=meets,
        because=f"${short_number(amount)} is {relation} the free-shipping threshold ({bound})",
        topic="free shipping",
    )


def _number_in(value: float, expression: str) -> bool:
    """Whether ``expression`` is worked from ``value`` and something else."""
    operands = {plain_number(n) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", expression)}
    return value in operands and len(operands) > 1


def expected(goal: str, tool_calls: Sequence[Mapping[str, Any]]) -> Verdict | None:
    """The yes or no the results decide for ``goal``, or None (not a yes/no question, not one of
    the kinds decided here, or the results do not settle it)."""
    if not asks_yes_no(goal):
        return None
    text = unicodedata.normalize("NFKC", goal)
    found = []
    if _RAIN_ASKED.search(text):
        found.append(_rain(tool_calls))
    if _FREE_ASKED.search(text) and not _NEGATED_FREE.search(text):
        found.append(_free_shipping(text, tool_calls))
    verdicts = [v for v in found if v is not None]
    return verdicts[0] if len(verdicts) == 1 and len(found) == 1 else None


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
