"""Which language a text is in, as far as the engine needs to know: Korean or not; and a text
folded to plain lower-case ASCII for matching words across accents."""

from __future__ import annotations

import functools
import re
import unicodedata

HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
"""Hangul syllables and compatibility jamo (ㄱ … ㅣ): one character of either makes a text Korean."""


def is_korean(text: str) -> bool:
    """True when the text has Hangul; answers then come in Korean."""
    return bool(HANGUL.search(text))


@functools.lru_cache(maxsize=64)
def ascii_folded(text: str) -> str:
    """``text`` in lower case with accents dropped and anything not ASCII left out ("Côtes" →
    "cotes", "한글" → ""). Cached: the answer check folds the same results for each claim."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()


def language_of(text: str) -> str | None:
    """ "Korean" when Hangul is most of ``text``'s letters, "English" when plain ASCII letters are
    nearly all of them; None otherwise (another script, an accented language, no letters)."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return None
    hangul = sum(1 for c in letters if HANGUL.match(c))
    if hangul >= len(letters) / 2:
        return "Korean"
    ascii_letters = sum(1 for c in letters if c.isascii())
    return "English" if ascii_letters >= 0.95 * len(letters) else None
