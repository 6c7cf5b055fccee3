"""Which language a text is in, as far as the engine needs to know: Korean or not."""

from __future__ import annotations

import re

HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
"""Hangul syllables and compatibility jamo (ㄱ … ㅣ): one character of either makes a text Korean."""


def is_korean(text: str) -> bool:
    """True when the text has Hangul; answers then come in Korean."""
    return bool(HANGUL.search(text))


_LETTER = re.compile(r"[^\W\d_]")
_ENGLISH = frozenset("the and of to a in is for on with that are be or by you your this it as at from".split())


def written_in(text: str) -> str | None:
    """The language a document is written in, when the script or its commonest words tell:
    ``"Korean"`` (mostly Hangul), ``"English"`` (Latin letters, with English's small words
    common), else None."""
    letters = _LETTER.findall(text)
    if not letters:
        return None
    if sum(bool(HANGUL.match(c)) for c in letters) / len(letters) > 0.3:
        return "Korean"
    words = re.findall(r"[a-z]+", text.lower())
    if words and sum(c.isascii() for c in letters) / len(letters) > 0.9:
        if sum(w in _ENGLISH for w in words) / len(words) > 0.05:
            return "English"
    return None
