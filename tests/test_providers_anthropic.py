"""Anthropic Messages provider on the real ``anthropic`` client against the local fake server."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from fake_llm_server import FakeLLMServer, anthropic_body, anthropic_error, closed_port_url
from provider_kit import ANTHROPIC_KEY, assert_no_secret, block_from, build_registry, request

from agent_core.context import ContextBlock, ToolCallRequest, ToolOutput
from agent_core.errors import ProviderError, ProviderUnavailable
from agent_core.providers import anthropic_messages as mod
from agent_core.providers import make_provider, provider_info
from agent_core.providers.anthropic_messages import AnthropicProvider
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings


@pytest.fixture
def srv() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


def provider(srv: FakeLLMServer, *, timeout: float = 5.0) -> AnthropicProvider:
    return AnthropicProvider(model="claude-sonnet-4-6", api_key=ANTHROPIC_KEY, base_url=srv.url(), timeout=timeout)


def test_first_request_on_the_wire(srv: FakeLLMServer) -> None:
    srv.push(anthropic_body(text="Sunny."))
    response = provider(srv).complete(request())
    sent = srv.requests[0]
    assert sent["path"] == "/v1/messages"
    auth = sent["headers"].get("x-api-key") or sent["headers"].get("authorization", "")
    assert ANTHROPIC_KEY in auth
    assert "anthropic-version" in sent["headers"]
    body = sent["json"]
    assert body["model"] == "claude-sonnet-4-6"
    assert body["max_tokens"] == 4096
    assert body["system"] == "Use tools. Be brief."
    assert body["messages"] == [{"role": "user", "content": "What is the weather in Paris?"}]
    assert body["tools"][0] == {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "input_schema": build_registry().get("get_weather").parameters,
    }
    assert (response.text, response.stop_reason, response.model) == ("Sunny.", "end_turn", "claude-sonnet-4-6")
    assert response.usage.as_dict() == {"input_tokens": 20, "output_tokens": 9, "total_tokens": 29}


def test_text_beside_tool_use_and_thinking_go_back_whole(srv: FakeLLMServer) -> None:
    srv.push(
        anthropic_body(
            thinking="The user wants weather and a sum.",
            text="I'll check the weather and add.",
            calls=[("toolu_01", "get_weather", {"city": "Paris"}), ("toolu_02", "always_fails", {"reason": "x"})],
        )
    )
    srv.push(anthropic_body(text="Sunny; the other tool failed."))
    p = provider(srv)
    first = p.complete(request())
    assert first.text == "I'll check the weather and add."
    assert first.stop_reason == "tool_use"
    assert [(c.call_id, c.name, c.arguments) for c in first.tool_calls] == [
        ("toolu_01", "get_weather", {"city": "Paris"}),
        ("toolu_02", "always_fails", {"reason": "x"}),
    ]
    p.complete(request([block_from(first, ['{"temp": 21}', "ERROR: cannot do that"], errors={1})], step=2))
    messages = srv.bodies[1]["messages"]
    assert messages[1] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "The user wants weather and a sum.", "signature": "sig-abc"},
            {"type": "text", "text": "I'll check the weather and add."},
            {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_02", "name": "always_fails", "input": {"reason": "x"}},
        ],
    }
    assert messages[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": '{"temp": 21}'},
            {"type": "tool_result", "tool_use_id": "toolu_02", "content": "ERROR: cannot do that", "is_error": True},
        ],
    }


def test_rebuilt_block_and_missing_result() -> None:
    block = ContextBlock(
        index=0,
        step=1,
        provider="scripted",
        text="",
        tool_calls=[ToolCallRequest("t1", "add", '{"a": 1, "b": 2}'), ToolCallRequest("t2", "add", "{}")],
        outputs=[ToolOutput("t1", "add", "3.0")],
    )
    assert mod.block_messages(block) == [
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "t1", "name": "add", "input": {"a": 1, "b": 2}},
                {"type": "tool_use", "id": "t2", "name": "add", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "3.0"},
                {"type": "tool_result", "tool_use_id": "t2", "content": mod.MISSING_OUTPUT, "is_error": True},
            ],
        },
    ]


@pytest.mark.parametrize(
    ("status", "error_type", "transient"),
    [
        (529, "OverloadedError", True),
        (503, "ServiceUnavailableError", True),
        (500, "InternalServerError", True),
        (408, "RequestTimeoutError", True),
        (429, "RateLimitError", True),
        (400, "BadRequestError", False),
        (403, "PermissionDeniedError", False),
        (404, "NotFoundError", False),
    ],
)
def test_status_errors(srv: FakeLLMServer, status: int, error_type: str, transient: bool) -> None:
    srv.push(anthropic_error("something happened", type_="api_error"), status=status, headers={"retry-after": "2"})
    with pytest.raises(ProviderError) as info:
        provider(srv).complete(request())
    err = info.value
    assert (err.status, err.error_type, err.transient) == (status, error_type, transient)
    assert err.retry_after == (2.0 if transient else None)
    assert err.message.startswith("Anthropic ") and "something happened" in err.message
    assert len(srv.requests) == 1


def test_401_never_echoes_the_key(srv: FakeLLMServer) -> None:
    srv.push(anthropic_error(f"invalid x-api-key {ANTHROPIC_KEY}", type_="authentication_error"), status=401)
    with pytest.raises(ProviderError) as info:
        provider(srv).complete(request())
    assert info.value.message.startswith("Anthropic rejected the API key (401)")
    assert ANTHROPIC_KEY not in info.value.message
    assert not info.value.transient


def test_connection_refused_and_timeout(srv: FakeLLMServer) -> None:
    url = closed_port_url()
    with pytest.raises(ProviderError) as info:
        AnthropicProvider(api_key=ANTHROPIC_KEY, base_url=url, timeout=1.0).complete(request())
    assert info.value.error_type == "APIConnectionError" and info.value.transient
    assert url in info.value.message
    srv.push(anthropic_body(text="late"), delay=1.5)
    t0 = time.perf_counter()
    with pytest.raises(ProviderError) as info:
        provider(srv, timeout=0.3).complete(request())
    assert time.perf_counter() - t0 < 1.2
    assert info.value.error_type == "APITimeoutError"
    assert info.value.message == "Anthropic request timed out after 0.3 s"


def test_env_key_base_url_and_max_tokens(srv: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    assert provider_info("anthropic").hint == "set ANTHROPIC_API_KEY in the environment or .env"
    with pytest.raises(ProviderUnavailable):
        make_provider("anthropic", settings=Settings(data_dir=tmp_path))
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", srv.url())
    monkeypatch.setenv("ANTHROPIC_MAX_TOKENS", "64000")  # allowed without streaming: the timeout is explicit
    p = make_provider("anthropic", settings=Settings(data_dir=tmp_path, request_timeout=4.0))
    assert p.model == mod.DEFAULT_MODEL
    srv.push(anthropic_body(text="ok"))
    assert p.complete(request()).text == "ok"
    assert srv.bodies[0]["max_tokens"] == 64000
    assert srv.requests[0]["headers"]["x-stainless-read-timeout"] == "4.0"


# ------------------------------------------------------------------ through the loop


def results_sent(body: dict) -> list[dict]:
    return [
        part
        for message in body["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for part in message["content"]
        if part.get("type") == "tool_result"
    ]


def test_loop_multi_step_with_is_error_and_retry(srv: FakeLLMServer, settings: Settings) -> None:
    srv.push(
        anthropic_body(
            text="Let me check.",
            calls=[("toolu_1", "get_weather", {"city": "Paris"}), ("toolu_2", "always_fails", {"reason": "demo"})],
        )
    )
    srv.push(anthropic_error("Overloaded", type_="overloaded_error"), status=529)
    srv.push(anthropic_body(calls=[("toolu_3", "teleport", {"to": "Mars"})]))
    srv.push(anthropic_body(text="Paris is sunny."))
    record = run_to_end("Weather in Paris?", provider=provider(srv), registry=build_registry(), settings=settings)
    assert record["status"] == "completed" and record["answer"] == "Paris is sunny."
    bodies = srv.bodies
    assert len(bodies) == 4 and bodies[1] == bodies[2]
    assert bodies[1]["messages"][1]["content"][0] == {"type": "text", "text": "Let me check."}
    results = results_sent(bodies[1])
    assert [r["tool_use_id"] for r in results] == ["toolu_1", "toolu_2"]
    assert "is_error" not in results[0]
    assert results[1]["is_error"] is True and results[1]["content"].startswith("ERROR:")
    unknown = results_sent(bodies[3])[-1]
    assert unknown["tool_use_id"] == "toolu_3" and unknown["is_error"] is True
    assert "Unknown tool 'teleport'" in unknown["content"]
    attempts = record["steps"][1]["model_attempts"]
    assert attempts[0]["error_type"] == "OverloadedError" and attempts[0]["status"] == 529
    assert record["usage"]["input_tokens"] == 60
    assert_no_secret(record, settings.runs_dir, ANTHROPIC_KEY)


def test_loop_401_no_retry(srv: FakeLLMServer, settings: Settings) -> None:
    srv.push(anthropic_error(f"bad key {ANTHROPIC_KEY}", type_="authentication_error"), status=401)
    record = run_to_end("Hi", provider=provider(srv), registry=build_registry(), settings=settings)
    assert record["status"] == "error" and record["error"]["type"] == "AuthenticationError"
    assert len(srv.requests) == 1
    assert_no_secret(record, settings.runs_dir, ANTHROPIC_KEY)


def test_loop_trimming_keeps_tool_use_and_result_together(srv: FakeLLMServer, settings: Settings) -> None:
    for i in range(1, 4):
        srv.push(anthropic_body(text=f"step {i}", calls=[(f"toolu_{i}", "add", {"a": i, "b": 1})]))
    srv.push(anthropic_body(text="done"))
    record = run_to_end(
        "Add", provider=provider(srv), registry=build_registry(), settings=settings.replace(max_context_blocks=1)
    )
    assert record["status"] == "completed"
    last = srv.bodies[-1]["messages"]
    assert [m["role"] for m in last] == ["user", "assistant", "user"]
    assert last[1]["content"][1]["id"] == "toolu_3"
    assert last[2]["content"][0]["tool_use_id"] == "toolu_3"
