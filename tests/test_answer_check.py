"""The answer check in the loop: grounding in every record, flag and retry modes, the corrective turn."""

from __future__ import annotations

import random
from typing import Any

import pytest

from agent_core.providers.anthropic_messages import build_messages as anthropic_messages
from agent_core.providers.local.prompt import build_messages as local_messages
from agent_core.providers.openai_chat import build_messages as chat_messages
from agent_core.providers.openai_responses import build_input as responses_input
from agent_core.providers.scripted import ScriptedProvider
from agent_core.run.events import AnswerSentBack, RunFinished
from agent_core.run.loop import MAX_ANSWER_CHECKS, run_agent, run_to_end
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from tests.record_schema import assert_valid_record

WEATHER = {"text": "", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}, "call_id": "call_w"}]}
MADE_UP = {"text": "The weather in Paris is currently 20 °C."}
HONEST = {"text": "It is 19 °C in Paris, light rain."}


def run(
    settings: Settings, turns: list[dict[str, Any]], mode: str | None, **changes: Any
) -> tuple[dict[str, Any], ScriptedProvider]:
    provider = ScriptedProvider(turns)
    s = settings.replace(answer_check=mode, **changes)
    record = run_to_end(
        "What's the weather in Paris?",
        provider=provider,
        registry=build_default_registry(s, rng=random.Random(1)),
        settings=s,
    )
    assert_valid_record(record)
    return record, provider


def test_flag_records_the_made_up_temperature(settings: Settings) -> None:
    record, provider = run(settings, [WEATHER, MADE_UP], "flag")
    provider.assert_complete()
    assert record["status"] == "completed"
    assert record["settings"]["answer_check"] == "flag"
    assert record["answer"] == "The weather in Paris is currently 20 °C."
    assert record["grounding"] == {
        "status": "ungrounded",
        "tools_used": 1,
        "claims": [{"text": "20 °C", "value": "20 °C", "kind": "temperature", "source": None}],
    }


def test_grounded_answer_names_its_tool_call(settings: Settings) -> None:
    record, _ = run(settings, [WEATHER, HONEST], None)  # scripted → flag by default
    assert record["settings"]["answer_check"] == "flag"
    assert record["grounding"]["status"] == "grounded"
    assert record["grounding"]["claims"][0]["source"] == {"call_id": "call_w", "tool": "get_weather"}


def test_off_computes_nothing(settings: Settings) -> None:
    record, _ = run(settings, [WEATHER, MADE_UP], "off")
    assert "grounding" not in record


def test_retry_sends_one_corrective_turn_and_records_it(settings: Settings) -> None:
    record, provider = run(settings, [WEATHER, MADE_UP, HONEST], "retry")
    provider.assert_complete()
    assert record["answer"] == HONEST["text"]
    assert record["grounding"]["status"] == "grounded"
    steps = record["steps"]
    assert len(steps) == 3
    assert steps[1]["answer_check"]["unsupported"] == ["20 °C"]
    assert steps[1]["answer_check"]["message"].startswith("Your answer says 20 °C; no tool result says that")
    assert steps[2]["kind"] == "answer_check"
    assert "kind" not in steps[0]
    # The corrective turn went to the model as the feedback of the rejected answer's block …
    last_request = provider.requests[-1]
    assert last_request.blocks[-1].text == MADE_UP["text"]
    assert last_request.blocks[-1].feedback == steps[1]["answer_check"]["message"]
    # … is kept in the record's blocks and transcript …
    assert record["context_blocks"][-1]["items"][-1] == {
        "kind": "answer_check",
        "text": steps[1]["answer_check"]["message"],
    }
    roles = [(m["role"], m.get("kind")) for m in record["history"]]
    assert ("user", "answer_check") in roles
    rejected = [m for m in record["history"] if m["role"] == "assistant" and m.get("content") == MADE_UP["text"]]
    assert rejected and rejected[0]["final"] is False


def test_retry_gives_up_after_two_corrections(settings: Settings) -> None:
    turns = [WEATHER] + [MADE_UP] * (MAX_ANSWER_CHECKS + 1)
    events = list(
        run_agent(
            "What's the weather in Paris?",
            provider=ScriptedProvider(turns),
            registry=build_default_registry(settings, rng=random.Random(1)),
            settings=settings.replace(answer_check="retry"),
        )
    )
    sent = [e for e in events if isinstance(e, AnswerSentBack)]
    assert len(sent) == MAX_ANSWER_CHECKS and sent[0].unsupported == ["20 °C"]
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.status == "completed"
    assert finished.grounding is not None and finished.grounding["status"] == "ungrounded"  # flagged, not hidden


def test_retry_respects_the_step_limit(settings: Settings) -> None:
    record, provider = run(settings, [WEATHER, MADE_UP, HONEST], "retry", max_steps=2)
    assert provider.remaining == 1  # no corrective turn on the last allowed step
    assert record["status"] == "completed" and record["answer"] == MADE_UP["text"]
    assert record["grounding"]["status"] == "ungrounded"


def test_retry_leaves_a_grounded_answer_alone(settings: Settings) -> None:
    record, provider = run(settings, [WEATHER, HONEST], "retry")
    provider.assert_complete()
    assert len(record["steps"]) == 2 and "answer_check" not in record["steps"][1]


def test_no_tool_answer_gets_the_plain_note(settings: Settings) -> None:
    record, _ = run(settings, [MADE_UP], "flag")
    assert record["grounding"]["tools_used"] == 0
    assert "No tool call succeeded" in record["grounding"]["note"]


def test_default_mode_is_retry_for_local_only() -> None:
    from agent_core.providers import answer_check_for

    assert answer_check_for(Settings(), "local") == "retry"
    assert answer_check_for(Settings(), "openai") == "flag"
    assert answer_check_for(Settings(answer_check="off"), "local") == "off"
    assert Settings.from_env({"ANSWER_CHECK": "RETRY"}, dotenv=False).answer_check == "retry"
    with pytest.raises(ValueError, match="ANSWER_CHECK"):
        Settings.from_env({"ANSWER_CHECK": "sometimes"}, dotenv=False)


def test_every_provider_sends_the_corrective_turn_as_a_user_message(settings: Settings) -> None:
    _, provider = run(settings, [WEATHER, MADE_UP, HONEST], "retry")
    request = provider.requests[-1]
    message = request.blocks[-1].feedback
    assert chat_messages(request)[-1] == {"role": "user", "content": message}
    assert responses_input(request)[-1] == {"role": "user", "content": message}
    last = anthropic_messages(request)[-1]
    assert last["role"] == "user" and last["content"][-1] == {"type": "text", "text": message}
    assert local_messages(request.instructions, request.goal, request.blocks, request.tools)[-1] == {
        "role": "user",
        "content": message,
    }
