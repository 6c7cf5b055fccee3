"""Grounding: is every number in an answer backed by the goal or a successful tool result?

A made-up figure shown as fact is the worst thing this product can show. This module finds the
*claims* in an answer — numbers, money, percentages, quantities with units, temperatures, dates
and times — normalises them (``1,000`` = ``1000``, ``$24`` = ``24 USD``, 19 °C = 66.2 °F,
``2026-09-09`` = ``September 9, 2026`` = ``9월 9일``, ``2만 5천 원`` = 25000 KRW) and looks each
one up in the goal and in the outputs of the run's successful tool calls. A value one plain
arithmetic step away from supported numbers (a sum, difference, product or ratio) counts as
supported too. Numbers inside URLs, code spans and list markers are not claims.

Pure functions, no I/O: :func:`check_answer` returns the record's ``grounding`` field::

    {"status": "grounded" | "partly" | "ungrounded" | "no_claims", "tools_used": n,
     "claims": [{"text", "value", "kind", "source": {"call_id", "tool"} | {"goal": True} | None}],
     "note": "..."}   # only when no tool call succeeded: says the answer comes from the model alone

Names, places and opinions are not checked: only figures are.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["number", "money", "percent", "quantity", "temperature", "date", "time"]
Status = Literal["grounded", "partly", "ungrounded", "no_claims"]

MAX_ATOMS = 400
"""Numbers kept per source for the one-step arithmetic search (a long file has many)."""

NO_TOOL_NOTE = (
    "No tool call succeeded in this run, so none of the figures in this answer could be checked "
    "against a tool result: they come from the question or from the model alone."
)
NO_TOOL_NOTE_PLAIN = (
    "No tool was used: this answer comes from the model alone, and nothing in it was checked against "
    "a tool result."
)
WHAT_IS_CHECKED = (
    "Checked: every number, amount of money, percentage, quantity with a unit, temperature, date "
    "and time in the answer is looked up in your goal and in the results of the tool calls that "
    "succeeded (1,000 = 1000, $24 = 24 USD, 19 °C = 66.2 °F, 2026-09-09 = September 9 = 9월 9일). "
    "A value that is a simple sum, difference, product or ratio of found numbers counts as found. "
    "Not checked: names, places, yes/no verdicts, opinions and wording — a found number can still "
    "be used in a wrong sentence."
)

# ---------------------------------------------------------------------------------------------
# Patterns

_NUM = r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_SIGNED = rf"(?:(?<![\w.,])[-−]\s?)?{_NUM}"
_KO_BIG = "조억만"
_KO_SMALL = "천백십"
# 2만 5천, 1억 2천만, 3천: digits with Korean place units (at least one unit).
_KO_NUM = rf"(?=[\d.,]+\s?[{_KO_BIG}{_KO_SMALL}])(?:{_NUM}\s?[{_KO_BIG}{_KO_SMALL}](?:\s?[{_KO_BIG}])?)(?:\s?{_NUM}\s?[{_KO_BIG}{_KO_SMALL}](?:\s?[{_KO_BIG}])?)*(?:\s?{_NUM}(?![\d.,]))?"

_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
    "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH = r"(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ORD = r"(?:st|nd|rd|th)?"

_DATE_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?<![\d.])(\d{4})\s?[-/.]\s?(\d{1,2})\s?[-/.]\s?(\d{1,2})(?![\d])"), "ymd"),
    (re.compile(r"(?:(\d{4})\s?년\s?)?(\d{1,2})\s?월\s?(\d{1,2})\s?일"), "ymd"),
    (re.compile(rf"\b({_MONTH})\s+(\d{{1,2}}){_ORD}\b(?:,?\s+(\d{{4}})\b)?", re.IGNORECASE), "mdy"),
    (re.compile(rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?({_MONTH})\b(?:,?\s+(\d{{4}})\b)?", re.IGNORECASE), "dmy"),
)
_AMPM = r"(a\.?\s?m\.?|p\.?\s?m\.?)"
_TIME_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"(?<![\d:])(\d{{1,2}}):(\d{{2}})(?::\d{{2}})?(?![\d:])(?:\s?{_AMPM}(?![a-z]))?", re.IGNORECASE), "hm"),
    (re.compile(rf"(?<![\d.,:])(\d{{1,2}})\s?{_AMPM}(?![a-z])", re.IGNORECASE), "h"),
    (re.compile(r"(오전|오후|아침|저녁|밤|낮)?\s?(\d{1,2})\s?시(?!간|간의|작|청|장|리|즌)(?:\s?(\d{1,2})\s?분|\s?(반))?"), "ko"),
)
_TEMP = re.compile(
    rf"({_SIGNED})\s?(?:°\s?([CF])\b|℃|℉|(?:degrees?|deg)\b(?:\s+(celsius|fahrenheit|centigrade|c|f)\b)?|도(?![시로])|([CF])(?=[\s.,;:)!?]|$)(?<=\d[CF])|\s(celsius|fahrenheit)\b)",
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
_MONEY_BEFORE = re.compile(rf"(US\$|[$€£₩¥￦])\s?({_KO_NUM}|{_NUM}){_SCALE}", re.IGNORECASE)
_MONEY_AFTER = re.compile(
    rf"(?<![\d.,])({_KO_NUM}|{_NUM}){_SCALE}\s?(USD|KRW|EUR|JPY|GBP|dollars?|won|euros?|yen|pounds|원|달러|유로|엔)(?![A-Za-z])",
    re.IGNORECASE,
)
_PERCENT = re.compile(rf"({_SIGNED})\s?(%|％|percent\b|per\s?cent\b|퍼센트|프로(?!그|젝|세|모|필|토))", re.IGNORECASE)
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
_UNIT_SET_EN = frozenset(re.sub(r"(\w+)\?", r"\1|\1s", _UNITS_EN.replace("s?", "?")).split("|")) | frozenset(
    u.replace("s?", "") for u in _UNITS_EN.split("|")
) | frozenset(u.replace("?", "") for u in _UNITS_EN.split("|"))
_UNITS_KO_LONGEST = sorted(_UNITS_KO.split("|"), key=len, reverse=True)
_KO_NUMBER = re.compile(r"(?<![\d.,])" + _KO_NUM)
_BARE = re.compile(rf"(?<![\w.,/\\:#@-]){_SIGNED}(?![\w]|[.,]\d)|(?<=[\s(\[])[-−]?{_NUM}(?![\w]|[.,]\d)")
_ANY_DIGITS = re.compile(r"\d+(?:\.\d+)?")

# Regions of an answer that hold no claims.
_FENCE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)", re.DOTALL)
_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"(?:https?://|ftp://|www\.)[^\s<>()\"'`]+|\]\([^)\s]*\)|<[^>\s]+@[^>\s]+>|[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.IGNORECASE)
_PATHLIKE = re.compile(r"(?<![\w])[\w-]*\d[\w-]*\.(?:md|txt|json|csv|py|yaml|yml|pdf|png|jpg|html)\b", re.IGNORECASE)
_LIST_MARKER = re.compile(r"^[ \t>]*(?:#{1,6}[ \t]*)?(?:(?:step|단계)[ \t]*)?\(?\d{1,3}[.):](?=[ \t]|$)", re.IGNORECASE | re.MULTILINE)
_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+\.\d+(?:[.\d]*)\b", re.IGNORECASE)
_IDENT = re.compile(r"[A-Za-z_]+[-_]?\d[\w.-]*|\d+[A-Za-z_][\w-]*")


# ---------------------------------------------------------------------------------------------
# Numbers


def _plain(text: str) -> float:
    return float(text.replace(",", "").replace("−", "-").replace(" ", ""))


def _decimals(text: str) -> int:
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


def _number(text: str) -> float:
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

    def as_record(self, source: dict[str, Any] | None) -> dict[str, Any]:
        return {"text": self.text, "value": self.value, "kind": self.kind, "source": source}


def _blank(text: str, spans: Iterable[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def _masked_answer(text: str) -> str:
    """The answer with code, URLs, e-mail addresses, file names, versions, identifiers and list
    markers blanked out (same length, so offsets still point into the original)."""
    spans: list[tuple[int, int]] = []
    for pattern in (_FENCE, _CODE, _URL, _PATHLIKE, _VERSION):
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
        month, day, year = _MONTHS[g[0].lower().rstrip(".")], int(g[1]), (int(g[2]) if g[2] else None)
    else:
        day, month, year = int(g[0]), _MONTHS[g[1].lower().rstrip(".")], (int(g[2]) if g[2] else None)
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
    if hour > 24 or minute > 59:
        return None
    return Claim(m.group(0).strip(), f"{hour:02d}:{minute:02d}", "time", m.start(), m.end(), minutes=hour * 60 + minute)


def _temperature(m: re.Match[str]) -> Claim:
    number = m.group(1)
    value = _plain(number)
    scale = (m.group(2) or m.group(3) or m.group(4) or m.group(5) or "").lower()
    tail = m.group(0)[len(number):]
    if "℉" in tail or scale.startswith("f"):
        unit, other = "°F", (value - 32) * 5 / 9
    elif "℃" in tail or scale.startswith("c") or "도" in tail or not scale:
        unit, other = "°C", value * 9 / 5 + 32
    else:  # pragma: no cover - every branch above covers the pattern
        unit, other = "°C", value * 9 / 5 + 32
    if not scale and "℃" not in tail and "℉" not in tail and "도" not in tail:
        # "20 degrees": the scale is not said, so either reading may be meant.
        return Claim(m.group(0).strip(), f"{fmt(value)}°", "temperature", m.start(), m.end(),
                     numbers=(value,), decimals=_decimals(number))
    return Claim(m.group(0).strip(), f"{fmt(value)} {unit}", "temperature", m.start(), m.end(),
                 numbers=(value,), decimals=_decimals(number), converted=(round(other, 2),))


def _scaled(m: re.Match[str], number: str, scale_groups: tuple[int, int]) -> float:
    value = _number(number)
    scale = (m.group(scale_groups[0]) or m.group(scale_groups[1]) or "").lower()
    return value * _SCALE_WORD.get(scale, 1.0)


def _money_before(m: re.Match[str]) -> Claim:
    currency = _CURRENCY_SYMBOL[m.group(1).upper() if m.group(1).upper() == "US$" else m.group(1)]
    value = _scaled(m, m.group(2), (3, 4))
    return Claim(m.group(0).strip(), f"{fmt(value)} {currency}", "money", m.start(), m.end(),
                 numbers=(value,), decimals=_decimals(m.group(2)))


def _money_after(m: re.Match[str]) -> Claim:
    currency = _CURRENCY_WORD.get(m.group(4).lower(), m.group(4).upper())
    value = _scaled(m, m.group(1), (2, 3))
    return Claim(m.group(0).strip(), f"{fmt(value)} {currency}", "money", m.start(), m.end(),
                 numbers=(value,), decimals=_decimals(m.group(1)))


def _percent(m: re.Match[str]) -> Claim:
    value = _plain(m.group(1))
    return Claim(m.group(0).strip(), f"{fmt(value)}%", "percent", m.start(), m.end(),
                 numbers=(value, value / 100), decimals=_decimals(m.group(1)))


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
    value = _number(m.group(1))
    end = m.start(3) + len(unit)
    text = m.string[m.start():end]
    return Claim(text.strip(), f"{fmt(value)} {unit.lower()}", "quantity", m.start(), end,
                 numbers=(value,), decimals=_decimals(m.group(1)))


def _korean(m: re.Match[str]) -> Claim | None:
    if not re.search(r"\d", m.group(0)):
        return None
    value = korean_number(m.group(0))
    return Claim(m.group(0).strip(), fmt(value), "number", m.start(), m.end(), numbers=(value,))


def _bare(m: re.Match[str]) -> Claim:
    raw = m.group(0)
    value = _plain(raw)
    return Claim(raw.strip(), fmt(value), "number", m.start(), m.end(), numbers=(value,), decimals=_decimals(raw))


def _find(text: str) -> list[Claim]:
    finder = _Finder(text)
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


def find_claims(answer: str) -> list[Claim]:
    """The figures stated in ``answer``, in order, one per distinct normalised value."""
    text = unicodedata.normalize("NFC", answer or "")
    masked = _masked_answer(text)
    seen: set[tuple[str, str]] = set()
    stated: set[float] = set()
    claims = []
    for claim in _find(masked):
        claim.text = text[claim.start:claim.end].strip()
        key = (claim.kind, claim.value)
        # "15 units … × 15": a bare number already stated with a unit is the same claim.
        if key in seen or (claim.kind == "number" and claim.numbers[0] in stated):
            continue
        seen.add(key)
        stated.update(claim.numbers[:1])
        claims.append(claim)
    return claims


# ---------------------------------------------------------------------------------------------
# Sources


@dataclass
class _Source:
    """What one source (the goal, or one successful tool call) states."""

    ref: dict[str, Any]
    numbers: list[tuple[float, int]] = field(default_factory=list)
    """(value, decimals as written)"""
    dates: list[tuple[int | None, int, int]] = field(default_factory=list)
    minutes: set[int] = field(default_factory=set)


def _source_text(call: Mapping[str, Any]) -> str:
    output = call.get("output")
    text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)
    if call.get("tool") == "calculator":
        # The calculator states "expression = result": the numbers of the expression it evaluated
        # (17 / 100 * 2340) are part of what it returned.
        args = call.get("arguments")
        if isinstance(args, Mapping):
            text += "\n" + " ".join(str(v) for v in args.values())
        elif isinstance(args, str):
            text += "\n" + args
    return text


def _read_source(text: str, ref: dict[str, Any]) -> _Source:
    numbers, dates, minutes = _parse_source(text)
    return _Source(ref, list(numbers), list(dates), set(minutes))


@functools.lru_cache(maxsize=256)
def _parse_source(text: str) -> tuple[tuple[tuple[float, int], ...], tuple[tuple[int | None, int, int], ...], frozenset[int]]:
    """What a source text states: numbers (value, decimals), dates, times of day in minutes.
    Cached: the same tool outputs are read again by each answer check of a run."""
    text = unicodedata.normalize("NFC", text)
    numbers: list[tuple[float, int]] = []
    dates: list[tuple[int | None, int, int]] = []
    minutes: set[int] = set()
    for claim in _find(text):
        if claim.date is not None:
            dates.append(claim.date)
        elif claim.minutes is not None:
            minutes.add(claim.minutes)
        else:
            numbers += [(n, claim.decimals if i == 0 else claim.decimals + 2) for i, n in enumerate(claim.numbers)]
    # Every run of digits counts as well (a JSON value "temperature": 19, "Q3", a table cell).
    numbers += [(float(d), _decimals(d)) for d in _ANY_DIGITS.findall(text)]
    seen: set[float] = set()
    unique = []
    for n, d in numbers:
        if n not in seen:
            seen.add(n)
            unique.append((n, d))
    return tuple(unique[:MAX_ATOMS]), tuple(dates), frozenset(minutes)


def _same(value: float, decimals: int, atom: float, atom_decimals: int, *, slack: float = 0.0) -> bool:
    if abs(value - atom) <= max(1e-9, 1e-9 * abs(atom)) + slack:
        return True
    # The answer rounds the tool's value (397.79999 → 397.8, 33.333 → 33.33).
    return decimals < atom_decimals and abs(round(atom, decimals) - value) <= 1e-9 * max(1.0, abs(value))


def _matches(claim: Claim, source: _Source) -> bool:
    if claim.date is not None:
        y, m, d = claim.date
        return any(m == sm and d == sd and (y is None or sy is None or y == sy) for sy, sm, sd in source.dates)
    if claim.minutes is not None:
        return claim.minutes in source.minutes
    for n in claim.numbers:
        if any(_same(n, claim.decimals, a, ad) for a, ad in source.numbers):
            return True
    return any(_same(n, 1, a, ad, slack=0.55) for n in claim.converted for a, ad in source.numbers)


_DERIVABLE: frozenset[str] = frozenset({"number", "money", "percent", "quantity"})


def _derived(claim: Claim, left: list[tuple[float, dict[str, Any]]], right: list[tuple[float, dict[str, Any]]]) -> dict[str, Any] | None:
    """A source when ``claim`` is one arithmetic step (+ − × ÷) from a number the answer or the
    goal states (``left``) and a number of any source (``right``, sorted by value)."""
    if claim.kind not in _DERIVABLE or not right:
        return None
    values = [n for n, _ in right]
    tol = 0.5 * 10 ** -claim.decimals + 1e-9
    for t in claim.numbers:
        for a, ref_a in left:
            # The partner b each operation would need, and how far b may be off for t to round right.
            needs = [(t - a, tol), (a - t, tol), (t + a, tol), (t / a, tol / abs(a)), (a / t, abs(a) * tol / (t * t) if t else 0), (t * a, abs(a) * tol)]
            for need, slack in needs:
                lo = bisect.bisect_left(values, need - slack - 1e-9 * abs(need))
                hi = bisect.bisect_right(values, need + slack + 1e-9 * abs(need))
                for b, ref_b in right[lo:hi]:
                    if b == a and ref_b is ref_a:
                        continue
                    results = (a + b, a - b, b - a, a * b, a / b if b else math.inf, b / a)
                    if any(_same(t, claim.decimals, r, 12) for r in results):
                        return _prefer_tool(ref_a, ref_b)
    return None


def _prefer_tool(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    if "call_id" in a and "call_id" in b:
        return b if b.get("tool") == "calculator" and a.get("tool") != "calculator" else a
    return a if "call_id" in a else b


def _operand(x: float) -> bool:
    """Numbers used for the one-step arithmetic: not 0 or ±1 (they make everything derivable)
    and not a year."""
    return abs(x) not in (0.0, 1.0) and not (x == int(x) and 1900 <= x <= 2100)


def _unique(pairs: Iterable[tuple[float, dict[str, Any]]], limit: int) -> list[tuple[float, dict[str, Any]]]:
    seen: dict[float, dict[str, Any]] = {}
    for n, ref in pairs:
        if _operand(n) and n not in seen and len(seen) < limit:
            seen[n] = ref
    return list(seen.items())


def _status(found: int, total: int) -> Status:
    if total == 0:
        return "no_claims"
    return "grounded" if found == total else "ungrounded" if found == 0 else "partly"


def check_answer(answer: str | None, goal: str, tool_calls: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The ``grounding`` record field for ``answer`` given the goal and the run's tool calls
    (record ``tool_calls`` entries; only the successful ones are read)."""
    ok_calls = [c for c in tool_calls if c.get("success") and not c.get("duplicate")]
    # Newest first: a figure found in several results is credited to the latest one.
    sources = [
        _read_source(_source_text(c), {"call_id": str(c.get("call_id", "")), "tool": str(c.get("tool", ""))})
        for c in reversed(ok_calls)
    ]
    goal_source = _read_source(goal or "", {"goal": True})
    claims = find_claims(answer or "")
    found: list[tuple[Claim, dict[str, Any] | None]] = []
    for claim in claims:
        ref = next((s.ref for s in (*sources, goal_source) if _matches(claim, s)), None)
        found.append((claim, ref))
    if any(ref is None for _, ref in found):
        # One operand is a number the answer or the goal states, the other any source number;
        # a second round lets a derived subtotal support the total (360 + 15 shipping = 375).
        right = sorted(
            _unique(((n, s.ref) for s in (*sources, goal_source) for n, _ in s.numbers), MAX_ATOMS * 3),
            key=lambda pair: pair[0],
        )
        for _round in range(2):
            left = _unique(
                itertools.chain(
                    ((n, ref) for c, ref in found if ref is not None for n in c.numbers),
                    ((n, goal_source.ref) for n, _ in goal_source.numbers),
                ),
                MAX_ATOMS,
            )
            before = sum(ref is None for _, ref in found)
            found = [(c, ref if ref is not None else _derived(c, left, right)) for c, ref in found]
            if sum(ref is None for _, ref in found) in (0, before):
                break
    result: dict[str, Any] = {
        "status": _status(sum(ref is not None for _, ref in found), len(found)),
        "tools_used": len(ok_calls),
        "claims": [c.as_record(dict(ref) if ref is not None else None) for c, ref in found],
    }
    if not ok_calls and (answer or "").strip():
        # Said plainly even with no figure to check: "London is warmer than Seoul" from no tool
        # at all is a claim of fact too (a greeting gets the same, true, remark).
        result["note"] = NO_TOOL_NOTE if claims else NO_TOOL_NOTE_PLAIN
    return result


def check_record(record: Mapping[str, Any]) -> dict[str, Any] | None:
    """Grounding of a saved record's answer; None when the run has no answer."""
    answer = record.get("answer")
    if not isinstance(answer, str) or record.get("status") not in (None, "completed"):
        return None
    return check_answer(answer, str(record.get("goal") or ""), list(record.get("tool_calls") or []))


# ---------------------------------------------------------------------------------------------
# Plain words for the UI, the CLI and the corrective turn


def unsupported(grounding: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The claims no source supports."""
    return [c for c in (grounding or {}).get("claims", []) if c.get("source") is None]


def summary(grounding: Mapping[str, Any] | None) -> str:
    """One line: "every number comes from a tool result", "2 of 3 numbers found …", "⚠ …"."""
    if not grounding:
        return "not checked"
    claims = grounding.get("claims") or []
    missing = unsupported(grounding)
    status = grounding.get("status")
    if status == "no_claims" or not claims:
        return "no numbers, dates or times to check"
    if not missing:
        if all((c.get("source") or {}).get("goal") for c in claims):
            return "every number comes from your goal"
        return "every number comes from a tool result" + (
            "" if not any((c.get("source") or {}).get("goal") for c in claims) else " or your goal"
        )
    if len(missing) == 1:
        text = f"⚠ {missing[0]['text']} appears in no tool result: the model may have made it up"
    else:
        shown = ", ".join(c["text"] for c in missing[:4]) + (" …" if len(missing) > 4 else "")
        text = f"⚠ {shown} appear in no tool result: the model may have made them up"
    if len(missing) < len(claims):
        text += f" ({len(claims) - len(missing)} of {len(claims)} numbers found in tool results)"
    return text


def found_line(grounding: Mapping[str, Any] | None) -> str:
    """"2 of 3 numbers found in tool results" (or the goal)."""
    claims = (grounding or {}).get("claims") or []
    found = len(claims) - len(unsupported(grounding))
    return f"{found} of {len(claims)} numbers found in tool results"


def correction(grounding: Mapping[str, Any]) -> str:
    """The corrective turn sent to the model when ``ANSWER_CHECK=retry`` finds made-up figures."""
    missing = [c["text"] for c in unsupported(grounding)]
    listed = ", ".join(missing[:6])
    says = f"says {listed}" if len(missing) == 1 else f"states {listed}"
    return (
        f"Your answer {says}; no tool result says that. Call the tool that gives "
        f"{'it' if len(missing) == 1 else 'them'} (use the calculator for arithmetic), "
        "or answer without it. Do not guess numbers, dates or times."
    )
