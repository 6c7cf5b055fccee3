"""The local model's redirects within one step (agent_core/providers/local/redirects.py): a call
that cannot give the model what it wants is asked again, and the step's constraint says why."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.context import ToolCallRequest
from agent_core.providers import local
from agent_core.providers.local.redirects import (
    FIGURE_GAP,
    GAP_REASON,
    figure_missing,
    mark_gaps,
    started_sum,
    stopping_at_answer,
    tool_called_inside,
    unusable_call,
)
from agent_core.text.not_found import says_not_found
from agent_core.tools.registry import Tool
from tests.local_kit import FakeServer, ask, block, fake_model, install_engine, reply, three_tools

__all__ = ["fake_model"]  # a fixture, used by name


@pytest.fixture
def tools() -> list[Tool]:
    return list(three_tools())


def provider_for(path: Path) -> local.LocalProvider:
    return local.LocalProvider(env={"LOCAL_MODEL_PATH": str(path)})


def last_message(body: dict) -> str:
    return str(body["messages"][-1]["content"])


def test_a_tool_called_inside_another_calls_arguments_is_found_by_name(tools: list[Tool]) -> None:
    names = [t.name for t in tools]
    inside = ToolCallRequest("c1", "calculator", {"expression": "lookup('unit price') * 7"})
    assert tool_called_inside(inside, names) == "lookup"
    assert tool_called_inside(ToolCallRequest("c2", "calculator", {"expression": "24 * 7"}), names) is None
    # a word that only contains a tool's name, or a method of something else, is no call
    plain = ToolCallRequest("c3", "lookup", {"topic": "mylookup(x) and a.lookup(y)"})
    assert tool_called_inside(plain, names) is None
    reason, step_note, model_note = unusable_call(inside, ask(tools, "What do 7 units cost?"), names)
    assert reason == "calls lookup inside its arguments" and "lookup first" in model_note and step_note


def test_a_call_with_another_tool_inside_is_asked_again_without_it(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    server = FakeServer(
        [
            reply("I need the price times 7", {"calculator": {"expression": "lookup('unit price') * 7"}}),
            reply("First the price", {"lookup": {"topic": "unit price"}}),
        ]
    )
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, "What do 7 units cost?"))
    assert response.tool_calls == [ToolCallRequest("local_1_1", "lookup", {"topic": "unit price"})]
    assert [item.get("rejected") for item in response.raw] == ["calls lookup inside its arguments", None]
    assert response.raw[1]["offered"] == ["lookup", "get_weather"]  # the calculator is not offered again
    assert last_message(server.bodies[1]).endswith(
        "(Tools cannot call other tools: call lookup first, then use its result.)"
    )
    assert "put a lookup(…) call in its arguments" in response.constraint["notes"][-1]


def test_arithmetic_on_no_known_figure_is_asked_again_without_that_tool(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    server = FakeServer(
        [
            reply("Total of 7", {"calculator": {"expression": "1 * 2 + 1 * 2 + 1 * 2"}}),
            reply("First the price", {"lookup": {"topic": "unit price"}}),
        ]
    )
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, "What do 7 units cost?"))
    assert [c.name for c in response.tool_calls] == ["lookup"]
    assert response.raw[0]["rejected"] == "arithmetic on no known figure"
    assert server.bodies[1]["messages"] == server.bodies[0]["messages"]  # no note: the same prompt


@pytest.mark.parametrize(
    ("goal", "arguments", "reason"),
    [
        # The grammar let it write no figure it wanted, so it wrote one it could ("1." then "0").
        (
            "What do 25 chairs cost with delivery?",
            {"expression": "25 * 1. 0 + 1. 0"},
            "arithmetic on a figure cut short",
        ),
        (
            "What would it cost after 5 years?",
            {"expression": "Premier * (1 + 0.5) ^ 5"},
            "arithmetic on a name instead of a figure",
        ),
        ("How much for 3 nights?", {"expression": "nightly_rate * 3"}, "arithmetic on a name instead of a figure"),
        ("What do 7 units cost?", {"expression": "1 * 2 + 1 * 2"}, "arithmetic on no known figure"),
        # ordinary arithmetic and ordinary words are left alone
        ("What is 15% of 240?", {"expression": "15% * 240"}, ""),
        ("Take (350 - 120) / 5", {"expression": "(350 - 120) / 5"}, ""),
        ("desk prices", {"query": "fixed desk vs 24-hour hot desk cost"}, ""),
        ("rules", {"query": "and/or rules in section 2. 5"}, ""),
        ("speed", {"query": "speed in km/h, room 2 - large"}, ""),
    ],
)
def test_arithmetic_standing_in_for_a_figure_the_run_has_not_got_is_named(
    tools: list[Tool], goal: str, arguments: dict[str, str], reason: str
) -> None:
    assert figure_missing(ToolCallRequest("c", "calculator", arguments), ask(tools, goal)) == reason


def test_a_figure_cut_short_is_asked_again_without_that_tool(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    server = FakeServer(
        [
            reply("Total of 7 with shipping", {"calculator": {"expression": "7 * 1. 0 + 1. 0"}}),
            reply("First the price", {"lookup": {"topic": "unit price"}}),
        ]
    )
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, "What do 7 units cost?"))
    assert [c.name for c in response.tool_calls] == ["lookup"]
    assert response.raw[0]["rejected"] == "arithmetic on a figure cut short"
    assert "calculator" not in response.raw[1]["offered"]
    assert "used no figure it had" in response.constraint["notes"][-1]
    # before any result, asked again for another tool only: no reply to put the missing figure in
    offers_reply = ['"properties": {"reply"' in body["grammar"] for body in server.bodies]
    assert offers_reply == [True, False]
    # the record says what the last attempt allowed: the other tools, no reply
    assert response.constraint["tools"] == ["lookup", "get_weather"] and response.constraint["answer"] is False  # type: ignore[index]


def test_an_answer_that_works_out_a_sum_is_sent_to_a_tool_and_a_repeat_asked_once_more(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    done = [block(0, "lookup", {"topic": "unit price"}, "Unit price: $24 per unit")]
    server = FakeServer(
        [
            reply("The price is known", {"answer": "Seven units cost $24 × 7 = $168."}),
            reply("I look it up", {"lookup": {"topic": "unit price"}}),
            reply("Now the product", {"calculator": {"expression": "24 * 7"}}),
        ]
    )
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, "What do 7 units cost?", done))
    assert response.tool_calls == [ToolCallRequest("local_2_1", "calculator", {"expression": "24 * 7"})]
    assert [item.get("rejected") for item in response.raw] == [
        "works out a sum in the answer",
        "repeats an earlier call",
        None,
    ]
    started = 'Your answer began: "Seven units cost $24 × 7 ="'
    assert started in last_message(server.bodies[1]) and "call the tool that does arithmetic" in last_message(
        server.bodies[1]
    )
    assert last_message(server.bodies[2]).endswith(
        "(Not lookup with the same arguments again: that call was made and its result is above.)"
    )
    assert response.constraint["notes"][1:] == [
        "the model began to work out a sum in its answer: asked for a tool call instead",
        "the model repeated its lookup call: asked again",
    ]


def test_a_gap_where_a_figure_goes_is_found_while_the_answer_streams() -> None:
    test = stopping_at_answer(lambda content: None, False, sums=True)
    assert test('{"answer": "The student membership costs  ') == FIGURE_GAP
    assert test('{"answer": "The difference is  +  degrees') == FIGURE_GAP
    # one space, an indented line or a single trailing space is no gap
    assert test('{"answer": "The membership costs $40 a year. ') is None
    assert test('{"answer": "Two lines:\\n  - one') is None
    assert started_sum('{"answer": "The student membership costs     dollars."}') == "The student membership costs …"
    assert mark_gaps("The student membership costs     dollars.", "How much is it?") == (
        "The student membership costs [no result gives this figure] dollars."
    )
    assert mark_gaps("회비는  달러입니다.", "학생 회비는 얼마야?") == "회비는 [결과에 없는 수치] 달러입니다."
    assert mark_gaps("No gap here.", "q") == "No gap here."
    # two spaces after a sentence's end, or a table's padding, are no gap
    assert test('{"answer": "Hi there!  Ask me anything.') is None
    assert test('{"answer": "It is open.  Call ahead') is None
    assert test('{"answer": "| Plan  | Price |') is None
    assert mark_gaps("It is open.  Call ahead.\n| Plan  | $40 |", "q") == "It is open.  Call ahead.\n| Plan  | $40 |"
    assert says_not_found(mark_gaps("It costs  dollars.", "q"))  # the outcome reads it as not found


def test_an_answer_with_a_gap_is_sent_to_a_tool_once_a_run(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    done = [block(0, "lookup", {"topic": "fees"}, "Fees: adult membership $40 a year")]
    server = FakeServer(
        [
            reply("The fee", {"answer": "The student membership costs     dollars."}),
            reply("Look for it", {"lookup": {"topic": "student fee"}}),
        ]
    )
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, "How much is a student membership?", done))
    assert response.tool_calls == [ToolCallRequest("local_2_1", "lookup", {"topic": "student fee"})]
    assert (
        response.raw[0]["rejected"] == GAP_REASON and response.raw[0]["stopped"] == "the answer left a gap for a figure"
    )
    note = last_message(server.bodies[1])
    assert 'Your answer began: "The student membership costs …"' in note and "Call the tool" in note
    assert response.constraint["answer"] is False  # type: ignore[index]
    assert response.constraint["notes"][-1] == (  # type: ignore[index]
        "the model left a gap where a figure goes in its answer: asked for a tool call instead"
    )
    # A later step: the run has had its tool call for a gap, so the answer is asked for, without the
    # figure; a gap left then stands marked in the answer.
    sent_back = block(1, "lookup", {"topic": "student fee"}, "Fees: adult membership $40 a year")
    sent_back.raw = list(response.raw)
    server = FakeServer(
        [
            reply("The fee", {"answer": "The student membership costs  dollars."}),
            reply("Again", {"answer": "The student membership costs  dollars a year."}),
        ]
    )
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, "How much is a student membership?", [*done, sent_back]))
    assert not response.tool_calls
    assert response.text == "The student membership costs [no result gives this figure] dollars a year."
    assert "answer without it, and say that it was not found" in last_message(server.bodies[1])
    assert response.constraint["tools"] == []  # type: ignore[index]
    assert response.constraint["notes"][-2:] == [  # type: ignore[index]
        "the model left a gap where a figure goes in its answer: asked for the answer again",
        "the answer kept a gap where a figure no result has goes: marked as such",
    ]


def test_a_greeting_with_two_spaces_after_its_first_sentence_is_the_answer(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    server = FakeServer([reply("A greeting", {"reply": "Hi there!  Ask me anything."})])
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, "hello"))
    assert not response.tool_calls and response.text == "Hi there!  Ask me anything."
    assert len(server.bodies) == 1


def test_an_answer_asked_again_without_its_line_does_not_claim_that_line(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    """After the line choice, an answer that began a sum is asked for again with the line no longer
    in view: the record keeps no ``line_choice`` (it would say the answer was read from it)."""
    hits = "Unit price: $24 per unit for every order placed online. Orders ship in 2 days from the warehouse."
    done = [block(0, "lookup", {"topic": "unit price"}, hits)]
    server = FakeServer(
        [
            reply("The last result gives the price", {"answer": "x"}),
            '{"line": 1}',
            reply("The last result gives the price", {"answer": "Seven units cost $24 × 7 = $168."}),
            reply("Answer", {"answer": "One unit costs $24."}),
        ]
    )
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, "What do 7 units cost?", done, max_steps=2))
    assert response.text == "One unit costs $24." and len(server.bodies) == 4
    assert any(item["type"] == "local_line_choice" for item in response.raw)  # the choice was made
    assert response.constraint is not None and "line_choice" not in response.constraint


def test_on_the_last_step_a_sum_in_the_answer_is_asked_for_again_without_tools(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    done = [block(0, "lookup", {"topic": "unit price"}, "Unit price: $24 per unit")]
    server = FakeServer(
        [
            reply("The price is known", {"answer": "Seven units cost $24 × 7 = $168."}),
            reply("Answer", {"answer": "One unit costs $24."}),
        ]
    )
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, "What do 7 units cost?", done, max_steps=2))
    assert not response.tool_calls and response.text == "One unit costs $24."
    assert response.constraint["tools"] == [] and response.constraint["notes"][-1] == (  # type: ignore[index]
        "the model began to work out a sum in its answer: asked for the answer again"
    )
