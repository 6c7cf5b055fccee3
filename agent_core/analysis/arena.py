"""Arena: one goal on 2–6 provider/model entries at the same time, with a shared budget.

Every entry gets the same goal, tools and step limit, and its record the same ``arena_id``. The
runs go in parallel threads (the local model serves one request at a time through its own lock,
so local entries simply take turns). A budget in USD caps the summed cost of all of them: once it
is passed every run is stopped (status ``cancelled``, error type ``BudgetExceeded``, reason
``budget``); :meth:`Arena.stop` stops them all as a Stop button would.

:meth:`Arena.events` yields ``(entry index, event)`` in the caller's thread, so a page can draw the
runs side by side as they go; :func:`verdicts` says in one line how each model did.
"""

from __future__ import annotations

import queue
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_core.providers.base import Provider
from agent_core.records.files import load_record, save_record, utc_now
from agent_core.run.approval import Approver
from agent_core.run.events import Event, RunFinished, StepFinished
from agent_core.settings import Settings

MIN_ENTRIES, MAX_ENTRIES = 2, 6


@dataclass(frozen=True)
class ArenaEntry:
    """One contender: a provider id and model (or a ready provider, for tests and demos)."""

    provider_id: str
    model: str | None = None
    base_url: str | None = None
    provider: Provider | None = None

    def label(self) -> str:
        model = self.model or (self.provider.model if self.provider is not None else "")
        return f"{self.provider_id}" + (f" · {model}" if model else "")


@dataclass
class Arena:
    """A prepared arena (see :func:`prepare_arena`)."""

    goal: str
    entries: list[ArenaEntry]
    prepared: list[Any]
    """One :class:`agent_core.run.prepare.PreparedRun` per entry."""
    arena_id: str
    budget_usd: float | None = None
    run_ids: list[str] = field(default_factory=list)
    costs: list[float] = field(default_factory=list)
    budget_hit: bool = False
    wall_s: float = 0.0

    def __post_init__(self) -> None:
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self.costs = [0.0] * len(self.entries)

    def stop(self) -> None:
        """Stop every run (each is saved as ``cancelled``)."""
        self._cancel.set()

    @property
    def spent(self) -> float:
        with self._lock:
            return sum(self.costs)

    def _account(self, index: int, cost: float | None) -> None:
        if cost is None:
            return
        with self._lock:
            self.costs[index] = float(cost)
            over = self.budget_usd is not None and sum(self.costs) > self.budget_usd
            if over and not self.budget_hit:
                self.budget_hit = True
                self._cancel.set()

    def _worker(self, index: int, out: queue.Queue[tuple[int, Event | None]]) -> None:
        try:
            for event in self.prepared[index].events(self._cancel):
                if isinstance(event, StepFinished):
                    self._account(index, event.cost_usd)
                out.put((index, event))
        except Exception as exc:  # an engine bug in one run must not take the others down
            out.put(
                (
                    index,
                    RunFinished(
                        run_id=self.run_ids[index] if index < len(self.run_ids) else "",
                        status="error",
                        error={"type": type(exc).__name__, "message": str(exc)},
                    ),
                )
            )
        finally:
            out.put((index, None))

    def events(self) -> Iterator[tuple[int, Event]]:
        """Start every run and yield ``(entry index, event)`` until all have finished."""
        out: queue.Queue[tuple[int, Event | None]] = queue.Queue()
        self.run_ids = [""] * len(self.entries)
        t0 = time.perf_counter()
        threads = [
            threading.Thread(target=self._worker, args=(i, out), name=f"arena-{i}", daemon=True)
            for i in range(len(self.entries))
        ]
        for thread in threads:
            thread.start()
        running = len(threads)
        try:
            while running:
                index, event = out.get()
                if event is None:
                    running -= 1
                    continue
                if event.run_id:
                    self.run_ids[index] = event.run_id
                if isinstance(event, RunFinished):
                    event = self._finished(event)
                yield index, event
        finally:
            if running:  # the caller stopped listening (a closed page): stop the runs too
                self._cancel.set()
            self.wall_s = time.perf_counter() - t0

    def _finished(self, event: RunFinished) -> RunFinished:
        """A run cancelled because the budget ran out says so in its record."""
        if not (self.budget_hit and event.status == "cancelled" and event.path):
            return event
        error = {
            "type": "BudgetExceeded",
            "message": f"Stopped: the arena's budget of ${self.budget_usd:.4f} was passed (${self.spent:.4f} spent by all runs).",
            "reason": "budget",
        }
        try:
            record = load_record(event.path)
            record["error"] = error
            record["updated_at"] = utc_now()  # a changed snapshot: a store keeps the newest one
            save_record(record, self.prepared[0].settings.runs_dir)
        except Exception:  # the record stays "cancelled by the user": still true, just less precise
            return event
        event.error = error  # type: ignore[assignment]
        return event

    def run_to_end(self) -> list[dict[str, Any]]:
        """Run all and return the saved records, in entry order."""
        paths: dict[int, str] = {}
        for index, event in self.events():
            if isinstance(event, RunFinished):
                paths[index] = event.path
        records = []
        for index in range(len(self.entries)):
            try:
                records.append(load_record(paths[index]))
            except Exception:
                records.append({"run_id": self.run_ids[index], "status": "error", "steps": [], "tool_calls": []})
        return records


def prepare_arena(
    goal: str,
    entries: Sequence[ArenaEntry],
    *,
    settings: Settings | None = None,
    overrides: Mapping[str, Any] | None = None,
    tools: Sequence[str] | None = None,
    budget_usd: float | None = None,
    approver: Approver | None = None,
) -> Arena:
    """Check and build every run before any starts. ValueError for a bad goal, count or budget;
    :class:`agent_core.errors.ProviderUnavailable` naming an entry that cannot run here."""
    from agent_core.run.prepare import prepare_run

    if not MIN_ENTRIES <= len(entries) <= MAX_ENTRIES:
        raise ValueError(f"An arena takes {MIN_ENTRIES} to {MAX_ENTRIES} provider/model entries (got {len(entries)}).")
    if budget_usd is not None and (budget_usd != budget_usd or budget_usd < 0):
        raise ValueError("The budget must be a number of US dollars, 0 or more.")
    arena_id = "arena-" + uuid.uuid4().hex[:12]
    prepared = [
        prepare_run(
            goal,
            entry.provider_id,
            model=entry.model,
            base_url=entry.base_url,
            settings=settings,
            overrides=overrides,
            tools=tools,
            provider=entry.provider,
            record_extra={"arena_id": arena_id},
            approver=approver,  # a fixed answer to calls that ask (None: rejected): an arena never waits
        )
        for entry in entries
    ]
    return Arena(
        goal=prepared[0].goal, entries=list(entries), prepared=prepared, arena_id=arena_id, budget_usd=budget_usd
    )


def verdicts(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per run: how it ended, its cost and time, and what stood out among the runs."""
    from agent_core.analysis.compare import header

    heads = [header(r) for r in records]
    done = [h for h in heads if h["status"] == "completed"]

    def best(key: str) -> Any:
        values = [h[key] for h in done if h[key] is not None]
        return min(values) if len(values) > 1 else None

    fastest, cheapest, fewest = best("duration_ms"), best("cost_usd"), best("steps")
    answers = {h["answer"] for h in done}
    lines = []
    for h in heads:
        who = f"{h['provider']} · {h['model']}"
        duration = "?" if h["duration_ms"] is None else f"{h['duration_ms'] / 1000:.1f} s"
        cost = "cost unknown" if h["cost_usd"] is None else f"${h['cost_usd']:.4f}"
        if h["status"] == "completed":
            what = f"answered in {h['steps']} step(s) with {h['tool_calls']} tool call(s)"
            if h["errors"]:
                what += f" ({h['errors']} failed)"
        elif h["status"] == "cancelled" and (h.get("error_type") == "BudgetExceeded"):
            what = "stopped: budget used up"
        else:
            what = {"max_steps": "hit the step limit", "error": "ended with an error", "cancelled": "was stopped"}.get(
                h["status"], h["status"]
            )
        tags = []
        if h["status"] == "completed":
            if fastest is not None and h["duration_ms"] == fastest:
                tags.append("fastest")
            if cheapest is not None and h["cost_usd"] == cheapest:
                tags.append("cheapest")
            if fewest is not None and h["steps"] == fewest:
                tags.append("fewest steps")
            if len(answers) > 1:
                same = sum(1 for d in done if d["answer"] == h["answer"]) - 1
                tags.append(f"same answer as {same} other(s)" if same else "a different answer")
        lines.append(f"{who}: {what}, {duration}, {cost}" + (f" — {', '.join(tags)}" if tags else "") + ".")
    return lines
