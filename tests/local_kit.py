"""The local provider's test kit: a fake llama.cpp server, a fake model file, and small builders.

No model and no ``xllamacpp`` here: :func:`install_engine` puts a fake server where the loaded
model lives (:mod:`agent_core.providers.local.engine`), so :class:`LocalProvider` runs its real
request, streaming and parsing code against scripted replies.
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Any

import pytest

from agent_core.context import ContextBlock, ToolCallRequest, ToolOutput
from agent_core.providers.base import ModelRequest
from agent_core.providers.local import engine as engine_module
from agent_core.providers.local.engine import Engine
from agent_core.tools.registry import Tool, ToolRegistry


def reply(thought: str, value: dict[str, Any]) -> str:
    """What the model writes under the grammar: the thought line, then one JSON object."""
    return f"Thought: {thought}\n" + json.dumps(value, ensure_ascii=False)


class FakeServer:
    """Streams scripted contents as chat chunks (in two halves) and records the request bodies.

    A request without a callback is the warm-up of the run's prompt (one token, nothing
    streamed): it is recorded in :attr:`warm_ups` and takes no scripted content."""

    def __init__(
        self,
        contents: list[str],
        *,
        final_extra: dict[str, Any] | None = None,
        finish: str = "stop",
        logprobs: dict[int, list[dict[str, Any]]] | None = None,
    ) -> None:
        self.contents = list(contents)
        self.logprobs = logprobs or {}
        """Token probabilities to stream with the n-th reply (0-based), when the request asks for them."""
        self.bodies: list[dict[str, Any]] = []
        self.warm_ups: list[dict[str, Any]] = []
        self.final_extra = final_extra or {}
        self.finish = finish

    def handle_chat_completions(self, body: dict[str, Any], callback: Any = None) -> Any:
        if callback is None:
            self.warm_ups.append(body)
            return {}
        self.bodies.append(body)
        content = self.contents.pop(0)
        tokens = self.logprobs.get(len(self.bodies) - 1) if body.get("logprobs") else None
        sent = spelled = 0
        timings = {"cache_n": 100, "prompt_n": 20, "predicted_n": 7}
        for piece in (content[: len(content) // 2], content[len(content) // 2 :]):
            chunk: dict[str, Any] = {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
            if tokens is not None:  # llama.cpp sends each token's with its text: those that fit this piece
                sent += len(piece)
                fit = 0
                while fit < len(tokens) and spelled + len(str(tokens[fit]["token"])) <= sent:
                    spelled += len(str(tokens[fit]["token"]))
                    fit += 1
                chunk["choices"][0]["logprobs"] = {"content": tokens[:fit]}
                tokens = tokens[fit:]
            if body.get("timings_per_token"):  # as llama.cpp does: the counts so far in every chunk
                chunk["timings"] = timings
            if callback(chunk):
                return None
        callback(
            {
                "choices": [{"index": 0, "delta": {}, "finish_reason": self.finish}],
                "timings": timings,
                **self.final_extra,
            }
        )
        return None


@pytest.fixture
def fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A file standing for the model (``LOCAL_MODEL_PATH``), and no engine loaded."""
    path = tmp_path / "my-model.gguf"
    path.write_bytes(b"GGUF fake")
    monkeypatch.setattr(engine_module, "_ENGINE", None)
    return path


def install_engine(monkeypatch: pytest.MonkeyPatch, path: Path, server: Any) -> Engine:
    """Make ``server`` the process's loaded model for ``path`` (2 threads, as the default)."""
    engine = Engine(server=server, path=path, load_ms=1234.5, n_threads=2, n_ctx=8192)
    monkeypatch.setattr(engine_module, "_ENGINE", engine)
    return engine


def block(index: int, name: str, arguments: dict[str, Any], output: str, *, error: bool = False) -> ContextBlock:
    """The block of one call and its output (a failed one with ``error``)."""
    call = ToolCallRequest(f"local_{index + 1}_1", name, arguments)
    return ContextBlock(
        index=index,
        step=index + 1,
        provider="local",
        tool_calls=[call],
        outputs=[ToolOutput(call.call_id, name, output, is_error=error)],
    )


def ask(tools: list[Tool], goal: str, blocks: list[ContextBlock] | None = None, **extra: Any) -> ModelRequest:
    """The request of the step after ``blocks`` (the first step without them)."""
    blocks = blocks or []
    return ModelRequest(instructions="sys", goal=goal, blocks=blocks, tools=tools, step=len(blocks) + 1, **extra)


class Unit(str, Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


def three_tools() -> ToolRegistry:
    """calculator, lookup and get_weather (an enum argument with a default): small stand-ins."""
    reg = ToolRegistry()

    @reg.tool
    def calculator(expression: str) -> str:
        """Evaluate arithmetic, e.g. '(24*7)+100'.

        Args:
            expression: The expression, e.g. '24 * 7'.
        """
        return expression

    @reg.tool
    def lookup(topic: str) -> str:
        """Look up internal facts: 단가 (unit price), 배송 (shipping)."""
        return topic

    @reg.tool
    def get_weather(city: str, unit: Unit = Unit.CELSIUS) -> str:
        """Get the weather of a city."""
        return city

    return reg
