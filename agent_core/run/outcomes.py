"""What one step of the loop returns: an answer, another step, or the end of the run."""

from __future__ import annotations

from dataclasses import dataclass

from agent_core.records.run_record import RunError, Status


@dataclass(frozen=True)
class FinalAnswer:
    """The step ended with the model's answer (a turn with no tool calls)."""

    text: str


@dataclass(frozen=True)
class NextStep:
    """The step ran tool calls; the model gets their outputs in the next step."""


@dataclass(frozen=True)
class StopRun:
    """The step ended the run without an answer (the model call failed for good)."""

    status: Status
    error: RunError


StepOutcome = FinalAnswer | NextStep | StopRun
"""What one loop step returns; :func:`run_agent` decides what comes next from it."""
