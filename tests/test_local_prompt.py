"""What the local model sees and says (agent_core/providers/local/prompt.py): the one schema per
step over every offered tool, the grammar with its thought line, the chat messages and the parsing.
Pure functions: no model, no server."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

from agent_core.context import ContextBlock, ToolCallRequest
from agent_core.providers.local.gbnf import SCHEMA_COMMENT
from agent_core.providers.local.prompt import (
    FORMAT_RULES,
    MAX_ANSWER_CHARS,
    MAX_SHOWN_CHARS,
    OutputError,
    build_messages,
    call_signature,
    complete_reply,
    cut_answer,
    describe_tool,
    grammar_schema,
    next_step_note,
    output_grammar,
    output_schema,
    parse_output,
    previous_calls,
    repair_arguments,
    repaired_call,
    split_thought,
    system_message,
    tool_parameters,
    tool_results_message,
    uses_llguidance,
    whole_identifier,
    without_examples,
)
from agent_core.text.json_lines import plain_output
from agent_core.tools.registry import Tool, ToolRegistry
from tests.local_kit import block, three_tools


@pytest.fixture
def tools() -> list[Tool]:
    return list(three_tools())


def named(tools: list[Tool], *names: str) -> list[Tool]:
    return [t for t in tools if t.name in names]


# ---------------------------------------------------------------------------------------------
# The schema


def test_the_schema_is_one_branch_per_offered_tool_then_the_reply_with_text_held(tools: list[Tool]) -> None:
    schema = output_schema(named(tools, "lookup", "get_weather"), answer_key="reply", text_pattern="^[a-z]*$")
    assert schema == {
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "lookup": {
                        "type": "object",
                        "properties": {"topic": {"type": "string", "pattern": "^[a-z]*$"}},
                        "required": ["topic"],
                        "additionalProperties": False,
                    }
                },
                "required": ["lookup"],
                "additionalProperties": False,
            },
            {
                "type": "object",
                "properties": {
                    "get_weather": {
                        "type": "object",
                        "properties": {
                            # free text is held to the pattern; an enum keeps its own values
                            "city": {"type": "string", "pattern": "^[a-z]*$"},
                            "unit": {"enum": ["celsius", "fahrenheit"], "type": "string", "default": "celsius"},
                        },
                        "required": ["city"],
                        "additionalProperties": False,
                    }
                },
                "required": ["get_weather"],
                "additionalProperties": False,
            },
            {
                "type": "object",
                "properties": {"reply": {"type": "string", "maxLength": MAX_ANSWER_CHARS}},
                "required": ["reply"],
                "additionalProperties": False,
            },
        ]
    }


def test_the_schema_accepts_answers_and_each_tools_own_arguments_only(tools: list[Tool]) -> None:
    schema = output_schema(tools)
    for good in (
        {"answer": "hi"},
        {"calculator": {"expression": "24*7"}},
        {"get_weather": {"city": "Seoul", "unit": "fahrenheit"}},
        {"get_weather": {"city": "Seoul"}},
    ):
        jsonschema.validate(good, schema)
    bad = [
        {"calculator": {"topic": "price"}},  # another tool's argument
        {"lookup": {}},  # missing argument
        {"search_web": {"query": "x"}},  # not offered
        {"get_weather": {"city": "Seoul", "unit": "kelvin"}},  # not in the enum
        {"answer": "hi", "calculator": {"expression": "1"}},  # two at once
        {"reply": "hi"},  # the small-talk key is only offered on the first step
        {"answer": 3},
        {"answer": "x" * (MAX_ANSWER_CHARS + 1)},
        {},
    ]
    for value in bad:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(value, schema)


def test_without_the_answer_only_tools_and_without_tools_only_the_answer(tools: list[Tool]) -> None:
    calls_only = output_schema(tools, answer=False)
    assert [b["required"] for b in calls_only["anyOf"]] == [["calculator"], ["lookup"], ["get_weather"]]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"answer": "168"}, calls_only)
    assert output_schema([], answer=False) == {
        "type": "object",
        "properties": {"answer": {"type": "string", "maxLength": MAX_ANSWER_CHARS}},
        "required": ["answer"],
        "additionalProperties": False,
    }
    # One tool and no answer: the branch itself, no anyOf.
    assert output_schema(named(tools, "lookup"), answer=False)["required"] == ["lookup"]


def test_an_answer_pattern_replaces_the_length_bound() -> None:
    """llguidance cannot combine a length with a pattern: it would drop the whole grammar."""
    assert output_schema([], answer_pattern="^[a-z ]*$")["properties"]["answer"] == {
        "type": "string",
        "pattern": "^[a-z ]*$",
    }
    assert output_schema([], answer_max_chars=None)["properties"]["answer"] == {"type": "string"}


def test_text_held_only_where_the_argument_is_free_text() -> None:
    reg = ToolRegistry()

    @reg.tool
    def order(sku: str, quantity: int, code: str = "A", note: str | None = None) -> str:
        """Place an order."""
        return sku

    tool = reg.get("order")
    assert tool is not None
    tool.parameters["properties"]["code"]["pattern"] = "^[A-Z]$"  # a pattern of its own is kept
    arguments = output_schema([tool], answer=False, text_pattern="^x$")["properties"]["order"]["properties"]
    assert arguments["sku"]["pattern"] == "^x$"
    assert "pattern" not in arguments["quantity"] and arguments["quantity"]["type"] == "integer"
    assert arguments["code"]["pattern"] == "^[A-Z]$"
    assert "pattern" not in json.dumps(arguments["note"])  # a string-or-null is not plain free text
    assert output_schema([tool], answer=False)["properties"]["order"]["properties"]["sku"] == {"type": "string"}


def test_an_optional_number_with_a_default_is_left_to_its_default() -> None:
    """Offered it, the model set a search's result count to 1, then to 7: left out, the tool's default."""
    reg = ToolRegistry()

    @reg.tool
    def search(query: str, limit: int = 3, page: int | None = None, exact: bool = False) -> str:
        """Search."""
        return query

    tool = reg.get("search")
    assert tool is not None
    arguments = output_schema([tool], answer=False)["properties"]["search"]
    assert list(arguments["properties"]) == ["query", "page", "exact"]  # "page" is no plain number
    assert arguments["required"] == ["query"]
    assert describe_tool(tool).startswith("- search(query: string, page?: ")
    assert "limit" not in describe_tool(tool)
    assert tool_parameters(tool)["properties"].keys() == arguments["properties"].keys()


def test_enum_refs_are_inlined(tools: list[Tool]) -> None:
    schema = output_schema(named(tools, "get_weather"), answer=False)
    assert "$ref" not in json.dumps(schema) and "$defs" not in json.dumps(schema)
    assert schema["properties"]["get_weather"]["properties"]["unit"]["enum"] == ["celsius", "fahrenheit"]


def test_a_parameter_named_title_survives_the_clean_up() -> None:
    reg = ToolRegistry()

    @reg.tool
    def save_note(title: str, body: str = "") -> str:
        """Save a note."""
        return title

    tool = reg.get("save_note")
    assert tool is not None
    arguments = output_schema([tool], answer=False)["properties"]["save_note"]
    assert set(arguments["properties"]) == {"title", "body"} and arguments["required"] == ["title"]
    assert "title" not in arguments["properties"]["title"]  # the keyword is dropped, not the name


# ---------------------------------------------------------------------------------------------
# The grammar: a thought line, then the JSON


def test_the_grammar_is_a_thought_line_then_the_schemas_json_on_one_line(tools: list[Tool]) -> None:
    schema = output_schema(named(tools, "lookup"), answer=False)
    compact = {**schema, "x-guidance": {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}}
    assert output_grammar(schema) == (
        "%llguidance {}\n"
        'start: "Thought: " THOUGHT "\\n" reply\n'
        "THOUGHT: /[^\\n{}]{1,200}/\n"
        f"reply: %json {json.dumps(compact, ensure_ascii=False)}"
    )
    led = output_grammar(schema, lead="The last result ")
    assert led.splitlines()[1] == 'start: "Thought: The last result " THOUGHT "\\n" reply'
    assert grammar_schema(led) == schema and uses_llguidance(led)


def test_the_thought_line_takes_no_braces_or_line_breaks() -> None:
    thought = output_grammar(output_schema([])).splitlines()[2]
    (body,) = re.fullmatch(r"THOUGHT: /(.*)/", thought).groups()  # type: ignore[union-attr]
    line = re.compile(body.replace("\\n", "\n"))
    assert line.fullmatch("I need the unit price, then the calculator")
    for bad in ("", "x" * 201, 'calls {"lookup"', "two\nlines"):
        assert not line.fullmatch(bad), bad


def test_without_the_thought_an_answer_held_by_a_pattern_is_gbnf() -> None:
    held = output_schema([], answer_pattern="^[a-z ]*$")
    gbnf = output_grammar(held, thought=False)
    assert gbnf.startswith(SCHEMA_COMMENT) and not uses_llguidance(gbnf)
    assert grammar_schema(gbnf) == held
    assert uses_llguidance(output_grammar(held, thought=False, gbnf=False))
    assert output_grammar(output_schema([]), thought=False).startswith("%llguidance {}\nstart: %json ")
    with pytest.raises(ValueError):
        grammar_schema("root ::= x")


# ---------------------------------------------------------------------------------------------
# Messages


def test_examples_are_removed_from_descriptions() -> None:
    assert without_examples("Evaluate arithmetic, e.g. '(24*7)+100' or '7 × 24'.") == "Evaluate arithmetic."
    assert (
        without_examples("Read a file (path relative to it, e.g. 'pricing.md').")
        == "Read a file (path relative to it)."
    )
    assert without_examples("A city (e.g. 'Seoul') here.") == "A city here."
    assert without_examples("Names, such as 'Kim'; then more.") == "Names; then more."
    assert without_examples("No example here.") == "No example here."


def test_each_tool_is_one_line_with_its_signature(tools: list[Tool]) -> None:
    assert [describe_tool(t) for t in tools] == [
        "- calculator(expression: string): Evaluate arithmetic.",
        "- lookup(topic: string): Look up internal facts: 단가 (unit price), 배송 (shipping).",
        '- get_weather(city: string, unit?: "celsius" | "fahrenheit" = "celsius"): Get the weather of a city.',
    ]


def test_the_system_message_is_the_instructions_the_tools_and_the_format(tools: list[Tool]) -> None:
    expected = "\n\n".join(["Be careful.", "Tools:\n" + "\n".join(describe_tool(t) for t in tools), FORMAT_RULES])
    assert system_message("  Be careful.\n", tools) == expected
    assert '{"reply": "<a short reply>"}' in FORMAT_RULES and 'Write one line "Thought: "' in FORMAT_RULES
    assert system_message("Be careful.", []) == (
        'Be careful.\n\nNo tools are available. Reply with exactly one JSON object: {"answer": "<your answer>"}'
    )


def test_blocks_become_the_models_own_output_and_plain_tool_results(tools: list[Tool]) -> None:
    emitted = 'Thought: I compute it\n{"calculator": {"expression": "24*7"}}'
    done = block(0, "calculator", {"expression": "24*7"}, "168")
    done.raw.extend(
        [
            {"type": "local_output", "content": '{"calculator": {"expression": "1"}}', "rejected": "repeats"},
            {"type": "local_output", "content": emitted},
        ]
    )
    failed = block(1, "lookup", {"topic": "x"}, "ERROR: no fact about 'x'", error=True)
    messages = build_messages("sys", "goal?", [done, failed], tools)
    note = next_step_note("goal?")
    assert messages[1:] == [
        {"role": "user", "content": "goal?"},
        {"role": "assistant", "content": emitted},  # verbatim: llama.cpp's prompt cache still matches
        {"role": "user", "content": 'Tool result for calculator(expression="24*7"):\n168' + note},
        {"role": "assistant", "content": '{"lookup": {"topic": "x"}}'},  # no raw output: rebuilt
        {"role": "user", "content": "Tool error for lookup(topic=\"x\"):\nERROR: no fact about 'x'" + note},
    ]
    assert messages[0] == {"role": "system", "content": system_message("sys", tools)}


def test_the_note_after_each_result_repeats_the_request_in_its_language() -> None:
    assert next_step_note(" What is the refund policy? ") == (
        "\n\n(The request: What is the refund policy?\nIf the results above answer it, give the answer in "
        "English, using their figures exactly; if something is still missing, call a tool.)"
    )
    assert "give the answer in Korean" in next_step_note("환불 정책이 뭐예요?")


def test_an_answer_sent_back_gets_its_corrective_turn(tools: list[Tool]) -> None:
    sent_back = ContextBlock(index=0, step=1, provider="local", text="It is 407.80.", feedback="Your answer says …")
    assert build_messages("s", "What is 17% of 2,340?", [sent_back], tools)[2:] == [
        {"role": "assistant", "content": '{"answer": "It is 407.80."}'},
        {"role": "user", "content": "Your answer says …"},
    ]


def test_json_outputs_are_shown_as_short_lines() -> None:
    hits = json.dumps([{"document": "a.md", "score": 1.5, "snippet": "Hi"}, {"document": "b.md", "tags": [1, 2]}])
    assert plain_output(hits) == "- document: a.md; score: 1.5; snippet: Hi\n- document: b.md; tags: [1, 2]"
    assert plain_output('{"city": "서울", "temperature": 22}') == "- city: 서울; temperature: 22"
    assert plain_output('["one", 2]') == "- one\n- 2"
    for unchanged in ("168", "[not json", "", "{}x"):
        assert plain_output(unchanged) == unchanged


def test_a_long_result_is_cut_for_the_model_and_says_so() -> None:
    long = block(0, "read_file", {"path": "big.txt"}, "x" * (MAX_SHOWN_CHARS + 500))
    assert tool_results_message(long) == (
        'Tool result for read_file(path="big.txt"):\n'
        + "x" * MAX_SHOWN_CHARS
        + " … [cut: the rest of this result is not shown]"
    )
    assert long.outputs[0].output == "x" * (MAX_SHOWN_CHARS + 500)  # the record keeps it whole
    fits = block(0, "read_file", {"path": "a.txt"}, "y" * MAX_SHOWN_CHARS)
    assert tool_results_message(fits).endswith("y" * MAX_SHOWN_CHARS)


def test_calls_already_made_are_known_by_tool_and_arguments() -> None:
    blocks = [block(0, "lookup", {"topic": "price", "lang": "en"}, "$24"), block(1, "calculator", {"e": "1"}, "1")]
    assert call_signature("lookup", '{"lang": "en", "topic": "price"}') in previous_calls(blocks)
    assert call_signature("lookup", {"topic": "price"}) not in previous_calls(blocks)
    assert previous_calls([]) == set()


# ---------------------------------------------------------------------------------------------
# Repairs


@pytest.mark.parametrize(
    ("goal", "sent", "used"),
    [
        ("(350 - 120) / 5 를 계산해 주세요.", "350 - 120 / 5", "(350 - 120) / 5"),
        ("Calculate (12 + 8) * 3.", "12+8*3", "(12 + 8) * 3"),
        ("What is 100 / (4 + 1)?", "100 / (4 + 1)", None),  # kept its brackets: nothing to do
        ("Calculate (12 + 8) * 3.", "24 * 7", None),  # another expression: left alone
        ("Look up the unit price and compute the total for 7 units.", "24 * 7", None),
    ],
)
def test_lost_brackets_are_restored_from_the_goal_in_any_tools_text_argument(
    goal: str, sent: str, used: str | None
) -> None:
    # Any tool, any string argument: the repair reads the goal's arithmetic, not a tool's name.
    for name, key in (("calculator", "expression"), ("evaluate", "formula")):
        call = ToolCallRequest("c1", name, {"precision": 2, key: sent})
        repaired = repair_arguments(goal, call)
        assert (repaired.arguments if repaired else None) == ({"precision": 2, key: used} if used else None)
        if repaired is not None:
            assert (repaired.call_id, repaired.name, repaired.origin) == ("c1", name, "model")


def test_no_repair_for_arguments_that_are_not_an_object() -> None:
    assert repair_arguments("Calculate (12 + 8) * 3.", ToolCallRequest("c1", "calculator", '{"x": "12+8*3"}')) is None


@pytest.mark.parametrize(
    ("goal", "sent", "used"),
    [
        ("What's the stock level of SKU-42?", "42", "SKU-42"),
        ("Is GL-1001 still in stock?", "1001", "GL-1001"),
        ("What's the stock level of SKU-42?", "SKU-42", None),  # already whole
        ("Compare SKU-42 with AB-42.", "42", None),  # two codes end with 42: no guess
        ("Is the 7-day refund window still open?", "7", None),  # no code in capitals
        ("What's the stock level of SKU-42?", "4", None),  # not the code's number
        ("Order 42 units of SKU-42.", "42", None),  # the goal writes the number on its own too
        ("Is PM-2.5 harmful?", "2", None),  # a decimal, not a code
    ],
)
def test_a_number_cut_from_the_goals_code_is_given_the_whole_code(goal: str, sent: str, used: str | None) -> None:
    call = ToolCallRequest("c1", "stock_level", {"sku": sent, "warehouse": 2})
    repaired = whole_identifier(goal, call)
    assert (repaired.arguments if repaired else None) == ({"sku": used, "warehouse": 2} if used else None)
    # Another argument holding the code already: the number is meant as it is (a quantity).
    assert whole_identifier(goal, ToolCallRequest("c2", "order", {"sku": used or "-", "quantity": sent})) is None
    note = repaired_call(goal, call)
    assert (note[1] if note else None) == (
        "an argument that was only the number of the goal's code was given the whole code" if used else None
    )


# ---------------------------------------------------------------------------------------------
# Parsing


def test_the_thought_line_is_set_apart() -> None:
    assert split_thought('Thought: I need the price \n{"lookup": {"topic": "price"}}') == (
        "I need the price",
        '{"lookup": {"topic": "price"}}',
    )
    assert split_thought('{"answer": "hi"}') == ("", '{"answer": "hi"}')


def test_parse_answers_replies_and_tool_calls() -> None:
    assert parse_output('Thought: done\n{"answer": "The total is 168."}', step=3) == ("The total is 168.", [])
    assert parse_output('Thought: a greeting\n{"reply": "Hello!"}', step=1) == ("Hello!", [])
    assert parse_output('{"answer": "no thought"}', step=2) == ("no thought", [])
    text, calls = parse_output('Thought: compute\n{"calculator": {"expression": "24*7"}}', step=3)
    assert text == ""
    assert calls == [ToolCallRequest("local_3_1", "calculator", {"expression": "24*7"}, "model", None)]
    # An unknown tool is passed on: the dispatcher answers it with the list of tools.
    assert parse_output('{"send_email": {}}', step=1)[1][0].name == "send_email"


@pytest.mark.parametrize(
    "content",
    [
        '{"answer": "cut off',
        "Thought: only a thought",
        "[1, 2]",
        '{"calculator": "24*7"}',
        '{"a": {}, "b": {}}',
        "{}",
        '{"answer": 1}',
        '{"reply": ["hi"]}',
        "",
    ],
)
def test_parse_rejects_other_shapes(content: str) -> None:
    with pytest.raises(OutputError):
        parse_output(content, step=1)


@pytest.mark.parametrize(
    ("content", "whole"),
    [
        ('{"answer": "The total is $168."', '{"answer": "The total is $168."}'),  # only "}" may follow
        ('{"answer": "The total is $168."}', '{"answer": "The total is $168."}'),
        ('{"answer": "He said \\"hi\\""', '{"answer": "He said \\"hi\\""}'),
        ('Thought: say hi\n{"reply": "Hi!"', 'Thought: say hi\n{"reply": "Hi!"}'),
        ('Thought: price\n{"lookup": {"topic": "단가"}', 'Thought: price\n{"lookup": {"topic": "단가"}}'),
        ('{"lookup": {"topic": "단가"}}', '{"lookup": {"topic": "단가"}}'),
        ('Thought: say "hi"', None),  # the thought line is still being written
        ('{"answer": "He said \\"', None),  # an escaped quote: the string goes on
        ('{"answer": "', None),
        ('{"lookup": {"topic": "', None),
        ('{"read_file": {"path": "a.txt"', None),  # another argument may follow
        ('{"answer": "The total', None),
    ],
)
def test_complete_reply_knows_when_only_the_closing_brace_is_left(content: str, whole: str | None) -> None:
    assert complete_reply(content) == whole


@pytest.mark.parametrize(
    ("content", "text"),
    [
        ('Thought: hi\n{"answer": "A very long sto', "A very long sto"),
        ('Thought: hi\n{"reply": "Hello the', "Hello the"),
        ('{"answer": "ends in a backslash \\', "ends in a backslash \\"),  # the escape is closed
        ('{"lookup": {"topic": "pri', None),  # a call cut off is no answer
        ("Thought: still thinking", None),
    ],
)
def test_an_answer_cut_at_the_token_limit_keeps_its_text(content: str, text: str | None) -> None:
    assert cut_answer(content) == text
