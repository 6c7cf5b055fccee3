"""OpenAI Responses provider on the real ``openai`` client against the local fake server."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest
from fake_llm_server import FakeLLMServer, closed_port_url, openai_error, responses_body
from provider_kit import OPENAI_KEY, assert_no_secret, block_from, build_registry, request

from agent_core.errors import ProviderError, ProviderUnavailable
from agent_core.providers import make_provider, provider_info
from agent_core.providers import openai_responses as mod
from agent_core.providers._sdk_errors import parse_retry_after
from agent_core.providers.base import Provider
from agent_core.providers.openai_responses import OpenAIResponsesProvider
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings

WEATHER_TOOL = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the current weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. Paris."},
            "unit": {
                "type": "string",
                "enum": ["celsius", "fahrenheit"],
                "default": "celsius",
                "description": "Temperature unit.",
            },
        },
        "required": ["city"],
        "additionalProperties": False,
    },
    "strict": False,
}


@pytest.fixture
def srv() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


def provider(srv: FakeLLMServer, *, timeout: float = 5.0) -> OpenAIResponsesProvider:
    return OpenAIResponsesProvider(model="gpt-4.1-mini", api_key=OPENAI_KEY, base_url=srv.url("/v1"), timeout=timeout)


# ------------------------------------------------------------------ provider level


def test_first_request_on_the_wire(srv: FakeLLMServer) -> None:
    srv.push(responses_body(text="It is sunny."))
    response = provider(srv).complete(request())
    assert len(srv.requests) == 1
    sent = srv.requests[0]
    assert sent["path"] == "/v1/responses"
    assert sent["headers"]["authorization"] == f"Bearer {OPENAI_KEY}"
    assert sent["headers"]["x-stainless-retry-count"] == "0"
    body = sent["json"]
    assert body["model"] == "gpt-4.1-mini"
    assert body["instructions"] == "Use tools. Be brief."
    assert body["input"] == [{"role": "user", "content": "What is the weather in Paris?"}]
    assert [t["name"] for t in body["tools"]] == ["get_weather", "add", "always_fails"]
    assert body["tools"][0] == WEATHER_TOOL  # flat, not nested under "function"
    assert response.text == "It is sunny."
    assert response.tool_calls == []
    assert response.usage.as_dict() == {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    assert response.model == "gpt-4.1-mini-2025-04-14"
    assert response.stop_reason == "completed"


def test_no_tools_means_no_tools_field(srv: FakeLLMServer) -> None:
    srv.push(responses_body(text="hi"))
    provider(srv).complete(request(tools=False))
    assert "tools" not in srv.requests[0]["json"]


def test_several_calls_in_one_response(srv: FakeLLMServer) -> None:
    srv.push(
        responses_body(
            text="Checking both.",
            calls=[("call_a", "get_weather", '{"city": "Paris"}'), ("call_b", "add", '{"a": 1, "b": 2}')],
        )
    )
    response = provider(srv).complete(request())
    assert [(c.call_id, c.name, c.arguments) for c in response.tool_calls] == [
        ("call_a", "get_weather", '{"city": "Paris"}'),
        ("call_b", "add", '{"a": 1, "b": 2}'),
    ]
    assert response.text == "Checking both."
    assert [item["type"] for item in response.raw] == ["message", "function_call", "function_call"]


def test_block_goes_back_whole_with_reasoning_and_linked_outputs(srv: FakeLLMServer) -> None:
    srv.push(
        responses_body(
            reasoning="Need weather and a sum.",
            calls=[("call_a", "get_weather", '{"city": "Paris"}'), ("call_b", "add", '{"a": 1, "b": 2}')],
        )
    )
    srv.push(responses_body(text="Sunny, and 3."))
    p = provider(srv)
    first = p.complete(request())
    block = block_from(first, ['{"temp": 21}', "3.0"])
    second = p.complete(request([block], step=2))
    assert second.text == "Sunny, and 3."
    items = srv.requests[1]["json"]["input"]
    assert items[0] == {"role": "user", "content": "What is the weather in Paris?"}
    # The output items exactly as they came (the reasoning item with its encrypted content) ...
    assert items[1:4] == first.raw
    assert items[1]["type"] == "reasoning" and items[1]["encrypted_content"] == "gAAAAencrypted"
    assert items[1]["summary"] == [{"type": "summary_text", "text": "Need weather and a sum."}]
    # ... then one function_call_output per call, linked by call_id.
    assert items[4:] == [
        {"type": "function_call_output", "call_id": "call_a", "output": '{"temp": 21}'},
        {"type": "function_call_output", "call_id": "call_b", "output": "3.0"},
    ]


def test_call_without_output_gets_a_placeholder(srv: FakeLLMServer) -> None:
    srv.push(responses_body(calls=[("call_a", "add", '{"a": 1, "b": 2}'), ("call_b", "add", '{"a": 2, "b": 2}')]))
    srv.push(responses_body(text="ok"))
    p = provider(srv)
    first = p.complete(request())
    block = block_from(first, ["3.0", "4.0"])
    block.outputs.pop()  # the run stopped between the two calls
    p.complete(request([block], step=2))
    outputs = [i for i in srv.requests[1]["json"]["input"] if i.get("type") == "function_call_output"]
    assert [o["call_id"] for o in outputs] == ["call_a", "call_b"]
    assert outputs[1]["output"] == mod.MISSING_OUTPUT


def test_block_without_raw_items_is_rebuilt() -> None:
    from agent_core.context import ContextBlock, ToolCallRequest, ToolOutput

    block = ContextBlock(
        index=0,
        step=1,
        provider="scripted",
        text="thinking aloud",
        tool_calls=[ToolCallRequest("c1", "add", {"a": 1, "b": 2})],
        outputs=[ToolOutput("c1", "add", "3")],
    )
    assert mod.block_input_items(block) == [
        {"role": "assistant", "content": "thinking aloud"},
        {"type": "function_call", "call_id": "c1", "name": "add", "arguments": '{"a": 1, "b": 2}'},
        {"type": "function_call_output", "call_id": "c1", "output": "3"},
    ]


def test_refusal_becomes_the_text(srv: FakeLLMServer) -> None:
    body = responses_body(text="")
    body["output"][0]["content"] = [{"type": "refusal", "refusal": "I can't help with that."}]
    srv.push(body)
    response = provider(srv).complete(request())
    assert response.text == "I can't help with that."
    assert response.tool_calls == []


def test_is_a_provider() -> None:
    p = OpenAIResponsesProvider(api_key=OPENAI_KEY, base_url=closed_port_url("/v1"))
    assert isinstance(p, Provider)
    assert (p.id, p.model) == ("openai", "gpt-4.1-mini")
    assert "127.0.0.1" in p.label


def test_failed_response_status_is_an_error(srv: FakeLLMServer) -> None:
    body = responses_body(text="")
    body.update(status="failed", error={"code": "server_error", "message": "The model crashed."})
    srv.push(body)
    with pytest.raises(ProviderError) as info:
        provider(srv).complete(request())
    assert info.value.transient is True
    assert "server_error" in info.value.message


def test_unexpected_body_is_a_clear_error(srv: FakeLLMServer) -> None:
    srv.push({"output": "not a list of items"})
    with pytest.raises(ProviderError) as info:
        provider(srv).complete(request())
    assert info.value.error_type == "UnexpectedResponse"
    assert not info.value.transient


# ------------------------------------------------------------------ errors


def test_429_is_transient_with_retry_after(srv: FakeLLMServer) -> None:
    srv.push(
        openai_error("slow down", type_="requests", code="rate_limit_exceeded"),
        status=429,
        headers={"retry-after-ms": "250"},
    )
    with pytest.raises(ProviderError) as info:
        provider(srv).complete(request())
    err = info.value
    assert (err.transient, err.status, err.retry_after, err.error_type) == (True, 429, 0.25, "RateLimitError")
    assert err.provider == "openai"
    assert err.message.startswith("OpenAI rate limit (429): slow down")
    assert len(srv.requests) == 1  # the SDK did not retry by itself


@pytest.mark.parametrize("status", [500, 502, 503, 504, 408, 409])
def test_server_errors_are_transient(srv: FakeLLMServer, status: int) -> None:
    srv.push(openai_error("boom", type_="server_error"), status=status)
    with pytest.raises(ProviderError) as info:
        provider(srv).complete(request())
    assert info.value.transient is True
    assert info.value.status == status
    assert len(srv.requests) == 1


@pytest.mark.parametrize(
    ("status", "error_type"),
    [
        (400, "BadRequestError"),
        (403, "PermissionDeniedError"),
        (404, "NotFoundError"),
        (422, "UnprocessableEntityError"),
    ],
)
def test_client_errors_are_not_transient(srv: FakeLLMServer, status: int, error_type: str) -> None:
    srv.push(openai_error("bad thing"), status=status, headers={"retry-after": "1"})
    with pytest.raises(ProviderError) as info:
        provider(srv).complete(request())
    err = info.value
    assert (err.transient, err.status, err.error_type, err.retry_after) == (False, status, error_type, None)
    assert err.message.startswith("OpenAI ") and f"({status})" in err.message and "bad thing" in err.message


def test_401_message_never_contains_the_key(srv: FakeLLMServer) -> None:
    srv.push(openai_error(f"Incorrect API key provided: {OPENAI_KEY}.", code="invalid_api_key"), status=401)
    with pytest.raises(ProviderError) as info:
        provider(srv).complete(request())
    err = info.value
    assert err.message.startswith("OpenAI rejected the API key (401)")
    assert (err.transient, err.error_type) == (False, "AuthenticationError")
    assert OPENAI_KEY not in err.message and OPENAI_KEY not in str(err)


def test_connection_refused() -> None:
    url = closed_port_url("/v1")
    p = OpenAIResponsesProvider(api_key=OPENAI_KEY, base_url=url, timeout=2.0)
    with pytest.raises(ProviderError) as info:
        p.complete(request())
    err = info.value
    assert (err.transient, err.error_type, err.status) == (True, "APIConnectionError", None)
    assert err.message.startswith(f"Could not connect to OpenAI at {url}")


def test_read_timeout(srv: FakeLLMServer) -> None:
    srv.push(responses_body(text="too late"), delay=1.5)
    t0 = time.perf_counter()
    with pytest.raises(ProviderError) as info:
        provider(srv, timeout=0.3).complete(request())
    assert time.perf_counter() - t0 < 1.2
    err = info.value
    assert (err.transient, err.error_type) == (True, "APITimeoutError")
    assert err.message == "OpenAI request timed out after 0.3 s"


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({"Retry-After": "7"}) == 7.0
    now = datetime(2026, 11, 30, 12, 0, 0, tzinfo=timezone.utc)
    date = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=now.timestamp()) == pytest.approx(30.0)
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    assert parse_retry_after({"retry-after": "-5"}) == 0.0


# ------------------------------------------------------------------ catalogue, env, keys


def test_missing_key_is_a_hint_not_a_crash(tmp_path) -> None:
    info = provider_info("openai")
    assert not info.available
    assert info.hint == "set OPENAI_API_KEY in the environment or .env"
    with pytest.raises(ProviderUnavailable):
        make_provider("openai", settings=Settings(data_dir=tmp_path))


def test_key_base_url_and_timeout_from_env_and_settings(
    srv: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", srv.url("/v1"))
    assert provider_info("openai").available
    p = make_provider("openai", settings=Settings(data_dir=tmp_path, request_timeout=7.5), model="gpt-4.1")
    assert (p.id, p.model) == ("openai", "gpt-4.1")
    assert list(p.prepare()) == []
    srv.push(responses_body(text="ok"))
    p.complete(request())
    assert srv.requests[0]["headers"]["x-stainless-read-timeout"] == "7.5"
    assert srv.requests[0]["json"]["model"] == "gpt-4.1"


def test_per_run_base_url_wins_over_env(srv: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", closed_port_url("/v1"))
    p = make_provider("openai", settings=Settings(data_dir=tmp_path), base_url=srv.url("/v1"))
    assert p.model == mod.DEFAULT_MODEL
    srv.push(responses_body(text="ok"))
    assert p.complete(request()).text == "ok"


# ------------------------------------------------------------------ through the loop


def run(srv: FakeLLMServer, goal: str, settings: Settings, *, timeout: float = 5.0) -> dict:
    return run_to_end(goal, provider=provider(srv, timeout=timeout), registry=build_registry(), settings=settings)


def outputs_sent(body: dict) -> list[tuple[str, str]]:
    return [(i["call_id"], i["output"]) for i in body["input"] if i.get("type") == "function_call_output"]


def test_loop_multi_step_with_reasoning_round_trip(srv: FakeLLMServer, settings: Settings) -> None:
    srv.push(
        responses_body(
            reasoning="Weather first.",
            text="Let me look.",
            calls=[("call_w", "get_weather", '{"city": "Paris"}'), ("call_s", "add", '{"a": 20, "b": 1}')],
            usage=(100, 20),
        )
    )
    srv.push(
        responses_body(calls=[("call_f", "get_weather", '{"city": "Paris", "unit": "fahrenheit"}')], usage=(150, 10))
    )
    srv.push(responses_body(text="Paris: 21 °C (70 °F).", usage=(200, 30)))
    record = run(srv, "Weather in Paris?", settings)
    assert record["status"] == "completed"
    assert record["answer"] == "Paris: 21 °C (70 °F)."
    assert len(srv.requests) == 3 and srv.remaining == 0
    first, second, third = srv.bodies
    assert first["input"] == [{"role": "user", "content": "Weather in Paris?"}]
    # Step 2 got the whole step-1 output (reasoning first) and both outputs, linked by call_id.
    assert [i.get("type") for i in second["input"]] == [
        None,
        "reasoning",
        "message",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
    ]
    assert second["input"][1]["encrypted_content"] == "gAAAAencrypted"
    assert outputs_sent(second) == [
        ("call_w", '{"city": "Paris", "temp": 21, "unit": "celsius"}'),
        ("call_s", "21.0"),
    ]
    assert [c for c, _ in outputs_sent(third)] == ["call_w", "call_s", "call_f"]
    assert [c["call_id"] for c in record["tool_calls"]] == ["call_w", "call_s", "call_f"]
    assert all(c["success"] for c in record["tool_calls"])
    assert record["usage"] == {"input_tokens": 450, "output_tokens": 60, "total_tokens": 510}
    assert record["model"] == "gpt-4.1-mini-2025-04-14"
    assert_no_secret(record, settings.runs_dir, OPENAI_KEY)


def test_loop_resends_encrypted_reasoning_byte_for_byte(srv: FakeLLMServer, settings: Settings) -> None:
    # Encrypted reasoning is url-safe base64: by chance about 2% of real items contain a
    # key-shaped run such as "sk-…", which masking must not rewrite on its way back to the API.
    body = responses_body(reasoning="r", calls=[("c1", "add", '{"a": 1, "b": 1}')])
    body["output"][0]["encrypted_content"] = "gAAAAABpQx7Zsk-Qm3vT9aXwLr0_Yb2c"
    srv.push(body)
    srv.push(responses_body(text="2"))
    run(srv, "Add", settings)
    assert srv.bodies[1]["input"][1]["encrypted_content"] == "gAAAAABpQx7Zsk-Qm3vT9aXwLr0_Yb2c"


def test_loop_malformed_arguments_unknown_tool_and_duplicate(srv: FakeLLMServer, settings: Settings) -> None:
    srv.push(
        responses_body(
            calls=[
                ("call_bad", "get_weather", '{"city": "Par'),
                ("call_unknown", "teleport", '{"to": "Mars"}'),
                ("call_ok", "get_weather", '{"city": "Paris"}'),
            ]
        )
    )
    srv.push(responses_body(calls=[("call_dup", "get_weather", '{"city": "Paris"}')]))
    srv.push(responses_body(text="Done."))
    record = run(srv, "Weather?", settings)
    assert record["status"] == "completed"
    second, third = srv.bodies[1], srv.bodies[2]
    # The malformed call goes back exactly as the model sent it, with an ERROR output.
    sent_calls = [i for i in second["input"] if i.get("type") == "function_call"]
    assert sent_calls[0]["arguments"] == '{"city": "Par'
    out = dict(outputs_sent(second))
    assert out["call_bad"].startswith("ERROR: Tool arguments were not valid JSON")
    assert out["call_unknown"].startswith("ERROR: Unknown tool 'teleport'. Available tools: get_weather, add")
    assert not out["call_ok"].startswith("ERROR")
    assert dict(outputs_sent(third))["call_dup"].startswith("ERROR: Duplicate tool call")
    calls = {c["call_id"]: c for c in record["tool_calls"]}
    assert calls["call_bad"]["error_category"] == "validation"
    assert calls["call_unknown"]["error_category"] == "validation"
    assert calls["call_dup"]["duplicate"] is True


def test_loop_429_with_retry_after_then_success(srv: FakeLLMServer, settings: Settings) -> None:
    srv.push(openai_error("slow down", type_="requests"), status=429, headers={"retry-after-ms": "5"})
    srv.push(responses_body(text="Sunny."))
    record = run(srv, "Weather?", settings)
    assert record["status"] == "completed"
    assert len(srv.requests) == 2
    assert srv.bodies[0] == srv.bodies[1]  # the same request, sent again
    attempts = record["steps"][0]["model_attempts"]
    assert len(attempts) == 2
    assert attempts[0]["error_type"] == "RateLimitError"
    assert attempts[0]["status"] == 429
    assert attempts[0]["wait_s"] == pytest.approx(0.005)
    assert attempts[0]["message"].startswith("OpenAI rate limit (429): slow down")
    assert attempts[1]["success"] is True


def test_loop_5xx_until_retries_run_out(srv: FakeLLMServer, settings: Settings) -> None:
    for _ in range(3):
        srv.push(openai_error("upstream broke", type_="server_error"), status=500)
    record = run(srv, "Weather?", settings.replace(retry_delays=(0.0, 0.0)))
    assert record["status"] == "error"
    assert record["error"]["type"] == "InternalServerError"
    assert "OpenAI server error (500)" in record["error"]["message"]
    assert len(srv.requests) == 3
    assert [a["status"] for a in record["steps"][0]["model_attempts"]] == [500, 500, 500]


def test_loop_401_is_not_retried_and_key_stays_out(srv: FakeLLMServer, settings: Settings) -> None:
    srv.push(openai_error(f"Incorrect API key provided: {OPENAI_KEY}", code="invalid_api_key"), status=401)
    record = run(srv, "Weather?", settings)
    assert record["status"] == "error"
    assert record["error"]["type"] == "AuthenticationError"
    assert record["error"]["message"].startswith("OpenAI rejected the API key (401)")
    assert len(srv.requests) == 1
    assert_no_secret(record, settings.runs_dir, OPENAI_KEY)


def test_loop_connection_refused(settings: Settings) -> None:
    url = closed_port_url("/v1")
    p = OpenAIResponsesProvider(api_key=OPENAI_KEY, base_url=url, timeout=2.0)
    record = run_to_end(
        "Weather?", provider=p, registry=build_registry(), settings=settings.replace(retry_delays=(0.0,))
    )
    assert record["status"] == "error"
    assert record["error"]["type"] == "APIConnectionError"
    assert url in record["error"]["message"]
    assert len(record["steps"][0]["model_attempts"]) == 2


def test_loop_read_timeout(srv: FakeLLMServer, settings: Settings) -> None:
    srv.push(responses_body(text="late"), delay=1.5)
    srv.push(responses_body(text="late"), delay=1.5)
    t0 = time.perf_counter()
    record = run(srv, "Weather?", settings.replace(retry_delays=(0.0,), request_timeout=0.3), timeout=0.3)
    assert time.perf_counter() - t0 < 1.8
    assert record["status"] == "error"
    assert record["error"]["type"] == "APITimeoutError"
    assert [a["error_type"] for a in record["steps"][0]["model_attempts"]] == ["APITimeoutError"] * 2


def test_loop_max_steps(srv: FakeLLMServer, settings: Settings) -> None:
    srv.push(responses_body(calls=[("c1", "add", '{"a": 1, "b": 1}')]))
    srv.push(responses_body(calls=[("c2", "add", '{"a": 2, "b": 2}')]))
    record = run(srv, "Keep adding", settings.replace(max_steps=2))
    assert record["status"] == "max_steps"
    assert len(srv.requests) == 2
    assert record["answer"] is None
    assert "step limit" in record["error"]["message"]


def test_loop_trims_to_the_last_blocks(srv: FakeLLMServer, settings: Settings) -> None:
    for i in range(1, 5):
        srv.push(responses_body(calls=[(f"call_{i}", "add", json.dumps({"a": i, "b": i}))]))
    srv.push(responses_body(text="All added."))
    record = run(srv, "Add things", settings.replace(max_context_blocks=2))
    assert record["status"] == "completed"
    expected_calls = [[], ["call_1"], ["call_1", "call_2"], ["call_2", "call_3"], ["call_3", "call_4"]]
    for body, calls in zip(srv.bodies, expected_calls, strict=True):
        assert body["input"][0] == {"role": "user", "content": "Add things"}
        assert [i["call_id"] for i in body["input"] if i.get("type") == "function_call"] == calls
        assert [c for c, _ in outputs_sent(body)] == calls  # a call and its output stay together
    last = record["steps"][-1]
    assert (last["blocks_sent"], last["blocks_trimmed"]) == ([2, 3], [0, 1])
