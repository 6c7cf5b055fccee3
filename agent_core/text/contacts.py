"""Contact details in text: e-mail and web addresses and phone numbers, as patterns.

The answer check (:mod:`agent_core.checks.claims`) looks them up; the document search
(:mod:`agent_core.tools.docsearch`) weighs the sentences that hold one.
"""

from __future__ import annotations

import re

# Contact details. A made-up address is as bad as a made-up figure: asked whom to e-mail for a
# refund, a 1.5B model answered "minji@example.com" (the documents say support@example.com).
# ASCII classes: Korean text runs on after an address ("support@example.com으로").
EMAIL = re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
WEB = re.compile(r"(?:https?://|www\.)[A-Za-z0-9._~:/?#@!$&+,;=%-]+", re.IGNORECASE)
# Three groups of digits, at least one separator a dash, a dot or brackets (02-123-4567,
# 1-800-555-1234, (555) 123-4567, +82 2-1234-5678); not dates (2026-09-09: the last group has
# four digits), ranges (two groups) nor numbers in a row ("2024 2025 2026").
# Or, written with spaces only, a national number: a trunk 0 and an area code of 2-5 digits, then
# groups of 3-6 digits, 10 or 11 digits in all (01632 960 481, 020 7946 0958, 07700 900123): the
# answer check read a dental practice's "01632 960 481" as three unfound figures and sent a right
# answer back.
_NATIONAL = re.compile(r"0\d{1,4}(?: \d{3,6}){1,2}")
PHONE = re.compile(
    r"(?<![A-Za-z0-9_.+-])(?:(?:\+\d{1,3}[ .-]?|1[ .-])?(?:\(\d{1,4}\)[ .-]?|\d{1,4}[ .-])\d{3,4}[ .-]\d{4}"
    rf"|{_NATIONAL.pattern})"
    r"(?![A-Za-z0-9_-]|[.,]\d)"
)


def is_phone(text: str) -> bool:
    """A :data:`PHONE` match that is a phone number: nine digits or more, a separator other than a
    space (or a leading +); or a national number written with spaces, of 10 or 11 digits."""
    digits = len(re.sub(r"\D", "", text))
    if _NATIONAL.fullmatch(text):
        return digits in (10, 11)
    return digits >= 9 and (text.startswith("+") or bool(re.search(r"[-.()]", text)))


def same_phone(a: str, b: str) -> bool:
    """Two phone numbers written apart (``+82 2-123-4567`` = ``02-123-4567``, ``1-800-…`` =
    ``800-…``): the digits of one, without a country code or leading zeros, end the other's."""
    keys = sorted((re.sub(r"\D", "", x).lstrip("0") for x in (a, b)), key=len)
    return len(keys[0]) >= 8 and keys[1].endswith(keys[0])
