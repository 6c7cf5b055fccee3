"""An eval's cells: one run of (goal, provider, model, repeat), with a run id of its own.

A cell's run id is fixed by the eval: a UUIDv7 whose time is the eval's start and whose other
bits are a hash of (eval id, provider, model, goal, repeat). A cell run again — a worker that
died and was retried, ``eval --resume`` — writes the same record (the folder and the team store
keep one run per id), so no cell is counted twice. :class:`CellWork` runs one cell in whatever
worker the executor has (a thread here, a Ray actor elsewhere) and returns its record.
"""

from __future__ import annotations

import hashlib
import random
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent_core.evals.checks import check_run, verdict
from agent_core.evals.goalset import Goal, GoalSet
from agent_core.evals.judge import Judge
from agent_core.providers.base import Provider
from agent_core.records.files import load_record
from agent_core.run.events import RunFinished
from agent_core.scale.executor import WorkerContext
from agent_core.scale.ratelimit import limited
from agent_core.settings import Settings

SCRIPTED = "scripted"
FINAL_STATUSES = ("completed", "max_steps", "error")
"""A record in one of these is a cell that ran to its end; ``running`` (its worker died) and
``cancelled`` (the eval was stopped) are run again by ``--resume``."""


@dataclass(frozen=True)
class Target:
    """A (provider, model) column of the eval; ``model`` None is the provider's default."""

    provider: str
    model: str | None = None

    @property
    def label(self) -> str:
        return f"{self.provider}/{self.model}" if self.model else self.provider


ProviderFactory = Callable[[Target, Goal], Provider]
"""Makes the provider of a cell (tests and demos; default: :class:`SharedProviders`)."""


@dataclass(frozen=True)
class Cell:
    """One run of the eval (the payload of an executor task)."""

    target: Target
    goal_id: str
    repeat: int
    run_id: str

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.target.label, self.goal_id, self.repeat)


def _ms(timestamp: str) -> int:
    try:
        return int(datetime.fromisoformat(timestamp).timestamp() * 1000)
    except (TypeError, ValueError):
        return 0


def cell_run_id(eval_id: str, started_at: str, target: Target, goal_id: str, repeat: int) -> str:
    """The cell's run id: a valid UUIDv7 (the record's schema), the same every time it is asked."""
    key = "\0".join((eval_id, target.provider, target.model or "", goal_id, str(repeat)))
    digest = int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:10], "big")
    value = (_ms(started_at) & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76  # version 7
    value |= ((digest >> 62) & 0xFFF) << 64
    value |= 0b10 << 62  # RFC 4122 variant
    value |= digest & ((1 << 62) - 1)
    return str(uuid.UUID(int=value))


def finished_records(run_ids: list[str], settings: Settings) -> dict[str, dict[str, Any]]:
    """The records of those runs that ended (the runs folder, else the team store), by run id."""
    found: dict[str, dict[str, Any]] = {}
    for run_id in run_ids:
        try:
            found[run_id] = load_record(settings.runs_dir / f"{run_id}.json")
        except Exception:  # noqa: BLE001 - missing or unreadable here: it may be in the team store
            pass
    missing = [run_id for run_id in run_ids if run_id not in found]
    if missing and settings.store_url:
        from agent_core.pgstore.reading import PgQueries

        try:
            queries = PgQueries.from_url(settings.store_url)
        except Exception:  # noqa: BLE001 - the store is down: those cells run again
            queries = None
        if queries is not None:
            try:
                for run_id in missing:
                    try:
                        found[run_id] = queries.load(run_id)
                    except Exception:  # noqa: BLE001 - not there (or the store went away): runs again
                        pass
            finally:
                queries.close()
    return {run_id: r for run_id, r in found.items() if r.get("status") in FINAL_STATUSES}


def row_of(record: dict[str, Any], target: Target, goal: Goal, repeat: int, judge: Judge | None) -> dict[str, Any]:
    """The eval's row for one run: the checks' results, the verdict and what the grid shows.
    ``judge`` grades ``judge`` checks (None: they say "not judged")."""
    results = check_run(goal.checks, record)
    judged = None
    for check, result in zip(goal.checks, results):
        if check.kind != "judge":
            continue
        if judge is None:
            result["detail"] = "not judged (no judge available)"
            continue
        if record.get("answer") is None:
            result["passed"], result["detail"] = False, "no answer to judge"
            continue
        outcome = judge.judge(check.arg["rubric"], str(record["answer"]), check.arg["samples"])
        judged = outcome
        result["passed"] = outcome["verdict"]
        votes = "".join("P" if v else "F" if v is False else "?" for v in outcome["votes"])
        label = "uncertain" if outcome["uncertain"] else "agreed"
        result["detail"] = f"{label} ({votes}){' · cached' if outcome['cached'] else ''}"
    usage = record.get("usage") or {}
    grounding = record.get("grounding")
    return {
        "target": target.label,
        "provider": target.provider,
        "model": target.model or str(record.get("model") or ""),
        "goal_id": goal.id,
        "repeat": repeat,
        "run_id": record.get("run_id"),
        "status": record.get("status"),
        "passed": verdict(results),
        "checks": results,
        "steps": len(record.get("steps") or []),
        "tool_calls": len(record.get("tool_calls") or []),
        "calls_by_model": sum(
            1 for c in record.get("tool_calls") or [] if isinstance(c, dict) and c.get("origin") == "model"
        ),
        "tokens": usage.get("total_tokens"),
        "cost_usd": record.get("cost_usd"),
        "duration_ms": record.get("duration_ms"),
        "grounding_status": grounding.get("status") if isinstance(grounding, dict) else None,
        "tool_mode": record.get("tool_mode") or "live",
        "live_tool_calls": sum(
            1
            for c in record.get("tool_calls") or []
            if isinstance(c, dict) and c.get("attempts") and c.get("source", "live") == "live"
        ),
        "judge": judged,
        "answer": (record.get("answer") or "")[:500],
    }


class SharedProviders:
    """One provider object per (provider, model) per worker process (the local model loads once)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._made: dict[Target, Provider] = {}
        self._lock = threading.Lock()

    def __call__(self, target: Target, goal: Goal) -> Provider:
        from agent_core.providers import make_provider

        with self._lock:
            if target not in self._made:
                self._made[target] = make_provider(target.provider, settings=self.settings, model=target.model)
            return self._made[target]


class CellWork:
    """Runs one :class:`Cell` to its end and returns the saved record, or its row with ``score``
    (None when the eval's Stop ended it). Picklable: Ray sends it to each worker once; the
    providers are made there."""

    def __init__(
        self,
        goal_set: GoalSet,
        settings: Settings,
        eval_id: str,
        *,
        provider_factory: ProviderFactory | None = None,
        providers: SharedProviders | None = None,
        score: bool = False,
        sources: dict[str, dict[str, Any]] | None = None,
        approve: str = "none",
    ) -> None:
        self.goal_set = goal_set
        self.approve = approve
        """Calls whose tool's policy asks: ``none`` rejects them (recorded as such), ``all`` approves
        them; an eval never waits for a person (``eval --approve``)."""
        self.settings = settings
        self.eval_id = eval_id
        self.provider_factory = provider_factory
        self._providers = providers
        """This process's providers (not sent to Ray workers: each makes its own)."""
        self.sources = sources or {}
        """Recorded tool calls by goal id (``--tools recorded``): what a frozen goal's tools answer from."""
        self.score = score
        """Return the cell's row (:func:`row_of`, no judge) instead of its record: less to send back."""

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_providers"] = None
        return state

    def _provider(self, target: Target, goal: Goal, context: WorkerContext) -> Provider:
        if self.provider_factory is not None:
            return self.provider_factory(target, goal)
        if self._providers is None:
            with context.lock:
                shared = context.cache.setdefault(("providers", self.settings), SharedProviders(self.settings))
            return shared(target, goal)
        return self._providers(target, goal)

    def __call__(self, cell: Cell, context: WorkerContext) -> dict[str, Any] | None:
        from agent_core.run.approval import FixedApprover
        from agent_core.run.prepare import prepare_run
        from agent_core.tools.builtins import build_default_registry

        cancel = context.cancel
        if cancel.is_set():
            return None
        goal = self.goal_set.goal(cell.goal_id)
        seed = f"{self.goal_set.name}:{goal.id}:{cell.repeat}"
        extra: dict[str, Any] = {"eval_id": self.eval_id, "eval_goal_id": goal.id}
        source = self.sources.get(goal.id)
        if cell.target.provider == SCRIPTED:
            from agent_core.run import demo

            prepared = demo.prepare(goal.scenario or "", self.settings)
            prepared.record_extra.update(extra)
            provider: Provider = prepared.provider
        else:
            overrides = {"max_steps": goal.max_steps} if goal.max_steps else None
            provider = limited(self._provider(cell.target, goal, context), context.limits)
            registry = build_default_registry(self.settings, rng=random.Random(seed))
            if source is not None:  # a frozen goal: its tools answer from its run's recorded calls
                from agent_core.evals.frozen import recorded_tools

                tools = recorded_tools(source, registry)
                registry = tools.wrapped()
                extra.update(replay_of=source["run_id"], tool_mode="recorded")
            prepared = prepare_run(
                goal.goal,
                cell.target.provider,
                settings=self.settings,
                overrides=overrides,
                tools=goal.tools,
                provider=provider,
                registry=registry,
                rng=random.Random(seed),
                record_extra=extra,
                approver=FixedApprover("all" if self.approve == "all" else "none", by=f"eval --approve {self.approve}"),
            )
        events: Iterator[Any]
        if cell.target.provider != SCRIPTED and source is not None:
            from agent_core.evals.frozen import frozen_events

            events = frozen_events(prepared, tools, cancel, run_id=cell.run_id)
        else:
            events = prepared.events(cancel, run_id=cell.run_id)
        finished: RunFinished | None = None
        for event in events:
            if isinstance(event, RunFinished):
                finished = event
        if finished is None or (finished.status == "cancelled" and cancel.is_set()):
            return None  # stopped by the eval's Stop: not scored
        record = self._record(finished, provider)
        return row_of(record, cell.target, goal, cell.repeat, None) if self.score else record

    @staticmethod
    def _record(finished: RunFinished, provider: Provider) -> dict[str, Any]:
        try:
            return load_record(finished.path)
        except Exception:  # noqa: BLE001 - the record could not be written: score what we know
            return {
                "run_id": finished.run_id,
                "status": finished.status,
                "answer": finished.answer,
                "steps": [],
                "tool_calls": [],
                "model": provider.model,
            }
