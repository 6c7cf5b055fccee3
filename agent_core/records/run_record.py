"""The run record's type: one definition for the engine, the readers and ``docs/run.schema.json``.

A record is plain JSON (one file per run); these ``TypedDict``s describe it, so the loop, the
dispatcher and every reader are checked by mypy against one definition, and the JSON Schema is
generated from it (``python -m agent_core schema > docs/run.schema.json``). They stay plain dicts
at run time: saving after every step costs nothing extra.

Fields marked ``NotRequired`` are optional: older records (and records of providers that do not
set them) read without them. To add a field: add it here (``NotRequired`` unless every writer
sets it), write it where it is produced, regenerate the schema; for a new History column add
it to :data:`agent_core.records.index.RUN_COLUMNS` too.

:func:`upgrade` is the one place where a record of an older ``schema_version`` is brought up to
date on read.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, TypeAdapter
from typing_extensions import TypedDict  # pydantic reads typing.TypedDict only from Python 3.12 on

SCHEMA_VERSION: Literal[1] = 1
"""The version the engine writes. Records of an older version are upgraded by :func:`upgrade`."""
READABLE_VERSIONS = (1,)
"""Versions :func:`upgrade` knows how to read."""

Status = Literal["running", "waiting_for_approval", "completed", "max_steps", "error", "cancelled"]
LIVE_STATUSES: tuple[Status, ...] = ("running", "waiting_for_approval")
"""A run still going: working, or waiting for a person to approve a tool call."""
ErrorCategoryName = Literal["validation", "transient", "non_transient", "timeout", "duplicate"]
GroundingStatus = Literal["grounded", "partly", "ungrounded", "no_claims"]

_NonNegInt = Annotated[int, Field(ge=0)]
_NonNegFloat = Annotated[float, Field(ge=0)]
_Timestamp = Annotated[str, Field(json_schema_extra={"format": "date-time"})]


class UsageRecord(TypedDict):
    """Token counts of one response or of the whole run."""

    input_tokens: _NonNegInt
    output_tokens: _NonNegInt
    total_tokens: _NonNegInt


class RunError(TypedDict):
    """Why a run did not complete (``type`` is a short class-like name)."""

    type: str
    message: str


class RunSettings(TypedDict):
    """The settings the run used (keys never appear here)."""

    max_steps: Annotated[int, Field(ge=1)]
    max_context_blocks: Annotated[int, Field(ge=1)]
    max_tool_output_chars: Annotated[int, Field(ge=1)]
    tools: list[str]
    retry_delays: NotRequired[list[float]]
    tool_timeout: NotRequired[float]
    request_timeout: NotRequired[float]
    answer_check: NotRequired[
        Annotated[Literal["off", "flag", "retry"], Field(description="the answer check this run used (ANSWER_CHECK)")]
    ]


class ModelAttempt(TypedDict):
    """One try of a model call; the failed ones say why, and how long the engine waited after."""

    attempt: Annotated[int, Field(ge=1)]
    success: bool
    error_type: NotRequired[str]
    status: NotRequired[int | None]
    message: NotRequired[str]
    transient: NotRequired[bool]
    duration_ms: NotRequired[float]
    wait_s: NotRequired[_NonNegFloat]
    wait_cap_s: NotRequired[_NonNegFloat]
    """The most ``wait_s`` could have been (its base wait, capped); absent: a server's retry-after."""


class Step(TypedDict):
    """One model turn: its call, its usage, which context blocks were sent and which trimmed."""

    index: Annotated[int, Field(ge=1)]
    started_at: NotRequired[str]
    duration_ms: Annotated[
        float | None, Field(description="the step's own time: a person's wait for an approval is not in it")
    ]
    approval_wait_ms: NotRequired[
        Annotated[float, Field(description="time this step's calls waited for a person's approval (absent: none)")]
    ]
    model_duration_ms: NotRequired[float | None]
    model_attempts: list[ModelAttempt]
    usage: UsageRecord
    blocks_sent: list[int]
    blocks_trimmed: list[int]
    tool_call_ids: list[str]
    text: NotRequired[str]
    stop_reason: NotRequired[str | None]
    kind: NotRequired[
        Annotated[
            Literal["model", "answer_check"],
            Field(
                description="answer_check: the model's turn after the answer check's corrective message "
                "(ANSWER_CHECK=retry); absent means an ordinary turn"
            ),
        ]
    ]
    answer_check: NotRequired[
        Annotated[
            AnswerCheck,
            Field(description="set on a step whose answer the check sent back to the model"),
        ]
    ]
    constraint: NotRequired[
        Annotated[Constraint, Field(description="how the model's output was held at this step (absent: not recorded)")]
    ]


class Alternative(TypedDict):
    """A branch the model did not take, and how likely it was."""

    name: Annotated[str, Field(description='its name ("a or b": a token that could still have become either)')]
    p: Annotated[float, Field(description="the share of the model's probability that would have gone to it, 0-1")]


class Unoffered(TypedDict):
    """What the model would have written that no offered branch begins with (the grammar kept it
    from it): its share of the model's probability, and the likeliest such keys."""

    p: Annotated[float, Field(description="the probability of keys no offered branch begins with, 0-1")]
    keys: Annotated[list[Alternative], Field(description="the likeliest of them (as far as written at that token)")]


class Certainty(TypedDict):
    """How sure the model was of the branch it took (a tool, or the answer), from the token
    probabilities its runtime reported; only when it chose among several."""

    chosen: Annotated[str, Field(description="the tool (or answer key) the output named")]
    p: Annotated[
        float,
        Field(description="the model's probability for it, 0-1, among the reported alternatives; with others' p, 1"),
    ]
    others: Annotated[
        list[Alternative],
        Field(description="the other branches with the probability of leaving the chosen one towards them"),
    ]
    unoffered: NotRequired[Unoffered]


class LineChoice(TypedDict):
    """The result lines a model was shown before it answered, and the one it picked (the local
    provider asks for this before an answer that reads results)."""

    lines: Annotated[list[str], Field(description="the lines it chose among, as shown to it (numbered from 1)")]
    chosen: Annotated[int, Field(ge=0, description="the line it picked, from 1; 0: none of them answers")]
    p: NotRequired[Annotated[float, Field(description="the model's probability for that choice, 0-1")]]
    shown: NotRequired[
        Annotated[
            str,
            Field(description="the picked line as the answer saw it: only the figures under the columns asked about"),
        ]
    ]


class Constraint(TypedDict):
    """How a model step's output was held: free (``none``), to a JSON schema, to a grammar, or made
    by rules with no model at all (``rules``: the offline demo planner)."""

    kind: Literal["none", "json-schema", "grammar", "rules"]
    tools: NotRequired[
        Annotated[list[str], Field(description="the tools the output could name (absent: any the API was given)")]
    ]
    answer: NotRequired[Annotated[bool, Field(description="whether the output could be the final answer")]]
    notes: NotRequired[
        Annotated[
            list[str],
            Field(description="what else the constraint held, in plain words (e.g. figures only from results)"),
        ]
    ]
    certainty: NotRequired[Certainty]
    line_choice: NotRequired[
        Annotated[LineChoice, Field(description="before the answer: the result line the model picked to answer from")]
    ]


class AnswerCheck(TypedDict):
    """An answer sent back by the answer check: the figures no tool result supports, and the message."""

    unsupported: list[str]
    message: str


class BlockItem(TypedDict):
    """One item of a context block: ``text``, ``reasoning``, ``tool_call``, ``tool_output`` or
    ``answer_check`` (the corrective turn sent after the block; with ``call_id``, ``tool``,
    ``arguments`` / ``output``, ``is_error`` as the kind needs)."""

    kind: Literal["text", "reasoning", "tool_call", "tool_output", "answer_check"]
    text: NotRequired[str]
    call_id: NotRequired[str]
    tool: NotRequired[str]
    arguments: NotRequired[Any]
    output: NotRequired[str]
    is_error: NotRequired[bool]


class ContextBlockRecord(TypedDict):
    """One model turn's output plus the tool outputs it caused, as sent to the model."""

    index: _NonNegInt
    step: Annotated[int, Field(ge=1)]
    items: list[BlockItem]
    chars: _NonNegInt
    raw: NotRequired[Annotated[list[Any], Field(description="the provider's output items as it sent them")]]


class ToolAttempt(TypedDict):
    """One try of a tool call (or of its fallback)."""

    attempt: Annotated[int, Field(ge=1)]
    success: bool
    error: NotRequired[str | None]
    error_category: NotRequired[str | None]
    duration_ms: NotRequired[float]
    wait_s: NotRequired[_NonNegFloat]
    wait_cap_s: NotRequired[_NonNegFloat]
    """The most ``wait_s`` could have been (its base wait, capped); absent: a server's retry-after."""


class Fallback(TypedDict):
    """The fallback tool run after a tool's retries were used up."""

    tool: str
    success: bool
    error: NotRequired[str | None]
    reason: NotRequired[str]
    reason_category: NotRequired[str]
    attempts: NotRequired[list[ToolAttempt]]


class Approval(TypedDict):
    """A call a person (or a fixed policy) had to approve before it ran."""

    policy: Annotated[Literal["ask", "blocked"], Field(description="the tool's policy when the call came")]
    decision: Annotated[
        Literal["approved", "edited", "rejected", "stopped"],
        Field(
            description="approved as asked, approved with edited arguments, rejected (the tool did not run), or "
            "stopped (Stop was pressed while it waited; it did not run)"
        ),
    ]
    original_arguments: Annotated[Any, Field(description="the arguments the model asked for; secrets masked")]
    arguments: Annotated[Any, Field(description="the arguments that ran (null when rejected); secrets masked")]
    reason: Annotated[str | None, Field(description="why it was rejected (sent to the model as the tool's output)")]
    by: Annotated[
        str, Field(description="who decided, in plain words: a person on the Run page, the terminal, a policy")
    ]
    wait_ms: Annotated[
        _NonNegFloat, Field(description="how long the call waited for the decision (not in duration_ms)")
    ]


class ToolCall(TypedDict):
    """One entry of the execution log: a tool call, what the model got back, and how it went."""

    call_id: str
    step: int
    tool: str
    arguments: Annotated[
        Any,
        Field(
            description="the arguments as parsed (an object), or the raw text when they were not valid JSON; "
            "secrets masked"
        ),
    ]
    success: bool
    output: Annotated[str, Field(description="exactly what the model got back (ERROR: … on failure)")]
    error: str | None
    error_category: ErrorCategoryName | None
    attempts: list[ToolAttempt]
    fallback: Fallback | None
    duplicate: bool
    truncated: bool
    duration_ms: _NonNegFloat
    started_at: str
    cancelled: NotRequired[
        Annotated[bool, Field(description="true when the run was stopped while this call ran (not a failure)")]
    ]
    origin: NotRequired[
        Annotated[
            Literal["model", "harness"],
            Field(
                description="who chose the call: the model (it generated the tool and arguments, perhaps under "
                "a schema) or the harness (the program chose it for the model); absent in older records"
            ),
        ]
    ]
    harness_rule: NotRequired[
        Annotated[str, Field(description="for a harness call: the rule that chose it, in plain words")]
    ]
    source: NotRequired[
        Annotated[
            Literal["recorded", "live", "missing"],
            Field(description="in a replay: answered from the recorded run, run live, or missing from it"),
        ]
    ]
    tool_source: NotRequired[
        Annotated[
            Literal["builtin", "mcp", "declared"],
            Field(
                description="where the tool came from: built in, an MCP server, or declared in a YAML file "
                "(named tool_source: `source` is a replay's recorded|live|missing); absent for an unknown tool "
                "and in older records"
            ),
        ]
    ]
    server: NotRequired[
        Annotated[
            str,
            Field(description="the MCP server the tool came from (or the declared tool's file)"),
        ]
    ]
    annotations: NotRequired[
        Annotated[
            dict[str, Any],
            Field(
                description="the MCP tool's annotations as its server sent them (readOnlyHint, destructiveHint, "
                "idempotentHint, openWorldHint, title): hints, not guarantees"
            ),
        ]
    ]
    approval: NotRequired[
        Annotated[
            Approval,
            Field(description="the approval of a tool whose policy asks or blocks; absent when it ran without asking"),
        ]
    ]


class Message(TypedDict):
    """One transcript message (system / user / assistant / tool): the run's internal history."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str
    final: NotRequired[bool]
    tool_calls: NotRequired[list[dict[str, Any]]]
    tool_call_id: NotRequired[str]
    tool: NotRequired[str]
    ok: NotRequired[bool]
    kind: NotRequired[Annotated[Literal["answer_check"], Field(description="the answer check's corrective turn")]]


class Owner(TypedDict):
    """The process writing a record; a ``running`` record whose process is gone reads as interrupted."""

    pid: NotRequired[int]
    host: NotRequired[str]


class GoalSource(TypedDict):
    goal: Literal[True]


class CallSource(TypedDict):
    call_id: str
    tool: str
    cite: NotRequired[
        Annotated[
            str,
            Field(description="for a figure from a document: its file and page or section (annual_report.pdf, p. 7)"),
        ]
    ]


ClaimKind = Literal[
    "number", "money", "percent", "quantity", "temperature", "date", "time", "contact", "verdict", "comparison"
]


class ClaimRecord(TypedDict):
    """A number, amount, percentage, quantity, temperature, date or time, or a contact detail
    (e-mail or web address, phone number) in the answer, and where it was found: a successful tool call, the goal, or nowhere (None: possibly made up).
    Also a comparison the figures contradict (kind ``comparison``, no source); ``verdict`` is kept for
    records of older versions (a yes or no the results contradicted)."""

    text: Annotated[str, Field(description="as written in the answer")]
    value: Annotated[
        str | float,
        Field(
            description="normalised text, as the engine writes it: 1000, 24 USD, 15%, 19 °C, 2026-09-09 "
            "(--09-09 without a year), 10:00, support@example.com, example.com/refunds, 021234567"
        ),
    ]
    kind: ClaimKind
    source: CallSource | GoalSource | None
    arithmetic: NotRequired[
        Annotated[str, Field(description="a sum the answer writes out wrong: the right one (22 - 15 = 7)")]
    ]
    expected: NotRequired[
        Annotated[
            str,
            Field(
                description="a yes or no (kind verdict) the tool results contradict: what they say, and why "
                "(yes: the weather result says New York: rain)"
            ),
        ]
    ]
    reason: NotRequired[
        Annotated[
            str,
            Field(
                description="why a figure found in a result is not counted as support: the result gives it "
                "for another quantity (200 g for 4 people, asked about 10), or it was computed from a figure "
                "no earlier result or the goal gives"
            ),
        ]
    ]


class Grounding(TypedDict):
    """The answer check (agent_core/checks/grounding.py): are the answer's figures found in the goal or
    the successful tool outputs?"""

    status: GroundingStatus
    tools_used: Annotated[int, Field(ge=0, description="successful tool calls whose outputs were searched")]
    claims: list[ClaimRecord]
    note: NotRequired[
        Annotated[str, Field(description="said when no tool call succeeded: the answer comes from the model alone")]
    ]


class ImportSource(TypedDict):
    """Where an imported run came from, and the spans the importer could not map (kept as notes)."""

    format: str
    file: str
    trace_id: NotRequired[str]
    source_run_id: NotRequired[str | None]
    notes: NotRequired[list[dict[str, Any]]]


class ToolDefinition(TypedDict):
    """A tool that is not built in, as the run's model saw it (so the run can be replayed offline)."""

    name: str
    description: str
    parameters: dict[str, Any]
    tool_source: Literal["mcp", "declared"]
    server: NotRequired[str]
    annotations: NotRequired[dict[str, Any]]


class RunRecord(TypedDict):
    """One run: ``agent_data/runs/<run_id>.json``. Written after every step (temp file + rename)."""

    schema_version: Literal[1]
    run_id: Annotated[
        str,
        Field(
            pattern=r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
            description="UUIDv7: unique, sortable by start time",
        ),
    ]
    goal: str
    provider: Annotated[str, Field(description="offline | local | openai | openai-chat | anthropic | scripted")]
    provider_label: NotRequired[str]
    model: str
    scripted: NotRequired[
        Annotated[bool, Field(description="true for a scripted demo run (turns replayed, not a model)")]
    ]
    status: Status
    settings: RunSettings
    started_at: _Timestamp
    updated_at: NotRequired[_Timestamp | None]
    finished_at: _Timestamp | None
    duration_ms: _NonNegFloat | None
    answer: str | None
    error: RunError | None
    usage: UsageRecord
    cost_usd: _NonNegFloat | None
    steps: list[Step]
    context_blocks: list[ContextBlockRecord]
    tool_calls: list[ToolCall]
    history: list[Message]
    history_dropped: NotRequired[
        Annotated[
            int,
            Field(ge=0, description="older transcript messages dropped by trim_history (system messages are kept)"),
        ]
    ]
    provider_meta: NotRequired[Annotated[dict[str, Any], Field(description="provider facts, e.g. model load time")]]
    owner: NotRequired[Owner]
    # Optional fields added after the first format (answer check, evals, replay, arena, team store,
    # imports); absent in older records.
    grounding: NotRequired[Grounding | None]
    eval_id: NotRequired[Annotated[str | None, Field(description="the eval this run belongs to")]]
    eval_goal_id: NotRequired[Annotated[str | None, Field(description="the goal's id in that eval's goal set")]]
    replay_of: NotRequired[Annotated[str | None, Field(description="run_id of the run this one replays")]]
    tool_mode: NotRequired[
        Annotated[
            Literal["recorded", "live", "hybrid"] | None,
            Field(description="how a replay's tool calls were answered"),
        ]
    ]
    arena_id: NotRequired[Annotated[str | None, Field(description="runs started together by one arena share it")]]
    user: NotRequired[Annotated[str | None, Field(description="who ran it (team store)")]]
    imported_from: NotRequired[
        Annotated[
            Literal["html", "json", "otlp"] | None,
            Field(description="set on a run brought in from a file"),
        ]
    ]
    import_source: NotRequired[ImportSource]
    tool_definitions: NotRequired[
        Annotated[
            list[ToolDefinition],
            Field(
                description="the MCP and declared tools the run had enabled, as the model saw them (a replay "
                "with recorded results needs no live server)"
            ),
        ]
    ]


OPTIONAL_EXTRA_FIELDS = (
    "grounding",
    "eval_id",
    "eval_goal_id",
    "replay_of",
    "tool_mode",
    "arena_id",
    "user",
    "imported_from",
)
"""Top-level fields a caller may add to a new record (``run_agent(record_extra=…)``)."""


def upgrade(record: dict[str, Any]) -> dict[str, Any]:
    """Bring a parsed record of any readable ``schema_version`` up to :data:`SCHEMA_VERSION`.

    The one place where old formats are read. Version 1 is the current format, so there is
    nothing to do yet; a future version 2 adds its step here (``if version == 1: …``).
    """
    return record


SCHEMA_ID = "https://agent-workbench.local/run.schema.json"


def _drop_titles(node: Any) -> Any:
    """pydantic's generated ``title`` of every field ("Call Id") says nothing the key does not."""
    if isinstance(node, dict):
        return {
            key: (_drop_titles(value) if key != "properties" else {k: _drop_titles(v) for k, v in value.items()})
            for key, value in node.items()
            if key != "title"
        }
    if isinstance(node, list):
        return [_drop_titles(item) for item in node]
    return node


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of :class:`RunRecord`, as committed in ``docs/run.schema.json``."""
    schema = _drop_titles(TypeAdapter(RunRecord).json_schema(mode="validation"))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "Agent Workbench run record",
        "description": (
            "One file per run: agent_data/runs/<run_id>.json. Written after every step (temp file + rename). "
            f"schema_version {SCHEMA_VERSION}. Generated from agent_core/records/run_record.py by "
            "`python -m agent_core schema`; do not edit by hand."
        ),
        **{key: value for key, value in schema.items() if key not in ("title", "description")},
    }


def json_schema_text() -> str:
    """:func:`json_schema` as the text committed in ``docs/run.schema.json``."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"
