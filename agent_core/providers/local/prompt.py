"""What the local model sees and says: chat messages, one JSON schema per step, and the parsing.

Qwen2.5-Coder-1.5B writes tool calls as plain JSON rather than the ``<tool_call>`` tags its chat
template expects, so native tool parsing fails. Instead each step's output is constrained by one
JSON schema made from the enabled tools' own names, descriptions and parameter schemas: either
``{"answer": "…"}`` or, one branch per offered tool, ``{"<tool name>": {…that tool's arguments…}}``.
The model picks the branch: which tool, or the answer, is its own choice.

Nothing here knows any tool, document or topic: it reads names, descriptions and schemas.
Everything is pure (no model needed), so it is unit-tested without the model.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from typing import Any

from agent_core.context import ContextBlock, ToolCallRequest
from agent_core.context import call_signature as dispatcher_signature
from agent_core.providers.local.gbnf import SCHEMA_COMMENT, answer_grammar
from agent_core.text.json_lines import plain_output
from agent_core.text.lang import is_korean
from agent_core.tools.registry import Tool
from agent_core.tools.schema import inline_refs

RAW_TYPE = "local_output"
"""``type`` of the raw item a local response carries (the JSON the model produced)."""

FORMAT_RULES = """Write one line "Thought: " saying what is needed next, then exactly one JSON object:
- to call a tool: {"<tool name>": {<the tool's arguments>}}
- to give the final answer once tool results are in: {"answer": "<your answer to the user>"}
- only when no information is asked for (a greeting, thanks, a question about you): {"reply": "<a short reply>"}
A question that asks for information, a yes/no question too, always starts with a tool call.
Call one tool at a time and wait for its result. Facts, figures and policies come from tool
results, never from memory; arithmetic is done with a tool when one can do it. When the results
hold what was asked, answer in the user's language in a full sentence that says the fact from the results (for a
yes/no question, yes or no and the reason); when the tools cannot find it, say plainly what you
could not find."""

# ---------------------------------------------------------------------------------------------
# Schema


ANSWER_BRANCH: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}
SMALL_TALK_KEY = "reply"
ANSWER_KEYS = ("answer", SMALL_TALK_KEY)
"""The keys of a final reply: ``answer`` (after tool results) or ``reply`` (small talk, offered on
the first step instead of ``answer``: a 1.5B model offered "answer" before any result answered
a made-up fact from its head)."""


def answer_key(blocks: Sequence[ContextBlock]) -> str:
    """The key of a final reply on a step with these earlier blocks: ``reply`` before any result."""
    return "answer" if blocks else SMALL_TALK_KEY


MAX_ANSWER_CHARS = 600
"""Longest answer text: a bound on a run-on answer (one to three sentences are asked for)."""


def _left_at_default(name: str, prop: Any, required: Sequence[str]) -> bool:
    """An optional number with a default: left out of what the model writes (the tool uses its
    default). Offered it, the model set a search's result count to 1 and then to 7: the first
    missed the answer, the second made a prompt that outran the request timeout."""
    return (
        name not in required
        and isinstance(prop, dict)
        and prop.get("type") in ("integer", "number")
        and "default" in prop
    )


def tool_parameters(tool: Tool) -> dict[str, Any]:
    """The parameters the model writes for ``tool`` (:func:`_left_at_default` ones left out)."""
    parameters = inline_refs(tool.parameters)
    required = list(parameters.get("required", []))
    properties = {
        name: prop
        for name, prop in parameters.get("properties", {}).items()
        if not _left_at_default(name, prop, required)
    }
    return {**parameters, "properties": properties, "required": required}


def tool_branch(tool: Tool, text_pattern: str | None = None) -> dict[str, Any]:
    """``{"<this tool's name>": <this tool's parameters>}``, each free text parameter (a string with
    no enum, pattern or format of its own) held to ``text_pattern`` when given.

    Keyed by the name rather than ``{"tool": …, "arguments": …}``: the same constraint in 10
    tokens instead of 17, and every token is a forward pass (~60 ms here).
    """
    parameters = tool_parameters(tool)
    required = list(parameters.get("required", []))
    properties = dict(parameters.get("properties", {}))
    if text_pattern:
        for name, prop in properties.items():
            if (
                isinstance(prop, dict)
                and prop.get("type") == "string"
                and not {"enum", "const", "pattern", "format"} & set(prop)
            ):
                properties[name] = {**prop, "pattern": text_pattern}
    return {
        "type": "object",
        "properties": {tool.name: {**parameters, "properties": properties, "required": required}},
        "required": [tool.name],
        "additionalProperties": False,
    }


def output_schema(
    tools: Sequence[Tool],
    *,
    answer: bool = True,
    answer_key: str = "answer",
    answer_pattern: str | None = None,
    answer_max_chars: int | None = MAX_ANSWER_CHARS,
    text_pattern: str | None = None,
) -> dict[str, Any]:
    """The schema for one step: the answer (when ``answer``, under ``answer_key``) or one call of
    an offered tool (its free text arguments held to ``text_pattern``).

    ``answer_pattern`` holds the answer's text (:func:`~agent_core.providers.local.figures.answer_pattern`),
    ``answer_max_chars`` its length (None: only the token limit). Branches are mutually exclusive
    (different required keys, no extra keys), so ``anyOf`` here means ``oneOf``; with ``oneOf`` a
    first probe got a garbled answer ("]24*7+100 = 1700").
    """
    branches = [tool_branch(t, text_pattern) for t in tools]
    if answer or not branches:
        answer_branch = copy.deepcopy(ANSWER_BRANCH)
        if answer_key != "answer":
            answer_branch["properties"] = {answer_key: answer_branch["properties"]["answer"]}
            answer_branch["required"] = [answer_key]
        text = answer_branch["properties"][answer_key]
        if answer_pattern:
            text["pattern"] = answer_pattern
        if answer_max_chars is not None and not answer_pattern:
            # llguidance cannot combine a length with a pattern ("Unable to determine if regex is
            # empty") and then drops the whole grammar: the token limit bounds those answers.
            text["maxLength"] = answer_max_chars
        branches.append(answer_branch)
    return branches[0] if len(branches) == 1 else {"anyOf": branches}


COMPACT_JSON = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}

LLGUIDANCE = "%llguidance {}\nstart: %json "
"""How an llguidance grammar for a JSON schema begins (llama.cpp reads the rest as llguidance's)."""


THOUGHT = "Thought: "
"""How a reply begins: one line of the model's own words on what it needs next, then the JSON."""
MAX_THOUGHT_CHARS = 200
"""Longest thought line (a sentence; it is generated, ~0.1 s a token here)."""


def output_grammar(schema: dict[str, Any], *, gbnf: bool = True, thought: bool = True, lead: str = "") -> str:
    """The grammar for a reply: with ``thought``, a line ``Thought: …`` and then ``schema``'s JSON
    (llguidance); without, the JSON alone: GBNF for an answer-only schema whose text a pattern
    holds (:func:`~agent_core.providers.local.gbnf.answer_grammar`, no vocabulary tables to
    build; ``gbnf=False``: never), else llguidance's JSON schema. The JSON is on one line.

    Why the thought: held to a JSON key from its first token, the model answered a request for a
    fact from its head and put "7 * 100" in an arithmetic call before any result. Let to write a
    sentence first, it named the tool the request needed and then called it: 22 of 24 first steps right against 19 (requests for facts and small
    talk, measured). Left free, the model pretty-prints its JSON over several lines (about 12
    extra tokens, ~1 s here); one-line JSON is also what the earlier turns show it.
    """
    compact = json.dumps({**schema, "x-guidance": COMPACT_JSON}, ensure_ascii=False)
    if thought:
        return (
            "%llguidance {}\n"
            f'start: "{THOUGHT}{lead}" THOUGHT "\\n" reply\n'
            f"THOUGHT: /[^\\n{{}}]{{1,{MAX_THOUGHT_CHARS}}}/\n"
            f"reply: %json {compact}"
        )
    answer = answer_grammar(schema) if gbnf else None
    if answer is not None:
        return answer
    return LLGUIDANCE + compact


def uses_llguidance(grammar: str) -> bool:
    """Whether ``grammar`` goes to llguidance (whose first grammar in a process builds its tables)."""
    return grammar.startswith("%llguidance")


def grammar_schema(grammar: str) -> dict[str, Any]:
    """The JSON schema an :func:`output_grammar` grammar was made from (for the tests and logs)."""
    if "\nreply: %json " in grammar:
        schema = json.loads(grammar.split("\nreply: %json ", 1)[1])
        schema.pop("x-guidance", None)
        return dict(schema)
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
    (it sent a description's example expression as its own arithmetic)."""
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
    params = tool_parameters(tool)
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


def _arguments_object(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def _assistant_json(block: ContextBlock) -> str:
    """The JSON the model emitted for this block, verbatim (so llama.cpp's prompt cache still
    holds it); rebuilt from the calls when the block came from elsewhere."""
    for item in reversed(block.raw):
        if item.get("type") == RAW_TYPE and isinstance(item.get("content"), str) and not item.get("rejected"):
            return str(item["content"])
    if block.tool_calls:
        call = block.tool_calls[0]
        return json.dumps({call.name: _arguments_object(call.arguments)}, ensure_ascii=False)
    return json.dumps({"answer": block.text}, ensure_ascii=False)


def _call_text(call: ToolCallRequest | None, name: str) -> str:
    """``tool(argument="24 * 12 + 15")``: the call a result belongs to, values shortened."""
    arguments = _arguments_object(call.arguments) if call is not None else None
    if not isinstance(arguments, dict) or not arguments:
        return name
    parts = []
    for key, value in arguments.items():
        text = json.dumps(value, ensure_ascii=False)
        parts.append(f"{key}={text if len(text) <= 60 else text[:57] + '…'}")
    return f"{name}({', '.join(parts)})"


MAX_SHOWN_CHARS = 2000
"""Most characters of one tool result the model reads (the record keeps it whole): at ~30 ms a
prompt token on 2 cores, a 4,000-character result is a minute of reading on a busy machine."""


def tool_results_message(block: ContextBlock) -> str:
    """The tool outputs of a block as one plain-text user turn, each with the call it answers.

    Naming the call keeps the figure attached to its meaning: shown a bare "303", the model
    answered with two unrelated figures; shown ``tool(argument="24 * 12 + 15")``
    it kept 303.
    """
    calls = {c.call_id: c for c in block.tool_calls}
    lines = []
    for output in block.outputs:
        label = "Tool error for" if output.is_error else "Tool result for"
        shown = plain_output(output.output)
        if len(shown) > MAX_SHOWN_CHARS:
            shown = shown[:MAX_SHOWN_CHARS] + " … [cut: the rest of this result is not shown]"
        lines.append(f"{label} {_call_text(calls.get(output.call_id), output.name)}:\n{shown}")
    if not lines:
        lines.append("(no tool result)")
    return "\n".join(lines)


def request_language(goal: str) -> str:
    """The language the answer must be in, as the prompt names it."""
    return "Korean" if is_korean(goal) else "English"


def next_step_note(goal: str) -> str:
    """The line after each tool result: the request again, and the two ways on. A 1.5B model
    that reads a long result loses the question: it answered what the result was about."""
    return (
        f"\n\n(The request: {goal.strip()}\nIf the results above answer it, give the answer in "
        f"{request_language(goal)}, using their figures exactly; if something is still missing, call a tool.)"
    )


def build_messages(
    instructions: str, goal: str, blocks: Sequence[ContextBlock], tools: Sequence[Tool]
) -> list[dict[str, str]]:
    """Chat messages: system, the goal, then per block the model's JSON and the tool results.

    Everything stays the same from step to step, so llama.cpp reuses its cached prompt and reads
    only what is new.
    """
    messages = [
        {"role": "system", "content": system_message(instructions, tools)},
        {"role": "user", "content": goal},
    ]
    for block in blocks:
        messages.append({"role": "assistant", "content": _assistant_json(block)})
        # An answer sent back by the answer check gets its corrective turn instead of a result.
        feedback = block.feedback if not block.outputs else ""
        messages.append({"role": "user", "content": feedback or tool_results_message(block) + next_step_note(goal)})
    return messages


def call_signature(name: str, arguments: Any) -> str:
    """Same tool + same arguments (key order ignored) → same text (as the dispatcher sees it)."""
    return dispatcher_signature(name, _arguments_object(arguments))


def previous_calls(blocks: Sequence[ContextBlock]) -> set[str]:
    """Signatures of the calls already made in the blocks sent."""
    return {call_signature(c.name, c.arguments) for b in blocks for c in b.tool_calls}


_EXPRESSION = re.compile(r"[\d(][\d\s.,+\-*/×÷%()^]*[\d)]")


def repair_arguments(goal: str, call: ToolCallRequest) -> ToolCallRequest | None:
    """A call whose string argument is an arithmetic expression of the goal with its brackets
    lost, given the goal's own expression back; None when there is nothing to repair.

    Under constrained decoding the opening quote of a string is emitted on its own, and the model
    then rarely starts the string with "(": it sent ``350 - 120 / 5`` for "(350 - 120) / 5" every
    time (a tokenisation artefact, not a choice), which changes the result.
    """
    if not isinstance(call.arguments, dict):
        return None
    squeeze = lambda text: re.sub(r"\s+", "", text)  # noqa: E731
    for key, sent in call.arguments.items():
        if not isinstance(sent, str) or "(" in sent:
            continue
        for match in _EXPRESSION.finditer(goal):
            written = match.group(0).strip()
            if "(" in written and squeeze(written.replace("(", "").replace(")", "")) == squeeze(sent):
                arguments = {**call.arguments, key: written}
                return ToolCallRequest(call.call_id, call.name, arguments, call.origin, call.harness_rule)
    return None


_IDENTIFIER = re.compile(r"(?<![\w-])[A-Z][A-Z0-9]*[-_](\d+)(?![\w-]|[.,]\d)")
"""A code the goal writes in capitals with a number after a hyphen or underscore: AB-42, XY_1001."""


def whole_identifier(goal: str, call: ToolCallRequest) -> ToolCallRequest | None:
    """A call whose string argument is only the number of a code the goal writes (``"42"`` for
    the goal's ``AB-42``), given the whole code back; None when there is nothing to repair: no
    such argument, two codes in the goal end with that number, the goal also writes the number on
    its own ("42 units of AB-42"), or another argument already holds the code.

    Asked about a code like "AB-42", the model wrote the argument ``"42"`` in some runs and ``"AB-42"`` in
    others: a number cut from a code finds nothing under any tool.
    """
    if not isinstance(call.arguments, dict):
        return None
    for key, sent in call.arguments.items():
        if not isinstance(sent, str) or not sent.isdigit():
            continue
        codes = {m.group(0) for m in _IDENTIFIER.finditer(goal) if m.group(1) == sent}
        alone = re.search(rf"(?<![\w.,-]){sent}(?![\w-]|[.,]\d)", goal)
        if len(codes) == 1 and not alone and not codes & {str(v) for v in call.arguments.values()}:
            arguments = {**call.arguments, key: codes.pop()}
            return ToolCallRequest(call.call_id, call.name, arguments, call.origin, call.harness_rule)
    return None


def repaired_call(goal: str, call: ToolCallRequest) -> tuple[ToolCallRequest, str] | None:
    """``call`` with an argument repaired from the goal (:func:`repair_arguments`,
    :func:`whole_identifier`) and the note saying so; None when nothing needs repair."""
    if (repaired := repair_arguments(goal, call)) is not None:
        return repaired, "an arithmetic argument was given back the goal's brackets"
    if (repaired := whole_identifier(goal, call)) is not None:
        return repaired, "an argument that was only the number of the goal's code was given the whole code"
    return None


# ---------------------------------------------------------------------------------------------
# Parsing


class OutputError(ValueError):
    """The model's output is not one of the allowed JSON shapes."""


RESULT_LEAD = "The last result "
"""How the thought begins once a tool result is in: the model copied its first thought ("I need
to look up X") at every later step and repeated the call it named; made to
start from the result, it says what the result holds first."""


def split_thought(content: str) -> tuple[str, str]:
    """``(thought, json part)`` of a reply; the thought is "" when the reply has none."""
    if content.startswith(THOUGHT):
        line, _, rest = content.partition("\n")
        return line[len(THOUGHT) :].strip(), rest
    return "", content


def cut_answer(content: str) -> str | None:
    """The text of an answer the token limit cut off mid-string, or None if it is not one."""
    content = split_thought(content)[1]
    small_talk = '{"' + SMALL_TALK_KEY + '": "'
    if content.startswith(small_talk):
        content = '{"answer": "' + content[len(small_talk) :]
    prefix = '{"answer": "'
    if not content.startswith(prefix):
        return None
    body = content[len(prefix) :]
    for ending in ('"}', '\\"}', 'n"}'):  # close the string, even after a dangling backslash
        try:
            return str(json.loads(prefix + body + ending)["answer"])
        except (ValueError, KeyError, TypeError):
            continue
    return body


def cut_call(content: str, names: Sequence[str]) -> str | None:
    """The offered tool (one of ``names``) whose call the token limit cut off, or None if the
    output is no call of one."""
    content = split_thought(content)[1]
    keys = {name: ("{" + json.dumps(name) + ":", "{" + json.dumps(name, ensure_ascii=False) + ":") for name in names}
    return next((name for name, starts in keys.items() if content.startswith(starts)), None)


def complete_reply(content: str) -> str | None:
    """The whole reply once the output so far leaves the grammar no choice but its closing brace,
    or none at all (then it can only end); else None.

    The answer's closing ``"`` leaves only ``}`` and the end of the output; so does the ``}`` that
    closes a tool call's arguments. Stopping there saves generating them: two tokens of a reply,
    ~0.2 s on 2 cores (a short answer is ~24)."""
    if not content.endswith(("}", '"')) or (content.startswith(THOUGHT) and "\n" not in content):
        return None
    for whole in (content, content + "}"):
        try:
            parse_output(whole, step=0)
        except OutputError:
            continue
        return whole
    return None


def parse_output(content: str, *, step: int) -> tuple[str, list[ToolCallRequest]]:
    """``(answer text, [])`` or ``("", [call])`` from the constrained output (its thought line,
    :func:`split_thought`, set aside).

    Call ids are ``local_<step>_<n>``. A tool name is passed on as it is (the dispatcher answers
    an unknown one with an error the model can fix). Raises :class:`OutputError` for anything
    else (the schema should make that impossible; a cut-off output is the usual cause).
    """
    content = split_thought(content)[1]
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        raise OutputError(f"the local model's output is not valid JSON ({exc.msg}): {content[:200]!r}") from None
    if not isinstance(data, dict) or len(data) != 1:
        raise OutputError(f"the local model's output is not a JSON object with one key: {content[:200]!r}")
    ((key, value),) = data.items()
    if (key == "answer" or key == SMALL_TALK_KEY) and isinstance(value, str):
        return value, []
    if not isinstance(value, dict):
        raise OutputError(f"the local model's arguments for {key} are not an object: {content[:200]!r}")
    return "", [ToolCallRequest(call_id=f"local_{step}_1", name=key, arguments=value)]
