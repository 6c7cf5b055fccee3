"""Secret masking: nothing that looks like a credential reaches a record or a log."""

from __future__ import annotations

import re
from typing import Any

MASK = "****"

_SECRET_KEY = re.compile(
    r"(api[_-]?key|apikey|token|password|passwd|secret|authorization|auth|credential|cookie|"
    r"private[_-]?key|session[_-]?id)",
    re.IGNORECASE,
)
# Provider-key shapes: OpenAI sk-/sk-proj-, Anthropic sk-ant-, bearer tokens, AWS, GitHub, Google.
_SECRET_VALUE = re.compile(
    r"(sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{8,}"
    r"|(?i:bearer)\s+[A-Za-z0-9._\-~+/]{8,}=*"
    r"|AKIA[0-9A-Z]{16}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|AIza[0-9A-Za-z_\-]{30,}"
    r"|xox[abpr]-[A-Za-z0-9\-]{10,})"
)
_INLINE_ASSIGN = re.compile(
    r"(?i)\b((?:[a-z]+_)?(?:api[_-]?key|token|password|secret|authorization))([\"']?\s*[:=]\s*)"
    r"(\"[^\"]*\"|'[^']*'|(?:bearer\s+)?[^\s,;}\]]+)"
)
_extra_secrets: set[str] = set()


def register_secret(value: str | None) -> None:
    """Mask this exact value wherever it appears (used for the configured API keys)."""
    if value and len(value) >= 6:
        _extra_secrets.add(value)


def is_secret_key(key: str) -> bool:
    """True for mapping keys whose values are credentials (``api_key``, ``Authorization`` …)."""
    return bool(_SECRET_KEY.search(key)) and key.lower() not in {"max_tokens", "tokens", "author"}


def _mask_assignment(match: re.Match[str]) -> str:
    value = match.group(3)
    quote = value[0] if value[:1] in {'"', "'"} else ""
    return f"{match.group(1)}{match.group(2)}{quote}{MASK}{quote}"


def mask_text(text: str) -> str:
    """Replace key-like substrings in free text."""
    if not text:
        return text
    for secret in _extra_secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    text = _INLINE_ASSIGN.sub(_mask_assignment, text)
    return _SECRET_VALUE.sub(MASK, text)


def mask(value: Any) -> Any:
    """Mask secrets in any JSON-like value: secret-named keys and key-shaped strings."""
    if isinstance(value, str):
        return mask_text(value)
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            if isinstance(key, str) and is_secret_key(key) and item not in (None, "", [], {}):
                out[key] = MASK
            else:
                out[key] = mask(item)
        return out
    if isinstance(value, (list, tuple)):
        return [mask(item) for item in value]
    return value
