"""Secret masking: nothing that looks like a credential reaches a record or a log."""

from __future__ import annotations

import logging
import re
import threading
import traceback
from typing import Any

MASK = "****"

_SECRET_KEY = re.compile(
    r"(api[_-]?key|apikey|password|passwd|secret|authorization|auth|credential|cookie|"
    r"private[_-]?key|session[_-]?id|"
    # "token" as a credential (token, access_token, X-Auth-Token), not as a count or a unit
    # of text (input_tokens, token_count, per_token_ms, tokenizer, token_ids).
    r"(?<!per[_-])token(?!s|iz|[_-]?(?:count|usage|limit|budget|ids?\b|len)))",
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
_ASSIGN_WORDS = ("api", "token", "password", "secret", "authorization")
"""Every match of _INLINE_ASSIGN contains one of these (lower case)."""
_VALUE_HINTS = ("sk-", "AKIA", "AIza", "xox", "ghp_", "gho_", "ghu_", "ghs_", "ghr_")
"""Every match of _SECRET_VALUE other than a bearer token contains one of these."""
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_extra_secrets: frozenset[str] = frozenset()
"""Replaced, never changed in place: a mask_text running in another thread (another Streamlit
session) keeps iterating the set it started with."""
_register_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Mask this exact value wherever it appears (used for the configured API keys)."""
    global _extra_secrets
    if value and len(value) >= 6:
        with _register_lock:
            _extra_secrets = _extra_secrets | {value}


def is_secret_key(key: str) -> bool:
    """True for mapping keys whose values are credentials (``api_key``, ``Authorization`` …)."""
    return bool(_SECRET_KEY.search(key)) and key.lower() != "author"


def _mask_assignment(match: re.Match[str]) -> str:
    value = match.group(3)
    quote = value[0] if value[:1] in {'"', "'"} else ""
    return f"{match.group(1)}{match.group(2)}{quote}{MASK}{quote}"


def mask_text(text: str) -> str:
    """Replace key-like substrings in free text.

    Lone surrogates (what non-UTF-8 bytes in argv or a bad ``\ud800`` escape in a model's JSON
    become) are replaced by U+FFFD too: such text cannot be saved as UTF-8 nor shown in a page.
    """
    if not text:
        return text
    if not text.isascii():
        text = _LONE_SURROGATE.sub("\ufffd", text)
    for secret in _extra_secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    if text.isascii():
        # Fast path (the regexes cost ~0.1 ms per KB): they can only match where one of these
        # literals occurs, so text without any of them is returned as is. ASCII only, where
        # lower() is exactly what the patterns' case-insensitivity means.
        low = text.lower()
        if not any(word in low for word in _ASSIGN_WORDS):
            if "bearer" not in low and not any(hint in text for hint in _VALUE_HINTS):
                return text
            return _SECRET_VALUE.sub(MASK, text)
    text = _INLINE_ASSIGN.sub(_mask_assignment, text)
    return _SECRET_VALUE.sub(MASK, text)


def masked_traceback(exc: BaseException) -> str:
    """``exc`` and its traceback as text with secrets masked, for logs (messages may quote a key)."""
    return mask_text("".join(traceback.format_exception(exc)).rstrip())


MASKED_LOGGERS = ("agent_core", "openai", "anthropic", "httpx", "httpcore")
"""Loggers whose records are masked as they are made (httpx/httpcore also cover httpx2/httpcore2)."""


def install_log_masking() -> None:
    """Mask every log record of :data:`MASKED_LOGGERS` (message and traceback) as it is created.

    The SDKs log whole request bodies at DEBUG ("Request options: …"): the model's earlier turns
    go back to it unmasked (a provider may need them byte for byte), so their key-like strings
    would reach the log. A record factory is the one place that sees every such record whatever
    handler or level the application configures. Installing twice is a no-op.
    """
    previous = logging.getLogRecordFactory()
    if getattr(previous, "_masks_secrets", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if not record.name.startswith(MASKED_LOGGERS):
            return record
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: leave it to the handler to report
            return record
        masked = mask_text(message)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = masked_traceback(record.exc_info[1])
            record.exc_info = None
        return record

    factory._masks_secrets = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)


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
