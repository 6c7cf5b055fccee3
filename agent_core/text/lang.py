"""Which language a text is in, as far as the engine needs to know: Korean or not."""

from __future__ import annotations

import re

HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
"""Hangul syllables and compatibility jamo (ㄱ … ㅣ): one character of either makes a text Korean."""


def is_korean(text: str) -> bool:
    """True when the text has Hangul; answers then come in Korean."""
    return bool(HANGUL.search(text))


_LATIN_WORD = re.compile(r"[A-Za-z]+")
_ENGLISH_WORDS = frozenset("the and of to in is for a are with on or you your we be by this that it not".split())


def language_of(text: str) -> str | None:
    """``"Korean"`` or ``"English"`` when ``text`` (a document's opening) is plainly written in one
    of them, else None: Korean when Hangul is at least a third of its letters, English when the
    commonest English words are at least a tenth of its Latin words."""
    hangul = len(HANGUL.findall(text))
    words = _LATIN_WORD.findall(text)
    letters = hangul + sum(len(w) for w in words)
    if not letters:
        return None
    if hangul / letters >= 1 / 3:
        return "Korean"
    if words and sum(w.lower() in _ENGLISH_WORDS for w in words) / len(words) >= 0.1:
        return "English"
    return None
