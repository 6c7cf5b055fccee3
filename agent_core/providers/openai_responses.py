"""OpenAI Responses API provider: ``client.responses.create`` with function tools.

Messages in: ``instructions`` + input items = the user's goal, then for each context block the
output items exactly as the model sent them (reasoning, message, function_call) followed by one
``function_call_output`` per call, linked by ``call_id``. Tools in: flat function tools.
Response out: ``output_text`` as the answer, every ``function_call`` as a tool call, the output
items kept whole for the next turn, and token usage.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from agent_core.context import ContextBlock, ToolCallRequest
from agent_core.errors import ProviderError
from agent_core.masking import mask_text
from agent_core.providers._sdk_base import (
    MISSING_OUTPUT,
    Sdk,
    SdkProvider,
    arguments_text,
    drop_none,
    key_hint,
    require_key,
)
from agent_core.providers.base import ModelRequest, ModelResponse, ProviderSpec, Usage
from agent_core.settings import Settings

log = logging.getLogger("agent_core.providers.openai")

PROVIDER_ID = "openai"
LABEL = "OpenAI (Responses API)"
DEFAULT_MODEL = "gpt-4.1-mini"
USES_BASE_URL = True
DEFAULT_BASE_URL = "https://api.openai.com/v1"
NAME = "OpenAI"
SPEC = ProviderSpec(
    id=PROVIDER_ID,
    label=LABEL,
    default_model=DEFAULT_MODEL,
    free=False,
    otel_name="openai",
    uses_base_url=USES_BASE_URL,
)

# Failed-response error codes worth another try (``status: failed`` in a 200 answer).
_TRANSIENT_CODES = frozenset({"server_error", "rate_limit_exceeded", "vector_store_timeout"})


def availability() -> str | None:
    """None when ``OPENAI_API_KEY`` is set, else a one-line hint."""
    return key_hint("OPENAI_API_KEY")


def create(*, model: str | None, base_url: str | None, settings: Settings) -> OpenAIResponsesProvider:
    """Build the provider from the environment; raise :class:`ProviderUnavailable` without a key."""
    return OpenAIResponsesProvider(
        model=model or DEFAULT_MODEL,
        api_key=require_key(PROVIDER_ID, "OPENAI_API_KEY"),
        base_url=base_url or os.environ.get("OPENAI_BASE_URL", "").strip() or None,
        timeout=settings.request_timeout,
    )


def block_input_items(block: ContextBlock) -> list[dict[str, Any]]:
    """One context block as Responses input items: the output items as they came, then the
    ``function_call_output`` of every call (a placeholder for a call that has none)."""
    if block.raw:
        items = [drop_none(item) for item in block.raw]
    else:  # a block not made by this provider: rebuild the items from the normalised data
        items = []
        if block.text:
            items.append({"role": "assistant", "content": block.text})
        items.extend(
            {
                "type": "function_call",
                "call_id": call.call_id,
                "name": call.name,
                "arguments": arguments_text(call.arguments),
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
    if block.feedback:  # the answer check's corrective turn
        items.append({"role": "user", "content": block.feedback})
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


class OpenAIResponsesProvider(SdkProvider):
    """A model behind the OpenAI Responses API (or a server that speaks it)."""

    id = PROVIDER_ID
    default_model = DEFAULT_MODEL
    default_base_url = DEFAULT_BASE_URL
    title = "OpenAI Responses API"
    service_name = NAME
    server_hint = "check the network or OPENAI_BASE_URL"

    def _load_sdk(self) -> Sdk:
        import openai  # imported here, not at module import: listing providers stays fast

        return Sdk(openai, openai.OpenAI, openai.OpenAIError)

    def _request_kwargs(self, request: ModelRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.model, "input": build_input(request)}
        if request.instructions:
            kwargs["instructions"] = request.instructions
        if request.tools:
            kwargs["tools"] = [tool.to_openai_responses() for tool in request.tools]
        return kwargs

    def _send(self, kwargs: dict[str, Any], request: ModelRequest) -> Any:
        log.debug("responses.create step=%s items=%d", request.step, len(kwargs["input"]))
        return self._client.responses.create(**kwargs)

    def _parse(self, response: Any, request: ModelRequest) -> ModelResponse:
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
