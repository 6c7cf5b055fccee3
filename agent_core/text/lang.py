"""Which language a text is in, as far as the engine needs to know: Korean or not."""

from __future__ import annotations

import re

HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
"""Hangul syllables and compatibility jamo (ㄱ … ㅣ): one character of either makes a text Korean."""


def is_korean(text: str) -> bool:
    """True when the text has Hangul; answers then come in Korean."""
    return bool(HANGUL.search(text))
