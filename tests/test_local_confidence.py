"""How sure the local model was: token probabilities read from llama.cpp's ``logprobs``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from agent_core.providers import local
from agent_core.providers.local.confidence import (
    MAX_ALTERNATIVES,
    branch_probabilities,
    choice_probabilities,
    decided_by,
    written,
)
from agent_core.records.decided import constraint_words
from tests.local_kit import FakeServer, ask, block, fake_model, install_engine, reply, three_tools

__all__ = ["fake_model"]  # a fixture, used by name


def _token(text: str, p: float, *others: tuple[str, float]) -> dict[str, object]:
    top = [{"token": text, "logprob": math.log(p)}, *({"token": t, "logprob": math.log(q)} for t, q in others)]
    return {"token": text, "logprob": math.log(p), "top_logprobs": top}


def test_a_numbered_choice_is_read_at_its_digit_among_the_numbers_allowed() -> None:
    logprobs = [
        _token('{"', 0.25, ("The", 0.2)),
        _token("line", 0.99),
        _token('":', 0.99),
        _token(" ", 0.99),
        # "7" is a digit the grammar did not allow (3 lines and "none"): left out before normalising.
        _token("2", 0.6, ("1", 0.2), ("7", 0.1), ("0", 0.1)),
        _token("}", 0.99),
    ]
    assert choice_probabilities(logprobs, 4) == pytest.approx({0: 0.1111, 1: 0.2222, 2: 0.6667}, abs=1e-4)


def test_no_number_written_gives_no_probabilities() -> None:
    assert choice_probabilities([_token('{"', 0.5), _token("}", 0.9)], 3) is None
    assert choice_probabilities([], 3) is None


NAMES = ["search_documents", "search_web", "query_table", "answer"]


def test_a_branch_is_read_at_the_tokens_of_its_name() -> None:
    logprobs = [
        _token("Thought", 0.9),
        _token(": I need the documents\n", 0.9),
        _token('{"', 0.9),
        # "Sure" leads to no offered name: left out before normalising (0.6 + 0.2 + 0.2 = 1).
        _token("search", 0.6, ("query", 0.2), ("answer", 0.2), ("Sure", 0.5)),
        _token("_documents", 0.75, ("_web", 0.25)),
        _token('":', 0.99),
        _token(' {"', 0.99),
        _token("query", 0.99),
    ]
    found = branch_probabilities(logprobs, NAMES)
    assert found is not None
    assert found["chosen"] == "search_documents" and found["p"] == pytest.approx(0.45)
    assert {o["name"]: o["p"] for o in found["others"]} == pytest.approx(
        {"query_table": 0.2, "answer": 0.2, "search_web": 0.15}
    )


def test_a_token_that_could_still_become_two_other_names_counts_for_both_together() -> None:
    logprobs = [_token('{"', 0.9), _token("answer", 0.7, ("search", 0.3)), _token('":', 0.99)]
    found = branch_probabilities(logprobs, NAMES)
    assert found == {"chosen": "answer", "p": 0.7, "others": [{"name": "search_documents or search_web", "p": 0.3}]}


def test_the_token_that_opens_the_key_may_already_choose() -> None:
    """A tokenizer may write ``{"search`` as one token: that token is the choice."""
    logprobs = [
        _token("Thought: x\n", 0.9),
        _token('{"search', 0.5, ('{"answer', 0.4), ("The", 0.1)),
        _token("_web", 1.0),
    ]
    found = branch_probabilities(logprobs, ["search_web", "answer"])
    assert found == {
        "chosen": "search_web",
        "p": pytest.approx(0.5556, abs=1e-4),
        "others": [{"name": "answer", "p": 0.4444}],
    }


def test_another_spelling_of_the_same_name_counts_for_it_and_an_undecided_token_for_nobody() -> None:
    logprobs = [
        _token('{"', 1.0),
        # "ans" is the answer too; "a" could still become the answer or ask_user (no choice made).
        _token("answer", 0.5, ("ans", 0.2), ("query", 0.1), ("a", 0.2)),
        _token('":', 1.0),
    ]
    found = branch_probabilities(logprobs, [*NAMES, "ask_user"])
    assert found == {"chosen": "answer", "p": pytest.approx(0.875), "others": [{"name": "query_table", "p": 0.125}]}


def test_rivals_crowded_out_of_the_report_give_no_figure_rather_than_a_false_certainty() -> None:
    """The alternatives are reported before the grammar: tokens no offered name begins with may
    take every place, and the written token alone would read 100%."""
    logprobs = [_token('{"', 1.0), _token("query", 0.05, ("The", 0.3), ("To", 0.3), ("I", 0.2)), _token("_table", 1.0)]
    assert branch_probabilities(logprobs, NAMES) is None


def test_only_plain_digits_are_numbers() -> None:
    logprobs = [_token("1", 0.6, ("²", 0.2), ("３", 0.1), ("0", 0.1))]
    assert choice_probabilities(logprobs, 3) == {0: pytest.approx(0.1429, abs=1e-4), 1: pytest.approx(0.8571, abs=1e-4)}


def test_no_offered_name_written_gives_nothing() -> None:
    assert branch_probabilities([_token("Thought", 0.9), _token(": hello", 0.9)], NAMES) is None
    assert branch_probabilities([_token('{"', 0.9), _token("weather", 0.9)], NAMES) is None


# ---------------------------------------------------------------------------------------------
# In a step: the record says how sure the model was


def test_a_step_records_how_sure_the_model_was_of_its_tool_and_of_the_line_it_picked(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = list(three_tools())
    goal = "What's the escape of water excess on the Standard HomeSafe policy?"
    hits = json.dumps([{"snippet": "The escape of water excess is $500 each claim. The policy renews each January."}])
    done = [block(0, "lookup", {"topic": "escape of water excess"}, hits)]
    server = FakeServer(
        [
            reply("The last result gives the excess", {"answer": "The excess is $500."}),
            '{"line": 1}',
            reply("The last result gives the excess", {"answer": "The escape of water excess is $500."}),
        ],
        logprobs={
            0: [
                _token("Thought", 0.9),
                _token(": The last result gives the excess\n", 0.9),
                _token('{"', 0.9),
                _token("answer", 0.8, ("lookup", 0.2)),
            ],
            1: [
                _token('{"', 0.9),
                _token("line", 0.99),
                _token('":', 0.99),
                _token(" ", 0.99),
                _token("1", 0.6, ("2", 0.3), ("0", 0.1)),
            ],
        },
    )
    install_engine(monkeypatch, fake_model, server)
    response = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)}).complete(ask(tools, goal, done))
    assert response.text == "The escape of water excess is $500."
    first, choice, answer = server.bodies
    assert first["logprobs"] is True and first["top_logprobs"] == choice["top_logprobs"] == MAX_ALTERNATIVES
    assert "logprobs" not in answer  # the answer alone was offered: no choice to read
    assert response.constraint is not None
    # The step's choice was to answer (its first reply); the answer turn offered nothing else.
    assert response.constraint["certainty"] == {"chosen": "answer", "p": 0.8, "others": [{"name": "lookup", "p": 0.2}]}
    assert "the model picked result line 1 of 2 (its probability 60%) before answering" in response.constraint["notes"]
    (item,) = [i for i in response.raw if i["type"] == "local_line_choice"]
    assert item["probabilities"] == {0: 0.1, 1: 0.6, 2: 0.3}
    # The record keeps the lines, the one picked and its probability; the words quote it.
    assert response.constraint["line_choice"] == {
        "lines": ["The escape of water excess is $500 each claim.", "The policy renews each January."],
        "chosen": 1,
        "p": 0.6,
    }
    words = constraint_words(response.constraint, answered=True)
    assert words.endswith(
        "(its probability 60%) before answering. How sure the model was of its choice: the answer 80% (lookup 20%)."
        " The result line it answered from: “The escape of water excess is $500 each claim.”."
    )


def test_without_token_probabilities_the_step_has_no_certainty(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older runtime (or a server that ignores ``logprobs``): nothing is made up."""
    server = FakeServer([reply("I need the calculator", {"calculator": {"expression": "(24*7)+100"}})])
    install_engine(monkeypatch, fake_model, server)
    response = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)}).complete(
        ask(list(three_tools()), "What is (24*7)+100?")
    )
    assert response.constraint is not None and "certainty" not in response.constraint
    assert "sure" not in constraint_words(response.constraint)


def test_the_words_leave_out_what_would_read_zero_and_records_edited_by_hand() -> None:
    certainty = {"chosen": "answer", "p": 0.99, "others": [{"name": "search_documents or search_web", "p": 0.005}]}
    assert constraint_words({"kind": "grammar", "answer": True, "certainty": certainty}, answered=True).endswith(
        "How sure the model was of its choice: the answer 99%."
    )
    for edited in ({"chosen": "x", "p": "high"}, "sure", ["x"]):
        assert "sure" not in constraint_words({"kind": "grammar", "certainty": edited})


def test_a_steps_certainty_is_that_of_the_attempt_its_output_came_from() -> None:
    began = {"type": "local_output", "certainty": {"chosen": "answer", "p": 0.8, "others": []}, "rejected": None}
    line = {"type": "local_line_choice", "chosen": 1}
    gap = {"type": "local_output", "stopped": "the answer left a gap for a figure", "rejected": "gap"}
    # Re-asked for the call that gives the figure, with that one tool offered: no choice was made.
    call = {"type": "local_output", "offered": ["lookup"]}
    assert decided_by([began, line, gap, call], "lookup") is None
    assert decided_by([began, line, {"type": "local_output"}], "answer") == began["certainty"]
    repeat = {"type": "local_output", "certainty": {"chosen": "lookup", "p": 0.9, "others": []}, "rejected": "repeat"}
    other = {"type": "local_output", "certainty": {"chosen": "lookup", "p": 0.6, "others": []}}
    assert decided_by([other, repeat], "lookup") == other["certainty"]  # the one sent back is not it


def test_probabilities_that_do_not_spell_the_reply_are_not_read() -> None:
    tokens = [_token('{"', 0.9), _token("answer", 0.8)]
    assert written(tokens, '{"answer": "Hi"}') == tokens
    assert written(tokens, '{"an') == tokens  # the reply was cut where the stream was stopped
    assert written(tokens[1:], '{"answer": "Hi"}') == []  # a token streamed without its probability
    assert written([], '{"answer": "Hi"}') == []


def test_what_the_grammar_kept_the_model_from_is_recorded_with_its_choice() -> None:
    """Seen on a first step (which offers the tools and a reply, not the answer): the model wanted
    to answer at once, or to write a key of its own; among what it was offered it chose a tool."""
    logprobs = [
        _token('{"', 0.96, ("{\n", 0.02)),
        _token("get", 0.021, ("answer", 0.612), ("weather", 0.316), ("reply", 0.009), ("query", 0.001), ("To", 0.03)),
        _token("_weather", 1.0),
    ]
    found = branch_probabilities(logprobs, ["get_weather", "query_table", "reply"])
    assert found is not None and found["chosen"] == "get_weather" and found["p"] == pytest.approx(0.6774, abs=1e-4)
    assert found["unoffered"] == {"p": 0.958, "keys": [{"name": "answer", "p": 0.612}, {"name": "weather", "p": 0.316}]}
    words = constraint_words({"kind": "grammar", "certainty": found})
    assert words.endswith(
        "How sure the model was of its choice: get_weather 68% (the answer 29%, query_table 3%). "
        "Keys it was not offered took 96% of its probability (“answer” 61%, “weather” 32%)."
    )


def test_a_key_not_offered_is_seen_where_the_offered_names_still_share_their_start() -> None:
    logprobs = [_token('{"', 1.0), _token("search", 0.3, ("answer", 0.7)), _token("_web", 0.9, ("_documents", 0.1))]
    found = branch_probabilities(logprobs, ["search_documents", "search_web", "reply"])
    assert found is not None and found["chosen"] == "search_web" and found["p"] == pytest.approx(0.9)
    assert found["unoffered"] == {"p": 0.7, "keys": [{"name": "answer", "p": 0.7}]}
