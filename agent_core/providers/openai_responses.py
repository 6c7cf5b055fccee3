"""OpenAI Responses API provider (seed 000): ``client.responses.create`` with function tools.

Messages in: ``instructions`` + input items = the user's goal, then for each context block the
output items exactly as the model sent them (reasoning, message, function_call) followed by one
``function_call_output`` per call, linked by ``call_id``. Tools in: flat function tools.
Response out: ``output_text`` as the answer, every ``function_call`` as a tool call, the output
items kept whole for the next turn, and token usage.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from typing import Any


from agent_core.context import ContextBlock, ToolCallRequest
from agent_core.errors import ProviderError, ProviderUnavailable
from agent_core.masking import mask_text, register_secret
from agent_core.providers._sdk_errors import map_sdk_error, unexpected_response
from agent_core.providers.base import LoadProgress, ModelRequest, ModelResponse, Usage
from agent_core.settings import Settings

log = logging.getLogger("agent_core.providers.openai")

PROVIDER_ID = "openai"
LABEL = "OpenAI (Responses API)"
DEFAULT_MODEL = "gpt-4.1-mini"
USES_BASE_URL = True
DEFAULT_BASE_URL = "https://api.openai.com/v1"
NAME = "OpenAI"

MISSING_OUTPUT = "ERROR: this call was not run (the run stopped before it)."
"""Sent for a call that has no output, since the API refuses a call without its output."""

# Failed-response error codes worth another try (``status: failed`` in a 200 answer).
_TRANSIENT_CODES = frozenset({"server_error", "rate_limit_exceeded", "vector_store_timeout"})


def availability() -> str | None:
    """None when ``OPENAI_API_KEY`` is set, else a one-line hint."""
    if os.environ.get("OPENAI_API_KEY", "").strip():
        return None
    return "set OPENAI_API_KEY in the environment or .env"


def create(*, model: str | None, base_url: str | None, settings: Settings) -> OpenAIResponsesProvider:
    """Build the provider from the environment; raise :class:`ProviderUnavailable` without a key."""
    api_key = os.environ.get("OPENAI_API_KEY", "").strip()
    if not api_key:
        raise ProviderUnavailable(
            f"{PROVIDER_ID} is unavailable: {availability()}", provider=PROVIDER_ID, error_type="Unavailable"
        )
    return OpenAIResponsesProvider(
        model=model or DEFAULT_MODEL,
        api_key=api_key,
        base_url=base_url or os.environ.get("OPENAI_BASE_URL", "").strip() or None,
        timeout=settings.request_timeout,
    )


def _drop_none(value: Any) -> Any:
    """Remove ``None`` fields, which the API rejects on input items (``status: null`` …)."""
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


def _arguments_text(arguments: Any) -> str:
    """Call arguments as the JSON string the API expects."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)


def block_input_items(block: ContextBlock) -> list[dict[str, Any]]:
    """One context block as Responses input items: the output items as they came, then the
    ``function_call_output`` of every call (a placeholder for a call that has none)."""
    if block.raw:
        items = [_drop_none(item) for item in block.raw]
    else:  # a block not made by this provider: rebuild the items from the normalised data
        items = []
        if block.text:
            items.append({"role": "assistant", "content": block.text})
        items.extend(
            {
                "type": "function_call",
                "call_id": call.call_id,
                "name": call.name,
                "arguments": _arguments_text(call.arguments),
            }
            for call in block.tool_calls
        )
    call_ids = [item.get("call_id") for item in items if item.get("type") == "function_call"]
    for result in block.outputs:
        items.append({"type": "function_call_output", "call_id": result.call_id, "output": result.output})
    answered = {result.call_id for result in block.outputs}
    for call_id in dict.fromkeys(call_ids):
        if call_id not in answered:
            items.append({"type": "function_call_output", "call_id": call_id, "output": MISSING_OUTPUT})
    return items


def build_input(request: ModelRequest) -> list[dict[str, Any]]:
    """The ``input`` list: the goal first, then each block's items, oldest first."""
    items: list[dict[str, Any]] = [{"role": "user", "content": request.goal}]
    for block in request.blocks:
        items.extend(block_input_items(block))
    return items


def _refusal_text(raw: list[dict[str, Any]]) -> str:
    """The model's refusal, when it refused instead of answering (``output_text`` is then empty)."""
    return "\n".join(
        part.get("refusal", "")
        for item in raw
        if item.get("type") == "message"
        for part in item.get("content") or []
        if isinstance(part, dict) and part.get("type") == "refusal"
    )


class OpenAIResponsesProvider:
    """A model behind the OpenAI Responses API (or a server that speaks it)."""

    id = PROVIDER_ID

    def __init__(
        self,
        *,
        model: str = DEFAULT_MODEL,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        self.model = model
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.timeout = timeout
        where = "" if self.base_url == DEFAULT_BASE_URL else f" at {self.base_url}"
        self.label = f"OpenAI Responses API{where} — {model}"
        register_secret(api_key)
        # The engine's retry policy is the only one: every attempt shows in the record.
        import openai  # imported here, not at module import: listing providers stays fast

        self._sdk = openai
        self._client = openai.OpenAI(api_key=api_key, base_url=self.base_url, max_retries=0, timeout=timeout)

    def prepare(self) -> Iterator[LoadProgress]:
        """Nothing to prepare for a remote API."""
        yield from ()

    def complete(self, request: ModelRequest) -> ModelResponse:
        """One ``responses.create`` call; raise :class:`ProviderError` on failure."""
        kwargs: dict[str, Any] = {"model": self.model, "input": build_input(request)}
        if request.instructions:
            kwargs["instructions"] = request.instructions
        if request.tools:
            kwargs["tools"] = [tool.to_openai_responses() for tool in request.tools]
        log.debug("responses.create step=%s items=%d", request.step, len(kwargs["input"]))
        try:
            response = self._client.responses.create(**kwargs)
        except self._sdk.OpenAIError as exc:
            raise map_sdk_error(
                exc,
                sdk=self._sdk,
                provider=PROVIDER_ID,
                name=NAME,
                base_url=self.base_url,
                timeout=self.timeout,
                server_hint="check the network or OPENAI_BASE_URL",
            ) from None
        try:
            return self._parse(response)
        except ProviderError:
            raise
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise unexpected_response(PROVIDER_ID, NAME, exc) from None

    def _parse(self, response: Any) -> ModelResponse:
        if getattr(response, "status", None) == "failed":
            error = getattr(response, "error", None)
            code = getattr(error, "code", None) or "failed"
            detail = getattr(error, "message", None) or "no detail"
            raise ProviderError(
                mask_text(f"{NAME} response failed ({code}): {detail}"),
                provider=PROVIDER_ID,
                transient=code in _TRANSIENT_CODES,
                error_type="ResponseFailed",
            )
        raw = [item.model_dump(mode="json", exclude_none=True) for item in response.output or []]
        calls = [
            ToolCallRequest(
                call_id=item.get("call_id") or item.get("id") or f"call_{index}",
                name=item.get("name", ""),
                arguments=item.get("arguments", ""),
            )
            for index, item in enumerate(raw)
            if item.get("type") == "function_call"
        ]
        usage = Usage()
        if response.usage is not None:
            usage = Usage(
                input_tokens=response.usage.input_tokens or 0,
                output_tokens=response.usage.output_tokens or 0,
                total_tokens=response.usage.total_tokens
                or (response.usage.input_tokens or 0) + (response.usage.output_tokens or 0),
            )
        incomplete = getattr(response, "incomplete_details", None)
        stop_reason = getattr(incomplete, "reason", None) or response.status
        text = response.output_text or _refusal_text(raw)
        return ModelResponse(
            text=text,
            tool_calls=calls,
            usage=usage,
            raw=raw,
            stop_reason=stop_reason,
            model=response.model or self.model,
        )
