"""Anthropic Messages API provider (seed 001): ``client.messages.create`` with tools.

Messages in: ``system``, the user's goal, then for each context block the assistant turn with its
content blocks exactly as the model sent them (text beside ``tool_use``, thinking) and a user turn
of ``tool_result`` blocks (``is_error`` for failures). Tools in: ``input_schema``. Response out:
the text blocks joined, every ``tool_use`` as a tool call, ``stop_reason`` and token usage.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from typing import Any


from agent_core.context import ContextBlock, ToolCallRequest
from agent_core.errors import ProviderUnavailable
from agent_core.masking import register_secret
from agent_core.providers._sdk_errors import map_sdk_error, unexpected_response
from agent_core.providers.base import LoadProgress, ModelRequest, ModelResponse, Usage
from agent_core.settings import Settings

log = logging.getLogger("agent_core.providers.anthropic")

PROVIDER_ID = "anthropic"
LABEL = "Anthropic (Messages API)"
DEFAULT_MODEL = "claude-sonnet-4-6"
USES_BASE_URL = True
DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_MAX_TOKENS = 4096
NAME = "Anthropic"

MISSING_OUTPUT = "ERROR: this call was not run (the run stopped before it)."


def availability() -> str | None:
    """None when ``ANTHROPIC_API_KEY`` is set, else a one-line hint."""
    if os.environ.get("ANTHROPIC_API_KEY", "").strip():
        return None
    return "set ANTHROPIC_API_KEY in the environment or .env"


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
    api_key = os.environ.get("ANTHROPIC_API_KEY", "").strip()
    if not api_key:
        raise ProviderUnavailable(
            f"{PROVIDER_ID} is unavailable: {availability()}", provider=PROVIDER_ID, error_type="Unavailable"
        )
    return AnthropicProvider(
        model=model or DEFAULT_MODEL,
        api_key=api_key,
        base_url=base_url or os.environ.get("ANTHROPIC_BASE_URL", "").strip() or None,
        timeout=settings.request_timeout,
        max_tokens=_max_tokens_from_env(),
    )


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


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
        content = [_drop_none(item) for item in block.raw]
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
    if results:
        messages.append({"role": "user", "content": results})
    return messages


def build_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """The goal, then each block's assistant and user turns, oldest first."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": request.goal}]
    for block in request.blocks:
        messages.extend(block_messages(block))
    return messages


class AnthropicProvider:
    """A Claude model behind the Anthropic Messages API."""

    id = PROVIDER_ID

    def __init__(
        self,
        *,
        model: str = DEFAULT_MODEL,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        self.model = model
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.timeout = timeout
        self.max_tokens = max_tokens
        where = "" if self.base_url == DEFAULT_BASE_URL else f" at {self.base_url}"
        self.label = f"Anthropic Messages API{where} — {model}"
        register_secret(api_key)
        # An explicit key keeps the SDK from looking for profiles or federation settings, and an
        # explicit timeout lets a large max_tokens go without streaming.
        import anthropic  # imported here, not at module import: listing providers stays fast

        self._sdk = anthropic
        self._client = anthropic.Anthropic(api_key=api_key, base_url=self.base_url, max_retries=0, timeout=timeout)

    def prepare(self) -> Iterator[LoadProgress]:
        """Nothing to prepare for a remote API."""
        yield from ()

    def complete(self, request: ModelRequest) -> ModelResponse:
        """One ``messages.create`` call; raise :class:`ProviderError` on failure."""
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": build_messages(request),
        }
        if request.instructions:
            kwargs["system"] = request.instructions
        if request.tools:
            kwargs["tools"] = [tool.to_anthropic() for tool in request.tools]
        log.debug("messages.create step=%s messages=%d", request.step, len(kwargs["messages"]))
        try:
            message = self._client.messages.create(**kwargs)
        except self._sdk.AnthropicError as exc:
            raise map_sdk_error(
                exc,
                sdk=self._sdk,
                provider=PROVIDER_ID,
                name=NAME,
                base_url=self.base_url,
                timeout=self.timeout,
                server_hint="check the network or ANTHROPIC_BASE_URL",
            ) from None
        try:
            return self._parse(message)
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise unexpected_response(PROVIDER_ID, NAME, exc) from None

    def _parse(self, message: Any) -> ModelResponse:
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
