"""OpenAI-compatible Chat Completions provider on the real ``openai`` client against the fake server."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from fake_llm_server import FakeLLMServer, chat_body, closed_port_url, openai_error
from provider_kit import COMPAT_KEY, assert_no_secret, block_from, build_registry, request

from agent_core.errors import ProviderError
from agent_core.providers import make_provider, provider_info
from agent_core.providers import openai_chat as mod
from agent_core.providers.openai_chat import OpenAIChatProvider
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings


@pytest.fixture(autouse=True)
def _no_compat_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_COMPAT_BASE_URL", "OPENAI_COMPAT_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def srv() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


def provider(srv: FakeLLMServer, *, timeout: float = 5.0, model: str = "qwen2.5:7b") -> OpenAIChatProvider:
    return OpenAIChatProvider(model=model, base_url=srv.url("/v1"), timeout=timeout)


def test_first_request_on_the_wire(srv: FakeLLMServer) -> None:
    srv.push(chat_body(text="Sunny."))
    response = provider(srv).complete(request())
    sent = srv.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["authorization"] == "Bearer not-needed"
    body = sent["json"]
    assert body["model"] == "qwen2.5:7b"
    assert body["messages"] == [
        {"role": "system", "content": "Use tools. Be brief."},
        {"role": "user", "content": "What is the weather in Paris?"},
    ]
    tool = body["tools"][0]
    assert tool["type"] == "function" and set(tool) == {"type", "function"}  # nested under function
    assert tool["function"]["name"] == "get_weather"
    assert tool["function"]["parameters"]["required"] == ["city"]
    assert (response.text, response.stop_reason, response.model) == ("Sunny.", "stop", "llama3.2")
    assert response.usage.as_dict() == {"input_tokens": 12, "output_tokens": 7, "total_tokens": 19}


def test_several_calls_then_tool_messages_linked_by_id(srv: FakeLLMServer) -> None:
    srv.push(
        chat_body(
            text="Checking.",
            calls=[("call_a", "get_weather", '{"city": "Paris"}'), ("call_b", "add", '{"a": 1, "b": 2}')],
        )
    )
    srv.push(chat_body(text="Sunny and 3."))
    p = provider(srv)
    first = p.complete(request())
    assert first.stop_reason == "tool_calls"
    assert [(c.call_id, c.name) for c in first.tool_calls] == [("call_a", "get_weather"), ("call_b", "add")]
    p.complete(request([block_from(first, ['{"temp": 21}', "3.0"])], step=2))
    messages = srv.bodies[1]["messages"]
    assert messages[2:] == [
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {"id": "call_b", "type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_a", "content": '{"temp": 21}'},
        {"role": "tool", "tool_call_id": "call_b", "content": "3.0"},
    ]


def test_missing_call_ids_and_usage_are_tolerated(srv: FakeLLMServer) -> None:
    body = chat_body(calls=[("", "add", '{"a": 1, "b": 2}')], usage=None)
    body["choices"][0]["message"]["tool_calls"][0].pop("id")
    srv.push(body)
    response = provider(srv).complete(request(step=3))
    assert response.tool_calls[0].call_id == "call_3_0"
    assert response.raw[0]["tool_calls"][0]["id"] == "call_3_0"
    assert response.usage.total_tokens == 0


def test_no_choices_is_a_clear_error(srv: FakeLLMServer) -> None:
    srv.push({"object": "chat.completion", "choices": []})
    with pytest.raises(ProviderError) as info:
        provider(srv).complete(request())
    assert info.value.error_type == "UnexpectedResponse"


def test_dead_server_gives_a_clear_error() -> None:
    url = closed_port_url("/v1")
    with pytest.raises(ProviderError) as info:
        OpenAIChatProvider(base_url=url, timeout=2.0).complete(request())
    err = info.value
    assert err.transient and err.error_type == "APIConnectionError"
    assert err.message.startswith(f"Could not connect to the OpenAI-compatible server at {url}")
    assert err.message.endswith("— is it running?")


def test_unknown_model_404(srv: FakeLLMServer) -> None:
    srv.push(openai_error('model "nope" not found, try pulling it first', type_="api_error"), status=404)
    with pytest.raises(ProviderError) as info:
        provider(srv, model="nope").complete(request())
    err = info.value
    assert not err.transient and err.status == 404
    assert 'model "nope" not found' in err.message


def test_read_timeout(srv: FakeLLMServer) -> None:
    srv.push(chat_body(text="late"), delay=1.5)
    t0 = time.perf_counter()
    with pytest.raises(ProviderError) as info:
        provider(srv, timeout=0.3).complete(request())
    assert time.perf_counter() - t0 < 1.2
    assert info.value.transient and info.value.error_type == "APITimeoutError"
    assert info.value.message == "The OpenAI-compatible server request timed out after 0.3 s"


def test_always_available_and_configured_from_env(
    srv: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    info = provider_info("openai-chat")
    assert info.available and info.uses_base_url
    assert mod.connection_hint().startswith("connects to http://localhost:11434/v1")
    monkeypatch.setenv("OPENAI_COMPAT_BASE_URL", srv.url("/v1"))
    monkeypatch.setenv("OPENAI_COMPAT_API_KEY", COMPAT_KEY)
    p = make_provider("openai-chat", settings=Settings(data_dir=tmp_path, request_timeout=3.0), model="mistral")
    assert p.model == "mistral" and srv.url("/v1") in p.label
    srv.push(chat_body(text="ok"))
    p.complete(request())
    assert srv.requests[0]["headers"]["authorization"] == f"Bearer {COMPAT_KEY}"
    assert srv.requests[0]["headers"]["x-stainless-read-timeout"] == "3.0"


def test_per_run_base_url_wins(srv: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("OPENAI_COMPAT_BASE_URL", closed_port_url("/v1"))
    p = make_provider("openai-chat", settings=Settings(data_dir=tmp_path), base_url=srv.url("/v1"))
    assert p.model == mod.DEFAULT_MODEL
    srv.push(chat_body(text="ok"))
    assert p.complete(request()).text == "ok"


# ------------------------------------------------------------------ through the loop


def tool_messages(body: dict) -> list[tuple[str, str]]:
    return [(m["tool_call_id"], m["content"]) for m in body["messages"] if m["role"] == "tool"]


def test_loop_multi_step_errors_and_trimming(
    srv: FakeLLMServer, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_COMPAT_API_KEY", COMPAT_KEY)
    srv.push(chat_body(calls=[("c1", "get_weather", '{"city": "Paris"'), ("c2", "teleport", "{}")]))
    srv.push(chat_body(calls=[("c3", "get_weather", '{"city": "Paris"}')]))
    srv.push(openai_error("busy", type_="server_error"), status=503, headers={"retry-after": "0"})
    srv.push(chat_body(calls=[("c4", "get_weather", '{"city": "Paris"}')]))
    srv.push(chat_body(text="Paris: 21 °C."))
    p = make_provider("openai-chat", settings=settings, base_url=srv.url("/v1"))
    record = run_to_end(
        "Weather in Paris?", provider=p, registry=build_registry(), settings=settings.replace(max_context_blocks=2)
    )
    assert record["status"] == "completed" and record["answer"] == "Paris: 21 °C."
    bodies = srv.bodies
    assert len(bodies) == 5
    out = dict(tool_messages(bodies[1]))
    assert out["c1"].startswith("ERROR: Tool arguments were not valid JSON")
    assert out["c2"].startswith("ERROR: Unknown tool 'teleport'")
    assert bodies[2] == bodies[3]  # the 503 was retried with the same request
    assert [c for c, _ in tool_messages(bodies[4])] == ["c3", "c4"]  # block 0 trimmed
    assert dict(tool_messages(bodies[4]))["c4"].startswith("ERROR: Duplicate tool call")
    assert record["steps"][2]["model_attempts"][0]["status"] == 503
    assert record["steps"][-1]["blocks_trimmed"] == [0]
    assert_no_secret(record, settings.runs_dir, COMPAT_KEY)


def test_loop_dead_server(settings: Settings) -> None:
    url = closed_port_url("/v1")
    p = OpenAIChatProvider(base_url=url, timeout=1.0)
    record = run_to_end("Hi", provider=p, registry=build_registry(), settings=settings.replace(retry_delays=(0.0,)))
    assert record["status"] == "error"
    assert record["error"]["type"] == "APIConnectionError"
    assert "is it running?" in record["error"]["message"]
    assert json.dumps(record).count("Could not connect") >= 1
