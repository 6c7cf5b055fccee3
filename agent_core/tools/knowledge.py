"""Internal facts (the ``lookup`` tool) matched loosely, and ``word_count``.

The first version knew three topics by their exact Korean names (단가, 환불 정책, 배송). Models ask in
their own words ("product price", "the unit price of the product", "제품 단가"), so a topic is
matched on its names and synonyms in either language, ignoring case, spacing, punctuation,
English plurals and Korean particles; a near-miss spelling ("shiping") is forgiven too.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass

from agent_core.text.lang import HANGUL, is_korean

FIRST_DISCOUNT_UNITS = 100
"""The smallest order the volume discount applies to (pricing.md: 100 to 499 units, 5 %)."""


@dataclass(frozen=True)
class Fact:
    """One internal fact with its names, synonyms and answers in Korean and English."""

    korean: str
    english: str
    synonyms: tuple[str, ...]
    answer_ko: str
    answer_en: str


FACTS: tuple[Fact, ...] = (
    Fact(
        korean="단가",
        english="unit price",
        synonyms=(
            "단가",
            "제품 단가",
            "개당 가격",
            "가격",
            "제품 가격",
            "비용",
            "요금",
            "unit price",
            "price",
            "prices",
            "pricing",
            "price per unit",
            "per unit",
            "cost",
            "unit cost",
            "product price",
        ),
        answer_ko="단가: 개당 $24 (unit price: $24 per unit)",
        answer_en="Unit price: $24 per unit (단가: 개당 $24)",
    ),
    Fact(
        korean="환불 정책",
        english="refund policy",
        synonyms=(
            "환불 정책",
            "환불",
            "반품",
            "환불 규정",
            "환불 기간",
            "반품 정책",
            "refund policy",
            "refund",
            "refunds",
            "return",
            "return policy",
            "money back",
            "refund period",
        ),
        answer_ko=("환불 정책: 배송 후 30일 이내 환불 가능합니다 (refund policy: within 30 days of delivery)"),
        answer_en=(
            "Refund policy: refunds are accepted within 30 days of delivery (환불 정책: 배송 후 30일 이내 환불 가능)"
        ),
    ),
    Fact(
        korean="배송",
        english="shipping",
        synonyms=(
            "배송",
            "배송비",
            "배송 비용",
            "무료 배송",
            "배송 정책",
            "배달",
            "택배",
            "shipping",
            "delivery",
            "free shipping",
            "shipping cost",
            "shipping fee",
            "delivery cost",
            "shipping policy",
            "postage",
        ),
        answer_ko="배송: $500 이상 구매 시 무료 배송 (shipping: free on orders of $500 or more)",
        answer_en="Shipping: free shipping on orders of $500 or more ($500 이상 구매 시 무료 배송)",
    ),
    Fact(
        korean="할인",
        english="volume discount",
        synonyms=(
            "할인",
            "대량 할인",
            "수량 할인",
            "할인율",
            "volume discount",
            "volume discounts",
            "discount",
            "bulk discount",
            "bulk price",
            "quantity discount",
            "discount tier",
            "tier",
        ),
        # The tiers of pricing.md: a price for 600 units is not 600 × $24.
        answer_ko=(
            "할인 (주문 전체): 100~499개 5% 할인 (개당 $22.80); 500개 이상 10% 할인 (개당 $21.60); "
            "100개 미만 할인 없음 (volume discount)"
        ),
        answer_en=(
            "Volume discount on the whole order: 100 to 499 units 5% off ($22.80 per unit); "
            "500 units or more 10% off ($21.60 per unit); under 100 units no discount (할인)"
        ),
    ),
)

_WORD = re.compile(r"[^\W_]+")


def known_topics() -> str:
    """The topics as shown to the model: ``단가 (unit price), 환불 정책 (refund policy), …``."""
    return ", ".join(f"{f.korean} ({f.english})" for f in FACTS)


def _normalise(text: str) -> str:
    """NFKC, lower case, punctuation → spaces, single spaces."""
    return " ".join(_WORD.findall(unicodedata.normalize("NFKC", text).lower()))


def _pattern(synonym: str) -> re.Pattern[str]:
    """Regex for a synonym: Korean letters may be spaced freely and take particles; English
    words must stand alone (an ``s``/``es`` plural allowed)."""
    words = _normalise(synonym).split()
    parts = [r"\s*".join(map(re.escape, w)) if HANGUL.match(w) else re.escape(w) for w in words]
    body = r"\s*".join(parts)
    if words[0].isascii():
        body = r"(?<![a-z0-9])" + body
    if words[-1].isascii():
        body += r"(?:e?s)?(?![a-z0-9])"
    return re.compile(body)


_PATTERNS: tuple[tuple[Fact, tuple[re.Pattern[str], ...]], ...] = tuple(
    (fact, tuple(_pattern(s) for s in (fact.korean, fact.english, *fact.synonyms))) for fact in FACTS
)
_GENERIC_WORDS = frozenset({"unit", "back", "money", "policy", "period", "free", "product"})
_ENGLISH_WORDS: dict[str, Fact] = {
    word: fact
    for fact in FACTS
    for synonym in (fact.english, *fact.synonyms)
    for word in synonym.split()
    if synonym.isascii() and len(word) >= 4 and word not in _GENERIC_WORDS
}


def match_topics(topic: str) -> list[Fact]:
    """Facts mentioned in ``topic``, strongest match first (an empty list when none)."""
    text = _normalise(topic)
    candidates: list[tuple[int, int, int, Fact]] = []
    for fact, patterns in _PATTERNS:
        for pattern in patterns:
            for m in pattern.finditer(text):
                candidates.append((m.end() - m.start(), m.start(), m.end(), fact))
    candidates.sort(key=lambda c: (-c[0], c[1]))
    chosen: list[Fact] = []
    taken: list[tuple[int, int]] = []
    for _, start, end, fact in candidates:
        if fact in chosen or any(start < e and s < end for s, e in taken):
            continue  # a weaker match inside a stronger one ("cost" in "shipping cost")
        chosen.append(fact)
        taken.append((start, end))
    chosen = [f for _, f in sorted(zip(taken, chosen, strict=True), key=lambda pair: pair[0])]
    if not chosen:  # forgive a typo in an English word
        for word in text.split():
            close = difflib.get_close_matches(word, list(_ENGLISH_WORDS), n=1, cutoff=0.8)
            if close and _ENGLISH_WORDS[close[0]] not in chosen:
                chosen.append(_ENGLISH_WORDS[close[0]])
    return chosen


def lookup_fact(topic: str) -> str:
    """The answer(s) for ``topic``, in the language of the question, always with the figures."""
    facts = match_topics(topic)
    if not facts:
        raise ValueError(f"no internal fact about {topic.strip()!r}; known topics: {known_topics()}")
    korean = is_korean(topic)
    return "\n".join(f.answer_ko if korean else f.answer_en for f in facts)


def lookup(topic: str) -> str:
    """Look up internal facts: 단가 (unit price), 환불 정책 (refund policy), 배송 (shipping), 할인 (volume discount).

    Args:
        topic: The topic in English or Korean, e.g. 'unit price', '환불 정책', 'shipping'.
    """
    return lookup_fact(topic)


def word_count(text: str) -> str:
    """Count the words in a text (words are separated by whitespace).

    Args:
        text: The text whose words to count.
    """
    return str(len(text.split()))
