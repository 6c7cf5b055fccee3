"""The attribute names this export may emit, pinned from their sources.

``GEN_AI_KEYS``: the ``gen_ai.*`` attribute ids of the OpenTelemetry semantic conventions at tag
v1.41.1 (``model/gen-ai/registry.yaml``; the GenAI conventions moved to their own repository
after that release), plus ``error.type`` (``model/error/registry.yaml``).
``OPENINFERENCE_KEYS``: the span attributes of ``openinference-semantic-conventions`` 0.1.32
(Arize-ai/openinference, ``python/openinference-semantic-conventions/.../semconv/trace``).
``WORKBENCH_KEYS``: our own extras, all under ``agent_workbench.``.

Tests check every emitted key against these sets, so a typo or an invented name fails.
"""

from __future__ import annotations

SEMCONV_VERSION = "1.41.1"
SCHEMA_URL = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
OPENINFERENCE_VERSION = "0.1.32"

GEN_AI_KEYS = frozenset(
    """
    gen_ai.provider.name gen_ai.request.model gen_ai.request.max_tokens gen_ai.request.choice.count
    gen_ai.request.temperature gen_ai.request.top_p gen_ai.request.top_k gen_ai.request.stop_sequences
    gen_ai.request.frequency_penalty gen_ai.request.presence_penalty gen_ai.request.encoding_formats
    gen_ai.request.seed gen_ai.request.stream gen_ai.response.id gen_ai.response.model
    gen_ai.response.finish_reasons gen_ai.response.time_to_first_chunk gen_ai.usage.input_tokens
    gen_ai.usage.cache_read.input_tokens gen_ai.usage.cache_creation.input_tokens gen_ai.usage.output_tokens
    gen_ai.usage.reasoning.output_tokens gen_ai.token.type gen_ai.conversation.id gen_ai.agent.id
    gen_ai.agent.name gen_ai.agent.description gen_ai.agent.version gen_ai.tool.name gen_ai.tool.call.id
    gen_ai.tool.description gen_ai.tool.type gen_ai.tool.call.arguments gen_ai.tool.call.result
    gen_ai.tool.definitions gen_ai.data_source.id gen_ai.operation.name gen_ai.output.type
    gen_ai.embeddings.dimension.count gen_ai.retrieval.documents gen_ai.retrieval.query.text
    gen_ai.system_instructions gen_ai.input.messages gen_ai.output.messages gen_ai.evaluation.name
    gen_ai.evaluation.score.value gen_ai.evaluation.score.label gen_ai.evaluation.explanation
    gen_ai.prompt.name gen_ai.workflow.name
    error.type
    """.split()
)

GEN_AI_OPERATIONS = frozenset(
    "chat generate_content text_completion embeddings retrieval create_agent invoke_agent execute_tool "
    "invoke_workflow".split()
)
"""Well-known values of ``gen_ai.operation.name`` at v1.41.1."""

OPENINFERENCE_KEYS = frozenset(
    """
    output.value output.mime_type input.value input.mime_type
    embedding.embeddings embedding.invocation_parameters embedding.model_name
    llm.function_call llm.invocation_parameters llm.input_messages llm.output_messages llm.model_name
    llm.request.model_name llm.response.model_name llm.provider llm.system llm.prompts llm.choices
    llm.prompt_template.template llm.prompt_template.variables llm.prompt_template.version
    llm.token_count.completion llm.token_count.completion_details.audio
    llm.token_count.completion_details.reasoning llm.token_count.prompt llm.token_count.prompt_details
    llm.token_count.prompt_details.audio llm.token_count.prompt_details.cache_input
    llm.token_count.prompt_details.cache_read llm.token_count.prompt_details.cache_write
    llm.token_count.total llm.finish_reason llm.cost.completion llm.cost.prompt llm.cost.total llm.tools
    tool.name tool.description tool.parameters tool.id tool.json_schema retrieval.documents metadata tag.tags
    openinference.span.kind session.id user.id agent.name graph.node.id graph.node.name graph.node.parent_id
    """.split()
)

OPENINFERENCE_SPAN_KINDS = frozenset(
    "TOOL CHAIN LLM RETRIEVER EMBEDDING AGENT RERANKER UNKNOWN GUARDRAIL EVALUATOR PROMPT".split()
)

PREFIX = "agent_workbench."
WORKBENCH_KEYS = frozenset(
    PREFIX + name
    for name in """
    provider status scripted step attempt attempts retry_wait_s error_category duration_ms
    fallback_of fallback_success duplicate duplicate_of truncated cancelled origin harness_rule constraint
    choice.chosen choice.probability line_choice.chosen line_choice.lines
    line_choice.probability line_choice.line
    blocks_sent blocks_trimmed cost_usd usage.input_tokens usage.output_tokens
    grounding.status replay_of arena_id eval_id eval_goal_id tool_mode user
    error.message content.truncated
    approval.policy approval.decision approval.by approval.wait_ms approval.reason approval.original_arguments
    """.split()
)
"""Our extras. ``content.truncated`` lists the content attributes that were cut to size."""

ALL_KEYS = GEN_AI_KEYS | OPENINFERENCE_KEYS | WORKBENCH_KEYS

CONTENT_KEYS = frozenset(
    {
        "input.value",
        "output.value",
        "input.mime_type",
        "output.mime_type",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "llm.input_messages",
        "llm.output_messages",
        PREFIX + "error.message",
        PREFIX + "approval.reason",
        PREFIX + "approval.original_arguments",
    }
)
"""Keys that carry arguments, results, messages or error text: only with content export on."""
