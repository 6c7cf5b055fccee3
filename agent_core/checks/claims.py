"""Claims: the figures an answer states — numbers, money, percentages, quantities with units,
temperatures, dates and times — and the contact details it gives (e-mail and web addresses,
phone numbers), found and normalised for :mod:`agent_core.checks.grounding`.

``1,000`` = ``1000``, ``$24`` = ``24 USD``, 19 °C = 66.2 °F, ``2026-09-09`` = ``September 9,
2026`` = ``9월 9일``, ``2만 5천 원`` = 25000 KRW. Numbers inside URLs, code spans, file names,
version strings, identifiers, citations ("page 12") and list markers are not claims. Pure functions.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from agent_core.records.run_record import CallSource, ClaimRecord, GoalSource
from agent_core.text.contacts import EMAIL, PHONE, WEB, is_phone, same_phone  # noqa: F401 (grounding takes same_phone from here)
from agent_core.text.months import MONTH, month_number
from agent_core.text.percent import PERCENT_SIGN

Kind = Literal[
    "number", "money", "percent", "quantity", "temperature", "date", "time", "contact", "verdict", "comparison"
]

# ---------------------------------------------------------------------------------------------
# Patterns

NUM = r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
# A sign: a minus right before the digits ("-5", "week 2 -3 °C"), or a minus and a space unless a
# figure and a space come before it ("22 - 15" is a difference, not 22 and -15).
_SIGNED = rf"(?:(?<![\w.,])(?:[-−](?=\d)|(?<!\d\s)[-−]\s))?{NUM}"
_KO_BIG = "조억만"
_KO_SMALL = "천백십"
# 2만 5천, 1억 2천만, 3천: digits with Korean place units (at least one unit).
_KO_NUM = rf"(?=[\d.,]+\s?[{_KO_BIG}{_KO_SMALL}])(?:{NUM}\s?[{_KO_BIG}{_KO_SMALL}](?:\s?[{_KO_BIG}])?)(?:\s?{NUM}\s?[{_KO_BIG}{_KO_SMALL}](?:\s?[{_KO_BIG}])?)*(?:\s?{NUM}(?![\d.,]))?"

_ORD = r"(?:st|nd|rd|th)?"

_DATE_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?<![\d.])(\d{4})\s?[-/.]\s?(\d{1,2})\s?[-/.]\s?(\d{1,2})(?![\d])"), "ymd"),
    (re.compile(r"(?:(\d{4})\s?년\s?)?(\d{1,2})\s?월\s?(\d{1,2})\s?일"), "ymd"),
    (re.compile(rf"\b({MONTH})\s+(\d{{1,2}}){_ORD}\b(?:,?\s+(\d{{4}})\b)?", re.IGNORECASE), "mdy"),
    (re.compile(rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?({MONTH})\b(?:,?\s+(\d{{4}})\b)?", re.IGNORECASE), "dmy"),
)
_AMPM = r"(a\.?\s?m\.?|p\.?\s?m\.?)"
_TIME_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(rf"(?<![\d:])(\d{{1,2}}):(\d{{2}})(?::\d{{2}})?(?![\d:])(?:\s?{_AMPM}(?![a-z]))?", re.IGNORECASE),
        "hm",
    ),
    (re.compile(rf"(?<![\d.,:])(\d{{1,2}})\s?{_AMPM}(?![a-z])", re.IGNORECASE), "h"),
    (
        re.compile(
            r"(오전|오후|아침|저녁|밤|낮)?\s?(?<![\d.,:])(\d{1,2})\s?"
            r"시(?!간|간의|작|청|장|리|즌|스|군|·|험|도|설)(?:\s?(\d{1,2})\s?분|\s?(반))?"
        ),
        "ko",
    ),
)
# "°C" ends at a letter of no Latin word: "22°C입니다" is 22 °C (``\b`` saw 입 as a word letter).
_TEMP = re.compile(
    rf"({_SIGNED})\s?(?:°\s?([CF])(?![A-Za-z])|℃|℉|(?:degrees?|deg)\b(?:\s+(celsius|fahrenheit|centigrade|c|f)\b)?|도(?![시로])|([CF])(?=[\s.,;:)!?]|$)(?<=\d[CF])|\s(celsius|fahrenheit)\b)",
    re.IGNORECASE,
)
_CURRENCY_SYMBOL = {"$": "USD", "US$": "USD", "€": "EUR", "£": "GBP", "₩": "KRW", "¥": "JPY", "￦": "KRW"}
_CURRENCY_WORD = {
    "usd": "USD", "dollar": "USD", "dollars": "USD", "달러": "USD", "불": "USD",
    "krw": "KRW", "won": "KRW", "원": "KRW", "eur": "EUR", "euro": "EUR", "euros": "EUR",
    "유로": "EUR", "jpy": "JPY", "yen": "JPY", "엔": "JPY", "gbp": "GBP", "pounds": "GBP",
}  # fmt: skip
_SCALE_WORD = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "bn": 1e9, "b": 1e9, "billion": 1e9}
_SCALE = r"(?:\s?(k|m|mn|bn|b)\b|\s(thousand|million|billion)\b)?"
_MONEY_BEFORE = re.compile(rf"(US\$|[$€£₩¥￦])\s?({_KO_NUM}|{NUM}){_SCALE}", re.IGNORECASE)
_MONEY_AFTER = re.compile(
    rf"(?<![\d.,])({_KO_NUM}|{NUM}){_SCALE}\s?(USD|KRW|EUR|JPY|GBP|dollars?|won|euros?|yen|pounds|원|달러|유로|엔)(?![A-Za-z])",
    re.IGNORECASE,
)
_PERCENT = re.compile(rf"({_SIGNED})\s?({PERCENT_SIGN})", re.IGNORECASE)
_UNITS_EN = (
    "business days|working days|days|day|hours|hour|hrs|hr|minutes|minute|mins|min|seconds|second|secs|sec|ms|"
    "weeks|week|months|month|years|year|units|unit|items|item|pieces|piece|pcs|orders|order|parcels|parcel|"
    "people|persons|person|requests|request|words|word|lines|line|characters|chars|pages|page|times|"
    "steps|step|calls|call|results|result|tokens|token|attendees|members|customers|"
    "kg|kilograms?|grams?|g|mg|lbs?|pounds? of|oz|km|kilometers?|kilometres?|meters?|metres?|m|cm|mm|miles?|mi|ft|feet|inches|in|"
    "liters?|litres?|l|ml|kwh|kw|w|mb|gb|kb|tb|mph|km/h|kmh"
)
_UNITS_KO = "영업일|개월|시간|분기|년|개|명|건|배|줄|자|단어|회|번|권|장|주|일|분|초|박|대|곳|잔|병|인분|킬로그램|킬로미터|미터|리터"
# A number and the word after it; the word is looked up in the unit sets (one set lookup is far
# cheaper than a regex alternation of a hundred units tried after every number of a long file).
_QUANTITY = re.compile(rf"(?<![\d.,])({_KO_NUM}|{_SIGNED})(\s?)([A-Za-z]+(?:[ /][A-Za-z]+)?|[\uac00-\ud7a3]+)")
_UNIT_SET_EN = (
    frozenset(re.sub(r"(\w+)\?", r"\1|\1s", _UNITS_EN.replace("s?", "?")).split("|"))
    | frozenset(u.replace("s?", "") for u in _UNITS_EN.split("|"))
    | frozenset(u.replace("?", "") for u in _UNITS_EN.split("|"))
)
_UNITS_KO_LONGEST = sorted(_UNITS_KO.split("|"), key=len, reverse=True)
_KO_NUMBER = re.compile(r"(?<![\d.,])" + _KO_NUM)
_BARE = re.compile(
    rf"(?<![\w.,/\\:#@-]){_SIGNED}(?![^\W\uac00-\ud7a3]|[.,]\d)|(?<=[\s(\[])[-−]?{NUM}(?![^\W\uac00-\ud7a3]|[.,]\d)"
)
"""A bare number; one glued to the Korean word after it counts ("총 가격은 12입니다": the copula and
particles follow a number with no space), one glued to another letter does not (Q3, mp3)."""
ANY_DIGITS = re.compile(r"\d+(?:\.\d+)?")

# Regions of an answer that hold no claims.
_FENCE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)", re.DOTALL)
_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(
    r"(?:https?://|ftp://|www\.)[^\s<>()\"'`]+|\]\([^)\s]*\)|<[^>\s]+@[^>\s]+>|[\w.+-]+@[\w-]+(?:\.[\w-]+)+",
    re.IGNORECASE,
)
_PATHLIKE = re.compile(r"(?<![\w])[\w-]*\d[\w-]*\.(?:md|txt|json|csv|py|yaml|yml|pdf|png|jpg|html)\b", re.IGNORECASE)
_LIST_MARKER = re.compile(
    r"^[ \t>]*(?:#{1,6}[ \t]*)?(?:(?:step|단계)[ \t]*)?\(?\d{1,3}[.):](?=[ \t]|$)", re.IGNORECASE | re.MULTILINE
)
_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+\.\d+(?:[.\d]*)\b", re.IGNORECASE)
_CITATION = re.compile(
    r"\b(?:pages?|pp?\.|section|chapter|rows?)\s?\d+(?:\s?[–-]\s?\d+)?|\d+\s?(?:페이지|쪽)|제\s?\d+\s?[조장항]", re.I
)
_IDENT = re.compile(r"[A-Za-z_]+[-_]?\d[\w.-]*|\d+[A-Za-z_][\w-]*")


# ---------------------------------------------------------------------------------------------
# Numbers


def _plain(text: str) -> float:
    return float(text.replace(",", "").replace("−", "-").replace(" ", ""))


def decimals(text: str) -> int:
    digits = text.replace(",", "")
    return len(digits.split(".", 1)[1]) if "." in digits else 0


def korean_number(text: str) -> float:
    """``2만 5천`` → 25000, ``1억 2천만`` → 120000000, ``3.5만`` → 35000, ``1,200`` → 1200."""
    text = text.replace(" ", "").replace(",", "")
    big = {"조": 1e12, "억": 1e8, "만": 1e4}
    small = {"천": 1e3, "백": 1e2, "십": 10.0}
    total = 0.0
    section = 0.0
    for number, unit in re.findall(r"(\d+(?:\.\d+)?)?([조억만천백십]?)", text):
        if not number and not unit:
            continue
        value = float(number) if number else 1.0
        if unit in small:
            section += value * small[unit]
        elif unit in big:
            total += (section + (value if number else 0.0)) * big[unit] if (section or number) else big[unit]
            section = 0.0
        else:
            section += value
    return total + section


def parse_number(text: str) -> float:
    if re.search(r"[조억만천백십]", text):
        return korean_number(text)
    return _plain(text)


def fmt(value: float) -> str:
    """``1000.0`` → ``1000``, ``0.15`` → ``0.15``: the value's shortest plain spelling."""
    if math.isfinite(value) and value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.10g}"


@dataclass
class Claim:
    """One figure found in a text."""

    text: str
    """As written, e.g. ``"19 °C"``."""
    value: str
    """Normalised, e.g. ``"19 °C"``, ``"24 USD"``, ``"2026-09-09"``, ``"--09-09"``, ``"10:00"``."""
    kind: Kind
    start: int
    end: int
    numbers: tuple[float, ...] = ()
    """Numeric values it may be matched against (a temperature in both scales, a percentage
    as 15 and 0.15)."""
    decimals: int = 0
    """Decimal places as written (an answer may round a tool's 397.79999 to 397.8)."""
    date: tuple[int | None, int, int] | None = None
    minutes: int | None = None
    converted: tuple[float, ...] = ()
    """Values obtained by a unit conversion (matched with a conversion's rounding slack)."""
    arithmetic: str | None = None
    """For a sum the answer writes out wrong (``22 - 15 = 15``): the right one, ``22 - 15 = 7``."""
    expected: str | None = None
    """For a comparison the figures contradict (kind ``comparison``): what they say."""
    reason: str | None = None
    """Why a figure found in a result does not count as support (it is given there for another
    quantity; the call that computed it was given a figure from nowhere)."""
    cut: bool = False
    """Written with a space after its decimal point ("$40. 99"): one figure cut in two."""

    def as_record(self, source: CallSource | GoalSource | None) -> ClaimRecord:
        """The claim as the record's ``grounding.claims`` keeps it, with where it was found."""
        record: ClaimRecord = {"text": self.text, "value": self.value, "kind": self.kind, "source": source}
        if self.arithmetic:
            record["arithmetic"] = self.arithmetic
        if self.expected:
            record["expected"] = self.expected
        if self.reason:
            record["reason"] = self.reason
        return record


def _blank(text: str, spans: Iterable[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def masked_answer(text: str) -> str:
    """The answer with code, URLs, e-mail addresses, file names, versions, identifiers, citations and
    list markers blanked out (same length, so offsets still point into the original)."""
    spans: list[tuple[int, int]] = []
    for pattern in (_FENCE, _CODE, _URL, _PATHLIKE, _VERSION, _CITATION):
        spans += [m.span() for m in pattern.finditer(text)]
    text = _blank(text, spans)
    text = _blank(text, [m.span() for m in _LIST_MARKER.finditer(text)])
    return text


class _Finder:
    """Finds claims left to right by kind priority; a character belongs to one claim at most."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.taken = [False] * len(text)
        self.claims: list[Claim] = []

    def free(self, a: int, b: int) -> bool:
        return not any(self.taken[a:b])

    def add(self, claim: Claim) -> None:
        for i in range(claim.start, claim.end):
            self.taken[i] = True
        self.claims.append(claim)

    def scan(self, pattern: re.Pattern[str], make: Any) -> None:
        for m in pattern.finditer(self.text):
            a, b = m.span()
            if not self.free(a, b) or not m.group(0).strip():
                continue
            try:
                claim = make(m)
            except (ValueError, OverflowError):
                claim = None
            if claim is not None:
                self.add(claim)


def _date(m: re.Match[str], order: str) -> Claim | None:
    g = m.groups()
    if order == "ymd":
        year, month, day = (int(g[0]) if g[0] else None), int(g[1]), int(g[2])
    elif order == "mdy":
        month, day, year = month_number(g[0]), int(g[1]), (int(g[2]) if g[2] else None)
    else:
        day, month, year = int(g[0]), month_number(g[1]), (int(g[2]) if g[2] else None)
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    value = f"{year:04d}-{month:02d}-{day:02d}" if year else f"--{month:02d}-{day:02d}"
    return Claim(m.group(0).strip(), value, "date", m.start(), m.end(), date=(year, month, day))


def _time(m: re.Match[str], form: str) -> Claim | None:
    g = m.groups()
    if form == "hm":
        hour, minute, ampm = int(g[0]), int(g[1]), (g[2] or "")
    elif form == "h":
        hour, minute, ampm = int(g[0]), 0, g[1]
    else:
        hour = int(g[1])
        minute = 30 if g[3] else int(g[2]) if g[2] else 0
        ampm = {"오후": "pm", "저녁": "pm", "밤": "pm", "낮": "pm"}.get(g[0] or "", "am" if g[0] else "")
        if g[0] in ("낮",) and hour >= 11:
            ampm = ""
    ampm = ampm.lower().replace(".", "").replace(" ", "")
    if ampm == "pm" and hour < 12:
        hour += 12
    elif ampm == "am" and hour == 12:
        hour = 0
    if minute > 59 or hour > (29 if form not in ("hm", "h") else 24):
        return None  # "25시" is still said as a time of day, one no clock shows ("25시부터 25시까지")
    return Claim(m.group(0).strip(), f"{hour:02d}:{minute:02d}", "time", m.start(), m.end(), minutes=hour * 60 + minute)


def _temperature(m: re.Match[str]) -> Claim:
    number = m.group(1)
    value = _plain(number)
    scale = (m.group(2) or m.group(3) or m.group(4) or m.group(5) or "").lower()
    tail = m.group(0)[len(number) :]
    if "℉" in tail or scale.startswith("f"):
        unit, other = "°F", (value - 32) * 5 / 9
    elif "℃" in tail or scale.startswith("c") or "도" in tail or not scale:
        unit, other = "°C", value * 9 / 5 + 32
    else:  # pragma: no cover - every branch above covers the pattern
        unit, other = "°C", value * 9 / 5 + 32
    if not scale and "℃" not in tail and "℉" not in tail and "도" not in tail:
        # "20 degrees": the scale is not said, so either reading may be meant.
        return Claim(
            m.group(0).strip(),
            f"{fmt(value)}°",
            "temperature",
            m.start(),
            m.end(),
            numbers=(value,),
            decimals=decimals(number),
        )
    return Claim(
        m.group(0).strip(),
        f"{fmt(value)} {unit}",
        "temperature",
        m.start(),
        m.end(),
        numbers=(value,),
        decimals=decimals(number),
        converted=(round(other, 2),),
    )


def _scaled(m: re.Match[str], number: str, scale_groups: tuple[int, int]) -> float:
    value = parse_number(number)
    scale = (m.group(scale_groups[0]) or m.group(scale_groups[1]) or "").lower()
    return value * _SCALE_WORD.get(scale, 1.0)


def _money(m: re.Match[str], currency: str, number: int, scale_groups: tuple[int, int]) -> Claim:
    value = _scaled(m, m.group(number), scale_groups)
    text = m.group(0).strip()
    return Claim(
        text,
        f"{fmt(value)} {currency}",
        "money",
        m.start(),
        m.end(),
        numbers=(value,),
        decimals=decimals(m.group(number)),
    )


def _money_before(m: re.Match[str]) -> Claim:
    return _money(m, _CURRENCY_SYMBOL[m.group(1).upper() if m.group(1).upper() == "US$" else m.group(1)], 2, (3, 4))


def _money_after(m: re.Match[str]) -> Claim:
    return _money(m, _CURRENCY_WORD.get(m.group(4).lower(), m.group(4).upper()), 1, (2, 3))


def _percent(m: re.Match[str]) -> Claim:
    value = _plain(m.group(1))
    return Claim(
        m.group(0).strip(),
        f"{fmt(value)}%",
        "percent",
        m.start(),
        m.end(),
        numbers=(value, value / 100),
        decimals=decimals(m.group(1)),
    )


def _unit(word: str) -> str | None:
    """The unit a word after a number starts with: ``business days``, ``kg``, ``개월`` (Korean
    counters take particles: ``30일이`` → ``일``); None when it is no unit."""
    if "\uac00" <= word[0] <= "\ud7a3":
        return next((u for u in _UNITS_KO_LONGEST if word.startswith(u)), None)
    lower = word.lower()
    if lower in _UNIT_SET_EN:
        return word
    first = re.split(r"[ /]", word)[0]
    return first if first.lower() in _UNIT_SET_EN else None


def _quantity(m: re.Match[str]) -> Claim | None:
    unit = _unit(m.group(3))
    if unit is None:
        return None
    value = parse_number(m.group(1))
    end = m.start(3) + len(unit)
    text = m.string[m.start() : end]
    return Claim(
        text.strip(),
        f"{fmt(value)} {unit.lower()}",
        "quantity",
        m.start(),
        end,
        numbers=(value,),
        decimals=decimals(m.group(1)),
    )


def _korean(m: re.Match[str]) -> Claim | None:
    if not re.search(r"\d", m.group(0)):
        return None
    value = korean_number(m.group(0))
    return Claim(m.group(0).strip(), fmt(value), "number", m.start(), m.end(), numbers=(value,))


def _bare(m: re.Match[str]) -> Claim:
    raw = m.group(0)
    value = _plain(raw)
    return Claim(raw.strip(), fmt(value), "number", m.start(), m.end(), numbers=(value,), decimals=decimals(raw))


def _phone(m: re.Match[str]) -> Claim | None:
    raw = m.group(0).strip()
    if not is_phone(raw):
        return None
    return Claim(raw, ("+" if raw.startswith("+") else "") + re.sub(r"\D", "", raw), "contact", m.start(), m.end())


def _web_value(url: str) -> str:
    """``https://www.Example.com/a/`` → ``example.com/a``: scheme, ``www.`` and a trailing slash
    dropped, the host lower-cased (a path is case-sensitive)."""
    url = re.sub(r"^(?:https?://)?(?:www\.)?", "", url, flags=re.IGNORECASE)
    host, slash, path = url.partition("/")
    return (host.lower() + slash + path).rstrip("/")


def contacts(text: str) -> list[Claim]:
    """E-mail and web addresses in ``text`` (phone numbers are found by :func:`find_all`)."""
    found: list[Claim] = []
    taken: list[tuple[int, int]] = []
    for m in WEB.finditer(text):
        raw = m.group(0).rstrip(".,;:!?_")
        taken.append((m.start(), m.start() + len(raw)))
        found.append(Claim(raw, _web_value(raw), "contact", m.start(), m.start() + len(raw)))
    for m in EMAIL.finditer(text):
        raw = m.group(0).rstrip(".")
        if any(a <= m.start() < b for a, b in taken):
            continue  # user@host inside a web address
        found.append(Claim(raw, raw.lower(), "contact", m.start(), m.start() + len(raw)))
    return found


def find_all(text: str) -> list[Claim]:
    finder = _Finder(text)
    finder.scan(PHONE, _phone)
    for pattern, order in _DATE_PATTERNS:
        finder.scan(pattern, lambda m, o=order: _date(m, o))
    for pattern, form in _TIME_PATTERNS:
        finder.scan(pattern, lambda m, f=form: _time(m, f))
    finder.scan(_TEMP, _temperature)
    finder.scan(_MONEY_BEFORE, _money_before)
    finder.scan(_MONEY_AFTER, _money_after)
    finder.scan(_PERCENT, _percent)
    finder.scan(_QUANTITY, _quantity)
    finder.scan(_KO_NUMBER, _korean)
    # Identifiers (Q3, mp3, gpt-4o, H2O) hold digits that are not claims.
    for m in _IDENT.finditer(text):
        a, b = m.span()
        if finder.free(a, b):
            for i in range(a, b):
                finder.taken[i] = True
    finder.scan(_BARE, _bare)
    return sorted(finder.claims, key=lambda c: c.start)


_SENTENCE_MARK = re.compile(r"[.!?](?=\s|$)|\n")
"""A sentence ends at ".", "!" or "?" before a space or the text's end, or at a line break: not at
the point of "$4.50" or of a file name ("… at Aldermoor Dental Fees 2025.md is £695", whose
sentence read "md is £695" and named no row)."""


def sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the sentence holding ``text[start:end]`` begins and ends (:data:`_SENTENCE_MARK`)."""
    marks = [m.start() for m in _SENTENCE_MARK.finditer(text)]
    begin = max((at + 1 for at in marks if at < start), default=0)
    return begin, min((at for at in marks if at >= end), default=len(text))


def claim_sentence(text: str, claim: Claim) -> str:
    """The sentence of ``text`` that holds ``claim`` (:func:`sentence_bounds`)."""
    begin, end = sentence_bounds(text, claim.start, claim.end)
    return text[begin:end]


_PRONOUN = re.compile(r"\s*(?:it|its|they|their|this|these|that|those|he|she)\b", re.IGNORECASE)


def claim_context(text: str, claim: Claim) -> str:
    """:func:`claim_sentence`, after the sentence before it when it opens with a pronoun ("The
    Japanese class is on Mondays. It runs from 18:00 …"): what the pronoun stands for."""
    begin, end = sentence_bounds(text, claim.start, claim.end)
    if begin > 1 and _PRONOUN.match(text, begin):
        begin = sentence_bounds(text, begin - 1, begin - 1)[0]
    return text[begin:end]


@functools.lru_cache(maxsize=256)
def claims_in(text: str) -> tuple[Claim, ...]:
    """:func:`find_all`, cached: the answer check reads the same tool outputs for each claim."""
    return tuple(find_all(text))


def find_claims(answer: str) -> list[Claim]:
    """The figures and contact details stated in ``answer``, in order, one per distinct
    normalised value."""
    text = unicodedata.normalize("NFC", answer or "")
    masked = masked_answer(text)
    seen: set[tuple[str, str]] = set()
    stated: set[float] = set()
    claims = []
    spans = [m.span() for m in (*_FENCE.finditer(text), *_CODE.finditer(text))]
    addresses = [c for c in contacts(text) if not any(a <= c.start < b for a, b in spans)]
    found = _join_pieces(
        _join_cut(sorted(find_all(masked) + addresses, key=lambda c: c.start), masked, text), masked, text
    )
    for claim in found:
        claim.text = text[claim.start : claim.end].strip()
        key = (claim.kind, claim.value)
        # "15 units … × 15": a bare number already stated with a unit is the same claim.
        if key in seen or (claim.kind == "number" and claim.numbers[0] in stated):
            continue
        seen.add(key)
        stated.update(claim.numbers[:1])
        claims.append(claim)
    return claims


_CUT_AFTER = re.compile(r"\d{1,2}(?!\d)")
"""What follows the ". " of a figure cut short: one or two digits (cents, a tenth), then no digit."""


def _join_cut(claims: list[Claim], masked: str, text: str) -> list[Claim]:
    """Claims with each figure cut short at its decimal point ("$40. 99", "1. 5 kg": a small
    model held to figures it may write began a price no result gives and went on with another
    figure) joined into the one figure it reads as, marked :attr:`Claim.cut`: checked as 40.99,
    not as a found 40 and a found 99."""
    out: list[Claim] = []
    for claim in claims:
        before = out[-1] if out else None
        if (
            before is not None
            and len(before.numbers) == 1
            and before.decimals == 0
            and before.kind in ("money", "number")
            and claim.kind in ("money", "number", "quantity")
            and masked[before.end : claim.start] == ". "
            and masked[before.end - 1].isdigit()
            and (m := _CUT_AFTER.match(masked, claim.start)) is not None
        ):
            digits = m.group(0)
            value = before.numbers[0] + math.copysign(int(digits) / 10 ** len(digits), before.numbers[0])
            # The unit is the first part's ("$40. 99 in total": not 99 inches) or else the second's.
            unit_of = before if before.kind != "number" else claim
            end = claim.end if unit_of is claim else claim.start + len(digits)
            out[-1] = Claim(
                text[before.start : end].strip(),
                f"{fmt(value)} {unit_of.value.partition(' ')[2]}".strip(),
                unit_of.kind,
                before.start,
                end,
                numbers=(value,),
                decimals=len(digits),
                cut=True,
            )
            continue
        out.append(claim)
    return out


_PIECES = re.compile(r"(?<![\d.,])([$€£₩]\s?\d{1,3}), (\d{1,3}(?: \d{1,3})+)(?![\d.,]?\d)")
"""A price written in pieces ("$4, 4 70"): held to figures it may write, a small model began a
total no result gives and went on with the digits it could write."""


def _join_pieces(claims: list[Claim], masked: str, text: str) -> list[Claim]:
    """Claims with each price written in pieces (:data:`_PIECES`) joined into one, marked
    :attr:`Claim.cut`: checked as 4470, not as a found $4 and a found 70."""
    for m in _PIECES.finditer(masked):
        inside = [c for c in claims if m.start() <= c.start < m.end()]
        if not inside or inside[0].kind != "money":
            continue
        value = float(re.sub(r"\D", "", m.group(1)) + m.group(2).replace(" ", ""))
        unit = inside[0].value.partition(" ")[2]
        value_text = f"{fmt(value)} {unit}".strip()
        joined = Claim(text[m.start() : m.end()], value_text, "money", m.start(), m.end(), numbers=(value,), cut=True)
        claims = sorted([c for c in claims if c not in inside] + [joined], key=lambda c: c.start)
    return claims
