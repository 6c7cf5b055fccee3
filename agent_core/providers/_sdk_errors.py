"""Map ``openai`` / ``anthropic`` SDK exceptions to :class:`ProviderError`.

Both SDKs share one exception layout (``APIStatusError`` with ``status_code`` and ``response``,
``APIConnectionError``, ``APITimeoutError`` as its subclass), so one mapping serves the three SDK
providers. The SDK module is passed in, keeping the rule that only a provider's own file imports
its SDK.

Transient (the loop retries): 408, 409, 429, 5xx (529 = overloaded), connection errors and
timeouts. Never transient: 400, 401, 403, 404, 422 and anything else. Messages are one line,
name the provider and the cause, and go through :func:`agent_core.masking.mask_text`, because
SDK error texts can echo the key ("Incorrect API key provided: sk-…").
"""

from __future__ import annotations

import email.utils
import logging
import time
from types import ModuleType
from typing import Any

from agent_core.errors import ProviderError
from agent_core.masking import install_log_masking, mask_text

log = logging.getLogger("agent_core.providers.errors")
install_log_masking()  # the SDKs log request bodies at DEBUG; see its docstring

TRANSIENT_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
"""Statuses worth retrying; any other status ≥ 500 is transient too."""

_MAX_DETAIL = 300


def is_transient_status(status: int) -> bool:
    """True for statuses the same request may get past later."""
    return status in TRANSIENT_STATUSES or status >= 500


def parse_retry_after(headers: Any, *, now: float | None = None) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date); None if absent.

    ``headers`` is any mapping with case-insensitive ``get`` (httpx headers) or a plain dict.
    """
    if headers is None:
        return None

    def header(name: str) -> str | None:
        value = headers.get(name)
        if value is None and isinstance(headers, dict):
            value = next((v for k, v in headers.items() if k.lower() == name), None)
        return value.strip() if isinstance(value, str) and value.strip() else None

    ms = header("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = header("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def server_detail(body: object) -> str:
    """The server's own error text from an SDK error body (OpenAI inner dict, Anthropic full body,
    Ollama-style ``{"error": "…"}`` or plain text), on one line and shortened."""
    text = ""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            text = str(inner.get("message") or inner.get("type") or "")
        elif isinstance(inner, str):
            text = inner
        if not text and isinstance(body.get("message"), str):
            text = body["message"]
    elif isinstance(body, str):
        text = body
    elif isinstance(body, bytes):
        text = body.decode("utf-8", "replace")
    text = " ".join(text.split())
    if len(text) > _MAX_DETAIL:
        text = text[: _MAX_DETAIL - 1] + "…"
    return text


def _status_phrase(status: int) -> tuple[str, str]:
    """(what happened, what to do) for a status, in plain words."""
    phrases = {
        400: ("rejected the request", ""),
        401: ("rejected the API key", "check the key in the environment or .env"),
        403: ("refused access", "the key may lack permission for this model"),
        404: ("does not know this model or endpoint", "check the model name and base URL"),
        408: ("timed out on its side", ""),
        409: ("reported a conflict", ""),
        413: ("says the request is too large", ""),
        422: ("could not process the request", ""),
        429: ("rate limit", "slow down"),
        500: ("server error", ""),
        502: ("bad gateway", ""),
        503: ("is unavailable", ""),
        504: ("gateway timeout", ""),
        529: ("is overloaded", ""),
    }
    if status in phrases:
        return phrases[status]
    return ("server error", "") if status >= 500 else ("returned an error", "")


def map_sdk_error(
    exc: BaseException,
    *,
    sdk: ModuleType,
    provider: str,
    name: str,
    base_url: str,
    timeout: float,
    server_hint: str = "",
) -> ProviderError:
    """Turn an SDK exception into a :class:`ProviderError` (never raises).

    Args:
        exc: the exception the SDK raised.
        sdk: the ``openai`` or ``anthropic`` module, for its exception classes.
        provider: provider id for the error (``openai``, ``openai-chat``, ``anthropic``).
        name: how people call the service in a message ("OpenAI", "Anthropic").
        base_url: where the client connects, named in connection errors.
        timeout: the request timeout in seconds, named in timeout errors.
        server_hint: appended to connection errors (e.g. "is it running?").
    """
    error_type = type(exc).__name__
    status: int | None = None
    retry_after: float | None = None
    if isinstance(exc, sdk.APITimeoutError):  # before APIConnectionError: it is a subclass
        message = f"{name} request timed out after {timeout:g} s"
        transient = True
    elif isinstance(exc, sdk.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        reason = f" ({type(cause).__name__}: {cause})" if cause else ""
        message = f"Could not connect to {name} at {base_url}{reason}"
        if server_hint:
            message += f" — {server_hint}"
        transient = True
    elif isinstance(exc, sdk.APIStatusError):
        status = int(exc.status_code)
        transient = is_transient_status(status)
        response = getattr(exc, "response", None)
        retry_after = parse_retry_after(getattr(response, "headers", None)) if transient else None
        what, advice = _status_phrase(status)
        detail = server_detail(getattr(exc, "body", None))
        if status == 401:
            # The server's text often quotes (part of) the key; the masked advice says enough.
            message = f"{name} {what} ({status}): {advice}"
        else:
            message = f"{name} {what} ({status})"
            tail = detail or advice
            if tail:
                message += f": {tail}"
        if retry_after is not None:
            message += f" (retry after {retry_after:g} s)"
    elif isinstance(exc, sdk.APIError):  # e.g. a response that failed validation
        message = f"{name} returned an unexpected response: {exc}"
        transient = False
    else:  # client-side setup errors: missing credentials and the like
        message = f"{name} client error: {exc}"
        transient = False
    message = " ".join(message.split())
    message = mask_text(message[:1].upper() + message[1:])
    log.debug("%s error mapped: %s transient=%s", provider, error_type, transient)
    return ProviderError(
        message,
        provider=provider,
        transient=transient,
        status=status,
        retry_after=retry_after,
        error_type=error_type,
    )


def unexpected_response(provider: str, name: str, exc: Exception) -> ProviderError:
    """A 200 answer the adapter could not read (not the wire format it expected)."""
    return ProviderError(
        mask_text(f"{name} returned a response in an unexpected shape ({type(exc).__name__}: {exc})"),
        provider=provider,
        transient=False,
        error_type="UnexpectedResponse",
    )
