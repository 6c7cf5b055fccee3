"""The ``offline`` provider: a deterministic, rule-based planner behind the Provider interface.

No LLM, no key, no network. Each call reads the goal (which rule fits, see
:mod:`agent_core.providers.offline.rules`), the enabled tools and the tool results visible in
``request.blocks``, then either asks for the next tool calls or composes the final answer from
the tool outputs only. State comes from the visible blocks alone (they may have been trimmed):
each plan is a short chain of attempts, the latest visible attempt decides what comes next, an
``ERROR:`` output moves to an alternative or to an honest answer, and an identical call is never
planned twice. ``raw`` says which rule fired, so the UI can show *why*.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from dataclasses import dataclass

from agent_core.context import ToolCallRequest
from agent_core.providers.base import LoadProgress, ModelRequest, ModelResponse, Provider, ProviderSpec, Usage
from agent_core.providers.offline.plans import _PLANS, MAX_PLAN_STEPS, _canonical, _Ctx, _Decision
from agent_core.providers.offline.rules import classify, shorten
from agent_core.settings import Settings

PROVIDER_ID = "offline"
LABEL = "offline demo model — rule-based, no LLM"
DEFAULT_MODEL = "offline-planner-1"
USES_BASE_URL = False
SPEC = ProviderSpec(
    id=PROVIDER_ID, label=LABEL, default_model=DEFAULT_MODEL, free=True, uses_base_url=USES_BASE_URL, rule_based=True
)

logger = logging.getLogger("agent_core.providers.offline")


def availability() -> str | None:
    """Always usable: it needs nothing."""
    return None


def create(
    *, model: str | None = None, base_url: str | None = None, settings: Settings | None = None
) -> OfflineProvider:
    """Build the offline planner (``base_url`` and ``settings`` are not used)."""
    return OfflineProvider(model=model or DEFAULT_MODEL)


def _guarded(ctx: _Ctx, decision: _Decision, step: int) -> _Decision:
    """Never repeat a visible call, never plan past :data:`MAX_PLAN_STEPS`."""
    repeated = [c for c in decision.calls if ctx.find(*c) is not None]
    if not decision.calls or (not repeated and step <= MAX_PLAN_STEPS):
        return decision
    last = ctx.done[-1] if ctx.done else None
    seen = shorten(last.output, 240) if last else ""
    return _Decision(
        "stop: would repeat a call or ran too long → answer with what I have",
        text=ctx.t(
            f"같은 도구 호출을 반복하지 않고 여기서 멈춥니다. 마지막 도구 결과: {seen}",
            f"Stopping here rather than repeating the same tool call. Last tool output: {seen}",
        ),
    )


def own_tools_note(names: list[str], *, ko: bool = False) -> str:
    """What the demo says when the run has tools it does not know (MCP or declared ones)."""
    listed = ", ".join(names[:6]) + (" …" if len(names) > 6 else "")
    if ko:
        return (
            f"(오프라인 데모 모델은 내장 도구만 압니다. {listed} 같은 직접 추가한 도구(MCP·선언형)는 쓰지 못합니다: "
            "로컬 모델이나 API 제공자를 고르세요.)"
        )
    return (
        f"(The offline demo model only knows the built-in tools: it cannot use your own tools ({listed}). "
        "Pick the local model or an API provider to use them.)"
    )


def _tokens(chars: int) -> int:
    return max(1, math.ceil(chars / 4))


@dataclass
class OfflineProvider(Provider):
    """The rule-based planner; deterministic: the same request gives the same response."""

    model: str = DEFAULT_MODEL
    id: str = PROVIDER_ID
    label: str = LABEL
    instant = True
    """Answers in microseconds, in process: called in the loop's thread (see ``Provider``)."""

    def prepare(self) -> Iterator[LoadProgress]:
        """Nothing to load."""
        return iter(())

    def complete(self, request: ModelRequest) -> ModelResponse:
        """Plan the next tool calls, or answer, from the goal and the visible tool results."""
        ctx = _Ctx(request)
        intent = classify(request.goal)
        decision = _guarded(ctx, _PLANS[intent.kind](ctx, intent), request.step)
        # No model here: every call is the demo's rules choosing, and the record says which rule.
        rule = f"offline demo rule: {decision.rule}"
        calls = [
            ToolCallRequest(f"call_{request.step}_{n}", name, args, origin="harness", harness_rule=rule)
            for n, (name, args) in enumerate(decision.calls, 1)
        ]
        text = decision.text
        own = [t.name for t in request.tools if t.source != "builtin"]
        if own and not calls:
            text = (text.rstrip() + "\n\n" if text.strip() else "") + own_tools_note(own, ko=ctx.ko)
        if calls:
            text = ctx.t("도구 호출: ", "Calling ") + ", ".join(f"{c.name}({_canonical(c.arguments)})" for c in calls)
        plan = {
            "type": "offline_plan",
            "intent": intent.kind,
            "rule": intent.rule,
            "decision": decision.rule,
            "language": "ko" if ctx.ko else "en",
            "calls": [{"name": c.name, "arguments": c.arguments} for c in calls],
            **decision.extra,
        }
        logger.debug("offline plan step %s: %s / %s", request.step, intent.kind, decision.rule)
        in_chars = len(request.instructions) + len(request.goal) + sum(b.chars() for b in request.blocks)
        in_chars += sum(len(t.name) + len(t.description) + len(_canonical(t.parameters)) for t in request.tools)
        out_chars = len(text) + sum(len(c.name) + len(_canonical(c.arguments)) for c in calls)
        usage = Usage(_tokens(in_chars), _tokens(out_chars))
        usage.total_tokens = usage.input_tokens + usage.output_tokens
        return ModelResponse(
            text=text,
            tool_calls=calls,
            usage=usage,
            raw=[plan],
            # "no_match": the goal fit no rule, so the text is help, not an answer (the UI says so).
            stop_reason="tool_calls" if calls else "no_match" if intent.kind == "help" else "end_turn",
            model=self.model,
            constraint={"kind": "rules", "notes": [rule]},
        )
