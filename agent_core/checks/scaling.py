"""A figure that a result gives for one quantity, applied by the answer to another.

A recipe that serves 4 needs 200 g of flour; asked about 10 people, an answer that says "you need
200 g of flour" states a figure that is in a tool result, yet wrong. So a figure found in a result
counts as support only if the result's quantity agrees with the question's, or the answer says
which quantity the figure is for ("200 g for 4 people", "$24 per unit").

The quantities are counts of people, nights, days, weeks, months and units (items, pieces …) in
English and Korean: the goal's ("for 10 people", "3 nights", "12개") against the one nearest
before the figure in the result ("Serves 4", "for 2 people") or right after it ("per night",
"each", "인당"). Times, dates, temperatures and percentages are never scaled. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agent_core.checks.claims import Claim, claim_sentence, claims_in, find_all
from agent_core.checks.units import NUMBER
from agent_core.text.number_words import with_digits

FAMILIES: dict[str, tuple[str, ...]] = {
    "people": (
        "people", "persons", "person", "guests", "guest", "servings", "serving", "portions", "portion",
        "adults", "adult", "children", "child", "kids", "members", "member", "명", "인분", "인",
    ),
    "nights": ("nights", "night", "박"),
    "days": ("days", "day", "일"),
    "weeks": ("weeks", "week", "주"),
    "months": ("months", "month", "개월", "달"),
    "units": (
        "units", "unit", "items", "item", "pieces", "piece", "packs", "pack", "boxes", "box", "bottles",
        "bottle", "tickets", "ticket", "copies", "copy", "bags", "bag", "개", "장", "병", "상자",
    ),
}  # fmt: skip
"""Words that count a quantity, by what they count."""
WORD_FAMILY = {w: f for f, words in FAMILIES.items() for w in words}
"""Each counting word's family."""
FAMILY_WORDS = "|".join(sorted(WORD_FAMILY, key=len, reverse=True))
"""The counting words as a regex alternation, longest first."""
_COUNT = re.compile(
    rf"(?<![\d.,])(\d+(?:\.\d+)?)\s*(?:more\s+|extra\s+|additional\s+)?({FAMILY_WORDS})(?![a-z])", re.IGNORECASE
)
_SERVES = re.compile(r"\b(?:serves|servings?:|feeds|makes|yield:?|for)\s+(\d+)\b(?!\s*(?:%|[a-z]{3,}))", re.IGNORECASE)
_PER = re.compile(
    rf"\b(?:per|a|an|each|every)\s+({FAMILY_WORDS})\b|\beach\b|(?:1)?({FAMILY_WORDS})당|1({FAMILY_WORDS})\b",
    re.IGNORECASE,
)
_SCALED_KINDS = ("money", "quantity", "number")
_DURATION = re.compile(
    r"(?:second|minute|min|hour|hr|day|week|month|year|business day|working day|초|분|시간|일|주|개월|년|영업일)s?\b|"
    r"(?:초|분|시간|일|주|개월|년)$",
    re.IGNORECASE,
)
"""A quantity of time is not scaled by a count of people or items (a recipe's 3 minutes a side)."""
WINDOW = 600
"""How far before a figure a result's quantity is looked for (a recipe's "Serves 4" heading)."""
_CELL_NAME = re.compile(r"(?:^|[,;|{\n]\s*)\"?([^,;:|{}\n\"]{1,50})\"?\s*:\s*[^\w\s]{0,2}\s*$")
"""The name of the cell a figure stands in, right before it ("high_season_per_night: ", "\"price per
night\": £")."""


@dataclass(frozen=True)
class Mismatch:
    """A figure the result gives for ``source`` of a quantity while the question asks ``goal``."""

    family: str
    source: float
    goal: float
    word: str

    def said(self) -> str:
        """What the result gives the figure for: "for 4 people", "per night" (not "for 1 nights"), "for 1박"."""
        if self.source != 1:
            return f"for {self.source:g} {self.word}"
        if not self.word.isascii():
            return f"for 1{self.word}"
        singular = {"people": "person", "children": "child"}.get(self.word, self.word.removesuffix("s"))
        return "per " + singular


def goal_counts(goal: str) -> dict[str, tuple[float, str]]:
    """The quantities the goal names, by family: ``{"people": (10, "people")}``."""
    counts: dict[str, tuple[float, str]] = {}
    for m in _COUNT.finditer(with_digits(goal)):
        family = WORD_FAMILY[m.group(2).lower()]
        counts.setdefault(family, (float(m.group(1)), m.group(2)))
    return counts


def _per_family(match: re.Match[str]) -> str | None:
    word = next((g for g in match.groups() if g), None)
    return WORD_FAMILY.get(word.lower()) if word else "units"


def _source_count(text: str, at: int, end: int, family: str) -> float | None:
    """The quantity of ``family`` a result gives for the figure at ``text[at:end]``: "per X" right
    after it, "X당" right before it or in the name of its cell (``high_season_per_night: 89.00``)
    (1), else the nearest count before it."""
    after = text[end : end + 30]
    for m in _PER.finditer(after):
        if _per_family(m) == family and m.start() <= 12:
            return 1.0
    if _per_before(text, at) == family:  # "개당 $24", "1인당 30,000원"
        return 1.0
    if label := _CELL_NAME.search(text[max(0, at - 60) : at]):
        name = label.group(1).replace("_", " ")
        if any(_per_family(m) == family for m in _PER.finditer(name)):
            return 1.0
        # A column named for a count ("adult_1_day_eur", "price_3_nights") gives its figure for it.
        named = [float(m.group(1)) for m in _COUNT.finditer(name) if WORD_FAMILY[m.group(2).lower()] == family]
        if named:
            return named[-1]
    before = text[max(0, at - WINDOW) : at]
    best: tuple[int, float] | None = None
    for m in _COUNT.finditer(before):
        if WORD_FAMILY[m.group(2).lower()] == family:
            best = (m.start(), float(m.group(1)))
    if family == "people":
        for m in _SERVES.finditer(before):
            if best is None or m.start() > best[0]:
                best = (m.start(), float(m.group(1)))
    return best[1] if best else None


def _said_for(sentence: str, family: str, value: float) -> bool:
    """Whether the answer's sentence says the figure is for ``value`` of ``family``."""
    if value == 1 and any(_per_family(m) in (family, "units") for m in _PER.finditer(sentence)):
        return True
    if value == 1 and family == "months" and _MONTHLY_FIGURE.search(sentence):  # "월 240,000원이라서 …"
        return True
    for m in _COUNT.finditer(with_digits(sentence)):
        if WORD_FAMILY[m.group(2).lower()] == family and float(m.group(1)) == value:
            return True
    return any(float(m.group(1)) == value for m in _SERVES.finditer(sentence)) if family == "people" else False


def mismatch(claim: Claim, answer: str, goal: str, source_text: str) -> Mismatch | None:
    """A :class:`Mismatch` when ``claim`` (found in ``source_text``) is given there for another
    quantity than the goal asks about and the answer does not say which; else None."""
    if claim.kind not in _SCALED_KINDS or not claim.numbers:
        return None
    unit = re.sub(r"^[-−\d.,\s]+", "", claim.text)
    if claim.kind == "quantity" and _DURATION.match(unit.strip()):
        return None
    asked = goal_counts(goal)
    if not asked:
        return None
    value = claim.numbers[0]
    # abs: a source's list marker reads as a minus ("- 200 g flour")
    places = [c for c in find_all(source_text) if c.numbers and abs(abs(c.numbers[0]) - abs(value)) < 1e-9]
    if not places:
        return None
    sentence = claim_sentence(answer, claim)
    goal_claims = claims_in(goal)
    found: Mismatch | None = None
    for family, (wanted, word) in asked.items():
        if abs(value) == wanted and (claim.kind != "money" or given_in(claim, goal_claims)):
            continue  # the answer repeats the question's own quantity ("10 pancakes" for 10 people)
        if _multiplied(answer, claim, wanted):
            continue  # "$24 × 15": the answer scales it itself
        counts = {_source_count(source_text, p.start, p.end, family) for p in places}
        if None in counts or wanted in counts:
            continue  # one place gives no quantity, or the asked one: it may be that one
        for count in sorted(c for c in counts if c is not None):
            if not _said_for(sentence, family, count) and found is None:
                found = Mismatch(family, count, wanted, word)
    return found


_TIMES = r"\s*[×x*]\s*"


def _multiplied(answer: str, claim: Claim, count: float) -> bool:
    """Whether the answer writes ``claim`` times the asked count ("$24 × 15", "15 x $24")."""
    after = re.match(rf"{_TIMES}{count:g}(?![\d.,])", answer[claim.end :])
    before = re.search(rf"(?<![\d.,]){count:g}{_TIMES}$", answer[: claim.start])
    return after is not None or before is not None


def per_one(answer: str, claim: Claim) -> str | None:
    """The family of the "per one" the answer says right beside ``claim`` ("$24 per unit", "$24
    each", "개당 24달러", "1인당 €30"): ``"units"``, ``"people"`` …; None when it says none."""
    for m in _PER.finditer(answer[claim.end : claim.end + 20]):
        if m.start() <= 3:
            return _per_family(m)
    return _per_before(answer, claim.start)


_MONTH_RATE = r"(?:매|(?<![\d가-힣]))월\s*:?\s*"
"""Korean "월" or "매월" (a month, monthly) before a figure: "요금: 월 240,000원"; not "5월" (May)
nor a word that ends in 월."""
_MONTHLY = re.compile(_MONTH_RATE + "$")
_MONTHLY_FIGURE = re.compile(_MONTH_RATE + r"[$€£₩]?\d")


def _per_before(text: str, at: int) -> str | None:
    """The family of a Korean "X당" (per X) right before the figure at ``at`` ("개당 $24"), or
    ``"months"`` for "월 240,000원"."""
    before = text[max(0, at - 8) : at]
    found = [m for m in _PER.finditer(before) if "당" in m.group(0) and not before[m.end() :].strip(" :")]
    if found:
        return _per_family(found[-1])
    return "months" if _MONTHLY.search(before) else None


def asks_per_one(goal: str) -> set[str | None]:
    """What the goal itself asks a price per one of ("how much is it per night?" → nights; "for an
    adult" → people; a bare "each" → units), as families; empty when nothing."""
    return {_per_family(m) for m in _PER.finditer(with_digits(goal))}


_ROW = re.compile(r"[;\n|]")
"""What separates the rows of a table-like result: a document's table flattened with "; ", lines."""


def from_another_row(claim: Claim, sentence: str, source_text: str, words: Callable[[str], frozenset[str]]) -> bool:
    """Whether a table-like result gives the claim's figure only in rows that share no word with
    the answer's sentence, while another row, holding a figure of the same kind, shares two or
    more: the figure is another row's ("$259" for the Atlas chair, from the Sola Mesh's row)."""
    said = words(sentence) - words(claim.text)
    if len(said) < 2 or not claim.numbers:
        return False
    values = {abs(n) for n in claim.numbers}
    found, with_figure, others = False, 0, 0
    for row in _ROW.split(source_text):
        figures = [c for c in find_all(row) if c.numbers]
        if not figures:
            continue
        shared = len(said & words(row))
        if any(abs(c.numbers[0]) in values for c in figures):
            found, with_figure = True, max(with_figure, shared)
        elif any(c.kind == claim.kind for c in figures):
            others = max(others, shared)
    return found and with_figure == 0 and others >= 2


_KOREAN_COUNTERS = "|".join(
    sorted(
        {w for w in WORD_FAMILY if "가" <= w[0] <= "힣"}
        | set("시간 분 초 년 권 대 건 번 회 살 세 잔 곳 채 마리 벌 켤레 그릇 가지 층 줄 쪽 통".split()),
        key=len,
        reverse=True,
    )
)
_CURRENCY_CODE = r"(?:USD|EUR|KRW|GBP|JPY|AUD|CAD|CHF|CNY|HKD|SGD|INR|NZD)\b"
_COUNTED = re.compile(
    rf"-[^\W\d_]|\s?(?:{_KOREAN_COUNTERS})|\s+(?:(?:{FAMILY_WORDS})\b|(?!{_CURRENCY_CODE})[A-Z]|(?!plus\b|less\b|times\b)[a-z]{{2,}}s\b)"
)
"""What follows a number that counts something: "10-person", "3박", "24시간", "3 nights", "12 Sola Mesh
chairs", "12 chairs" (not "480 is", "480 plus", "80000이고", "25 AUD")."""


def counted(goal: str, values: set[float]) -> bool:
    """Whether the goal writes each of ``values`` only as a count of something ("10-person room",
    "12 chairs", "3 nights"), never as money or bare."""
    if any(c.kind == "money" and c.numbers and abs(c.numbers[0]) in values for c in find_all(goal)):
        return False
    places = [m for m in NUMBER.finditer(goal) if float(m.group().replace(",", "")) in values]
    return {float(m.group().replace(",", "")) for m in places} == values and all(
        _COUNTED.match(goal, m.end()) for m in places
    )


def given_in(claim: Claim, goal_claims: Sequence[Claim]) -> bool:
    """Whether the goal gives each of ``claim``'s numbers itself: a price only where the goal
    writes it as money or as a bare number, not as a count ("£6" is not the goal's own in "a
    helmet for 6 days"); any other figure wherever the goal writes its number."""
    kinds = ("money", "number") if claim.kind == "money" else None
    own = {abs(n) for c in goal_claims if kinds is None or c.kind in kinds for n in c.numbers}
    return bool(claim.numbers) and {abs(n) for n in claim.numbers} <= own


def counts_only(claim: Claim, goal: str) -> bool:
    """Whether the goal writes an amount of money's number only as a count of something: the goal's
    count is no support for "$10 per hour" or "$12"."""
    return claim.kind == "money" and bool(claim.numbers) and counted(goal, {abs(n) for n in claim.numbers})
