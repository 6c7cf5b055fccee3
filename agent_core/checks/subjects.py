"""Whether the passage a figure was found in is about what the answer applies it to, by name.

A search returns passages from several documents; a figure found in one of them is no support for
a sentence about a subject that passage never mentions: "the e-mail for claims to Harbourline is
membership@ridgewayramblers.org", from a walking club's contact section. Judged only where it is
plain: the goal names a subject with a capitalised word (Harbourline, Premier, Paris) that the
answer's sentence uses too (in any script around it), the passages are in the Latin script, and
no passage that holds the figure mentions any such name of the sentence — not in its text, its
file name or its section — or mentions a name of several words only in part, next to another
item of the same family ("Sola Task Chair" for "the Sola Mesh is $179"). Nothing here knows a
topic, a document or a tool: passages are read from the output's shape (a list of hits is one
passage a hit; any other output is one passage).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable

from agent_core.checks.claims import claims_in
from agent_core.checks.weekdays import days_in
from agent_core.text.lang import ascii_folded, is_korean

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n])\s*[\"'(\[]?\s*$")
"""Before a word that starts a sentence, itself or in quotes or brackets: a capital there names
nothing. A capital in brackets or quotes within a sentence does ("the Korean salon (Ongyeol)",
'the "Premier" plan')."""
_LETTERS = re.compile(r"[a-z]{3,}")


def passages(text: str) -> list[str]:
    """The separate passages of a tool's output: the hits of a JSON list, else the whole output."""
    stripped = text.strip()
    if stripped[:1] == "[":
        try:
            data = json.loads(stripped)
        except ValueError:
            data = None
        if isinstance(data, list) and len(data) > 1 and all(isinstance(item, dict) for item in data):
            return [json.dumps(item, ensure_ascii=False) for item in data]
    return [text]


def names(sentence: str, goal: str) -> list[str]:
    """The names the goal gives (capitalised words of three letters or more, not starting one of
    its sentences) that ``sentence`` uses too, in any case: the subjects the sentence is about,
    as the user named them. Names next to each other in the goal are one ("Sola Mesh")."""
    said = {w.lower() for w in _WORD.findall(sentence)}
    found: list[str] = []
    run: list[str] = []
    end = 0
    for m in _WORD.finditer(goal):
        word = m.group(0)
        named = (
            len(word) >= 3
            and word[0].isupper()
            and not _SENTENCE_START.search(goal[: m.start()])
            and word.lower() in said
        )
        if run and not (named and goal[end : m.start()] == " "):
            found.append(" ".join(run))
            run = []
        if named:
            run.append(word)
        end = m.end()
    if run:
        found.append(" ".join(run))
    return list(dict.fromkeys(found))


def mentions(passage: str, name: str) -> bool:
    """Whether ``passage`` names ``name``, spelled out or cut short ("Mon" for "Monday")."""
    lower, name = passage.lower(), name.lower()
    return name in lower or any(
        len(w) >= max(3, len(name) // 2) and name.startswith(w) for w in _LETTERS.findall(lower)
    )


def _latin(text: str) -> bool:
    """Mostly Latin letters: a passage in another script may write the name in its own."""
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(c.isascii() for c in letters) >= 0.8 * len(letters)


def _sibling(passage: str, name: str) -> bool:
    """Whether ``passage`` writes the first word of a name of several with another capitalised
    word after it ("Sola Task Chair" for "Sola Mesh"): another item of the same family."""
    first, *rest = name.split()
    ours = {w.lower() for w in rest}
    following = re.finditer(rf"\b(?i:{re.escape(first)})\s+([A-Z][A-Za-z]+)", passage)
    return any(m.group(1).lower() not in ours for m in following)


def unnamed_subject(sentence: str, goal: str, text: str, holds: Callable[[str], bool]) -> str | None:
    """The name ``sentence`` applies its figure to when no passage of ``text`` that ``holds`` the
    figure mentions a name of the sentence (each word of it), or mentions one only in part and
    another item of the same family ("Sola Task Chair" for "Sola Mesh"); None when a passage
    mentions one, or when it cannot be judged."""
    said = names(sentence, goal)
    if not said:
        return None
    holding = [p for p in passages(text) if holds(p)]
    if not holding or not all(_latin(p) for p in holding):
        return None
    for passage in holding:
        for name in said:
            parts = [mentions(passage, w) for w in name.split()]
            if all(parts) or (any(parts) and not _sibling(passage, name)):
                return None
            if (days := days_in(name)) and days <= days_in(passage):
                return None  # "Thursday" in "Tuesday–Friday" (:mod:`agent_core.checks.weekdays`)
    return said[0]


def in_another_language(sentence: str, text: str, holds: Callable[[str], bool]) -> bool:
    """Whether ``text`` is a search's several passages and every one that ``holds`` the figure is
    written in another language (Korean or not) than ``sentence``. Which passage a figure belongs
    to is judged by its words (:func:`unnamed_subject`, the table rows and columns), and words in
    two languages cannot be compared: "14일" for "며칠 안에 신고해야 돼?" (report within how many
    days?) from "You can cancel within 14 days" would pass unjudged."""
    found = passages(text)
    holding = [p for p in found if holds(p)] if len(found) > 1 else []
    return bool(holding) and all(is_korean(p) != is_korean(sentence) for p in holding)


_FRAME = frozenset(
    "cost costs price prices total fee fees charge charges much many number amount need needs take takes "
    "bring full half each every after before across instead being thing things sign cheap cheaper cheapest "
    "dear dearer dearest fewer more less most least regular normal usual people person hour hours day days "
    "week weeks weekend month months year years night nights time times long open close closes left "
    "still also only just able allowed want like would could should does have there their them right now "
    "today currently available altogether overall item items "
    "temperature temperatures degree degrees celsius fahrenheit weight weigh heavy width wide height "
    "high tall length distance size compare compared comparison versus difference differ".split()
)
"""Words that ask about an amount, a time or a permission rather than name a thing ("how much
does it cost for a full day?", "how much more is gold compared to silver?"), or name a measure
("what temperature do I bake it at?": a recipe gives "190 C" and never the word): a result need
not repeat them to be about the thing."""
_VENUE = re.compile(r"\b(?:at|from|in)\s+(?:the\s+)?((?:[\w'&-]+\s*){1,4})", re.IGNORECASE)
"""Where the goal places its question ("at Hollins Lane Bakery"): a table of its prices need not name it."""


@functools.lru_cache(maxsize=4)
def _frame(words: Callable[[str], frozenset[str]]) -> frozenset[str]:
    """:data:`_FRAME` with each word also as ``words`` spells it ("compar" for "compared")."""
    return _FRAME | words(" ".join(_FRAME))


def unmentioned_word(
    sentence: str, goal: str, results: list[str], words: Callable[[str], frozenset[str]]
) -> str | None:
    """A word of four letters or more that the goal and ``sentence`` share and no result mentions,
    in any form ("popcorn" in "a large popcorn is £25", from results about kennels): the sentence
    applies its figures to something the results never speak of. Not the words that only frame an
    amount or a time (:data:`_FRAME`), nor those of the place the goal asks at (:data:`_VENUE`).
    Judged on Latin-script results only (a result in another script may write the word in its own)."""
    if not results or not all(_latin(r) for r in results if r.strip()):
        return None
    venue = {w for m in _VENUE.finditer(goal) for w in words(m.group(1))}
    frame = _frame(words)
    for figure in claims_in(sentence):  # "10 litre" is a figure, not a thing: its unit need not be in the results
        sentence = sentence.replace(figure.text, " ")
    shared = sorted(
        w
        for w in words(ascii_folded(sentence)) & words(ascii_folded(goal))
        if len(w) >= 4 and w.isascii() and w.isalpha() and w not in frame and w not in venue
    )
    told = ascii_folded(" ".join(results))
    stems = words(told)
    for word in shared:
        if word not in stems and not mentions(told, word):
            # As the sentence spells it ("perennials", not the folded "perennial").
            return next((t for t in _WORD.findall(sentence) if word in words(ascii_folded(t))), word)
    return None


_PHONE_WORDS = re.compile(r"\b(?:phone|telephone|tel|call|ring)\b|전화", re.IGNORECASE)
_MAIL_WORDS = re.compile(r"e-?mail|\bmail\b|메일|이메일|@", re.IGNORECASE)


def contact_for_another_kind(value: str, sentence: str) -> str | None:
    """What ``sentence`` calls a contact claim's ``value`` when it is another kind of contact: an
    e-mail address given as a phone number ("고객센터 전화번호는 support@example.com입니다").
    None when the sentence also speaks of e-mail, or does not say."""
    rest = sentence.replace(value, " ")
    if "@" in value and _PHONE_WORDS.search(rest) and not _MAIL_WORDS.search(rest):
        return "a phone number"
    return None


SHORT_RESULT = 200
"""Fewer characters than this, a text result is one answer to its call ("Opening hours: Mon-Fri 9:00-17:00")."""


def one_answer(text: str) -> bool:
    """Whether a result is one answer to its call (a JSON object, a list of one, a short text)
    rather than a document or a list of hits: it need not repeat what the call asked about."""
    return len(passages(text)) < 2 and (text.strip()[:1] in ("{", "[") or len(text.strip()) < SHORT_RESULT)
