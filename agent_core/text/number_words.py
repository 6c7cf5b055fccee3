"""Number words read as figures: "세 개" → "3 개", "three units" → "3 units", "스물다섯 개" → "25 개".

A person asks "단가 기준으로 세 개 사면 총 얼마야?" or "How much do three units cost?" and means
3. The rules that decide what a goal needs (the local provider's plan) look for digits, so they
read the goal through :func:`with_digits` first. Only words that count or measure something are
replaced, never a word that merely looks like one:

- Korean native numbers (하나/한, 둘/두, 셋/세, 넷/네, 다섯 … 열, 열한 … 스무/스물, 서른 … 아흔, and
  their compounds, 스물다섯) before a counter (개, 명, 대, 박스 …), or standing alone as a count
  ("하나에 얼마", "셋이면"); "네, 좋아요" (yes), "세금" (tax), "한국" stay as they are;
- Sino-Korean numbers (일, 이, 삼 … 십, 백, 천, 만: 이십오, 삼백) before a counter; a single
  syllable (이, 사, 오 …) only before money, percent or degrees ("오 달러", "삼 퍼센트"), where it
  cannot be "this" or "buy";
- English number words (two … ninety-nine, hundred, thousand, a dozen); "a" only in "a hundred",
  "a dozen". Words in a row that make no one number are a name or a saying ("twenty-four seven",
  "Seven Eleven") and stay words; a hyphen inside a word ("one-time") is no minus, one with spaces
  around it is ("twenty-four - seven" → "24 - 7").

One alone ("one unit", "한 개", "하나에 얼마") is left as a word unless it is an operand ("one plus
two", "하나 더하기 둘"): the price of one unit is the unit price, with nothing to multiply, and
"which one" or "one of them" is no figure at all.

Pure functions, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# ---------------------------------------------------------------------------------------------
# Korean

_NATIVE_UNITS = {
    "하나": 1, "한": 1, "둘": 2, "두": 2, "셋": 3, "세": 3, "석": 3, "서": 3, "넷": 4, "네": 4, "넉": 4,
    "너": 4, "다섯": 5, "닷": 5, "여섯": 6, "엿": 6, "일곱": 7, "여덟": 8, "아홉": 9,
}  # fmt: skip
_NATIVE_TENS = {
    "열": 10, "스물": 20, "스무": 20, "서른": 30, "마흔": 40, "쉰": 50, "예순": 60, "일흔": 70, "여든": 80,
    "아흔": 90,
}  # fmt: skip
# Forms that only stand before a counter (한 개, 세 명): alone they are other words (한국, 세금, 네).
_ATTRIBUTIVE_ONLY = {"한", "두", "세", "석", "서", "네", "넉", "너", "닷", "엿", "스무"}

_COUNTERS = (
    "개", "명", "분", "사람", "대", "권", "장", "병", "잔", "벌", "켤레", "박스", "상자", "세트", "묶음", "팩",
    "봉지", "마리", "캔", "통", "자루", "송이", "그릇", "접시", "판", "쌍", "건", "곳", "군데", "도시", "가지",
    "번", "달", "시간",
)  # fmt: skip
_SINO_COUNTERS = (
    "개", "명", "대", "권", "장", "병", "세트", "박스", "상자", "건", "일", "주", "개월", "년", "시간", "분",
    "초", "달러", "불", "원", "유로", "엔", "퍼센트", "프로", "%", "도", "킬로", "킬로미터", "키로", "미터",
    "센티", "마일", "파운드", "그램", "리터", "km", "kg", "m", "cm",
)  # fmt: skip
_MONEY_OR_RATE = ("달러", "불", "원", "유로", "엔", "퍼센트", "프로", "%", "도")

_SINO_DIGITS = {"일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "륙": 6, "칠": 7, "팔": 8, "구": 9}
_SINO_PLACES = {"십": 10, "백": 100, "천": 1000}


def _alternation(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_NATIVE = rf"(?:(?:{_alternation(_NATIVE_TENS)})(?:{_alternation(_NATIVE_UNITS)})?|(?:{_alternation(_NATIVE_UNITS)}))"
# A counter is a word of its own or takes a particle ("개를", "개면", "개당", "명이"); "개발",
# "대답", "번호", "장소" are other words, and "네 번호" is "your number".
_PARTICLE_START = "의를을에이가는은면씩만짜도와과랑로까당째보짜요"
_COUNTER_END = rf"(?![\uac00-\ud7a3])|(?=[{_PARTICLE_START}])"
_COUNTER = rf"(?:(?:{_alternation(_COUNTERS)})(?:{_COUNTER_END}))"
# A native number before a counter ("세 개", "스물다섯개"), or alone as a count: followed by a
# particle, a space or the end ("하나에", "셋이면", "둘 다"), not by more letters of a word
# ("하나님", "셋째").
_NATIVE_NUMBER = re.compile(
    rf"(?<![\uac00-\ud7a3\w])(?P<word>{_NATIVE})(?:(?P<space>\s?)(?=(?P<counter>{_COUNTER}))"
    rf"|(?=(?:에|이면|이랑|하고|과|와|만|씩|을|를|은|는|이|가|\s|[?!.,]|$)))"
)
_SINO = rf"(?:[{''.join(_SINO_DIGITS)}]?[{''.join(_SINO_PLACES)}])+[{''.join(_SINO_DIGITS)}]?|[{''.join(_SINO_DIGITS)}]"
_SINO_NUMBER = re.compile(
    rf"(?<![\uac00-\ud7a3\w])(?P<word>(?:{_SINO})(?:\s?만(?:\s?(?:{_SINO}))?)?)(?P<space>\s?)"
    rf"(?=(?P<counter>{_alternation(_SINO_COUNTERS)})(?:{_COUNTER_END}))"
)


def native_korean_value(word: str) -> int | None:
    """``"스물다섯"`` → 25, ``"세"`` → 3, ``"열"`` → 10; None for anything else."""
    for tens, value in sorted(_NATIVE_TENS.items(), key=lambda kv: -len(kv[0])):
        if word.startswith(tens):
            rest = word[len(tens) :]
            if not rest:
                return value
            unit = _NATIVE_UNITS.get(rest)
            return None if unit is None else value + unit
    return _NATIVE_UNITS.get(word)


def sino_korean_value(word: str) -> int | None:
    """``"이십오"`` → 25, ``"삼백"`` → 300, ``"천이백"`` → 1200, ``"오만"`` → 50000; None otherwise."""
    word = word.replace(" ", "")
    if not word:
        return None
    total, current, digit = 0, 0, None
    for char in word:
        if char in _SINO_DIGITS:
            if digit is not None:
                return None  # "삼사": two digits in a row is no number
            digit = _SINO_DIGITS[char]
        elif char in _SINO_PLACES:
            current += (digit if digit is not None else 1) * _SINO_PLACES[char]
            digit = None
        elif char == "만":
            total += (current + (digit or 0) or 1) * 10_000
            current, digit = 0, None
        else:
            return None
    return total + current + (digit or 0)


def _native(m: re.Match[str]) -> str:
    word = m.group("word")
    if m.group("counter") is None and word in _ATTRIBUTIVE_ONLY:
        return m.group(0)  # "네" (yes), "세" alone: not a count
    if m.group("counter") is None and word in _NATIVE_TENS and not _operand(m):
        return m.group(0)  # "열" alone is "open", "쉰" "rested": a bare ten only before a counter
    value = native_korean_value(word)
    if value is None or (value == 1 and not _operand(m)):
        return m.group(0)  # "한 개에 얼마야?" asks for the unit price: no quantity to multiply
    return f"{value}{m.group('space') or ''}"


def _sino(m: re.Match[str]) -> str:
    word = m.group("word")
    counter = m.group("counter")
    if word in _SINO_DIGITS and (counter not in _MONEY_OR_RATE or not m.group("space")):
        # "이 개" (this dog), "사도"; "사 개" is no way to say 4: only "오 달러" and the like
        return m.group(0)
    value = sino_korean_value(word)
    return m.group(0) if value is None else f"{value}{m.group('space') or ''}"


# ---------------------------------------------------------------------------------------------
# English

_EN_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_EN_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_EN_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_EN_WORD = rf"(?:{_alternation([*_EN_UNITS, *_EN_TENS, *_EN_SCALES, 'dozen'])})"
_EN_NUMBER = re.compile(
    rf"\b(?:(?P<article>an?)\s+(?=(?:hundred|thousand|million|dozen)\b))?"
    rf"(?P<words>{_EN_WORD}(?:(?:-|\s+|(?<=hundred)\s+and\s+|(?<=thousand)\s+and\s+){_EN_WORD})*)\b",
    re.IGNORECASE,
)
# What "one" (or a lone small number) may count for it to be a figure: "one unit", "one plus two".
# An operand of arithmetic: next to an operator, in words or signs ("one plus two", "하나 더하기 둘").
_OPERATOR_AFTER = re.compile(
    r"\s*(?:plus|minus|times|multiplied|divided|over|-(?![^\W\d_])|[+*/×÷=^]|더하기|빼기|곱하기|나누기|플러스|마이너스)",
    re.IGNORECASE,
)
_OPERATOR_BEFORE = re.compile(
    r"(?:\bplus|\bminus|\btimes|\bmultiplied by|\bdivided by|\bover|(?<![^\W\d_])-|[+*/×÷=^]|더하기|빼기|곱하기|나누기|플러스|마이너스)\s*$",
    re.IGNORECASE,
)


def _operand(m: re.Match[str]) -> bool:
    """Whether the number matched stands next to an arithmetic operator."""
    return bool(_OPERATOR_AFTER.match(m.string, m.end()) or _OPERATOR_BEFORE.search(m.string[: m.start()]))


def english_value(words: str) -> int | None:
    """``"twenty-five"`` → 25, ``"two hundred and fifty"`` → 250, ``"a dozen"`` → 12; None for
    words that are no one number ("three four")."""
    tokens = [t for t in re.split(r"[\s-]+", words.lower()) if t and t != "and"]
    if not tokens:
        return None
    total, current = 0, 0
    last = ""  # "unit", "ten" or "scale": what came before
    for token in tokens:
        if token in _EN_UNITS:
            if last == "unit" or (last == "ten" and _EN_UNITS[token] >= 10):
                return None
            current += _EN_UNITS[token]
            last = "unit"
            continue
        if token in _EN_TENS:
            if last in ("unit", "ten"):
                return None
            current += _EN_TENS[token]
            last = "ten"
            continue
        last = "scale"
        if token == "dozen":
            current = (current or 1) * 12
        elif token == "hundred":
            current = (current or 1) * 100
        elif token in _EN_SCALES:
            total += (current or 1) * _EN_SCALES[token]
            current = 0
        else:
            return None
    return total + current


def _english(m: re.Match[str]) -> str:
    words = m.group("words")
    value = english_value(words)
    if value is None:
        # Words that make no one number are a name or a saying ("twenty-four seven", "Seven
        # Eleven"), not figures: replaced one by one, "twenty-four seven" became "20-4 7", and the
        # hyphen left between them read as a minus (the plan forced the calculator).
        return m.group(0)
    if m.group("article") is None and words.lower() in ("one", "zero"):
        # "which one", "one of them", and "one unit" (the unit price: nothing to multiply): a
        # figure only as an operand.
        if not _operand(m):
            return m.group(0)
    return str(value)


def with_digits(text: str) -> str:
    """``text`` with its number words written as digits (see the module doc); the rest unchanged."""
    if not text:
        return text
    out = _NATIVE_NUMBER.sub(_native, text)
    out = _SINO_NUMBER.sub(_sino, out)
    return _EN_NUMBER.sub(_english, out)
