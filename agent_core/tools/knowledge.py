"""Internal facts (the seed's ``lookup``), read from the workspace's ``facts.md``, and ``word_count``.

What a business knows lives in its workspace, not in code: ``facts.md`` holds one fact per
heading (its names, separated by " / "), an optional ``Also:`` line of other words for it, and
the answer. Models ask in their own words ("product price", "the unit price of the product",
"제품 단가"), so a topic is matched on its names and other words in either language, ignoring
case, spacing, punctuation, English plurals and Korean particles; a near-miss spelling
("shiping") is forgiven too. A workspace without ``facts.md`` has no ``lookup`` tool.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_core.text.lang import HANGUL

FACTS_FILE = "facts.md"
MAX_FACTS_BYTES = 200_000


@dataclass(frozen=True)
class Fact:
    """One internal fact: its names (the first is its topic), other words for it, and its answer."""

    names: tuple[str, ...]
    synonyms: tuple[str, ...]
    answer: str


def parse_facts(text: str) -> tuple[Fact, ...]:
    """The facts of a ``facts.md`` text (headings ``## name / name``; see the module docstring)."""
    facts: list[Fact] = []
    names: tuple[str, ...] | None = None
    synonyms: tuple[str, ...] = ()
    lines: list[str] = []

    def close() -> None:
        answer = " ".join(line.strip() for line in lines if line.strip())
        if names and answer:
            facts.append(Fact(names, synonyms, answer))

    for line in text.splitlines():
        heading = re.match(r"^##\s+(.+?)\s*#*\s*$", line)
        if heading:
            close()
            names = tuple(n.strip() for n in heading.group(1).split("/") if n.strip())
            synonyms, lines = (), []
        elif names is not None and re.match(r"^\s*also\s*:", line, re.IGNORECASE):
            synonyms = tuple(w.strip() for w in line.split(":", 1)[1].split(",") if w.strip())
        elif names is not None:
            lines.append(line)
    close()
    return tuple(facts)


def read_facts(workspace: Path) -> tuple[Fact, ...] | None:
    """The facts of ``workspace/facts.md``; None when there is no such file (or it is unreadable)."""
    path = workspace / FACTS_FILE
    try:
        if not path.is_file() or path.stat().st_size > MAX_FACTS_BYTES:
            return None
        return parse_facts(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


_WORD = re.compile(r"[^\W_]+")


_WORD = re.compile(r"[^\W_]+")


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


_GENERIC_WORDS = frozenset({"unit", "back", "money", "policy", "period", "free", "product"})
"""Words too common to forgive a typo towards (the typo fallback matches single English words)."""


class Facts:
    """Facts matched loosely (:meth:`match`); made once per registry from its workspace."""

    def __init__(self, facts: tuple[Fact, ...]) -> None:
        self.facts = facts
        self._patterns = tuple((f, tuple(_pattern(n) for n in (*f.names, *f.synonyms))) for f in facts)
        self._english_words: dict[str, Fact] = {
            word: fact
            for fact in facts
            for synonym in (*fact.names, *fact.synonyms)
            for word in _normalise(synonym).split()
            if synonym.isascii() and len(word) >= 4 and word not in _GENERIC_WORDS
        }

    def topics(self) -> str:
        """The topics as shown to the model: ``unit price (단가), refund policy (환불 정책), …``."""
        return ", ".join(f.names[0] + (f" ({', '.join(f.names[1:])})" if len(f.names) > 1 else "") for f in self.facts)

    def match(self, topic: str) -> list[Fact]:
        """Facts mentioned in ``topic``, strongest match first (an empty list when none)."""
        text = _normalise(topic)
        candidates: list[tuple[int, int, int, Fact]] = []
        for fact, patterns in self._patterns:
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
                close = difflib.get_close_matches(word, list(self._english_words), n=1, cutoff=0.8)
                if close and self._english_words[close[0]] not in chosen:
                    chosen.append(self._english_words[close[0]])
        return chosen

    def lookup(self, topic: str) -> str:
        """The answer(s) for ``topic``; ValueError listing the topics when none matches."""
        facts = self.match(topic)
        if not facts:
            raise ValueError(f"no internal fact about {topic.strip()!r}; known topics: {self.topics()}")
        return "\n".join(f.answer for f in facts)


def make_lookup(workspace: Path) -> Callable[[str], str] | None:
    """The ``lookup`` tool over ``workspace/facts.md`` (its description lists the file's topics);
    None when the workspace has no facts file."""
    facts = read_facts(workspace)
    if not facts:
        return None
    known = Facts(facts)

    def lookup(topic: str) -> str:
        return known.lookup(topic)

    lookup.__doc__ = f"""Look up the internal facts ({FACTS_FILE}): {known.topics()}.

    Args:
        topic: The topic in English or Korean.
    """
    return lookup


def word_count(text: str) -> str:
    """Count the words in a text (words are separated by whitespace).

    Args:
        text: The text whose words to count.
    """
    return str(len(text.split()))
