"""The local provider's token limit for a call follows the plan: a call that must carry a long
text gets room for it, the others keep the short limit that stops a rambling argument; and a
text the plan already knows is not generated at all. Fake llama.cpp server, no model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core.context import ContextBlock, ToolCallRequest, ToolOutput
from agent_core.providers import local
from agent_core.providers.base import ModelRequest
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from tests.test_local_provider import FakeServer, install_engine
from tests.test_local_provider import fake_model as model_path  # noqa: F401, F811 (a fixture)


def ask(provider: local.LocalProvider, goal: str, blocks: list[ContextBlock] | None = None) -> ModelRequest:
    tools = list(build_default_registry(Settings()))
    return ModelRequest(instructions="sys", goal=goal, blocks=blocks or [], tools=tools, step=len(blocks or []) + 1)


def test_a_long_text_to_count_gets_room_and_a_short_call_does_not(
    model_path: Path,  # noqa: F811 (the fixture imported above)
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    words = " ".join(["lorem"] * 80)
    server = FakeServer(
        [json.dumps({"word_count": {"text": words}}), '{"calculator": {"expression": "17 / 100 * 2340"}}']
    )
    install_engine(monkeypatch, model_path, server)
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(model_path)})
    goal = f"How many words are in this: {words}"
    response = provider.complete(ask(provider, goal))
    assert response.tool_calls[0].name == "word_count"
    assert server.bodies[0]["max_tokens"] > len(goal) > local.CALL_TOKENS
    provider.complete(ask(provider, "What is 17% of 2,340?"))
    assert server.bodies[1]["max_tokens"] == local.CALL_TOKENS


def test_the_text_of_a_file_just_read_is_counted_without_the_model(
    model_path: Path,  # noqa: F811 (the fixture imported above)
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = FakeServer([])
    install_engine(monkeypatch, model_path, server)
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(model_path)})
    notes = "Operations meeting: 2026-08-12.\n" + "Decided to ship the new price list on Monday. " * 20
    call = ToolCallRequest("local_1_1", "read_file", {"path": "notes.txt"})
    read = ContextBlock(
        index=0, step=1, provider="local", tool_calls=[call], outputs=[ToolOutput("local_1_1", "read_file", notes)]
    )
    response = provider.complete(ask(provider, "How many words are in notes.txt?", [read]))
    assert response.tool_calls == [ToolCallRequest("local_2_1", "word_count", {"text": notes})]
    assert response.raw[0]["planned"] is True and server.bodies == []
