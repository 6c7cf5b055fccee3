"""What the local model sees and says: chat messages, a JSON schema per step, and the parsing.

Qwen2.5-Coder-1.5B writes tool calls as plain JSON rather than the ``<tool_call>`` tags its chat
template expects, so native tool parsing fails. Instead each step's
output is constrained by a JSON schema: either ``{"answer": "…"}`` or, one branch per offered
tool, ``{"<tool name>": {…that tool's own parameters…}}``.

Which branches a step offers, and which argument values are pinned, comes from the step's plan
(:mod:`agent_core.providers.local.plan`). Measured with ``evals/everyday.yaml`` and
``bench/local_quality.py``; the reasons are in the docstrings below.

Everything here is pure (no model needed), so it is unit-tested without the model.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from agent_core.context import ContextBlock, ToolCallRequest
from agent_core.context import call_signature as dispatcher_signature
from agent_core.providers.local.evidence import compact_search
from agent_core.providers.local.gbnf import SCHEMA_COMMENT, answer_grammar
from agent_core.providers.local.plan import answer_reminder, small_talk_reminder
from agent_core.tools.registry import Tool
from agent_core.tools.schema import inline_refs

RAW_TYPE = "local_output"
"""``type`` of the raw item a local response carries (the JSON the model produced)."""

FORMAT_RULES = """Reply with exactly one JSON object and nothing else:
- to call a tool: {"<tool name>": {<the tool's arguments>}}
- to give the final answer: {"answer": "<your answer to the user>"}
Call one tool at a time and wait for its result. Never compute, invent or guess a number, a price
or a policy yourself: get it from a tool. When every needed tool result is in, give the answer,
in the user's language, using the numbers from the tool results exactly."""

# ---------------------------------------------------------------------------------------------
# Schema


ANSWER_BRANCH: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}


CALCULATOR_EXPRESSION: dict[str, Any] = {
    "type": "string",
    "pattern": r"^[0-9(][0-9 .,()]*[+*/\-][0-9 .,+*/()\-]*$",
    "maxLength": 80,
}
"""What the model may write as a calculator expression: digits, operators and brackets only.

Without it the model wrote ``17% * 2340`` (``%`` is the remainder there) and ``24 * units``; with
the characters pinned it writes ``17 / 100 * 2340``. The calculator itself accepts more.
At least one operator: asked to ground a made-up "200", the model sent the calculator "200". It
may start with "(": when it could not, "the average of 12, 18 and 27" became ``12 + 18 + 27 / 3``.
"""


def _pin(parameters: dict[str, Any], name: str, pinned: Mapping[str, Any]) -> dict[str, Any]:
    """``parameters`` with the pinned argument values as enums (required), and the calculator's
    expression narrowed to :data:`CALCULATOR_EXPRESSION`."""
    properties = dict(parameters.get("properties", {}))
    required = list(parameters.get("required", []))
    for key, values in pinned.items():
        if key in properties and isinstance(values, Mapping):  # a schema of its own ({"pattern": …})
            properties[key] = {**properties[key], **values}
            if key not in required:
                required.append(key)
        elif key in properties and values:
            properties[key] = {"enum": list(values)}
            if key not in required:
                required.append(key)
    if name == "calculator" and "expression" in properties:
        properties["expression"] = dict(CALCULATOR_EXPRESSION)
    return {**parameters, "properties": properties, "required": required}


CHECKED_ANSWER: dict[str, Any] = {
    "type": "object",
    "properties": {"check": {"type": "string", "maxLength": 240}, "answer": {"type": "string"}},
    "required": ["check", "answer"],
    "additionalProperties": False,
}
"""The final answer after tool results: first ``check`` (the deciding figures, compared), then the
answer. Asked for the answer alone, the model said "Yes, shipping is free for 20 units" right
after computing $480 against a $500 threshold; writing the comparison out first fixes that.
Only ``answer`` reaches the user; the record keeps both."""


MAX_ANSWER_CHARS = 600
"""Longest answer text: a bound on a run-on answer (one to three sentences are asked for)."""


def tool_branch(tool: Tool, pinned: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``{"<this tool's name>": <this tool's parameters>}``, with ``pinned`` argument values.

    Keyed by the name rather than ``{"tool": …, "arguments": …}``: the same constraint in 10
    tokens instead of 17, and every token is a forward pass (~60 ms here).
    """
    return {
        "type": "object",
        "properties": {tool.name: _pin(inline_refs(tool.parameters), tool.name, pinned or {})},
        "required": [tool.name],
        "additionalProperties": False,
    }


def output_schema(
    tools: Sequence[Tool],
    *,
    force_tool: bool,
    pinned: Mapping[str, Mapping[str, Any]] | None = None,
    checked_answer: bool = False,
    answer_pattern: str | None = None,
    answer_max_chars: int | None = MAX_ANSWER_CHARS,
) -> dict[str, Any]:
    """The schema for one step: an answer or one call of an enabled tool (``force_tool``: a call).

    ``pinned`` fixes argument values per tool (``{"get_weather": {"city": ["Seoul"]}}``);
    ``answer_pattern`` constrains the answer text (:func:`~agent_core.providers.local.plan.answer_pattern`),
    ``answer_max_chars`` its length (None: only the token limit). llguidance cannot combine a
    length with a pattern that requires figures ("Unable to determine if regex is empty") and
    then drops the whole grammar.
    Branches are mutually exclusive (different required keys, no extra keys), so ``anyOf`` here
    means ``oneOf``; with ``oneOf`` a first probe got a garbled answer ("]24*7+100 = 1700").
    """
    pinned = pinned or {}
    branches = [tool_branch(t, pinned.get(t.name)) for t in tools]
    if not force_tool or not branches:
        answer = copy.deepcopy(CHECKED_ANSWER if checked_answer else ANSWER_BRANCH)
        if answer_pattern:
            answer["properties"]["answer"]["pattern"] = answer_pattern
            if answer_max_chars is not None:
                answer["properties"]["answer"]["maxLength"] = answer_max_chars
        branches.insert(0, answer)
    return branches[0] if len(branches) == 1 else {"anyOf": branches}


COMPACT_JSON = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}


LLGUIDANCE = "%llguidance {}\nstart: %json "
"""How an llguidance grammar for a JSON schema begins (llama.cpp reads the rest as llguidance's)."""


def output_grammar(schema: dict[str, Any], *, gbnf: bool = True) -> str:
    """The grammar for ``schema``, its JSON written on one line: GBNF for an answer whose text a
    pattern holds (:func:`~agent_core.providers.local.gbnf.answer_grammar`, no vocabulary tables to
    build; ``gbnf=False``: never), else llguidance's JSON schema with the whitespace fixed.

    Left free, the model pretty-prints its first reply over several lines (about 12 extra tokens,
    ~1 s here); one-line JSON is also what the earlier turns show it.
    """
    answer = answer_grammar(schema) if gbnf else None
    if answer is not None:
        return answer
    return LLGUIDANCE + json.dumps({**schema, "x-guidance": COMPACT_JSON}, ensure_ascii=False)


def uses_llguidance(grammar: str) -> bool:
    """Whether ``grammar`` goes to llguidance (whose first grammar in a process builds its tables)."""
    return grammar.startswith("%llguidance")


def grammar_schema(grammar: str) -> dict[str, Any]:
    """The JSON schema an :func:`output_grammar` grammar was made from (for the tests and logs)."""
    if grammar.startswith(LLGUIDANCE):
        schema = json.loads(grammar[len(LLGUIDANCE) :])
        schema.pop("x-guidance", None)
        return dict(schema)
    first_line = grammar.split("\n", 1)[0]
    if first_line.startswith(SCHEMA_COMMENT):
        return dict(json.loads(first_line[len(SCHEMA_COMMENT) :]))
    raise ValueError("not a grammar made by output_grammar")


# ---------------------------------------------------------------------------------------------
# Messages


def _type_of(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array":
        return f"list of {_type_of(schema.get('items', {}))}"
    if kind:
        return str(kind)
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        return " | ".join(_type_of(o) for o in options if isinstance(o, dict))
    return "any"


_EXAMPLE_MARKER = re.compile(r"(\(\s*)?(?:,\s*)?\b(?:e\.g\.|for example|such as)\s", re.IGNORECASE)


def without_examples(text: str) -> str:
    """``text`` minus its "e.g. …" clauses: a 1.5B model copies examples verbatim into calls
    (it sent ``(24*7)+100`` for "the total for 7 units" after reading it in a description)."""
    out = []
    position = 0
    while (match := _EXAMPLE_MARKER.search(text, position)) is not None:
        out.append(text[position : match.start()])
        i = match.end()
        while i < len(text):
            char = text[i]
            if char in "'\"":  # skip a quoted example whole, whatever it contains
                close = text.find(char, i + 1)
                i = len(text) if close < 0 else close + 1
                continue
            if char in ".;" and (i + 1 == len(text) or text[i + 1].isspace()):
                break
            if char == ")":
                if match.group(1):  # "(e.g. …)": drop both brackets
                    i += 1
                break
            i += 1
        position = i
    out.append(text[position:])
    return re.sub(r"\s{2,}", " ", "".join(out)).strip()


def describe_tool(tool: Tool) -> str:
    """One compact line per tool: ``- name(arg: type, opt?: type = default): description``.

    Argument descriptions are left out: they cost prompt time on every first step and mostly
    repeat the signature; the schema still constrains the arguments.
    """
    params = inline_refs(tool.parameters)
    required = set(params.get("required", []))
    args = []
    for name, prop in params.get("properties", {}).items():
        prop = prop if isinstance(prop, dict) else {}
        text = f"{name}: {_type_of(prop)}"
        if name not in required:
            text = f"{name}?: {_type_of(prop)}"
            if "default" in prop:
                text += f" = {json.dumps(prop['default'], ensure_ascii=False)}"
        args.append(text)
    return f"- {tool.name}({', '.join(args)}): {without_examples(tool.description)}"


def system_message(instructions: str, tools: Sequence[Tool]) -> str:
    """The system prompt: the run's instructions, the tool list and the JSON reply format."""
    parts = [instructions.strip()]
    if tools:
        parts.append("Tools:\n" + "\n".join(describe_tool(t) for t in tools))
        parts.append(FORMAT_RULES)
    else:
        parts.append('No tools are available. Reply with exactly one JSON object: {"answer": "<your answer>"}')
    return "\n\n".join(p for p in parts if p)


_STRUCTURED_TOOLS = frozenset({"lookup", "calculator", "get_weather"})


def _structured_and_planned(block: ContextBlock) -> bool:
    """The block's call came from the plan (:func:`~agent_core.providers.local.plan.planned_call`),
    not from the model, and every result is a fact, a figure or the weather, none failed."""
    planned = any(item.get("type") == RAW_TYPE and item.get("planned") for item in block.raw)
    return (
        planned
        and not block.feedback
        and bool(block.outputs)
        and all(o.name in _STRUCTURED_TOOLS and not o.is_error for o in block.outputs)
    )


def _assistant_json(block: ContextBlock) -> str:
    """The JSON the model emitted for this block, verbatim (so llama.cpp's prompt cache still
    holds it); rebuilt from the calls when the block came from elsewhere."""
    for item in reversed(block.raw):
        if item.get("type") == RAW_TYPE and isinstance(item.get("content"), str) and not item.get("rejected"):
            return item["content"]
    if block.tool_calls:
        call = block.tool_calls[0]
        return json.dumps({call.name: _arguments_object(call.arguments)}, ensure_ascii=False)
    return json.dumps({"answer": block.text}, ensure_ascii=False)


def _arguments_object(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def _call_text(call: ToolCallRequest | None, name: str) -> str:
    """``calculator(expression="24 * 12 + 15")``: the call a result belongs to, values shortened."""
    arguments = _arguments_object(call.arguments) if call is not None else None
    if not isinstance(arguments, dict) or not arguments:
        return name
    parts = []
    for key, value in arguments.items():
        text = json.dumps(value, ensure_ascii=False)
        parts.append(f"{key}={text if len(text) <= 60 else text[:57] + '…'}")
    return f"{name}({', '.join(parts)})"


def tool_results_message(block: ContextBlock, goal: str = "") -> str:
    """The tool outputs of a block as one plain-text user turn, each with the call it answers.

    Naming the call keeps the figure attached to its meaning: shown a bare "303", the model
    answered "12 units cost $72, plus the fee $87"; shown ``calculator(expression="24 * 12 + 15")``
    it kept 303.

    A search's hits are shown as plain lines with the sentences that share a word with ``goal``
    (:func:`~agent_core.providers.local.evidence.compact_search`): fewer tokens to read, and fewer
    sentences about something else to copy from.
    """
    calls = {c.call_id: c for c in block.tool_calls}
    lines = []
    for output in block.outputs:
        label = "Tool error for" if output.is_error else "Tool result for"
        shown = output.output
        if goal and output.name == "search_documents" and not output.is_error:
            shown = compact_search(goal, output.output) or output.output
        lines.append(f"{label} {_call_text(calls.get(output.call_id), output.name)}: {shown}")
        if output.output.startswith("No results"):
            lines.append("(Nothing found. The documents are mostly in English.)")
    if not lines:
        lines.append("(no tool result)")
    return "\n".join(lines)


def build_messages(
    instructions: str,
    goal: str,
    blocks: Sequence[ContextBlock],
    tools: Sequence[Tool],
    *,
    answer_now: bool = False,
    small_talk: bool = False,
    hint: str = "",
) -> list[dict[str, str]]:
    """Chat messages: system, the goal, then per block the model's JSON and the tool results.

    Everything before the last message stays the same from step to step, so llama.cpp reuses
    its cached prompt; ``answer_now`` adds :func:`answer_reminder` (the request again and the
    rules of the answer) to the last message only; ``small_talk`` adds a line to the goal saying
    no tool is needed; ``hint`` (the plan's word on the next call) is added the same way.
    """
    messages = [
        {"role": "system", "content": system_message(instructions, tools)},
        {"role": "user", "content": goal},
    ]
    if answer_now and blocks and all(_structured_and_planned(block) for block in blocks):
        # Every call so far was planned, so no earlier prompt of this run is cached beyond the
        # system prompt: the results go in the goal's turn, without the calls as turns of the
        # model's own (each result names its call): ~20 prompt tokens fewer per call, ~1 s on the
        # seed goal. Only for facts, figures and weather, whose figures the answer is held to
        # (plan.required_facts): with search or file results in this form, the model answered a
        # question the documents do not answer with the shipping fees, and counted the wrong rows.
        # The goal stays first: written only once, after the results (22 prompt tokens fewer),
        # the seed's answer began by copying the request (57 tokens generated instead of 24).
        results = "\n".join(tool_results_message(block, goal) for block in blocks)
        messages[-1]["content"] += "\n\n" + results + answer_reminder(goal, blocks)
        return messages
    for block in blocks:
        messages.append({"role": "assistant", "content": _assistant_json(block)})
        # An answer sent back by the answer check gets its corrective turn instead of "(no tool result)".
        feedback = block.feedback if not block.outputs else ""
        messages.append({"role": "user", "content": feedback or tool_results_message(block, goal)})
    if answer_now and blocks:
        messages[-1]["content"] += answer_reminder(goal, blocks)
    elif small_talk and not blocks:
        messages[-1]["content"] += small_talk_reminder(goal)
    if hint:
        messages[-1]["content"] += hint
    return messages


def call_signature(name: str, arguments: Any) -> str:
    """Same tool + same arguments (key order ignored) → same text (as the dispatcher sees it)."""
    return dispatcher_signature(name, _arguments_object(arguments))


def previous_calls(blocks: Sequence[ContextBlock]) -> set[str]:
    """Signatures of the calls already made in the blocks sent."""
    return {call_signature(c.name, c.arguments) for b in blocks for c in b.tool_calls}


_EXPRESSION = re.compile(r"[\d(][\d\s.,+\-*/×÷%()^]*[\d)]")


def repair_arguments(goal: str, call: ToolCallRequest) -> ToolCallRequest | None:
    """A calculator call whose expression is the goal's own expression with the brackets lost,
    restored to the goal's; None when there is nothing to repair.

    Under constrained decoding the opening quote of a string is emitted on its own, and the model
    then rarely starts the string with "(": it sent ``350 - 120 / 5`` for "(350 - 120) / 5" every
    time (a tokenisation artefact, not a choice), which changes the result.
    """
    if call.name != "calculator" or not isinstance(call.arguments, dict):
        return None
    sent = call.arguments.get("expression")
    if not isinstance(sent, str) or "(" in sent:
        return None
    squeeze = lambda text: re.sub(r"\s+", "", text)  # noqa: E731
    for match in _EXPRESSION.finditer(goal):
        written = match.group(0).strip()
        if "(" in written and squeeze(written.replace("(", "").replace(")", "")) == squeeze(sent):
            return ToolCallRequest(call.call_id, call.name, {**call.arguments, "expression": written})
    return None


# ---------------------------------------------------------------------------------------------
# Parsing


class OutputError(ValueError):
    """The model's output is not one of the allowed JSON shapes."""


def cut_answer(content: str) -> str | None:
    """The text of an answer the token limit cut off mid-string, or None if it is not one."""
    prefix = '{"answer": "'
    if content.startswith('{"check": ') and '"answer": "' in content:
        content = prefix + content.split('"answer": "', 1)[1]
    if not content.startswith(prefix):
        return None
    body = content[len(prefix) :]
    for ending in ('"}', '\\"}', 'n"}'):  # close the string, even after a dangling backslash
        try:
            return str(json.loads(prefix + body + ending)["answer"])
        except (ValueError, KeyError, TypeError):
            continue
    return body


def complete_reply(content: str) -> str | None:
    """The whole reply once the output so far leaves the grammar no choice but its closing brace,
    or none at all (then it can only end); else None.

    The answer's closing ``"`` leaves only ``}`` and the end of the output; so does the ``}`` that
    closes a tool call's arguments. Stopping there saves generating them: two tokens of a reply,
    ~0.2 s on 2 cores (a short answer is ~24)."""
    if not content.endswith(("}", '"')):
        return None
    for whole in (content, content + "}"):
        try:
            parse_output(whole, step=0)
        except OutputError:
            continue
        return whole
    return None


def parse_output(content: str, *, step: int) -> tuple[str, list[ToolCallRequest]]:
    """``(answer text, [])`` or ``("", [call])`` from the constrained output.

    Call ids are ``local_<step>_<n>``. A tool name is passed on as it is (the dispatcher answers
    an unknown one with an error the model can fix). Raises :class:`OutputError` for anything
    else (the schema should make that impossible; a cut-off output is the usual cause).
    """
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        raise OutputError(f"the local model's output is not valid JSON ({exc.msg}): {content[:200]!r}") from None
    if isinstance(data, dict) and set(data) == {"check", "answer"} and isinstance(data["answer"], str):
        return data["answer"], []
    if not isinstance(data, dict) or len(data) != 1:
        raise OutputError(f"the local model's output is not a JSON object with one key: {content[:200]!r}")
    ((key, value),) = data.items()
    if key == "answer" and isinstance(value, str):
        return value, []
    if not isinstance(value, dict):
        raise OutputError(f"the local model's arguments for {key} are not an object: {content[:200]!r}")
    return "", [ToolCallRequest(call_id=f"local_{step}_1", name=key, arguments=value)]
