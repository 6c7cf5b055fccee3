"""Shared bits of the SDK provider tests: a small deterministic tool registry and request helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from agent_core.context import ContextBlock, ToolOutput
from agent_core.providers.base import ModelRequest, ModelResponse
from agent_core.tools.registry import ToolRegistry

# Looks like a real key on purpose: masking must catch it by shape and by registration.
OPENAI_KEY = "sk-proj-TESTKEY0123456789abcdefXYZ"
ANTHROPIC_KEY = "sk-ant-api03-TESTKEY0123456789abcdefXYZ"
COMPAT_KEY = "compat-secret-0123456789"


def build_registry() -> ToolRegistry:
    """get_weather, add and always_fails: deterministic tools for loop-level tests."""
    registry = ToolRegistry()

    @registry.tool
    def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> dict[str, Any]:
        """Get the current weather for a city.

        Args:
            city: City name, e.g. Paris.
            unit: Temperature unit.
        """
        return {"city": city, "temp": 21 if unit == "celsius" else 70, "unit": unit}

    @registry.tool
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    @registry.tool
    def always_fails(reason: str) -> str:
        """A tool that always fails (for is_error tests)."""
        raise ValueError(f"cannot do that: {reason}")

    return registry


def request(blocks: list[ContextBlock] | None = None, *, step: int = 1, tools: bool = True) -> ModelRequest:
    """A ModelRequest with the kit's instructions, goal and tools."""
    return ModelRequest(
        instructions="Use tools. Be brief.",
        goal="What is the weather in Paris?",
        blocks=list(blocks or []),
        tools=list(build_registry()) if tools else [],
        step=step,
        timeout=5.0,
    )


def block_from(
    response: ModelResponse, outputs: list[str], *, index: int = 0, provider: str = "x", errors: set[int] = frozenset()
) -> ContextBlock:
    """A context block from a provider response and the outputs of its calls (in order)."""
    return ContextBlock(
        index=index,
        step=index + 1,
        provider=provider,
        text=response.text,
        tool_calls=list(response.tool_calls),
        outputs=[
            ToolOutput(call.call_id, call.name, out, is_error=i in errors)
            for i, (call, out) in enumerate(zip(response.tool_calls, outputs, strict=True))
        ],
        raw=list(response.raw),
    )


def assert_no_secret(record: dict[str, Any], runs_dir: Path, *secrets: str) -> None:
    """No key in the record dict nor in any file written under ``runs_dir``."""
    dumped = json.dumps(record, ensure_ascii=False)
    files = [p.read_text(encoding="utf-8") for p in runs_dir.rglob("*") if p.is_file()]
    for secret in secrets:
        assert secret not in dumped
        assert all(secret not in text for text in files)
