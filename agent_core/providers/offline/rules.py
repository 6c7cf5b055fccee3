"""Rules of the offline demo planner: what a goal asks for, and what a tool output says.

Pure functions over strings, in Korean and English, so each rule can be tested alone and the
planner in :mod:`agent_core.providers.offline` stays a small state machine. Nothing here knows
the tool implementations; outputs are read tolerantly (JSON when it parses, text otherwise).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_core.text.lang import is_korean  # noqa: F401 (the planner imports it from here)

IntentKind = Literal[
    "price_total",
    "calculate",
    "weather",
    "word_count",
    "read_file",
    "search_web",
    "search_documents",
    "lookup",
    "greeting",
    "help",
]

_NUM = r"\d+(?:\.\d+)?"


@dataclass(frozen=True)
class Topic:
    """A fact the ``lookup`` tool knows, with its name in both languages."""

    key: str
    ko: str
    en: str
    pattern: re.Pattern[str]

    def name(self, korean: bool) -> str:
        """The topic in the goal's language."""
        return self.ko if korean else self.en


TOPICS: tuple[Topic, ...] = (
    Topic("unit_price", "단가", "unit price", re.compile(r"단가|가격|unit[\s-]*price|price|cost", re.I)),
    Topic("refund", "환불 정책", "refund policy", re.compile(r"환불|반품|refund|return policy|money back", re.I)),
    Topic("shipping", "배송", "shipping", re.compile(r"배송|택배|shipping|delivery", re.I)),
)


@dataclass(frozen=True)
class City:
    """A city as the goal wrote it, and its name in the other language when known."""

    name: str
    alias: str | None = None


# (English, Korean) names; the planner passes the goal's spelling first and the alias on error.
_CITIES: tuple[tuple[str, str], ...] = (
    ("Seoul", "서울"),
    ("Busan", "부산"),
    ("Incheon", "인천"),
    ("Daegu", "대구"),
    ("Daejeon", "대전"),
    ("Gwangju", "광주"),
    ("Jeju", "제주"),
    ("Tokyo", "도쿄"),
    ("Osaka", "오사카"),
    ("Beijing", "베이징"),
    ("Shanghai", "상하이"),
    ("New York", "뉴욕"),
    ("London", "런던"),
    ("Paris", "파리"),
    ("Berlin", "베를린"),
    ("Sydney", "시드니"),
    ("San Francisco", "샌프란시스코"),
    ("Los Angeles", "로스앤젤레스"),
    ("Singapore", "싱가포르"),
    ("Bangkok", "방콕"),
    ("Hong Kong", "홍콩"),
)
_NOT_CITIES = {"오늘", "내일", "현재", "지금", "이번", "주말", "요즘", "today", "now"}


@dataclass(frozen=True)
class Intent:
    """What the goal asks for: a kind, the rule that fired (shown in the UI) and its arguments."""

    kind: IntentKind
    rule: str
    args: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------- goal parsing

_EN_NUMBERS = {
    w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())
}
_KO_NUMBERS = {
    "한": 1,
    "두": 2,
    "세": 3,
    "네": 4,
    "다섯": 5,
    "여섯": 6,
    "일곱": 7,
    "여덟": 8,
    "아홉": 9,
    "열": 10,
}
_UNIT_WORDS = r"units?|items?|pcs|pieces?|products?|ea|boxes?|copies|widgets?"


def _as_number(text: str) -> int | float:
    value = float(text.replace(",", ""))
    return int(value) if value.is_integer() else value


def extract_quantity(goal: str) -> tuple[int | float, str] | None:
    """How many items the goal prices (``7개``, ``12 units``, ``five items``), and the unit word."""
    m = re.search(rf"({_NUM})\s*(개|{_UNIT_WORDS})(?![A-Za-z])", goal, re.I)
    if m:
        return _as_number(m.group(1)), m.group(2)
    m = re.search(rf"(?:제품|상품|물건)\s*({_NUM})", goal)
    if m:
        return _as_number(m.group(1)), "개"
    m = re.search(rf"\b({'|'.join(_EN_NUMBERS)})\s+({_UNIT_WORDS})\b", goal, re.I)
    if m:
        return _EN_NUMBERS[m.group(1).lower()], m.group(2)
    m = re.search(rf"({'|'.join(sorted(_KO_NUMBERS, key=len, reverse=True))})\s*개", goal)
    if m:
        return _KO_NUMBERS[m.group(1)], "개"
    m = re.search(rf"(?:quantity|qty|수량)\s*(?:of|:|=|은|는)?\s*({_NUM})", goal, re.I)
    if m:
        return _as_number(m.group(1)), "units"
    return None


_WORD_OPERATORS: tuple[tuple[str, str], ...] = (
    (r"\bmultiplied\s+by\b|\btimes\b|×|곱하기", " * "),
    (r"\bdivided\s+by\b|÷|나누기", " / "),
    (r"\bplus\b|더하기", " + "),
    (r"\bminus\b|빼기|−", " - "),
    (r"\bsquared\b|제곱", " ** 2"),
    (r"\^", " ** "),
)


def extract_expression(goal: str) -> str | None:
    """An arithmetic expression in the goal (digits and operators, after reading the words
    ``times``, ``plus``, ``x``, ``×``, ``15% of 200`` …), or None when there is none."""
    s = re.sub(r"\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\b", " ; ", goal)  # dates are not sums
    s = re.sub(r"(\d),(?=\d{3}(?!\d))", r"\1", s)
    s = _spelled_out(s)
    s = re.sub(rf"({_NUM})\s*%\s*(?:of|의)\s*({_NUM})", r"(\1 / 100 * \2)", s, flags=re.I)
    s = re.sub(rf"({_NUM})\s*의\s*({_NUM})\s*(?:%|퍼센트)", r"(\2 / 100 * \1)", s)
    for pattern, op in _WORD_OPERATORS:
        s = re.sub(pattern, op, s, flags=re.I)
    s = re.sub(r"(?<=[\d)])\s*[xX]\s*(?=[\d(])", " * ", s)
    best = None
    for m in re.finditer(r"[\d.\s+\-*/()%]+", s):
        cand = _balanced(re.sub(r"\s+", " ", m.group(0)).strip(" ."))
        cand = cand.rstrip("+-*/% ").strip()
        if re.search(r"\d\s*(?:\*\*|[+\-*/%])\s*[\d(]|\)\s*(?:\*\*|[+\-*/%])", cand):
            if best is None or len(cand) > len(best):
                best = cand
    return best


_CONVERSIONS: tuple[tuple[str, str], ...] = (
    # (pattern with the number as group 1, expression with {x})
    (rf"({_NUM})\s*(?:°\s*c|degrees? c(?:elsius)?|celsius|도)\b.*?(?:fahrenheit|화씨)", "{x} * 9 / 5 + 32"),
    (rf"(?:섭씨)\s*({_NUM})\s*도.*?화씨", "{x} * 9 / 5 + 32"),
    (rf"({_NUM})\s*(?:°\s*f|degrees? f(?:ahrenheit)?|fahrenheit)\b.*?(?:celsius|섭씨)", "({x} - 32) * 5 / 9"),
    (rf"(?:화씨)\s*({_NUM})\s*도.*?섭씨", "({x} - 32) * 5 / 9"),
    (rf"({_NUM})\s*(?:miles?|마일)\b.*?(?:km|kilomet|킬로)", "{x} * 1.609344"),
    (rf"(?:km|kilomet\w*|킬로미터)\b\D*?({_NUM})\s*(?:miles?|마일)", "{x} * 1.609344"),
    (rf"(?:fahrenheit|화씨)\D*?({_NUM})\s*(?:°\s*c|degrees? c(?:elsius)?|celsius)", "{x} * 9 / 5 + 32"),
    (rf"({_NUM})\s*(?:km|kilomet\w*|킬로미터)\b.*?(?:miles?|마일)", "{x} / 1.609344"),
    (rf"({_NUM})\s*(?:kg|kilo\w*|킬로그램)\b.*?(?:pounds?|lbs?|파운드)", "{x} * 2.20462"),
    (rf"({_NUM})\s*(?:pounds?|lbs?|파운드)\b.*?(?:kg|kilo|킬로)", "{x} / 2.20462"),
    (rf"({_NUM})\s*(?:inch(?:es)?|인치)\b.*?(?:cm|centimet|센티)", "{x} * 2.54"),
    (
        rf"(?:\$\s*)?({_NUM})\s*(?:dollars?)?\s*(?:with|at|minus|less)\s*({_NUM})\s*%\s*(?:off|discount)",
        "{x} * (100 - {y}) / 100",
    ),
    (rf"({_NUM})\s*%\s*(?:off|discount|할인)\s*(?:on|of|from)?\s*(?:\$\s*)?({_NUM})", "{y} * (100 - {x}) / 100"),
)


def _spelled_out(text: str) -> str:
    """Unit conversions, averages and discounts written in words, as arithmetic: ``22 °C to
    Fahrenheit`` → ``22 * 9 / 5 + 32``; ``average of 12, 18 and 27`` → ``(12 + 18 + 27) / 3``."""
    for pattern, template in _CONVERSIONS:
        m = re.search(pattern, text, re.I)
        if m:
            x, y = m.group(1), (m.group(2) if m.lastindex and m.lastindex > 1 else "")
            return text[: m.start()] + " " + template.format(x=x, y=y) + " " + text[m.end() :]
    m = re.search(rf"(?:average|mean|평균)\D*?((?:{_NUM}\s*(?:,|and|&|과|와|,\s*and)?\s*){{2,}})", text, re.I)
    if m:
        numbers = re.findall(_NUM, m.group(1))
        if len(numbers) >= 2:
            return f"({' + '.join(numbers)}) / {len(numbers)}"
    return text


def _balanced(text: str) -> str:
    """Drop unmatched parentheses at the ends (``what is (2+3)*4)`` → ``(2+3)*4``)."""
    while text.count("(") > text.count(")") and text.startswith("("):
        text = text[1:].strip()
    while text.count(")") > text.count("(") and text.endswith(")"):
        text = text[:-1].strip()
    return text


def extract_cities(goal: str) -> list[City]:
    """Cities named in the goal, in order; known ones carry their other-language name."""
    found: list[tuple[int, City]] = []
    for en, ko in _CITIES:
        m = re.search(rf"\b{re.escape(en)}\b", goal, re.I)
        if m:
            found.append((m.start(), City(en, ko)))
        elif ko in goal:
            found.append((goal.index(ko), City(ko, en)))
    if found:
        return [c for _, c in sorted(found, key=lambda pair: pair[0])]
    m = re.search(r"\b(?:in|for|at)\s+([A-Z][A-Za-z'.-]*(?:\s+[A-Z][A-Za-z'.-]*)*)", goal)
    if m and m.group(1).lower() not in {"fahrenheit", "celsius"}:
        return [City(m.group(1))]
    m = re.search(r"([가-힣A-Za-z]+?)(?:의|에서|에)?\s*(?:날씨|기온)", goal)
    if m and m.group(1) not in _NOT_CITIES:
        return [City(m.group(1))]
    return []


def extract_unit(goal: str) -> Literal["celsius", "fahrenheit"]:
    """``fahrenheit`` when the goal asks for it (°F, 화씨), else ``celsius``."""
    return "fahrenheit" if re.search(r"fahrenheit|°\s*f\b|화씨", goal, re.I) else "celsius"


_QUOTES = (
    r'"([^"]+)"',
    r"“([^”]+)”",
    r"「([^」]+)」",
    r"『([^』]+)』",
    r"‘([^’]+)’",
    r"(?<![\w])'([^']+)'(?![\w])",
)


def extract_quoted(goal: str) -> str | None:
    """The first quoted text in the goal (straight, curly or corner quotes)."""
    for pattern in _QUOTES:
        m = re.search(pattern, goal)
        if m and m.group(1).strip():
            return m.group(1)
    return None


def extract_text_to_count(goal: str) -> str | None:
    """The text whose words the goal wants counted: quoted, or after a colon."""
    quoted = extract_quoted(goal)
    if quoted:
        return quoted
    m = re.search(r"[:：]\s*(.+)$", goal, re.S)
    return (m.group(1).strip() or None) if m else None


def extract_path(goal: str) -> str | None:
    """A file name in the goal (``notes.txt``, ``docs/pricing.md``, ``환불안내.md``)."""
    m = re.search(
        r"(?<![\w/.-])([\w\-./]*\w\.(?:md|txt|json|csv|ya?ml|py|log|toml|ini|html?))(?![A-Za-z0-9])",
        goal,
    )
    return m.group(1) if m else None


def _clean_query(text: str) -> str:
    text = re.sub(r"^(?:the|a|an|for|about)\s+", "", text.strip(), flags=re.I)
    text = re.sub(r"\s*(?:을|를|이|가|은|는|에 대해서?|에 관해서?|관련된?|좀)$", "", text.strip())
    return text.strip(" \t.?!,\"'“”")


_DOC_QUERY_PATTERNS = (
    r"(?:search|find|look)\s+(?:in\s+|through\s+)?(?:the\s+|my\s+|our\s+)?"
    r"(?:documents?|docs|files|workspace)\s+(?:for|about|on|mentioning|with)\s+(.+)",
    r"(?:search|find|look)\s+(?:for\s+)?(.+?)\s+in\s+(?:the\s+|my\s+)?(?:documents?|docs|files|workspace)",
    r"(?:documents?|docs|files)\s+(?:about|on|mentioning|that mention|with)\s+(.+)",
    r"문서(?:에서|들에서|중에서|를|에)?\s*(.+?)\s*(?:을|를)?\s*(?:찾아|검색|찾기|알려)",
    r"(.+?)\s*(?:에 대한|에 관한|관련된?|이 들어간|가 들어간)?\s*문서",
    r"(.+?)\s*(?:을|를)?\s*(?:검색해|찾아)",
    r"(?:search|find)\s+(?:for\s+)?(.+)",
)


def _query(goal: str, patterns: tuple[str, ...]) -> str | None:
    """Quoted text, or the first pattern's words (cleaned of articles and particles)."""
    quoted = extract_quoted(goal)
    if quoted:
        return quoted.strip()
    for pattern in patterns:
        m = re.search(pattern, goal, re.I)
        if m and (query := _clean_query(m.group(1))):
            return query
    return None


def extract_search_query(goal: str) -> str | None:
    """What to search the workspace documents for: quoted text, or the words after "for"."""
    return _query(goal, _DOC_QUERY_PATTERNS)


_WEB_QUERY_PATTERNS = (
    r"(?:search|look\s+up|google|browse)\s+(?:on\s+)?(?:the\s+)?(?:web|internet|online)\s+"
    r"(?:for|about|on)?\s*(.+)",
    r"(?:search|look\s+up|find)\s+(?:for\s+)?(.+?)\s+(?:on|in)\s+(?:the\s+)?(?:web|internet)",
    r"(?:web|internet)\s+search\s+(?:for\s+)?(.+)",
    r"(?:웹|인터넷|온라인)(?:에서|으로)?\s*(.+?)\s*(?:을|를)?\s*(?:검색|찾아)",
    r"(.+?)\s*(?:을|를)?\s*(?:웹|인터넷)(?:에서|으로)?\s*(?:검색|찾아)",
)


def extract_web_query(goal: str) -> str | None:
    """What to search the web for."""
    return _query(goal, _WEB_QUERY_PATTERNS)


def find_topics(goal: str) -> list[Topic]:
    """Lookup topics the goal mentions, in order of appearance."""
    hits = [(m.start(), t) for t in TOPICS if (m := t.pattern.search(goal))]
    return [t for _, t in sorted(hits, key=lambda pair: pair[0])]


def extract_money(text: str) -> float | None:
    """The first money amount in a text: ``$500``, ``500달러``, ``500 dollars``, ``USD 500``."""
    m = re.search(
        r"\$\s*(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s*(?:달러|dollars?|usd\b)|usd\s*(\d[\d,]*(?:\.\d+)?)",
        text,
        re.I,
    )
    if not m:
        return None
    return float(next(g for g in m.groups() if g).replace(",", ""))


_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|yo|good (?:morning|afternoon|evening)|안녕|반가|하이|헬로)"
    r"|what can you do|who are you|help\b|도움말|뭘 할 수|무엇을 할 수|누구(?:야|세요|니)",
    re.I,
)
_WEATHER = re.compile(r"weather|forecast|temperature|날씨|기온|일기\s*예보", re.I)
_WEATHERISH = re.compile(r"warm|cold|hot|cool|rain|umbrella|sunny|snow|따뜻|더워|덥|추워|춥|시원|우산|비가|비 와", re.I)
COMPARE = re.compile(r"which|warmer|colder|hotter|cooler|어디가|어느|더 (?:따뜻|더워|덥|추워|춥|시원)", re.I)


def _known_cities(text: str) -> bool:
    return any(re.search(rf"\b{re.escape(en)}\b", text, re.I) or ko in text for en, ko in _CITIES)


_WORDS = re.compile(
    r"word\s*count|count\s+(?:the\s+)?words|how many words|number of words|단어\s*(?:수|개수)|단어를?\s*세",
    re.I,
)
_WEB = re.compile(r"\b(?:web|internet|online|google)\b|웹|인터넷|온라인", re.I)
_SEARCH = re.compile(r"\b(?:search|find|look\s+for)\b|documents?\b|\bdocs\b|문서|검색|찾아", re.I)
_FILE_VERB = re.compile(r"read|open|show|summar|content|읽|열어|요약|보여|내용", re.I)
_TOTAL = re.compile(r"total|cost|how much|총|합계|얼마|전체", re.I)


_QUESTION = re.compile(
    r"\?\s*$|^\s*(?:who|what|when|where|which|why|how|is|are|does|do|can|did)\b|누구|언제|어디|무엇|뭐|몇|얼마|어떻게|왜|인가요|나요|까\?*$",
    re.I,
)
_DETAIL = re.compile(
    r"express|international|abroad|overseas|fee\b|charge|how long|business days|discount|volume|tier"
    r"|request|july|august|meeting|notes|attend|decid|warranty|tax|invoice|payment|quote|contact|phone"
    r"|해외|특급|국제|며칠|걸려|걸리|할인|회의|참석|보증|결제|견적|연락|전화",
    re.I,
)
_QUESTION_FILLER = re.compile(
    r"\b(?:who|what|when|where|which|why|how|is|are|was|were|does|do|did|can|could|the|a|an|of|our|my|"
    r"your|i|we|it|its|much|many|there|tell|me|please|according|to)\b|[?!.,'\"]",
    re.I,
)


def _question_words(text: str) -> str:
    """The content words of a question, as a document search query."""
    words = _QUESTION_FILLER.sub(" ", text)
    return " ".join(words.split()) or text.strip()


def classify(goal: str) -> Intent:
    """Pick the one rule that fits the goal; the order settles overlaps (a price-and-quantity
    goal is a total, not a document search)."""
    text = goal.strip()
    if not text:
        return Intent("help", "empty goal → explain what I can do")
    if _WEATHER.search(text) or (_WEATHERISH.search(text) and _known_cities(text)):
        cities = extract_cities(text)
        return Intent(
            "weather",
            "goal mentions weather → get_weather per city",
            {"cities": cities, "unit": extract_unit(text)},
        )
    if _WORDS.search(text):
        quoted = extract_quoted(text)
        path = None if quoted else extract_path(text)
        words = quoted or (None if path else extract_text_to_count(text))
        return Intent(
            "word_count",
            "goal asks for a word count → word_count (after read_file when it names a file)",
            {"text": words, "path": path},
        )
    if _WEB.search(text) and (_SEARCH.search(text) or re.search(r"look\s*up|검색", text, re.I)):
        return Intent("search_web", "goal asks to search the web → search_web", {"query": extract_web_query(text)})
    path = extract_path(text)
    if path:
        return Intent(
            "read_file",
            f"goal names a file ({path}) → read_file",
            {"path": path, "verb": bool(_FILE_VERB.search(text))},
        )
    quantity = extract_quantity(text)
    topics = find_topics(text)
    expression = extract_expression(text)
    shipping = any(t.key == "shipping" for t in topics) and bool(re.search(r"free|무료", text, re.I))
    if (
        quantity
        and quantity[0] == 1
        and re.search(r"\b(?:one|a|per|each)\s+(?:unit|item|piece)\b|한 ?개|개당", text, re.I)
    ):
        quantity = None  # "how much does one unit cost?" is the unit price itself
    if quantity and not expression and (any(t.key == "unit_price" for t in topics) or _TOTAL.search(text) or shipping):
        return Intent(
            "price_total",
            "goal has a quantity and asks for a price → lookup the unit price, then multiply with calculator"
            + (", then compare with the free-shipping threshold" if shipping else ""),
            {"quantity": quantity[0], "unit_word": quantity[1], "shipping": shipping},
        )
    if expression:
        return Intent("calculate", "goal has an arithmetic expression → calculator", {"expression": expression})
    if _SEARCH.search(text) and extract_search_query(text):
        return Intent(
            "search_documents",
            "goal asks to search/find → search_documents",
            {"query": extract_search_query(text)},
        )
    policy = re.search(r"\bpolic(?:y|ies)\b|정책|규정|방침", text, re.I) is not None
    if (
        _QUESTION.search(text)
        and not _GREETING.search(text)
        and ((not topics and not policy) or (topics and _DETAIL.search(text)))
    ):
        return Intent(
            "search_documents",
            "a question about details no other rule knows → search_documents with its words",
            {"query": _question_words(text)},
        )
    if not topics:
        other = re.search(r"\b([A-Za-z]+(?:\s+[A-Za-z]+)?)\s+polic(?:y|ies)\b", text, re.I)
        other = other or re.search(r"([가-힣]+)\s*(?:정책|규정|방침)", text)
        if other and other.group(1).lower() not in {"the", "a", "your", "our", "what", "this"}:
            name = re.sub(r"^(?:the|your|our|a)\s+", "", other.group(0), flags=re.I)
            topics = [Topic("other", name, name, re.compile(re.escape(name)))]
    if topics:
        names = ", ".join(t.en for t in topics)
        return Intent(
            "lookup",
            f"goal asks about a known topic ({names}) → lookup",
            {"topics": topics, "amount": extract_money(text)},
        )
    if _GREETING.search(text):
        return Intent("greeting", "greeting or question about me → answer without tools")
    return Intent("help", "no rule matched → explain what I can do, without tools")


# ---------------------------------------------------------------- tool outputs


def parse_json(text: str) -> Any | None:
    """The output as JSON when it is JSON, else None."""
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


_NUMBER_KEYS = ("result", "value", "words", "word_count", "count", "total")


def parse_number(text: str) -> float | None:
    """A numeric tool result: JSON ``{"result": …}`` (or ``words``, ``count`` …), a bare number,
    else the last number in the text."""
    data = parse_json(text)
    if isinstance(data, dict):
        data = next((data[k] for k in _NUMBER_KEYS if k in data), None)
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return float(data)
    numbers = re.findall(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?", str(text).replace(",", ""), re.I)
    return float(numbers[-1]) if numbers else None


def plain_number(value: float) -> str:
    """A number as an expression operand: ``24.0`` → ``24``, no separators."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def fmt_number(value: float) -> str:
    """``168.0`` → ``168``; other floats with up to 10 significant digits; thousands separated."""
    if math.isfinite(value) and abs(value - round(value)) < 1e-9:
        return f"{int(round(value)):,}"
    return f"{value:,.10g}" if abs(value) >= 1000 else f"{value:.10g}"


def parse_json_loose(text: str) -> Any | None:
    """JSON, also after leading note lines (``[fallback: …]``) that a dispatcher may add."""
    data = parse_json(text)
    if data is not None:
        return data
    lines = str(text).splitlines()
    for i, line in enumerate(lines[:5]):
        if line.lstrip().startswith(("{", "[")) and i > 0:
            return parse_json("\n".join(lines[i:]))
    return None


def search_hits(text: str) -> list[str]:
    """Search results as one-line strings, from JSON (a list, or a dict with ``results``) or
    from the text's non-empty lines."""
    data = parse_json_loose(text)
    if isinstance(data, dict):
        for key in ("results", "hits", "documents", "items"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
    if isinstance(data, list):
        return [_hit_line(item) for item in data if _hit_line(item)]
    return [line.strip() for line in str(text).splitlines() if line.strip()][:5]


def _hit_line(item: Any) -> str:
    if not isinstance(item, dict):
        return str(item).strip()
    title = next((str(item[k]) for k in ("document", "title", "name", "path", "file", "source") if item.get(k)), "")
    where = f"p. {item['page']}" if isinstance(item.get("page"), int) else ""
    where = where or next(
        (
            str(item[k])
            for k in ("section", "heading", "path", "file", "source", "url")
            if item.get(k) and str(item[k]) != title
        ),
        "",
    )
    body = next((str(item[k]) for k in ("snippet", "content", "text", "excerpt", "summary") if item.get(k)), "")
    body = " ".join(body.split())
    if len(body) > 160:
        body = body[:157] + "…"
    head = f"{title} › {where}" if title and where else title or where
    return f"{head} — {body}" if head and body else head or body


def shorten(text: str, limit: int = 300) -> str:
    """One line, at most ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
