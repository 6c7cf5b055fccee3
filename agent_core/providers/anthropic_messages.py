"""Anthropic Messages API provider: ``client.messages.create`` with tools.

Messages in: ``system``, the user's goal, then for each context block the assistant turn with its
content blocks exactly as the model sent them (text beside ``tool_use``, thinking) and a user turn
of ``tool_result`` blocks (``is_error`` for failures). Tools in: ``input_schema``. Response out:
the text blocks joined, every ``tool_use`` as a tool call, ``stop_reason`` and token usage.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

from agent_core.context import ContextBlock, ToolCallRequest
from agent_core.providers._sdk_base import MISSING_OUTPUT, Sdk, SdkProvider, drop_none, key_hint, require_key
from agent_core.providers.base import ModelRequest, ModelResponse, ProviderSpec, Usage
from agent_core.settings import Settings

log = logging.getLogger("agent_core.providers.anthropic")

PROVIDER_ID = "anthropic"
LABEL = "Anthropic (Messages API)"
DEFAULT_MODEL = "claude-sonnet-4-6"
USES_BASE_URL = True
DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_MAX_TOKENS = 4096
NAME = "Anthropic"
SPEC = ProviderSpec(
    id=PROVIDER_ID,
    label=LABEL,
    default_model=DEFAULT_MODEL,
    free=False,
    otel_name="anthropic",
    uses_base_url=USES_BASE_URL,
)


def availability() -> str | None:
    """None when ``ANTHROPIC_API_KEY`` is set, else a one-line hint."""
    return key_hint("ANTHROPIC_API_KEY")


def _max_tokens_from_env() -> int:
    value = os.environ.get("ANTHROPIC_MAX_TOKENS", "").strip()
    try:
        return max(1, int(value)) if value else DEFAULT_MAX_TOKENS
    except ValueError:
        return DEFAULT_MAX_TOKENS


def create(*, model: str | None, base_url: str | None, settings: Settings) -> AnthropicProvider:
    """Build the provider from the environment; raise :class:`ProviderUnavailable` without a key.

    ``ANTHROPIC_MAX_TOKENS`` (default 4096) bounds each answer.
    """
    return AnthropicProvider(
        model=model or DEFAULT_MODEL,
        api_key=require_key(PROVIDER_ID, "ANTHROPIC_API_KEY"),
        base_url=base_url or os.environ.get("ANTHROPIC_BASE_URL", "").strip() or None,
        timeout=settings.request_timeout,
        max_tokens=_max_tokens_from_env(),
    )


def _input_object(arguments: Any) -> Any:
    """``tool_use.input`` must be an object; rebuild one from a JSON string when needed."""
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return {}
    return arguments


def _assistant_content(block: ContextBlock) -> list[dict[str, Any]]:
    """The block's content blocks as the model sent them; empty text blocks (refused by the API)
    are left out."""
    if block.raw:
        content = [drop_none(item) for item in block.raw]
    else:  # a block not made by this provider: rebuild from the normalised data
        content = [{"type": "text", "text": block.text}] if block.text else []
        content.extend(
            {"type": "tool_use", "id": c.call_id, "name": c.name, "input": _input_object(c.arguments)}
            for c in block.tool_calls
        )
    return [item for item in content if not (item.get("type") == "text" and not item.get("text"))]


def block_messages(block: ContextBlock) -> list[dict[str, Any]]:
    """One context block: the assistant turn, then a user turn with a ``tool_result`` per call."""
    content = _assistant_content(block)
    messages: list[dict[str, Any]] = []
    if content:
        messages.append({"role": "assistant", "content": content})
    results: list[dict[str, Any]] = []
    for output in block.outputs:
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": output.call_id, "content": output.output}
        if output.is_error:
            result["is_error"] = True
        results.append(result)
    answered = {output.call_id for output in block.outputs}
    for item in content:
        call_id = str(item.get("id", ""))
        if item.get("type") == "tool_use" and call_id not in answered:
            results.append({"type": "tool_result", "tool_use_id": call_id, "content": MISSING_OUTPUT, "is_error": True})
            answered.add(call_id)
    if block.feedback:  # the answer check's corrective turn (a text block after any tool results)
        results.append({"type": "text", "text": block.feedback})
    if results:
        messages.append({"role": "user", "content": results})
    return messages


def build_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """The goal, then each block's assistant and user turns, oldest first."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": request.goal}]
    for block in request.blocks:
        messages.extend(block_messages(block))
    return messages


class AnthropicProvider(SdkProvider):
    """A Claude model behind the Anthropic Messages API."""

    id = PROVIDER_ID
    default_model = DEFAULT_MODEL
    default_base_url = DEFAULT_BASE_URL
    title = "Anthropic Messages API"
    service_name = NAME
    server_hint = "check the network or ANTHROPIC_BASE_URL"

    def __init__(
        self,
        *,
        model: str = DEFAULT_MODEL,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        self.max_tokens = max_tokens
        super().__init__(model=model, api_key=api_key, base_url=base_url, timeout=timeout)

    def _load_sdk(self) -> Sdk:
        # The client gets an explicit key, so the SDK looks for no profiles or federation settings,
        # and an explicit timeout, so a large max_tokens can go without streaming.
        import anthropic  # imported here, not at module import: listing providers stays fast

        return Sdk(anthropic, anthropic.Anthropic, anthropic.AnthropicError)

    def _request_kwargs(self, request: ModelRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": build_messages(request),
        }
        if request.instructions:
            kwargs["system"] = request.instructions
        if request.tools:
            kwargs["tools"] = [tool.to_anthropic() for tool in request.tools]
        return kwargs

    def _send(self, kwargs: dict[str, Any], request: ModelRequest) -> Any:
        log.debug("messages.create step=%s messages=%d", request.step, len(kwargs["messages"]))
        return self._client.messages.create(**kwargs)

    def _parse(self, message: Any, request: ModelRequest) -> ModelResponse:
        raw = [block.model_dump(mode="json", exclude_none=True) for block in message.content or []]
        texts = [item.get("text", "") for item in raw if item.get("type") == "text"]
        calls = [
            ToolCallRequest(call_id=item.get("id", ""), name=item.get("name", ""), arguments=item.get("input"))
            for item in raw
            if item.get("type") == "tool_use"
        ]
        usage = Usage()
        if message.usage is not None:
            u = message.usage
            prompt = (
                (u.input_tokens or 0)
                + (getattr(u, "cache_creation_input_tokens", None) or 0)
                + (getattr(u, "cache_read_input_tokens", None) or 0)
            )
            output = u.output_tokens or 0
            usage = Usage(prompt, output, prompt + output)
        return ModelResponse(
            text="\n".join(t for t in texts if t),
            tool_calls=calls,
            usage=usage,
            raw=raw,
            stop_reason=message.stop_reason,
            model=message.model or self.model,
        )
