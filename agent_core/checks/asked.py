"""A goal that asks how many days (or people …), a price or when: an answer whose figures are all
of another kind does not answer it.

"해외 배송은 며칠 걸려요?" (how many days does shipping abroad take) was answered "free shipping on
orders of $500 or more": the $500 is in a result, yet it is no number of days. So when the goal
asks for a count of a measure — a time (days, nights, weeks, months, years, hours, minutes) or
people — and the answer states figures, none of them of that measure nor a bare number, its
figures (those not repeated from the goal) do not count as support. A count of days (nights,
weeks, months, years) is not answered by less than a day of hours or minutes: "최대 며칠까지
예약할 수 있어요?" answered "최대 1시간" is another measure. A count written in words ("two
nights", "이틀") answers.

A goal that asks a time of day ("what time do we have to leave?", "몇 시에 닫아요?") is not
answered by figures none of which is a time or a number that can be an hour: "71.6 시에 닫아요" (a
temperature's figure) and "open from 27 March to 1 November" (dates) give no time. A goal that
asks a temperature ("What temperature do I bake it at?", "몇 도예요?") is not answered by figures
none of which is a temperature or a bare number: "45 minutes" is the baking time.

A goal that asks a price ("how much does it cost", "이용료가 얼마예요") or asks when ("When is
…?", "언제 해요?") is judged only against a temperature, the figure a weather call gave for a
question about something else ("이용료는 22°C입니다", "현재 22°C로 점검해주세요"), and a price
also against dates and times of day alone ("가격은 … 2025년 3월 1일부터 적용됩니다"), unless the
answer says it in words ("free", "무료"): a price is often answered with days or a percentage
("free for 14 days", "10% off"), a date with an amount ("$1,200, due on the 1st"). "How much
does it weigh", "거리가 얼마예요" and "얼마나 걸려요" ask no price; "when" meaning "if" ("a fee when
I return late?") and "언제든지" ask no date; a goal about a temperature ("언제 가장 따뜻해요?") is
not judged so.

A price asked for several ("How much do 150 units cost?", "3박이면 얼마예요?"), or a total asked
("we're 5 people for 3 nights, what's the total?"), is not answered by prices per one alone
("$21.60 per unit", "$89 per night"): true figures, and no answer to what was asked. A total
beside them answers; a goal that asks the price per one ("per night") is not judged so.

A price difference asked ("how much more is gold than silver?") is not answered by prices said
with no word of comparison, one alone or both side by side. A price asked per one thing ("per
hour", "the nightly rate", "시간당") is not answered by prices the answer itself says are per
another ("up to $2,500 per claim").

English and Korean. Pure functions; nothing here knows a topic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_core.checks.bases import bases_after, same_thing
from agent_core.checks.claims import Claim, claim_sentence, claims_in, find_claims
from agent_core.checks.comparisons import LARGER, SMALLER
from agent_core.checks.scaling import Mismatch, asks_per_one, given_in, goal_counts, per_one
from agent_core.checks.units import unit_of
from agent_core.checks.words import ONE_PRICE, PER_ONE_ONLY, PRICES_ONLY
from agent_core.text.number_words import with_digits

_ASKED_EN = re.compile(
    r"\bhow\s+many\s+(?:more\s+|business\s+|working\s+)?(days?|nights?|weeks?|months?|years?|hours?|minutes?"
    r"|people|persons|guests|adults)\b",
    re.IGNORECASE,
)
_ASKED_KO = re.compile(r"며칠|몇\s?(일(?![반부정])|박(?!스)|주(?![소문식의])|개월|달(?!러)|년|시간|명)")
"""Korean "how many" of a measure; not "몇 달러" (dollars), "몇 주문" (orders), "몇 박스" (boxes), nor
"몇 분", which asks minutes or, politely, people."""
_ASKED_MONEY_EN = re.compile(
    r"\bhow\s+much\b[^.?!]*\b(?:cost|costs|pay|charge|charged)\b|\bwhat\b[^.?!]*\b(?:cost|costs|price|prices)\b"
    r"|\bhow\s+much\s+(?:is|are|was|(?:would|will)(?:\s+(?:it|that|this|they))?\s+be)\b"
    r"(?![^.?!]*\b(?:weigh|weight|heavy|long|far|big|tall)\b)"
    r"|\bhow\s+much\s+(?:for|to)\b",
    re.IGNORECASE,
)
_ASKED_MONEY_KO = re.compile(
    r"(?:비용|요금|가격|료|비|금액|값|돈)\S{0,3}\s*(?:은|는|이|가)?\s*(?:총\s*)?얼마(?!나)"
    r"|(?:면|고|서)\s+(?:총\s*|모두\s*|전부\s*)?얼마(?!나)"
    r"|[는은]\s*(?:데|건|거)\s*(?:총\s*)?얼마(?!나|\s*(?:걸|동안))"
)
"""A goal that asks a price: "how much does … cost", "what's the price", "how much is a student
membership", "how much for 3 nights?", "how much to rent a helmet?", "how much will that be?",
"이용료가 얼마예요", "대관료 얼마예요" (a fee word: …료, …비), "하룻밤 맡기면 얼마예요?" (if I leave it a
night, how much?), "하루 빌리는 데 얼마예요?", "한 번 해 보는 건 얼마야?" (how much to rent it for a day,
to try it once); not "how much does it weigh", "거리가 얼마예요" nor "얼마나 걸려요", "가는 데 얼마 걸려요?"
(how long)."""
_ASKS_TOTAL = re.compile(
    r"\bwhat(?:'s|\s+is|\s+would\s+be|\s+will\s+be)\s+(?:the\s+|our\s+|my\s+)?total\b"
    r"(?=\s*(?:[?,.!]|$|for\b|to\s+pay\b|(?:cost|price|amount|bill|fee|charge)s?\b))"
    r"|\bhow\s+much\b[^.?!]*\b(?:in\s+total|altogether|in\s+all)\b"
    r"|총\s*(?:얼마(?!씩)|금액|비용|요금)|합계\s*금액",
    re.IGNORECASE,
)
"""A goal that asks a total to pay ("5 people, 3 nights: what's the total?", "total cost", "총
얼마"): a price per one of what it counts is no answer. Not a total of another measure ("how long
is the tour in total?")."""
_RATE_WORD = re.compile(r"\b(?:nightly|daily|weekly|monthly|hourly|yearly|annual)\b", re.IGNORECASE)
"""A price per one asked in one word ("what's the nightly rate?")."""
_ASKS_DIFFERENCE = re.compile(
    r"\bhow\s+much\s+(?:cheaper|dearer"
    r"|(?:more|less|extra)(?=\s+(?:(?:per|a|an)\s+\w+\s+)?(?:is|are|does|do|would|will|expensive)\b)"
    r"(?=[^.?!]*\b(?:than|compared|vs\.?|versus|between)\b))"
    r"|\b(?:price|cost)\s+difference\b|\bdifference\s+in\s+(?:price|cost)\b"
    r"|가격\s*차이|(?<!시간이\s)(?<!시간\s)얼마(?:나)?\s*차이|차이(?:가|는)?\s*얼마",
    re.IGNORECASE,
)
_SAYS_DIFFERENCE = re.compile(
    rf"\b(?:{LARGER}|{SMALLER}|dearer|extra|additional|differ\w*|save|saves|saving|than|over|under|on\s+top"
    r"|same|both|none|premium|upgrad\w*)\b"
    r"|차이|차액|같|동일|늘|더|덜|저렴|싸|쌉|비싸|비쌉|높|낮|추가|절약",
    re.IGNORECASE,
)
"""A goal that asks how much two prices differ ("how much more is gold than silver?", not "how much
extra is breakfast?", a supplement), and the words of a sentence that answers with a
difference or a comparison: prices said with none of them (one alone, or both side by side)
answer no difference. A goal that also asks a price ("… and how much is the Pro?") is not judged
so: the price may answer that."""
_ASKED_BASIS = re.compile(
    r"\bper\s+(?!(?:the|this|that|your|our|my|cent)\b)([a-z]{3,})\b"
    r"|\ban?\s+(hour|night|day|week|month|year|person|head)\b(?=\s*(?:[?.,!]|$|is\b|are\b|for\b|in\b|on\b|at\b))"
    r"|\b(hourly|nightly|daily|weekly|monthly|yearly|annual|annually)\b|(시간|1?박|1?인|개)당|(하룻밤)",
    re.IGNORECASE,
)
"""What a goal asks a price per: "per hour", "how much is it a night?", "the nightly rate", "시간당",
"하룻밤에"; not "a day trip", "as per the policy" nor "per cent"."""
_BASIS_WORDS = {
    "hourly": "hour", "nightly": "night", "daily": "day", "weekly": "week", "monthly": "month", "yearly": "year",
    "annual": "year", "annually": "year", "시간": "hour", "박": "night", "1박": "night", "하룻밤": "night",
    "인": "person", "1인": "person", "개": "unit",
}  # fmt: skip
_ASKED_WHEN = re.compile(
    r"(?:^|[.?!]\s+|\band\s+)when\s+(?:is|are|was|were|do|does|did|will|would|can|could|should|must)\b|언제(?!든)"
    r"|\bwhat\s+time\b",
    re.IGNORECASE,
)
"""A goal that asks when ("When is …?", "언제 해요?", "what time of year …"); not "when" for "if"
("Is there a fee when I return late?"), nor "언제든지" (any time). A time of day is asked apart
(:data:`_ASKED_CLOCK`)."""
_ASKED_CLOCK = re.compile(r"\bwhat\s+time\b(?!\s+(?:of|zone)\b)|몇\s?시(?!간)", re.IGNORECASE)
"""A goal that asks a time of day ("what time do we have to leave?", "몇 시에 문 닫아요?", "몇 시부터
몇 시까지"); not "what time of year", nor "몇 시간" (how many hours)."""
_LATEST_HOUR = 24
"""A bare number that can be an hour of the day ("It closes at 6."): 0 to 24."""
_ASKED_TEMPERATURE = re.compile(
    r"\bwhat\s+temperature\b|\bhow\s+(?:hot|warm|cold)\s+(?:is|does|do|should|must|will|was)\b|몇\s?도(?![시록])"
    r"|(?:온도|기온)\S{0,2}\s*(?:몇|얼마)",
    re.IGNORECASE,
)
"""A goal that asks a temperature ("What temperature do I bake it at?", "how hot should the oven
be?", "오븐 몇 도로 해요?", "기온이 몇 도예요?"); not "몇 도시" (how many cities)."""
_ASKS_TEMPERATURE = re.compile(
    r"warm|hot|cold|cool|heat|temperature|degree|°|celsius|fahrenheit|따뜻|덥|더운|더워|춥|추운|추워|시원|온도|기온|섭씨|화씨",
    re.IGNORECASE,
)
"""A goal about a temperature ("언제 가장 따뜻해요?"): a temperature may well be part of its answer."""
_PEOPLE_WORDS = frozenset({"명", "people", "persons", "guests", "adults"})
_CLOCK_WORDS = frozenset({"hour", "hours", "minute", "minutes", "시간"})
_CLOCK_MINUTES = {"hour": 60, "minute": 1, "second": 1 / 60}
_NAMES = {
    "days": "a number of days",
    "hours": "a number of hours or minutes",
    "people": "a number of people",
    "money": "a price",
    "when": "a date or a time",
    "clock": "a time of day",
    "temperature": "a temperature",
}
_KO_COUNT_WORDS = re.compile(
    r"하루|이틀|사흘|나흘|닷새|엿새|이레|열흘|보름|일주일|한\s?달|(?:한|두|세|네|다섯|여섯)\s?(?:명|분|사람)"
)
"""Korean counts written as words ("이틀", "두 명"): an answer, though no figure."""


_PRICE_IN_WORDS = re.compile(r"(?i)\bfree\b|\bno (?:extra )?(?:charge|cost)\b|\bincluded\b|무료|공짜|포함")
"""A price said in words: an answer to a price asked, though no figure."""


def asked_measure(goal: str) -> str | None:
    """The measure the goal asks a count of: ``"days"`` (days, nights, weeks, months, years),
    ``"hours"`` (hours, minutes), ``"people"``, ``"money"`` (a price), ``"temperature"``,
    ``"clock"`` (a time of day), ``"when"`` or None."""
    found = _ASKED_EN.search(goal) or _ASKED_KO.search(goal)
    if found is None:
        if _ASKED_TEMPERATURE.search(goal):
            return "temperature"
        if _ASKED_CLOCK.search(goal):
            return "clock"
        if _ASKS_TEMPERATURE.search(goal):
            return None
        if _ASKED_MONEY_EN.search(goal) or _ASKED_MONEY_KO.search(goal):
            return "money"
        return "when" if _ASKED_WHEN.search(goal) else None
    word = (found.group(1) or "").lower()
    return "people" if word in _PEOPLE_WORDS else "hours" if word in _CLOCK_WORDS else "days"


def _answers(claim: Claim, measure: str) -> bool:
    """Whether ``claim`` can be the count asked for: a bare number, a quantity of that measure,
    a date for days ("며칠" also asks which day), a time of day for hours; a day or more of hours
    or minutes for days ("48 hours"). A time of day asked: a time, or a bare number that can be
    an hour; a temperature asked: a temperature or a bare number."""
    if measure == "clock":  # a time of day, or a bare number that can be its hour ("at 6")
        return claim.kind == "time" or (claim.kind == "number" and 0 <= claim.numbers[0] <= _LATEST_HOUR)
    if measure == "temperature":  # "bake at 190°C", or a bare number ("gas mark 5")
        return claim.kind in ("temperature", "number")
    if claim.kind == "number" or (claim.kind, measure) in (("date", "days"), ("time", "hours")):
        return True
    if measure == "money":
        # A price is often answered with other figures ("free for 14 days", "a 20% deposit"), but
        # not by a temperature, a date or a time of day alone ("가격은 2025년 3월 1일부터 적용됩니다").
        return claim.kind not in ("temperature", "date", "time")
    if measure == "when":  # a date is often answered with an amount too ("$1,200, due on the 1st")
        return claim.kind != "temperature"
    if claim.kind != "quantity":
        return False
    unit = unit_of(claim)
    if unit is None:
        return True  # a unit not known to differ
    if measure == "people":
        return unit[0] == "people"
    if unit[0] != "time":
        return False
    if unit[1] not in _CLOCK_MINUTES:
        return measure == "days" or unit[1] == "day"
    return measure == "hours" or abs(claim.numbers[0]) * _CLOCK_MINUTES[unit[1]] >= 24 * 60


def not_what_was_asked(claims: Sequence[Claim], goal: str, answer: str) -> tuple[str, list[Claim]] | None:
    """Why the answer's figures do not answer the goal's "how many" ("the question asks for a
    number of days, and the answer gives none"), and the figures judged: those not repeated from
    the goal, no contact. None when a figure answers (one written in words too: "two nights",
    "이틀"), when the answer has no figure of its own, or when the goal asks no such thing."""
    measure = asked_measure(goal)
    rest = _ASKS_DIFFERENCE.sub(" ", goal)
    difference = rest != goal and not (_ASKED_MONEY_EN.search(rest) or _ASKED_MONEY_KO.search(rest))
    bases = asked_bases(goal)
    if measure is None and not difference and not _ASKS_TOTAL.search(goal) and not bases:
        return None
    in_goal = claims_in(goal)
    # A date or a time has no plain numbers: it is the goal's own if the goal gives its value. It
    # is judged only where a time of day, a temperature or a price is asked; for the other
    # measures a date or a time is left alone, as it always was.
    dated = measure in ("clock", "temperature", "money")
    values = {c.value for c in in_goal}

    def repeated(c: Claim) -> bool:
        if not c.numbers:
            return not dated or c.value in values
        return given_in(c, in_goal)  # "£6 per day" for "a helmet for 6 days" is the result's figure

    def own(found: Sequence[Claim]) -> list[Claim]:
        return [c for c in found if c.kind not in ("contact", "verdict", "comparison") and not repeated(c)]

    figures = own(claims)
    money = [c for c in figures if c.kind == "money"]
    if difference and money and not any(_SAYS_DIFFERENCE.search(claim_sentence(answer, c)) for c in money):
        # "how much more is the gold service than silver?" answered "The gold service costs £165."
        # or "The gold service costs £165, while silver costs £95.": the prices, no difference.
        return ONE_PRICE if len(money) == 1 else PRICES_ONLY, money
    if judged := _per_another(figures, bases, answer):
        return judged
    if measure in ("money", None) and (judged := _per_one_only(figures, goal, answer)):
        return judged
    if measure is None or not figures or any(_answers(c, measure) for c in figures):
        return None
    if any(_answers(c, measure) for c in own(find_claims(with_digits(answer)))):
        return None
    if measure != "money" and _KO_COUNT_WORDS.search(answer):
        return None
    if measure == "money" and _PRICE_IN_WORDS.search(answer):  # "free until 1 March"
        return None
    return f"the question asks for {_NAMES[measure]}, and the answer gives none", figures


def asked_bases(goal: str) -> set[str]:
    """What the goal asks a price per ("per hour" → ``{"hour"}``, "nightly", "시간당"); empty when none."""
    found = set()
    for m in _ASKED_BASIS.finditer(goal):
        word = next(g for g in m.groups() if g).lower()
        found.add(_BASIS_WORDS.get(word, word.removesuffix("s")))
    return found


def _per_another(figures: Sequence[Claim], asked: set[str], answer: str) -> tuple[str, list[Claim]] | None:
    """A price asked per one thing (``asked``: :func:`asked_bases`) answered only with prices the
    answer says are per another ("$2,500 per claim"): the figures answer another question. None
    when a price is said per nothing, per the asked thing or per a word for it ("a head" for "per
    person"; a day and a night are taken for one another)."""
    money = [c for c in figures if c.kind == "money"]
    said = [bases_after(answer, c.end) for c in money]
    if not asked or not money or not all(said):
        return None
    for per in said:
        if any(w in asked or same_thing(w, [sorted(asked)]) or {w, *asked} <= {"day", "night"} for w in per):
            return None
    wanted = " or ".join(sorted(asked))
    return (
        f"the question asks a price per {wanted}, and the answer gives {money[0].text.strip()} per {' per '.join(said[0])}",
        money,
    )


def _per_one_only(figures: Sequence[Claim], goal: str, answer: str) -> tuple[str, list[Claim]] | None:
    """A price asked for several ("How much do 150 units cost?", "3박 하면 얼마예요?") answered only
    with prices per one ("$21.60 per unit"): true figures, and no answer. None when the goal asks
    a price per that one itself ("per night", "each"; "for an adult" does not ask one per day),
    names no count above one, or a money figure is not given per one."""
    if _RATE_WORD.search(goal):
        return None
    money = [c for c in figures if c.kind == "money"]
    counts = {family: count for family, count in goal_counts(goal).items() if count[0] > 1}
    pers = [per_one(answer, c) for c in money]
    if not money or not counts or not all(p in counts or p == "units" for p in pers):
        return None
    if (per_asked := asks_per_one(goal)) and ({None, "units", *pers} & per_asked):
        # The goal asks that price per one itself ("per night"; "each"; "per" a word of no known
        # family); "for an adult" asks none per day.
        return None
    family = next(p for p in pers if p is not None)
    value, word = counts.get(family) or next(iter(counts.values()))
    asked = f"{value:g} {word}" if word.isascii() else f"{value:g}{word}"
    per = Mismatch(family, 1, value, word).said()
    return f"the question asks the price of {asked}, {PER_ONE_ONLY} {per}", money
