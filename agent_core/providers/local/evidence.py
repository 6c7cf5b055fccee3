"""Evidence for the local model's answer: the sentences of the tool results that answer the goal,
and whether the thing asked about is in the results at all.

Told in general words ("use only the results; if they do not contain what was asked, say not
found"), Qwen2.5-Coder-1.5B still mixed facts: asked for the fee of an international order under
$500 it answered "free" (the lookup said "free shipping on orders of $500 or more", the search
"$15 … inside Korea and $35 for international delivery"); asked how many years the warranty
lasts it answered "30 days" (the refund window: no document gives a warranty period); asked for
the support phone number (in Korean) it gave the e-mail address. So the answer step is told, in
its own words:

- which sentence answers (:func:`pick_evidence`): the result sentences scored by the goal's words
  (weighted by how rare they are among the results; Korean goal words also meet their English
  counterparts, :data:`CONCEPTS`) and by the goal's own conditions ("under $500" meets "under
  $500", not "$500 or more"); of a sentence with several figures, the clause with the goal's
  distinguishing word ("$35 for international delivery");
- what is missing (:func:`not_found`): a word of the goal that no result contains (under any form
  :data:`CONCEPTS` knows), or a figure asked for ("how many years", "언제") that no clause about
  the subject gives.

Everything here is pure (no model needed), so it is unit-tested without the model.
"""

from __future__ import annotations

import functools
import json
import math
import re
import unicodedata
from collections.abc import Sequence, Set
from dataclasses import dataclass

from agent_core.context import ContextBlock
from agent_core.text.number_words import with_digits
from agent_core.tools.docsearch import tokenize

_HANGUL = re.compile(r"[\uac00-\ud7a3]")

EVIDENCE_TOOLS = frozenset({"lookup", "search_documents", "read_file", "search_web"})
"""Tools whose results are text to read (the figures of the calculator and the weather are
required facts of their own, :func:`~agent_core.providers.local.plan.required_facts`)."""

CONCEPTS: tuple[tuple[str, ...], ...] = (
    # A concept's forms in English and Korean: a goal word that is one of them is present in the
    # results when any of them is. English forms are matched as words (after the search's stemming),
    # Korean ones as parts of words.
    ("phone", "telephone", "tel", "hotline", "call", "전화", "전화번호"),
    ("email", "e-mail", "mail", "메일", "이메일"),
    ("contact", "support", "email", "연락", "연락처", "문의", "고객센터", "상담"),
    ("customer service", "support", "고객센터", "고객 센터", "고객지원", "상담"),
    ("warranty", "guarantee", "보증", "워런티"),
    ("ceo", "chief executive", "president", "founder", "owner", "대표", "대표이사", "사장", "창업자", "설립자"),
    ("hours", "opening", "open", "weekday", "am", "pm", "영업시간", "운영시간", "평일", "오전", "오후"),
    # One topic for the lookup tool too ("return" looks up the refund policy).
    (
        "refund",
        "money back",
        "money",
        "reimburse",
        "reimbursed",
        "reimbursement",
        "return",
        "returned",
        "환불",
        "반품",
        "돌려",
    ),
    ("ship", "shipping", "delivery", "deliver", "parcel", "배송", "배달", "택배"),
    ("price", "cost", "fee", "charge", "pay", "가격", "비용", "요금", "수수료", "배송비", "단가", "금액"),
    (
        "international",
        "abroad",
        "overseas",
        "foreign",
        "해외",
        "국제",
        "외국",
        # Countries: the policies speak of "international delivery", not of each country.
        "usa",
        "america",
        "canada",
        "china",
        "japan",
        "uk",
        "england",
        "germany",
        "france",
        "australia",
        "미국",
        "중국",
        "일본",
        "영국",
        "독일",
        "프랑스",
        "호주",
        "캐나다",
    ),
    ("domestic", "korea", "국내", "한국"),
    ("express", "next business day", "특급", "빠른", "익일"),
    ("discount", "tier", "할인"),
    ("meeting", "회의"),
    ("address", "주소"),
    ("payment", "pay", "card", "bank transfer", "결제", "카드", "계좌", "송금"),
    ("tax", "vat", "세금", "부가세"),
    ("damaged", "broken", "파손", "고장"),
    ("lost", "missing", "분실"),
    ("late", "delayed", "delay", "지연", "늦"),
    ("cancel", "cancellation", "취소"),
    ("exchange", "replace", "replacement", "replaced", "교환"),
    ("repair", "repaired", "수리"),
    ("warehouse", "창고", "물류"),
    ("free", "무료"),
    ("attendee", "attended", "attend", "참석"),
    ("window", "within", "deadline", "time limit", "이내", "안에", "기한"),
    ("request", "apply", "ask", "신청", "요청"),
    ("take", "takes", "걸리", "걸려", "걸립", "소요"),
    ("share", "percent", "percentage", "proportion", "rate", "ratio", "%", "비율", "퍼센트"),
    ("note", "notes", "minutes", "메모", "노트", "회의록"),
    ("currency", "dollar", "dollars", "usd", "us dollars", "$", "달러"),
    ("answer", "reply", "respond", "response", "답변", "응답", "회신"),
    ("propose", "proposal", "suggest", "제안"),
)

_GENERIC_EN = frozenset(
    stem
    for word in """about after again also any anything ask asked before company companies currently current day days
    detail details does doing exact exactly find get give go going happen happens have hour hours info information
    item items kind know last like long main mean means minute minutes month months much name need now number
    numbers official ok okay one please policy policies possible product products say says see show something
    take takes tell thing things time today type use used want way week weeks work works year years yes no
    customer customers our store shop service services current latest exist exists available offer offers
    there their provide provided let lets whose whom under over above below more less inside outside between
    per each every all some other only just still same different very really according total sum word words""".split()
    for stem in tokenize(word)
)
"""English words that never make a goal "not found" on their own: question words, time units, the
shop and its products (every result is about them)."""

_KINDS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = (
    # (kind, how a goal asks for it, how a result gives it)
    (
        "duration",
        re.compile(
            r"\bhow (?:long|soon|many (?:business |working )?(?:days|weeks|months|years|hours))\b|며칠|몇 ?(?:일|주|개월|달|년|시간)"
            r"|기간|걸려|걸리|within how",
            re.IGNORECASE,
        ),
        re.compile(
            r"\d\s*(?:(?:~|-|–|to)\s*\d+\s*)?(?:business |working |calendar )?(?:days?|weeks?|months?|years?|hours?)\b"
            r"|\d\s*(?:~|-)?\s*\d*\s*(?:일|주|개월|년|시간)|next business day|two business days",
            re.IGNORECASE,
        ),
    ),
    (
        "date",
        re.compile(
            r"\bwhen\b|\bwhat (?:time|date|day)\b|\bwhich (?:day|date)\b|언제|날짜|며칠에|몇 ?월", re.IGNORECASE
        ),
        re.compile(
            r"\d{4}-\d\d-\d\d|\d+월 ?\d+일|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d|\d ?(?:am|pm)\b"
            r"|\d+시",
            re.IGNORECASE,
        ),
    ),
    (
        "money",
        re.compile(r"\bhow much\b|\bcost|\bprice|\bfee\b|\bcharge|얼마|가격|비용|요금|배송비", re.IGNORECASE),
        re.compile(r"\$\s?\d|\d\s*(?:달러|dollars?\b|usd\b|원\b)", re.IGNORECASE),
    ),
    ("share", re.compile(r"\bshare\b|percent|%|비율|퍼센트|몇 ?%", re.IGNORECASE), re.compile(r"\d\s*%")),
)
"""Kinds of figure a goal may ask for, and how a result sentence gives one."""


def asked_kinds(goal: str) -> list[str]:
    """The kinds of figure ``goal`` asks for (``duration``, ``date``, ``money``, ``share``)."""
    text = _norm(goal)
    return [kind for kind, asks, _ in _KINDS if asks.search(text)]


def gives_kind(kind: str, text: str) -> bool:
    """Whether ``text`` gives a figure of ``kind``."""
    return any(k == kind and gives.search(text) for k, _, gives in _KINDS)


_DIGIT = re.compile(r"\d")
_SENTENCE_END = re.compile(r"(?<=[.!?。;])\s+|\n+")
_CLAUSE = re.compile(r",\s+(?:but|and|while|or|so)\s+|;\s*|,\s+|\s+but\s+|(?<=다),|(?<=지만)\s")
_MONEY = r"\$\s?(\d[\d,]*(?:\.\d+)?)"
_CONDITION = re.compile(
    r"(?P<lt_word>under|below|less than|smaller than|up to)\s+"
    + _MONEY.replace("(\\d", "(?P<lt_value>\\d", 1)
    + r"|(?P<ge_word>over|above|more than|at least|from)\s+"
    + _MONEY.replace("(\\d", "(?P<ge_value>\\d", 1)
    + r"|"
    + _MONEY.replace("(\\d", "(?P<ge2_value>\\d", 1)
    + r"\s*(?:or more|or above|and above|and up|이상|초과)"
    + r"|"
    + _MONEY.replace("(\\d", "(?P<lt2_value>\\d", 1)
    + r"\s*(?:or less|or below|미만|이하)"
    + r"|(?P<ko_value>\d[\d,]*)\s*달러\s*(?P<ko_word>이상|초과|미만|이하)",
    re.IGNORECASE,
)


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def conditions(text: str) -> set[tuple[str, float]]:
    """The amount conditions of ``text``: ``("<", 500)`` for "under $500", "$500 미만";
    ``(">=", 500)`` for "$500 or more", "over $500", "500달러 이상"."""
    found: set[tuple[str, float]] = set()
    for m in _CONDITION.finditer(_norm(text)):
        groups = m.groupdict()
        if groups["ko_value"]:
            side = "<" if groups["ko_word"] in ("미만", "이하") else ">="
            raw = groups["ko_value"]
        elif groups["lt_value"] or groups["lt2_value"]:
            side, raw = "<", groups["lt_value"] or groups["lt2_value"]
        else:
            side, raw = ">=", groups["ge_value"] or groups["ge2_value"]
        try:
            found.add((side, float(raw.replace(",", ""))))
        except ValueError:
            continue
    return found


# ---------------------------------------------------------------------------------------------
# The result sentences


@dataclass(frozen=True)
class Sentence:
    """One sentence of a tool result; ``context`` is where it stands (the document and section
    names a search gives), which counts for the words it matches but is not shown."""

    text: str
    tool: str
    context: str = ""

    @property
    def scored_text(self) -> str:
        return f"{self.text}\n{self.context}" if self.context else self.text


def _split(text: str) -> list[str]:
    out = []
    for line in _SENTENCE_END.split(text):
        line = re.sub(r"^\s*(?:[-*+]|\d+[.)]|#+)\s+", "", line).replace("**", "").strip()
        if len(line) > 2 and not re.fullmatch(r"[\s|:-]+", line):
            out.append(line)
    return out


def result_sentences(blocks: Sequence[ContextBlock]) -> list[Sentence]:
    """The sentences of the successful text results (lookup, search, files), in order, each once."""
    out: list[Sentence] = []
    for block in blocks:
        calls = {c.call_id: c.arguments for c in block.tool_calls}
        for output in block.outputs:
            if output.is_error or output.name not in EVIDENCE_TOOLS or output.output.startswith("No results"):
                continue
            hits = _hits(output.output) if output.name in ("search_documents", "search_web") else None
            if hits is not None:
                for context, snippet in hits:
                    out.extend(Sentence(s, output.name, context) for s in _split(snippet))
            else:
                arguments = calls.get(output.call_id)
                path = arguments.get("path", "") if isinstance(arguments, dict) else ""
                read = output.output[:MAX_READ_CHARS]
                out.extend(Sentence(s, output.name, str(path)) for s in _split(read))
    return list(dict.fromkeys(out))


MAX_READ_CHARS = 40_000
"""Of a long file, the part read for evidence: a 225 KB read_file output took 3.3 s a reading, read
twice or more per answer step (a prompt's context holds far less of it anyway)."""


def _hits(output: str) -> list[tuple[str, str]] | None:
    """``(document and section, snippet)`` of a search's JSON hits, None when it is not such a list."""
    try:
        data = json.loads(output)
    except (ValueError, RecursionError):  # "[[[[…" nested past the parser's depth
        return None
    if not isinstance(data, list):
        return None
    hits = []
    for hit in data:
        if isinstance(hit, dict):
            text = hit.get("snippet") or hit.get("text") or hit.get("content") or ""
            names = [hit.get(k) for k in ("document", "section", "title", "url")]
            if isinstance(text, str) and text.strip():
                hits.append((" / ".join(str(n) for n in names if isinstance(n, str) and n), text))
    return hits


# ---------------------------------------------------------------------------------------------
# Goal words and their forms


@functools.lru_cache(maxsize=4096)
def _concept_forms(word: str) -> frozenset[str]:
    """Every form of the concepts ``word`` is a form of (itself when none)."""
    forms = {word}
    korean = bool(_HANGUL.search(word))
    for concept in CONCEPTS:
        for form in concept:
            if (korean and _HANGUL.search(form) and form in word) or (not korean and _stem_all(form) == word):
                forms.update(concept)
    return frozenset(forms)


def _stem_all(text: str) -> str:
    return " ".join(tokenize(text))


_FILE_NAME = re.compile(r"[\w.-]+\.(?:txt|md|csv|json)\b", re.IGNORECASE)
_SEARCH_WORDS = frozenset(
    t
    for w in "document documents doc docs file files search find look workspace read open show summarize summarise".split()
    for t in tokenize(w)
)
_SEARCH_WORDS_KO = ("문서", "파일", "검색", "찾아", "찾아줘", "알려")
"""Words of a request to search, not of the thing searched for."""

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|[\uac00-\ud7a3]+")


def _goal_pairs(goal: str) -> list[tuple[str, str]]:
    """``(word, as written)`` for the goal's words that carry meaning: English words stemmed as the
    search stems them (its stop words dropped), Korean words with their particles stripped."""
    pairs: list[tuple[str, str]] = []
    for raw in _WORD.findall(_FILE_NAME.sub(" ", _norm(goal))):  # a file named is no thing asked about
        tokens = tokenize(raw.replace("'s", ""))
        if _HANGUL.search(raw) and len(raw) < 2:
            continue  # "해", "뭐": as a part of words it is everywhere ("안내해")
        if tokens and (tokens[0] in _SEARCH_WORDS or tokens[0].startswith(_SEARCH_WORDS_KO)):
            continue  # "문서에서 환불 찾아줘" asks about the refund, not about a document
        if tokens and tokens[0] not in [w for w, _ in pairs]:
            pairs.append((tokens[0], tokens[0] if _HANGUL.search(raw) else raw.strip("'")))
    return pairs


def goal_words(goal: str) -> list[str]:
    """The goal's words that carry meaning (see :func:`_goal_pairs`), in order."""
    return [w for w, _ in _goal_pairs(goal)]


@functools.lru_cache(maxsize=8192)
def _tokens(text: str) -> frozenset[str]:
    return frozenset(tokenize(text))


@functools.lru_cache(maxsize=4096)
def _stems(form: str) -> tuple[str, ...]:
    return tuple(tokenize(form))


def _present(form: str, text_tokens: Set[str], text: str) -> bool:
    if _HANGUL.search(form) or not re.search(r"\w", form):
        return form in text
    stems = _stems(form)
    if not stems:
        return False
    if len(stems) == 1:
        stem = stems[0]
        if stem in text_tokens:
            return True
        # The search's stemming is light: "proposed" → "propos", "propose" → "propose".
        # "internationally" → "internationally", "international" → "international".
        return len(stem) >= 5 and any(
            (t.startswith(stem[:-1]) and len(t) <= len(stem) + 2)
            or (len(t) >= 5 and stem.startswith(t) and len(stem) <= len(t) + 3)
            for t in text_tokens
        )
    return form.casefold() in text.casefold()


def word_present(word: str, text: str, tokens: Set[str] | None = None) -> bool:
    """Whether ``word`` (a :func:`goal_words` word) or another form of its concept is in ``text``."""
    tokens = _tokens(text) if tokens is None else tokens
    return any(_present(form, tokens, text) for form in _concept_forms(word))


def _specific(word: str) -> bool:
    """A word that names something the results must mention for the goal to be answered."""
    if _HANGUL.search(word):
        # A Korean word counts where a concept knows it (the documents are mostly English: an
        # unknown Korean word says nothing about them).
        return len(_concept_forms(word)) > 1
    return len(word) >= 3 and word.isalpha() and word not in _GENERIC_EN


_PARTS = re.compile(
    r"\?\s*|,\s*(?:and\s+)?(?=(?:what|how|when|who|which|where|is|are|do|does|can|and)\b)"
    r"|\s+and\s+(?=(?:what|how|when|who|which|where|is|are|do|does|can)\b)|(?<=[고며])\s+(?=\S+\s*(?:은|는|이|가)\s)",
    re.IGNORECASE,
)


def goal_parts(goal: str) -> list[str]:
    """The questions of a goal ("What's the unit price, and how long is the refund window?": two)."""
    parts = [p.strip(" ,.") for p in _PARTS.split(_norm(goal))]
    return [p for p in parts if any(_specific(w) for w in goal_words(p))] or [goal]


# ---------------------------------------------------------------------------------------------
# Evidence


def _weights(words: Sequence[str], sentences: Sequence[Sentence]) -> dict[str, float]:
    """Per goal word, how rare it is among the sentences (a word every sentence has tells none apart)."""
    n = len(sentences)
    weights = {}
    for word in words:
        df = sum(1 for s in sentences if word_present(word, s.scored_text))
        weights[word] = math.log(1 + (n + 1) / (df + 0.5)) if df else 0.0
    return weights


def _condition_bonus(wanted: set[tuple[str, float]], text: str) -> float:
    bonus = 0.0
    for side, value in conditions(text):
        for want_side, want_value in wanted:
            if value == want_value:
                bonus += 1.5 if side == want_side else -1.5
    return bonus


def scored_sentences(goal: str, blocks: Sequence[ContextBlock]) -> list[tuple[float, Sentence]]:
    """Every result sentence with its score for ``goal``, best first (ties: result order).

    The score: the goal's words it has (under any form of their concept), each weighted by its
    rarity among the sentences; plus one for
    a figure of the kind asked (a duration for "며칠"), plus or minus one and a half for an amount
    condition the goal sets itself ("under $500" against "under $500" or "$500 or more").
    """
    sentences = result_sentences(blocks)
    if not sentences:
        return []
    words = goal_words(goal)
    weights = _weights(words, sentences)
    wanted = conditions(goal)
    kinds = asked_kinds(goal)
    scored = []
    for i, sentence in enumerate(sentences):
        text = sentence.scored_text
        tokens = _tokens(text)
        matched = [w for w in words if word_present(w, text, tokens)]
        # A sentence that meets only question words and the like ("use" of "Which carrier do you
        # use?" in "no signs of use") answers nothing.
        score = sum(weights[w] for w in matched) if any(_specific(w) for w in matched) else 0.0
        if score > 0:
            score += sum(1.0 for kind in kinds if gives_kind(kind, sentence.text))
            score += _condition_bonus(wanted, sentence.text)
        scored.append((score, i, sentence))
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [(score, s) for score, _, s in scored]


MAX_EVIDENCE = 3
NEAR_BEST = 0.8
"""A second sentence is shown only when it scores nearly as well as the best: shown three, the
model took "2일 안에" (the reply to a refund request) for the refund window."""
MAX_EVIDENCE_CHARS = 260


def pick_evidence(goal: str, blocks: Sequence[ContextBlock], limit: int = MAX_EVIDENCE) -> list[str]:
    """The result sentences that answer ``goal``, best first: per question of the goal
    (:func:`goal_parts`) its best sentence (of a one-question goal also the next one when it scores
    :data:`NEAR_BEST` of it), at most ``limit`` in all (none when nothing shares a word with the goal). Of a one-question goal, a
    sentence with several amounts is cut to the clause the goal's distinguishing words point to
    (:func:`focus_clause`)."""
    goal = with_digits(goal)  # "under five hundred dollars" sets the $500 condition too
    parts = goal_parts(goal)
    picked: list[str] = []
    per_part = 2 if len(parts) == 1 else 1
    for part in parts:
        scored = scored_sentences(part, blocks)
        if not scored or scored[0][0] <= 0:
            continue
        best = scored[0][0]
        taken = 0
        for score, sentence in scored:
            if taken >= per_part or len(picked) >= limit or score < best * NEAR_BEST or score <= 0:
                break
            text = sentence.text
            if len(text) > MAX_EVIDENCE_CHARS:
                text = text[:MAX_EVIDENCE_CHARS].rstrip() + "…"
            # Of a sentence with several amounts, only the clause asked about: shown the whole
            # sentence with a pointer to the clause, the model copied the whole, "$15" and all.
            clause = focus_clause(goal, sentence.text) if len(parts) == 1 else None
            line = clause or text
            if line not in picked:
                picked.append(line)
                taken += 1
    return picked


_FIGURE_VALUE = re.compile(r"(?<![\w.])\$?\s?(\d[\d,]*(?:\.\d+)?)")
_MONEY_FIGURE = re.compile(r"\$\s?\d|\d\s*(?:달러|dollars?\b|USD\b|원)", re.IGNORECASE)
_CLAUSE_SPLIT = re.compile(r",\s+|;\s*|\s+and\s+(?=\$|\d)|\s+or\s+(?=\$|\d)|\s+및\s+")


def _value(raw: str) -> float | None:
    try:
        return float(raw.replace(",", ""))
    except ValueError:
        return None


def _same_kind(kind: str, clause: str) -> bool:
    return bool(_MONEY_FIGURE.search(clause)) if kind == "money" else gives_kind(kind, clause)


def focus_clause(goal: str, sentence: str) -> str | None:
    """Of a sentence that gives several amounts of money (or durations), the clause with a goal word
    the other figure clauses lack: "Orders under $500 pay a flat shipping fee of $35 for international
    delivery" of "Orders under $500 pay a flat shipping fee of $15 for standard delivery inside
    Korea and $35 for international delivery" for an international order ("해외 배송비 $35가
    붙습니다" of "…국내 일반 배송비 $15, 해외 배송비 $35가 붙습니다"). The words before the first
    figure the goal does not itself name are the sentence's shared lead: they tell no clause apart,
    and they go with a clause that names its figure after it. None when no one clause stands out."""
    asked = {v for m in _FIGURE_VALUE.finditer(_norm(goal)) if (v := _value(m.group(1))) is not None}
    figures = [m for m in _FIGURE_VALUE.finditer(sentence) if _value(m.group(1)) not in asked]
    if len(figures) < 2:
        return None
    rest = sentence[figures[0].start() :]
    clauses = [c.strip(" .") for c in _CLAUSE_SPLIT.split(rest)]
    with_figures = [c for c in clauses if any(_value(m.group(1)) not in asked for m in _FIGURE_VALUE.finditer(c))]
    if len(with_figures) < 2 or not any(
        all(_same_kind(kind, c) for c in with_figures) for kind in ("money", "duration")
    ):
        return None
    words = [w for w in goal_words(goal) if _specific(w) and not all(word_present(w, c) for c in with_figures)]
    counts = [sum(1 for w in words if word_present(w, c)) for c in with_figures]
    best = max(counts)
    if best == 0 or counts.count(best) != 1:
        return None
    clause = with_figures[counts.index(best)]
    if len(clause) > 120:
        return None
    lead = sentence[: figures[0].start()].strip()
    if lead and _FIGURE_VALUE.match(clause):
        # "$35 for international delivery" names its figure after it, so the sentence's lead
        # ("Orders under $500 pay a flat shipping fee of") belongs to it as much as to the first.
        return f"{lead} {clause}"
    return clause


# ---------------------------------------------------------------------------------------------
# Not found


@dataclass(frozen=True)
class Missing:
    """What the results lack for the goal: ``terms`` (its words no result has, under any form), or
    ``figure_of`` (the subject whose figure was asked for, that no clause about it gives)."""

    terms: tuple[str, ...] = ()
    figure_of: str = ""

    def __bool__(self) -> bool:
        return bool(self.terms or self.figure_of)


_OTHER_TOOLS = frozenset({"calculator", "get_weather", "word_count"})
_DOCUMENT_TOOLS = frozenset({"search_documents", "read_file", "search_web"})


def not_found(goal: str, blocks: Sequence[ContextBlock]) -> Missing:
    """What ``goal`` asks for that the text results do not hold, for a goal answered from text
    results alone (lookup, search, files; a goal that also needed the weather or the calculator
    has words those answer) with the documents among them.

    - A specific word of the goal (not a question word, a time unit or the shop and its products;
      a Korean word only where :data:`CONCEPTS` knows it) that no result has under any form of its
      concept ("전화번호" is looked for as "phone" too, "Japan" as "international"), where no
      result sentence has two of the goal's other specific words either (then the results are
      about something else: "the phone number of the support" meets "support" alone).
    - A duration or a date asked for ("how many years", "언제"), where no clause with any of the
      goal's specific words gives one: "products still under warranty can be repaired" gives no
      period, and "After 30 days" before it is the refund window. Named by the goal word the
      fewest sentences have.
    """
    goal = with_digits(goal)  # "under five hundred dollars" sets the $500 condition too
    outputs = [o for b in blocks for o in b.outputs if not o.is_error]
    if not outputs or any(o.name in _OTHER_TOOLS for o in outputs):
        return Missing()
    if not any(o.name in _DOCUMENT_TOOLS and not o.output.startswith("No results") for o in outputs):
        # The lookup alone answers a narrow question in its own words ("What is the return
        # policy?" gets the refund policy): what it lacks says nothing about the documents.
        return Missing()
    sentences = result_sentences(blocks)
    if not sentences:
        return Missing()
    text = "\n".join(s.scored_text for s in sentences)
    tokens = _tokens(text)
    pairs = [(w, raw) for w, raw in _goal_pairs(goal) if _specific(w)]
    absent = [(w, raw) for w, raw in pairs if not word_present(w, text, tokens)]
    present = [w for w, _ in pairs if (w, _) not in absent]
    if absent:
        most = max((sum(1 for w in present if word_present(w, s.scored_text)) for s in sentences), default=0)
        return Missing(tuple(raw for _, raw in absent)) if most < 2 else Missing()
    kinds = [k for k in asked_kinds(goal) if k in ("duration", "date")]
    if not kinds or not present:
        return Missing()
    clauses = [c for s in sentences for c in _CLAUSE.split(s.text) if c and any(word_present(w, c) for w in present)]
    if not clauses or any(gives_kind(k, c) for k in kinds for c in clauses):
        return Missing()
    counts = {w: sum(1 for s in sentences if word_present(w, s.text)) for w in present}
    subject = min(present, key=lambda w: (counts[w] or len(sentences) + 1, present.index(w)))
    if counts[subject] > MAX_SUBJECT_SENTENCES:
        # Results full of the subject but without the figure: the search more likely missed the
        # section that has it ("shipping to the US" found the fees, not the delivery times).
        return Missing()
    return Missing(figure_of=next(r for w, r in pairs if w == subject))


MAX_SUBJECT_SENTENCES = 3
"""A subject the results mention in more sentences than this is no passing mention."""


def must_say_not_found(goal: str, blocks: Sequence[ContextBlock]) -> bool:
    """Whether the answer must be a "not found" (:func:`not_found` found something missing)."""
    return bool(not_found(goal, blocks))


def evidence_lines(goal: str, blocks: Sequence[ContextBlock]) -> list[str]:
    """The reminder's lines: what the results lack (and the answer must say was not found), else
    the result sentences that answer. Nothing for a goal the calculator or the weather answered:
    the figures its answer must state are required already, and a policy sentence beside them
    only competes with them."""
    if any(o.name in _OTHER_TOOLS and not o.is_error for b in blocks for o in b.outputs):
        return []
    missing = not_found(goal, blocks)
    if missing.figure_of:
        return [
            f'The results mention "{missing.figure_of}" but give no such figure for it (a figure near it is '
            "about something else). Say plainly that this was not found; give no figure for it."
        ]
    if missing.terms:
        names = ", ".join(f'"{t}"' for t in missing.terms[:3])
        return [f"The results do not mention {names}. Say plainly that it was not found."]
    evidence = pick_evidence(goal, blocks)
    if not evidence:
        return []
    # Joined as sentences: the model copies the line, and copied " / " between them too.
    return ["The result that answers this: " + " ".join(e if e[-1] in ".!?。;" else e + "." for e in evidence)]


# ---------------------------------------------------------------------------------------------
# Shorter search results


_TABLE_ROW = re.compile(r"^[^,;]+(?:, [^,;]+)+;$")


def compact_search(goal: str, output: str) -> str | None:
    """A search's JSON hits as plain lines, each with only the sentences that share a word with the
    goal (``[refund_policy.md › Refund window] You can request a refund within 30 days …``); None
    when ``output`` is no list of hits.

    The model reads every prompt token at ~31 tokens/s on two cores: the indented JSON with its
    scores cost ~30 tokens a hit, and sentences about something else cost more and drew the model
    to them. The best hit is kept whole (the search ranked it first for a reason, and a word the
    goal says differently would lose it); of the others, a hit none of whose sentences shares a
    word is left out.
    """
    goal = with_digits(goal)  # "under five hundred dollars" sets the $500 condition too
    try:
        data = json.loads(output)
    except ValueError:
        return None
    if not isinstance(data, list) or not data or not all(isinstance(h, dict) for h in data):
        return None
    words = goal_words(goal)
    lines = []
    for rank, hit in enumerate(data):
        text = hit.get("snippet") or hit.get("text") or hit.get("content")
        if not isinstance(text, str) or not text.strip():
            return None  # not the shape this knows: shown as it is
        names = [str(hit[k]) for k in ("document", "section", "title", "url") if isinstance(hit.get(k), str) and hit[k]]
        if len(names) == 2 and names[1].casefold() == names[0].rsplit(".", 1)[0].casefold():
            names = names[:1]
        sentences = _split(text)
        kept = sentences if rank == 0 else [s for s in sentences if any(word_present(w, s) for w in words)]
        if not kept:
            continue
        # The rows of a table stay with it: "100 to 499, 5%, $22.80;" shares no word with
        # "150 units after the volume discount" and is what the calculator needs.
        kept = [s for s in sentences if s in kept or (_TABLE_ROW.match(s) and _DIGIT.search(s))]
        lines.append(f"[{' › '.join(names)}] " + " ".join(kept))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# A Korean goal against English documents


def english_query(goal: str) -> str | None:
    """English words for a Korean goal, from :data:`CONCEPTS` (the first English form of each
    concept a goal word belongs to, in the goal's order) and the goal's own English words; None
    when the goal is not Korean or no word of it is known ("특급 배송은 얼마예요?" → "express ship
    price")."""
    if not _HANGUL.search(goal):
        return None
    words: list[str] = []
    for raw in _WORD.findall(_norm(goal)):
        if not _HANGUL.search(raw):
            words.extend(w for w in [raw.lower()] if w not in words and tokenize(w))
            continue
        word = (tokenize(raw) or [raw])[0]
        for concept in CONCEPTS:
            if any(_HANGUL.search(f) and f in word for f in concept):
                english = next((f for f in concept if f.isascii() and re.search(r"[a-z]", f)), None)
                if english and english not in words:
                    words.append(english)
    return " ".join(words)[:60] or None


def english_search(goal: str, blocks: Sequence[ContextBlock]) -> str | None:
    """The English query to search once more with, for a Korean goal whose search results (in
    Korean words, so mostly the one Korean document) lack what was asked: the documents are mostly
    English, and "특급" (express) is only in them. None when not needed or already done."""
    if not _HANGUL.search(goal):
        return None
    queries = [
        str(c.arguments.get("query", ""))
        for b in blocks
        for c in b.tool_calls
        if c.name == "search_documents" and isinstance(c.arguments, dict)
    ]
    if not queries or any(q.isascii() for q in queries):
        return None
    if not not_found(goal, blocks):
        return None
    return english_query(goal)
