"""Chat Completions provider for OpenAI-compatible servers: Ollama, vLLM, LM Studio, llama.cpp.

Messages in: a system message, the user's goal, then for each context block the assistant
message (its text and ``tool_calls``) followed by one ``role: "tool"`` message per call, linked
by ``tool_call_id``. Tools in: nested under ``function``. Response out: the message text, its
tool calls, ``finish_reason`` and token usage.

Configuration: ``OPENAI_COMPAT_BASE_URL`` (default Ollama's ``http://localhost:11434/v1``) and
``OPENAI_COMPAT_API_KEY`` (local servers ignore it; default ``not-needed``). The model name is
free text: whatever the server has loaded.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from agent_core.context import ContextBlock, ToolCallRequest
from agent_core.providers._sdk_base import MISSING_OUTPUT, Sdk, SdkProvider, arguments_text
from agent_core.providers.base import ModelRequest, ModelResponse, ProviderSpec, Usage
from agent_core.settings import Settings

log = logging.getLogger("agent_core.providers.openai_chat")

PROVIDER_ID = "openai-chat"
LABEL = "OpenAI-compatible server (Ollama, vLLM, LM Studio, llama.cpp)"
DEFAULT_MODEL = "llama3.2"
USES_BASE_URL = True
DEFAULT_BASE_URL = "http://localhost:11434/v1"
PLACEHOLDER_KEY = "not-needed"
NAME = "the OpenAI-compatible server"
SPEC = ProviderSpec(
    id=PROVIDER_ID,
    label=LABEL,
    default_model=DEFAULT_MODEL,
    free=False,
    otel_name="openai",  # the wire protocol: gen_ai's name for OpenAI-compatible servers
    uses_base_url=USES_BASE_URL,
    needs_running_server=True,
)


def configured_base_url() -> str:
    """Where the provider connects unless a run gives another base URL."""
    return os.environ.get("OPENAI_COMPAT_BASE_URL", "").strip() or DEFAULT_BASE_URL


def availability() -> str | None:
    """Always usable: the server is local and may be started at any time.

    A server that is not running gives a clear error at run time instead. See
    :func:`connection_hint` for a line saying where it will connect.
    """
    return None


def connection_hint() -> str:
    """One line for the UI: where requests will go."""
    return f"connects to {configured_base_url()} (set OPENAI_COMPAT_BASE_URL to change)"


def create(*, model: str | None, base_url: str | None, settings: Settings) -> OpenAIChatProvider:
    """Build the provider from the environment (no key needed)."""
    api_key = os.environ.get("OPENAI_COMPAT_API_KEY", "").strip() or PLACEHOLDER_KEY
    return OpenAIChatProvider(
        model=model or DEFAULT_MODEL,
        api_key=api_key,
        base_url=base_url or configured_base_url(),
        timeout=settings.request_timeout,
    )


def _assistant_message(block: ContextBlock) -> dict[str, Any]:
    """The block's assistant turn: the message as the server sent it (role, content, tool_calls)."""
    source = next((item for item in block.raw if item.get("role") == "assistant"), None)
    if source is not None:
        message: dict[str, Any] = {"role": "assistant", "content": source.get("content")}
        calls = source.get("tool_calls") or []
    else:  # a block not made by this provider: rebuild from the normalised data
        message = {"role": "assistant", "content": block.text or None}
        calls = [
            {"id": c.call_id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in block.tool_calls
        ]
    if calls:
        message["tool_calls"] = [
            {
                "id": call.get("id"),
                "type": "function",
                "function": {
                    "name": (call.get("function") or {}).get("name", ""),
                    "arguments": arguments_text((call.get("function") or {}).get("arguments", "")),
                },
            }
            for call in calls
        ]
    return message


def block_messages(block: ContextBlock) -> list[dict[str, Any]]:
    """One context block as chat messages: the assistant turn, then a ``tool`` message per call."""
    assistant = _assistant_message(block)
    messages = [assistant]
    for result in block.outputs:
        messages.append({"role": "tool", "tool_call_id": result.call_id, "content": result.output})
    answered = {result.call_id for result in block.outputs}
    for call in assistant.get("tool_calls", []):
        if call["id"] not in answered:
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": MISSING_OUTPUT})
            answered.add(call["id"])
    if block.feedback:  # the answer check's corrective turn
        messages.append({"role": "user", "content": block.feedback})
    return messages


def build_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """System message, the goal, then each block's messages, oldest first."""
    messages: list[dict[str, Any]] = []
    if request.instructions:
        messages.append({"role": "system", "content": request.instructions})
    messages.append({"role": "user", "content": request.goal})
    for block in request.blocks:
        messages.extend(block_messages(block))
    return messages


class OpenAIChatProvider(SdkProvider):
    """A model behind a Chat Completions endpoint (a local OpenAI-compatible server)."""

    id = PROVIDER_ID
    default_model = DEFAULT_MODEL
    default_base_url = DEFAULT_BASE_URL
    title = "OpenAI-compatible server"
    placeholder_key = PLACEHOLDER_KEY
    service_name = NAME
    server_hint = "is it running?"
    parse_errors = (AttributeError, IndexError, KeyError, TypeError, ValueError)

    def __init__(
        self,
        *,
        model: str = DEFAULT_MODEL,
        api_key: str = PLACEHOLDER_KEY,
        base_url: str = DEFAULT_BASE_URL,
        timeout: float = 60.0,
    ) -> None:
        super().__init__(model=model, api_key=api_key, base_url=base_url, timeout=timeout)

    def _label_text(self) -> str:
        # Always says where: the default place is a guess (Ollama's port), not a known service.
        return f"{self.title} at {self.base_url} — {self.model}"

    def _load_sdk(self) -> Sdk:
        import openai  # imported here, not at module import: listing providers stays fast

        return Sdk(openai, openai.OpenAI, openai.OpenAIError)

    def _request_kwargs(self, request: ModelRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.model, "messages": build_messages(request)}
        if request.tools:
            kwargs["tools"] = [tool.to_openai_chat() for tool in request.tools]
        return kwargs

    def _send(self, kwargs: dict[str, Any], request: ModelRequest) -> Any:
        log.debug("chat.completions.create step=%s messages=%d", request.step, len(kwargs["messages"]))
        return self._client.chat.completions.create(**kwargs)

    def _parse(self, completion: Any, request: ModelRequest) -> ModelResponse:
        if not completion.choices:
            raise ValueError("no choices in the answer")
        choice = completion.choices[0]
        message = choice.message
        calls: list[ToolCallRequest] = []
        raw_calls: list[dict[str, Any]] = []
        for index, call in enumerate(message.tool_calls or []):
            function = call.function
            # Some local servers leave the id out; make one so outputs can still be linked.
            call_id = call.id or f"call_{request.step}_{index}"
            arguments = function.arguments if function.arguments is not None else ""
            calls.append(ToolCallRequest(call_id=call_id, name=function.name or "", arguments=arguments))
            raw_calls.append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": function.name or "", "arguments": arguments_text(arguments)},
                }
            )
        raw: dict[str, Any] = {"role": "assistant", "content": message.content}
        if raw_calls:
            raw["tool_calls"] = raw_calls
        usage = Usage()
        if completion.usage is not None:
            prompt = completion.usage.prompt_tokens or 0
            output = completion.usage.completion_tokens or 0
            usage = Usage(prompt, output, completion.usage.total_tokens or prompt + output)
        return ModelResponse(
            text=message.content or "",
            tool_calls=calls,
            usage=usage,
            raw=[raw],
            stop_reason=choice.finish_reason,
            model=completion.model or self.model,
        )
