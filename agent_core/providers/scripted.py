"""A scripted model: replays a list of turns and records every request (for tests and demos).

A turn is a :class:`ModelResponse`, a :class:`ProviderError` to raise, or a plain dict
``{"text": str, "tool_calls": [{"name", "arguments", "call_id"?}], "usage": {...}}``.

It stands in for a model, so its calls are recorded as the model's unless the provider is made
with ``origin="harness"`` (a demo scenario, where a person watching must not be told a model
chose them) or a call says ``"origin": "harness"`` with its ``"harness_rule"``.
"""

from __future__ import annotations

import copy
import dataclasses
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any

from agent_core.context import ToolCallRequest
from agent_core.errors import ProviderError
from agent_core.providers.base import LoadProgress, ModelRequest, ModelResponse, Provider, ProviderSpec, Usage

PROVIDER_ID = "scripted"
LABEL = "scripted demo model — replays fixed turns, no LLM"
DEFAULT_MODEL = "scripted-1"
SPEC = ProviderSpec(id=PROVIDER_ID, label=LABEL, default_model=DEFAULT_MODEL, free=True, rule_based=True)


SCRIPT_RULE = "scripted demo: a fixed turn, no model"
"""The harness rule of a call a script made (``origin="harness"``)."""


def _as_response(turn: dict[str, Any], step: int, number: int, origin: str = "model") -> ModelResponse:
    calls = []
    for n, call in enumerate(turn.get("tool_calls", []), start=1):
        who = call.get("origin", origin)
        calls.append(
            ToolCallRequest(
                call_id=call.get("call_id") or f"call_s{step}_{number}_{n}",
                name=call["name"],
                arguments=call.get("arguments", {}),
                origin=who,
                harness_rule=call.get("harness_rule", SCRIPT_RULE) if who == "harness" else None,
            )
        )
    usage = Usage(**turn["usage"]) if "usage" in turn else Usage(10, 5, 15)
    raw = [{"type": "scripted_turn", "turn": number, "note": turn.get("note", "")}]
    return ModelResponse(
        text=turn.get("text", ""),
        tool_calls=calls,
        usage=usage,
        raw=raw,
        stop_reason="tool_use" if calls else "end_turn",
        # A demo's turns are a script, not a model's: no page may say a model wrote them.
        constraint={"kind": "rules", "notes": [SCRIPT_RULE]} if origin == "harness" else None,
    )


class ScriptedProvider(Provider):
    """Replays ``turns`` in order; ``requests`` keeps a copy of each request it was given."""

    id = PROVIDER_ID
    label = LABEL
    instant = True
    """Replays at once: called in the loop's thread (a subclass that blocks sets it False)."""

    def __init__(
        self,
        turns: Iterable[ModelResponse | ProviderError | dict[str, Any]],
        *,
        model: str = DEFAULT_MODEL,
        turn_delay_s: float = 0.0,
        origin: str = "model",
    ) -> None:
        self.model = model
        self.origin = origin
        """Who its calls are recorded as chosen by: ``model`` (a test's stand-in) or ``harness`` (a demo)."""
        self.turn_delay_s = max(0.0, float(turn_delay_s))
        """Seconds each turn takes (a presenter's pace; a Stop cuts it short). 0: at once."""
        if self.turn_delay_s:
            self.instant = False  # it blocks now: called in a worker thread, so Stop need not wait
        self._turns = list(turns)
        self._lock = threading.Lock()
        self.requests: list[ModelRequest] = []

    def prepare(self) -> Iterator[LoadProgress]:
        return iter(())

    def complete(self, request: ModelRequest) -> ModelResponse:
        with self._lock:
            self.requests.append(copy.deepcopy(dataclasses.replace(request, cancel=None)))  # (an Event does not copy)
            number = len(self.requests)
            if not self._turns:
                raise ProviderError(
                    f"scripted provider has no turn left for call {number}",
                    provider=self.id,
                    error_type="ScriptExhausted",
                )
            turn = self._turns.pop(0)
        if self.turn_delay_s:
            if request.cancel is not None:
                request.cancel.wait(self.turn_delay_s)
            else:
                time.sleep(self.turn_delay_s)
        if isinstance(turn, ProviderError):
            raise turn
        if isinstance(turn, ModelResponse):
            return copy.deepcopy(turn)
        return _as_response(turn, request.step, number, self.origin)

    @property
    def remaining(self) -> int:
        return len(self._turns)

    def assert_complete(self) -> None:
        """Fail when turns were left unused (the test's script and the run disagree)."""
        if self._turns:
            raise AssertionError(f"{len(self._turns)} scripted turn(s) were not used")
