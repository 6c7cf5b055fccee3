"""One way to start a run: check the input, build settings, tools and provider, then run the loop.

The CLI, the Run page, the demo scenarios (and evals, replay, arena) all call :func:`prepare_run`;
it raises before anything is written when the input is bad, so a caller only has to show the
message:

- :class:`ValueError` for a bad goal, setting or tool name (CLI exit code 2, "Cannot start" on the page);
- :class:`agent_core.errors.ProviderUnavailable` (a :class:`~agent_core.errors.ProviderError`)
  for a provider that cannot be used here, with its hint.

``PreparedRun.events()`` then runs the loop and yields its events; ``PreparedRun.run_to_end()``
runs it and returns the saved record.
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_core import providers
from agent_core.providers.base import Provider
from agent_core.run.approval import Approver
from agent_core.run.events import RunEvent
from agent_core.run.loop import run_agent, run_to_end, validate_goal
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from agent_core.tools.registry import ToolRegistry

READ_ONLY_MESSAGE = (
    "This is a read-only instance (AGENT_READ_ONLY=1): runs cannot be started here. "
    "History and Tool stats show the team's runs; unset AGENT_READ_ONLY to run goals."
)
_SETTING_NAMES = frozenset(f.name for f in dataclasses.fields(Settings))


@dataclass
class PreparedRun:
    """A run ready to start: everything :func:`agent_core.run.loop.run_agent` needs, checked."""

    goal: str
    provider: Provider
    registry: ToolRegistry
    settings: Settings
    scripted: bool = False
    """A scripted demo (turns replayed, not a model); the record says so."""
    rng: random.Random | None = None
    """Random source of the retry jitter (seeded in demos and tests)."""
    instructions: str | None = None
    record_extra: dict[str, Any] = field(default_factory=dict)
    """Optional top-level record fields (eval_id, arena_id, replay_of, user …)."""
    approver: Approver | None = None
    """Who answers calls whose tool's policy asks (:mod:`agent_core.run.approval`); None: they are
    rejected at once (no one could answer)."""

    def events(
        self,
        cancel: threading.Event | None = None,
        *,
        run_id: str | None = None,
        sleep: Callable[[float], Any] | None = None,
    ) -> Iterator[RunEvent]:
        """Run it; a generator of the loop's events, the last one ``RunFinished`` (close it to cancel)."""
        return run_agent(self.goal, cancel=cancel, run_id=run_id, sleep=sleep, **self._loop_arguments())

    def run_to_end(self, cancel: threading.Event | None = None, *, run_id: str | None = None) -> dict[str, Any]:
        """Run it to the end and return the record as saved (a :class:`~agent_core.records.run_record.RunRecord`;
        only what the final event says when the record could not be written)."""
        return run_to_end(self.goal, cancel=cancel, run_id=run_id, **self._loop_arguments())

    def _loop_arguments(self) -> dict[str, Any]:
        """What the loop needs from this prepared run, besides the goal and how to stop it."""
        return {
            "provider": self.provider,
            "registry": self.registry,
            "settings": self.settings,
            "instructions": self.instructions,
            "scripted": self.scripted,
            "rng": self.rng,
            "record_extra": self.record_extra or None,
            "approver": self.approver,
        }


def run_settings(
    settings: Settings | None = None, overrides: Mapping[str, Any] | None = None, *, model: str | None = None
) -> Settings:
    """``settings`` (default: from the environment) with ``overrides`` applied (None values
    ignored), checked; ValueError naming an unknown setting or a value out of range."""
    base = settings if settings is not None else Settings.from_env()
    changes = dict(overrides or {})
    unknown = sorted(set(changes) - _SETTING_NAMES)
    if unknown:
        raise ValueError(f"unknown setting(s): {', '.join(unknown)}")
    if model is not None:
        changes["model_name"] = model
    return base.replace(**changes).validated()


def prepare_run(
    goal: str,
    provider_id: str | None = None,
    *,
    model: str | None = None,
    base_url: str | None = None,
    settings: Settings | None = None,
    overrides: Mapping[str, Any] | None = None,
    tools: Iterable[str] | None = None,
    record_extra: Mapping[str, Any] | None = None,
    provider: Provider | None = None,
    registry: ToolRegistry | None = None,
    scripted: bool = False,
    rng: random.Random | None = None,
    instructions: str | None = None,
    approver: Approver | None = None,
) -> PreparedRun:
    """Check the input and build what the run needs; raise before anything is written.

    Args:
        goal: What the agent should do (stripped; empty or too long is a ValueError).
        provider_id: ``offline``, ``local``, ``openai`` …; None: the default (local if installed).
        model, base_url: For this run only; empty strings mean "the provider's default".
        settings: The base settings (default: from the environment / ``.env``).
        overrides: Settings fields to change for this run (``max_steps``, ``max_context_blocks`` …).
        tools: Names of the tools to enable (default: all built-in tools); unknown names are an error.
        record_extra: Optional top-level record fields (``eval_id``, ``replay_of``, ``user`` …).
        provider: A ready provider (scripted, replay) instead of building one from ``provider_id``.
        registry: A ready tool registry instead of the built-in tools (``tools`` still narrows it).
        scripted, rng, instructions: Passed on to the loop.
        approver: Who answers calls that need approval (None: they are rejected, recorded as such).
    """
    goal = validate_goal(goal)
    model = (model or "").strip() or None
    config = run_settings(settings, overrides, model=model)
    if config.read_only:
        raise ValueError(READ_ONLY_MESSAGE)
    extra = dict(record_extra or {})
    if config.user and not extra.get("user"):
        extra["user"] = config.user  # AGENT_USER, or the signed-in user the page put in the settings
    tool_registry = registry if registry is not None else build_default_registry(config)
    if tools is not None:
        tool_registry = tool_registry.subset(name.strip() for name in tools if name.strip())
    if provider is None:
        provider = providers.make_provider(
            provider_id or providers.default_provider_id(),
            settings=config,
            model=model,
            base_url=(base_url or "").strip() or None,
        )
    return PreparedRun(
        goal=goal,
        provider=provider,
        registry=tool_registry,
        settings=config,
        scripted=scripted,
        rng=rng,
        instructions=instructions,
        record_extra=extra,
        approver=approver,
    )
