"""Error types of the engine, sorted by who caused them.

- The model's mistakes (bad arguments, unknown tool) become ``ERROR: …`` tool outputs it can fix.
- A tool's failure is classified (transient, non-transient, timeout) and retried or reported.
- A provider failure is a :class:`ProviderError` marked transient or not, so the loop's one
  retry policy decides what to do.
- A developer's mistake (duplicate tool name, bad fallback) raises at definition time.
"""

from __future__ import annotations

from enum import Enum

ERROR_PREFIX = "ERROR: "
"""How a tool output that reports a failure starts (what the model reads, and what the record keeps)."""


class ErrorCategory(str, Enum):
    """Why a tool call failed; the record and the stats use the value."""

    VALIDATION = "validation"
    TRANSIENT = "transient"
    NON_TRANSIENT = "non_transient"
    TIMEOUT = "timeout"
    DUPLICATE = "duplicate"


class ToolDefinitionError(ValueError):
    """A tool was declared wrongly (duplicate name, unknown fallback, unsupported signature)."""


class ToolValidationError(ValueError):
    """The model's arguments do not fit the tool's schema; the message is meant for the model."""


class TransientToolError(Exception):
    """Raise from a tool for a failure worth retrying (a flaky backend, a rate limit)."""


class ToolTimeout(Exception):
    """The tool did not return within its timeout (the dispatcher's wait, or a tool that waits on
    a server itself and gives up first with a plainer sentence); recorded as ``timeout``, not retried."""


class ProviderError(Exception):
    """A model call failed.

    Attributes:
        provider: provider id, for messages ("openai", "anthropic", …).
        transient: True when the same request may succeed later (429, 5xx, connection, timeout).
        status: HTTP status when there was one.
        retry_after: seconds the server asked us to wait, if it said.
        error_type: a short class-like name for the record ("RateLimitError").
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str = "",
        transient: bool = False,
        status: int | None = None,
        retry_after: float | None = None,
        error_type: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.transient = transient
        self.status = status
        self.retry_after = retry_after
        self.error_type = error_type or type(self).__name__


class ProviderUnavailable(ProviderError):
    """The provider cannot be used here at all (SDK or model missing, no key)."""


class RunCancelled(Exception):
    """Raised inside the loop when the caller's cancel event is set."""


class RecordError(Exception):
    """A run file could not be read as a run record; the message says why."""
